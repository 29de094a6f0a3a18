// SPDX-License-Identifier: MIT
#include "flexuq/workflow/Reduce.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/RootTask.hpp"
#include "flexuq/fe/StressRecovery.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

namespace flexuq::workflow {

namespace {

std::string prefix(const ReduceJob& job) { return job.source.empty() ? std::string() : job.source + ": "; }

/// "<source>: <option><text>", the option named by the CLI (OptionError), @p text as written.
[[noreturn]] void fail(const ReduceJob& job, const char* option, const std::string& text) {
  throw OptionError(option, "{}").wrapped(prefix(job), text);
}

/// What the component must give for the job: coordinates for gcms, rbe2/rbe3 and stress modes, solids
/// for stress modes.
void check_component(const fe::Component& comp, const ReduceJob& job) {
  const std::string& src = comp.mesh().source;
  if (!comp.has_coordinates()) {
    if (job.build.method == cms::Method::gcms) fail(job, "method", " gcms needs node coordinates; " + src + " gives none");
    for (const auto& i : job.interfaces)
      FLEXUQ_REQUIRE(i.kind == cms::InterfaceKind::all_dofs,
                     prefix(job) << "the rbe2/rbe3 interface on set " << i.set << " needs node coordinates; " << src
                                 << " gives none (add x y z to the label file)");
  }
  const auto& types = comp.mesh().elem_type;
  if (job.stress_modes && !(comp.has_coordinates() && (std::any_of(types.begin(), types.end(), io::is_solid) ||
                                                       std::any_of(types.begin(), types.end(), io::is_plane))))
    fail(job, "stress_modes", " needs solid elements (or 2-D ones) with coordinates; " + src +
                                  " has none (beam stresses and external matrices are not recovered)");
}

std::string summary(MPI_Comm c, const cms::ReduceResult& red, const cms::WorkSpace& ws, const ReduceJob& job,
                    const log::PhaseTimes& times) {
  const cms::ReducedBasis& rb = red.basis;
  std::ostringstream os;
  os << "  basis: " << rb.n_columns() << " columns (" << ws.n_boundary() << " boundary coordinates, "
     << rb.mode_eigenvalues.size() << " " << enum_name(cms::kModeInterfaceNames, rb.mode_interface) << "-interface modes";
  if (!rb.fixed_interfaces.empty()) {
    os << ", held fixed:";
    for (const auto& s : rb.fixed_interfaces) os << " " << s;
  }
  os << "); reciprocal condition of the scaled reduced mass " << std::scientific << std::setprecision(2)
     << rb.basis_rcond << "\n";
  os << cms::checkout_summary(rb, red.checkout);
  const auto& gs = red.body.gs; // the generalised superelement's coordinates (cms/GsSplitBody.hpp)
  if (gs.present())
    os << "  interface/internal split (/reduced/gs): rcond of the interface block " << gs.psi_rcond << "\n";
  else if (!gs.refused.empty())
    os << "  no interface/internal split (/reduced/gs/refused): " << gs.refused << "\n";
  os << "  per-phase wall time:\n" << times.summary(c);
  os << "  results: " << job.output << " (+ .xdmf)";
  if (!job.matrix_market.empty()) os << ", " << job.matrix_market << "_K.mtx, " << job.matrix_market << "_M.mtx";
  if (!job.op4.empty())
    os << ", " << job.op4 << " (OP4: KAA, MAA, BDOF" << (job.op4_options.phi_sets.empty() ? "" : ", PHI, PHIDOF") << ")";
  return os.str();
}

} // namespace

cms::ReduceResult run_reduce(MPI_Comm c, const fe::Component& comp, const ReduceJob& job, log::PhaseTimes& times) {
  check_component(comp, job);
  std::unique_ptr<cms::WorkSpace> ws;
  {
    log::Phase p(c, "interfaces", &times);
    try {
      ws = std::make_unique<cms::WorkSpace>(comp, job.interfaces);
    } catch (const InputError& e) { // the job file, then the key and the set
      rethrow_input_error(e, prefix(job));
    }
  }
  log::info(c, "  DOFs: " + std::to_string(comp.dofs().global_size()) + " free, " + std::to_string(ws->n_boundary()) +
                   " boundary coordinates");
  cms::ReduceResult red = cms::reduce(*ws, job.reducer, job.build, job.free_free, &times);
  const cms::ReducedBasis& rb = red.basis;
  {
    log::Phase p(c, "write results", &times);
    io::OutputFile out(c, job.output);
    cms::write_reduced_file(out.temp(), *ws, rb, red.body, times.entries());
    if (job.stress_modes) {
      // Modal stress recovery: the nodal stresses of every basis column (fe/StressRecovery.hpp),
      // from the basis just written, on rank 0 (mesh and materials are replicated).
      on_root(c, [&] {
        cms::BodyFile f(MPI_COMM_SELF, out.temp(), cms::BodyFile::Mode::append);
        const auto shape = f.basis_shape();
        const auto basis = f.read_basis();
        const auto S = fe::nodal_stresses(comp, basis.data(), static_cast<int>(shape[1]), static_cast<int>(shape[2]));
        f.write_stress_modes(shape[0], shape[2], S, fe::kStressComponents);
      });
    }
    std::optional<io::OutputFile> mm, op4;
    if (!job.matrix_market.empty()) {
      mm.emplace(c, job.matrix_market);
      cms::write_matrix_market(c, mm->temp(), rb);
    }
    if (!job.op4.empty()) {
      op4.emplace(c, job.op4);
      try {
        cms::write_reduced_op4(op4->temp(), *ws, rb, job.op4_options);
      } catch (const InputError& e) {
        fail(job, "op4", std::string(": ") + e.what());
      }
    }
    // Every file written: only now do they replace older results.
    out.commit();
    if (mm) mm->commit();
    if (op4) op4->commit();
  }
  log::info(c, summary(c, red, *ws, job, times));
  return red;
}

} // namespace flexuq::workflow
