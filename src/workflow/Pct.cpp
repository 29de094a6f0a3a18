// SPDX-License-Identifier: MIT
// `flexuq simulate` with `uncertainty: {method: galerkin}`: intrusive PCT of a planar mechanism, the run
// and its result file (moved from app/PctCommand, issue #33's app bound).
//   build/bin/flexuq simulate configs/slider-crank-seed004-pct.yaml
#include "flexuq/workflow/Pct.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>

namespace flexuq::workflow {

SobolShares sobol_from_chaos(const uq::MultiIndexSet& basis, const double* coef) {
  const int d = basis.dim(), T = basis.size();
  SobolShares s{std::vector<double>(static_cast<std::size_t>(d), 0.0), std::vector<double>(static_cast<std::size_t>(d), 0.0)};
  double var = 0;
  for (int a = 1; a < T; ++a) var += coef[a] * coef[a];
  if (var <= 0) return s;
  for (int a = 1; a < T; ++a) {
    const double share = coef[a] * coef[a] / var;
    int in = 0, last = -1;
    for (int i = 0; i < d; ++i)
      if (basis(a, i) > 0) {
        ++in;
        last = i;
        s.total[static_cast<std::size_t>(i)] += share;
      }
    if (in == 1) s.first[static_cast<std::size_t>(last)] += share;
  }
  return s;
}

namespace {

/// The integrated histories: time, the Galerkin q and λ, and per output its mean, std and chaos
/// coefficients (T per time).
struct PctHistory {
  std::vector<double> time, q, lambda;
  std::vector<std::vector<double>> mean, sd, coef;
};

void write_pct(const std::string& path, const PctJob& job, const pct::GalerkinSystem& sys, const PctHistory& h,
               const pct::AlphaStats& st, double wall) {
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::create);
  const int n = sys.n(), m = sys.m(), T = sys.terms(), no = static_cast<int>(job.outputs.size());
  for (const char* g : {"/parameters", "/statistics", "/pce", "/galerkin", "/solver"}) f.ensure_group(g);
  const auto nt = static_cast<std::uint64_t>(h.time.size());
  f.write_replicated("/time", {nt}, h.time.data());
  std::vector<std::string> pnames;
  for (const auto& in : job.inputs) pnames.push_back(in.name);
  f.write_strings("/parameters/names", pnames);
  f.write_strings("/parameters/distributions", job.distributions);
  const uq::MultiIndexSet& basis = sys.basis();
  std::vector<std::int64_t> mi;
  for (int a = 0; a < T; ++a)
    for (int d = 0; d < basis.dim(); ++d) mi.push_back(basis(a, d));
  const std::vector<std::string> names = job.mechanism.output_names();
  for (int o = 0; o < no; ++o) {
    const std::string nm = names[static_cast<std::size_t>(job.outputs[static_cast<std::size_t>(o)])];
    f.ensure_group("/statistics/" + nm);
    f.ensure_group("/pce/" + nm);
    f.write_replicated("/statistics/" + nm + "/mean", {nt}, h.mean[o].data());
    f.write_replicated("/statistics/" + nm + "/std", {nt}, h.sd[o].data());
    f.write_attribute("/statistics/" + nm, "moments_from", std::string("pce surrogate"));
    // Sobol' indices from the chaos coefficients, (d, n_t)
    const int d = basis.dim();
    std::vector<double> first(static_cast<std::size_t>(d) * nt, 0.0), total(first);
    for (std::uint64_t k = 0; k < nt; ++k) {
      const SobolShares s = sobol_from_chaos(basis, &h.coef[o][k * T]);
      for (int i = 0; i < d; ++i) {
        first[static_cast<std::size_t>(i) * nt + k] = s.first[static_cast<std::size_t>(i)];
        total[static_cast<std::size_t>(i) * nt + k] = s.total[static_cast<std::size_t>(i)];
      }
    }
    f.write_replicated("/statistics/" + nm + "/sobol_first", {static_cast<std::uint64_t>(d), nt}, first.data());
    f.write_replicated("/statistics/" + nm + "/sobol_total", {static_cast<std::uint64_t>(d), nt}, total.data());
    // (P, n_t) like a campaign's (P, n_out): column k is the output at /time[k]
    std::vector<double> ct(static_cast<std::size_t>(T) * nt);
    for (std::uint64_t k = 0; k < nt; ++k)
      for (int a = 0; a < T; ++a) ct[static_cast<std::size_t>(a) * nt + k] = h.coef[o][k * T + a];
    f.write_replicated("/pce/" + nm + "/coefficients", {static_cast<std::uint64_t>(T), nt}, ct.data());
    f.write_replicated("/pce/" + nm + "/multi_indices", {static_cast<std::uint64_t>(T), static_cast<std::uint64_t>(basis.dim())}, mi.data());
    f.write_attribute("/pce/" + nm, "fit", std::string("galerkin"));
    f.write_attribute("/pce/" + nm, "order", static_cast<std::int64_t>(job.galerkin.order));
  }
  std::vector<std::string> cn;
  for (int k = 0; k < job.mechanism.coordinates(); ++k) cn.push_back(job.mechanism.coordinate_name(k));
  f.write_strings("/galerkin/coordinate_names", cn);
  f.write_replicated("/galerkin/q", {nt, static_cast<std::uint64_t>(n)}, h.q.data());
  f.write_replicated("/galerkin/lambda", {nt, static_cast<std::uint64_t>(m)}, h.lambda.data());
  f.write_attribute("/galerkin", "method", std::string("galerkin"));
  f.write_attribute("/galerkin", "route", std::string(job.galerkin.route == pct::Route::variational ? "variational" : "traditional"));
  f.write_attribute("/galerkin", "order", static_cast<std::int64_t>(job.galerkin.order));
  f.write_attribute("/galerkin", "terms", static_cast<std::int64_t>(T));
  f.write_attribute("/galerkin", "exact", static_cast<std::int64_t>(sys.exact() ? 1 : 0));
  f.write_attribute("/galerkin", "quadrature_points", static_cast<std::int64_t>(sys.points()));
  f.write_attribute("/galerkin", "integrand_degree", static_cast<std::int64_t>(sys.integrand_degree()));
  f.write_attribute("/galerkin", "output_points", static_cast<std::int64_t>(job.output_points));
  f.write_attribute("/solver", "type", std::string("generalized-alpha"));
  f.write_attribute("/solver", "rho_inf", job.solver.rho_inf);
  f.write_attribute("/solver", "step", job.solver.step);
  f.write_attribute("/solver", "steps", static_cast<std::int64_t>(st.steps));
  f.write_attribute("/solver", "newton_iterations", static_cast<std::int64_t>(st.newton_iterations));
  f.write_attribute("/solver", "factorizations", static_cast<std::int64_t>(st.factorizations));
  f.write_attribute("/solver", "max_drift", st.max_drift);
  f.write_attribute("/solver", "wall_seconds", wall);
}

} // namespace

void run_pct(MPI_Comm comm, const PctJob& job) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto sys = std::make_unique<pct::GalerkinSystem>(job.mechanism, job.inputs, job.galerkin);
  job.solver.validate();
  const int n = sys->n(), m = sys->m(), T = sys->terms(), no = static_cast<int>(job.outputs.size());
  PctHistory h;
  h.mean.resize(static_cast<std::size_t>(no));
  h.sd = h.coef = h.mean;
  pct::DaeState s;
  try {
    s = sys->initial_state(job.start);
  } catch (const InputError& e) { // the job's mechanism admits no configuration: name the job file
    throw InputError(job.source + ": " + e.what());
  }
  const pct::AlphaStats st = pct::integrate_alpha(*sys, s, job.solver, [&](const pct::DaeState& x) {
    h.time.push_back(x.t);
    h.q.insert(h.q.end(), x.q.data(), x.q.data() + n);
    h.lambda.insert(h.lambda.end(), x.lambda.data(), x.lambda.data() + m);
    pct::Vec mu, sg;
    pct::Mat c;
    sys->output_moments(x.q, job.output_points, mu, sg, c);
    for (int o = 0; o < no; ++o) {
      const int j = job.outputs[static_cast<std::size_t>(o)];
      h.mean[o].push_back(mu[j]);
      h.sd[o].push_back(sg[j]);
      for (int a = 0; a < T; ++a) h.coef[o].push_back(c(j, a));
    }
  });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  io::OutputFile out(comm, job.output_path);
  if (rank == 0) write_pct(out.temp(), job, *sys, h, st, wall);
  out.commit();
  if (rank == 0)
    std::printf("pct: order %d, %d coefficients per coordinate, %d + %d unknowns, %s projection (%d points per "
                "input), %ld steps, %.2f s -> %s\n",
                job.galerkin.order, T, n, m, sys->exact() ? "exact" : "pseudo-spectral", sys->points(), st.steps, wall,
                job.output_path.c_str());
}

} // namespace flexuq::workflow
