// SPDX-License-Identifier: MIT
// Sample run:
//   mpirun -n 2 build/bin/flexuq body-at crank-scb.h5 --set E=2.05e11 -o crank-at.h5
#include "flexuq/workflow/BodyAt.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/RootTask.hpp"
#include "flexuq/io/OutputFile.hpp"
#include "flexuq/workflow/PodBody.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace flexuq::workflow {

std::size_t parameter_index(const BodySetting& s, const std::vector<std::string>& names, const std::string& path) {
  const auto it = std::find(names.begin(), names.end(), s.name);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InputError("body-at: " + path + " has no parameter '" + s.name + "' (parameters: " + list + ")");
}

void run_body_at(MPI_Comm comm_in, const BodyAtJob& job) {
  const std::string& path = job.body;
  const std::string& output = job.output;
  Comm comm(comm_in);
  MPI_Comm c = comm.get();
  // Before anything is read or computed: never write over the body file itself (issue #40).
  FLEXUQ_REQUIRE(!output.empty(), "body-at: give the output file with -o FILE.h5");
  io::check_output(c, output, {path}, "body-at -o");
  if (is_pod_body(c, path)) return pod_body_at(c, job);
  const auto sb = [&] {
    try {
      return cms::StochasticBody::read(c, path);
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) { // an HDF5 file, but broken or of another kind
      throw InputError("body-at: " + path + " is not a flexuq body file (" + e.what() + ")");
    }
  }();
  // Unset parameters sit at their means; NAME=value is physical, xi.NAME=value a germ value.
  std::vector<double> xi(sb.dim());
  for (std::size_t i = 0; i < sb.dim(); ++i) xi[i] = sb.dists[i].to_germ(sb.dists[i].mean());
  for (const auto& s : job.settings) {
    const std::size_t i = parameter_index(s, sb.names, path);
    const double v = s.value;
    const bool germ = s.germ;
    if (germ) { // a germ value outside the germ's support is no point of the expansion's domain
      const auto& d = sb.dists[i];
      const double theta = d.from_germ(v);
      FLEXUQ_REQUIRE(std::isfinite(theta) && theta >= d.lower() && theta <= d.upper(),
                     "body-at: --set " << s.shown() << ": xi." << sb.names[i] << " = " << v << " gives parameter " << sb.names[i]
                                       << " = " << theta << ", outside the support of " << d.describe() << " (xi."
                                       << sb.names[i] << " in [" << d.to_germ(d.lower()) << ", " << d.to_germ(d.upper())
                                       << "])");
    }
    xi[i] = germ ? v : sb.to_germ([&] {
      std::vector<double> th(sb.dim());
      for (std::size_t k = 0; k < sb.dim(); ++k) th[k] = sb.dists[k].from_germ(xi[k]);
      th[i] = v;
      return th;
    }())[i];
  }
  const auto body = sb.at_germ(xi);
  const auto basis = sb.basis_at_germ(xi);
  io::OutputFile out(c, output); // written under a temporary name, renamed at the end
  on_root(c, [&] {
    cms::BodyFile f(MPI_COMM_SELF, out.temp(), cms::BodyFile::Mode::create);
    f.write_reduced(body);
    const cms::BodyFile src(MPI_COMM_SELF, path);
    if (!basis.empty()) f.write_basis(sb.pce.at("basis").dims, basis.data());
    FLEXUQ_REQUIRE(f.copy_mesh_from(src), "body-at: cannot copy /mesh from " << path << " to " << output);
    std::vector<double> theta(sb.dim());
    for (std::size_t k = 0; k < sb.dim(); ++k) theta[k] = sb.dists[k].from_germ(xi[k]);
    f.write_body_at_source(path, theta, &xi);
  });
  out.commit();
  std::ostringstream os;
  os << "flexuq body-at: " << path << " at";
  for (std::size_t k = 0; k < sb.dim(); ++k)
    os << " " << sb.names[k] << " = " << std::setprecision(6) << sb.dists[k].from_germ(xi[k]) << " (xi " << xi[k] << ")";
  os << "\n  reduced free-free frequencies [Hz]:";
  for (Eigen::Index i = 0; i < std::min<Eigen::Index>(body.checkout.reduced_hz.size(), 10); ++i)
    os << " " << body.checkout.reduced_hz(i);
  os << "\n  results: " << output << " (/reduced, the layout of flexuq reduce)";
  log::info(c, os.str());
}

} // namespace flexuq::workflow
