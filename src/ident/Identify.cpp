// SPDX-License-Identifier: MIT
// The identification run and its result file (ident/Identify.hpp, docs/hdf5-schema.md "identify").
#include "flexuq/ident/Identify.hpp"

#include "flexuq/io/Hdf5File.hpp"

#include <cstdint>
#include <ctime>

namespace flexuq::ident {

IdentifyResult identify(const IdentifyJob& job) {
  auto f = [&](const Vec& p, bool want, Vec& g) {
    if (!want) return cost(job.problem, p).cost;
    const auto ev = cost_and_gradient(job.problem, p);
    g = ev.gradient;
    return ev.cost;
  };
  IdentifyResult r;
  const std::clock_t t0 = std::clock();
  r.bfgs = bfgs(f, job.start, job.bfgs, [](const Vec& p) { return p.minCoeff() > 0; });
  r.cpu_seconds = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  r.fitted = simulate_signals(job.problem, r.bfgs.history.back().p);
  return r;
}

namespace {

/// A row-major rows × cols dataset.
void write_table(io::H5File& f, const std::string& name, const Mat& a) {
  const Mat t = a.transpose();
  f.write_replicated(name, {static_cast<std::uint64_t>(a.rows()), static_cast<std::uint64_t>(a.cols())}, t.data());
}

void write_vector(io::H5File& f, const std::string& name, const Vec& v) {
  f.write_replicated(name, {static_cast<std::uint64_t>(v.size())}, v.data());
}

} // namespace

void write_identification(const IdentifyJob& job, const IdentifyResult& r) {
  io::H5File f(MPI_COMM_SELF, job.output_path, io::H5File::Mode::create);
  f.ensure_group("/identify");
  f.ensure_group("/identify/history");
  const auto& h = r.bfgs.history;
  const auto np = job.start.size();
  const auto ni = static_cast<Eigen::Index>(h.size());
  Mat p(ni, np);
  Vec c(ni), g(ni);
  std::vector<std::int64_t> ev(h.size());
  for (Eigen::Index k = 0; k < ni; ++k) {
    const auto& it = h[static_cast<std::size_t>(k)];
    p.row(k) = it.p.transpose();
    c(k) = it.cost;
    g(k) = it.gradient_norm;
    ev[static_cast<std::size_t>(k)] = it.evaluations;
  }
  f.write_strings("/identify/parameter_names", job.names);
  write_vector(f, "/identify/start", job.start);
  if (job.target.size() > 0) write_vector(f, "/identify/target", job.target);
  write_vector(f, "/identify/result", h.back().p);
  write_table(f, "/identify/history/parameters", p);
  write_vector(f, "/identify/history/cost", c);
  write_vector(f, "/identify/history/gradient_norm", g);
  f.write_replicated("/identify/history/evaluations", {static_cast<std::uint64_t>(ev.size())}, ev.data());
  std::vector<std::string> sn;
  for (const auto& s : job.problem.signals) sn.push_back(s.name);
  f.write_strings("/identify/signal_names", sn);
  const int n = job.problem.steps();
  Vec t(n + 1);
  for (int k = 0; k <= n; ++k) t(k) = job.problem.solver.start + k * job.problem.solver.step;
  write_vector(f, "/identify/time", t);
  write_table(f, "/identify/measured", job.problem.measured);
  write_table(f, "/identify/fitted", r.fitted);
  f.write_attribute("/identify", "model", job.model_path);
  f.write_attribute("/identify", "reduced", static_cast<std::int64_t>(job.problem.basis != nullptr));
  if (job.problem.basis) {
    f.write_attribute("/identify", "rom", job.rom_path);
    f.write_attribute("/identify", "r", static_cast<std::int64_t>(job.problem.basis->r()));
    f.write_attribute("/identify", "l", static_cast<std::int64_t>(job.problem.basis->l()));
  }
  f.write_attribute("/identify", "iterations", static_cast<std::int64_t>(h.size() - 1));
  f.write_attribute("/identify", "converged", static_cast<std::int64_t>(r.bfgs.converged));
  f.write_attribute("/identify", "stop", r.bfgs.reason);
  f.write_attribute("/identify", "cpu_seconds", r.cpu_seconds);
}

} // namespace flexuq::ident
