// SPDX-License-Identifier: MIT
// `flexuq campaign` with method.type: galerkin (issue #7 / tracker 11) end to end through the job
// file, on a two-material cantilever bar (tests/sg/data/two_material_bar.inp, two log-normal moduli):
// the SG result in the campaign layout against a collocation campaign of the same job, against a
// Monte Carlo campaign of direct solves (plus 10⁶ evaluations of the SG expansion), and 1 = N ranks.
#include "SgTestUtil.hpp"
#include "TestUtil.hpp"

#include "flexuq/app/Commands.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/uq/Pce.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace flexuq;

namespace {

using sgtest::world_rank;
using sgtest::world_size;


const double kEl = 2.1e11, kEr = 2.1e11, kSl = 2.1e10, kSr = 1.05e10; // CoV 10 % and 5 %

// The job without its method and output; `extra` is appended (method, campaign, …).
std::string job(const std::string& extra) {
  char buf[1200];
  std::snprintf(buf, sizeof buf,
                "model:\n  mesh: %s/tests/sg/data/two_material_bar.inp\n"
                "  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n"
                "  materials: {LEFT: {E: 2.1e11, nu: 0.3, rho: 7850}, RIGHT: {E: 2.1e11, nu: 0.3, rho: 7850}}\n"
                "  fixed: [XMIN]\n"
                "parameters:\n"
                "  E_left: {dist: lognormal, mean: %.17g, std: %.17g, param: E, set: LEFT}\n"
                "  E_right: {dist: lognormal, mean: %.17g, std: %.17g, param: E, set: RIGHT}\n"
                "outputs: {frequencies: 4}\n",
                test::source_dir().c_str(), kEl, kSl, kEr, kSr);
  return buf + extra;
}

const std::string kGalerkin =
    "method:\n  type: galerkin\n  galerkin: {order: 3, operator_order: 4, solver: inverse-subspace, "
    "normalization: galerkin}\n";

void run(MPI_Comm comm, const std::string& yaml, const std::string& out, bool resume = false) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    std::remove(out.c_str());
    [[maybe_unused]] const int rc = std::system(("rm -rf '" + out + ".journal'").c_str());
    if (!resume) std::remove((out + ".sg_checkpoint.h5").c_str());
  }
  MPI_Barrier(comm);
  const auto cfg = io::Config::from_string(yaml + "output: " + out + "\n", "<test>");
  app::run_campaign(comm, cfg, resume);
  MPI_Barrier(comm);
}

bool exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

std::string name(const std::string& stem) { return stem + "_np" + std::to_string(world_size()) + ".h5"; }

/// The Galerkin campaign of the job (order 3, operator order 4), run once for the tests below.
const std::string& galerkin_result() {
  static const std::string out = [] {
    const std::string o = name("sgc_galerkin");
    run(MPI_COMM_WORLD, job(kGalerkin), o);
    return o;
  }();
  return out;
}

std::vector<double> read(const std::string& file, const std::string& dset) {
  io::H5File f(MPI_COMM_SELF, file, io::H5File::Mode::read);
  return f.read_all(dset);
}

uq::StochasticSpace space() {
  uq::StochasticSpace s;
  s.add("E_left", uq::Distribution::lognormal_from_moments(kEl, kSl));
  s.add("E_right", uq::Distribution::lognormal_from_moments(kEr, kSr));
  return s;
}

/// The PCE stored under /pce/<name> (coefficients P × n_out, multi-indices P × d).
uq::Pce read_pce(const std::string& file, const std::string& output) {
  io::H5File f(MPI_COMM_SELF, file, io::H5File::Mode::read);
  const auto shape = f.shape("/pce/" + output + "/coefficients");
  const auto c = f.read_all("/pce/" + output + "/coefficients");
  const auto mi = f.read_all_int("/pce/" + output + "/multi_indices");
  const auto P = static_cast<int>(shape[0]), n = static_cast<int>(shape[1]);
  const int d = static_cast<int>(mi.size()) / P;
  std::vector<std::vector<int>> idx(P, std::vector<int>(d));
  for (int t = 0; t < P; ++t)
    for (int i = 0; i < d; ++i) idx[t][i] = static_cast<int>(mi[static_cast<std::size_t>(t * d + i)]);
  Eigen::MatrixXd C(P, n);
  for (int t = 0; t < P; ++t)
    for (int k = 0; k < n; ++k) C(t, k) = c[static_cast<std::size_t>(t * n + k)];
  return uq::Pce(space().families(), uq::MultiIndexSet::from_indices(d, idx), C);
}

} // namespace

// SG against a collocation campaign (5×5 tensor Gauss–Hermite nodes, projection of order 3) of the
// same job: same layout, and the moments agree within the truncation errors of order 3 at CoV
// 10 %/5 % (bounds: 1e-8 relative on the mean, 1e-5 on the std and the Sobol' indices; measured
// 2e-11 and 2e-8).
TEST(GalerkinCampaign, AgreesWithCollocationCampaign) {
  const std::string& sg = galerkin_result();
  const std::string co = name("sgc_collocation");
  run(MPI_COMM_WORLD, job("method: {type: collocation, pce: {order: 3, grid: tensor, points: 5}}\n"), co);
  if (world_rank() != 0) return;
  // The campaign layout, written by the same writer.
  for (const char* d : {"mean", "std", "skewness", "kurtosis", "quantiles", "quantile_levels", "sobol_first",
                        "sobol_total", "pdf", "pdf_grid"})
    EXPECT_EQ(read(sg, std::string("/statistics/frequencies/") + d).size(),
              read(co, std::string("/statistics/frequencies/") + d).size())
        << d;
  EXPECT_EQ(read(sg, "/pce/frequencies/coefficients").size(), 10u * 4u); // P = 10 (d = 2, order 3)
  EXPECT_EQ(read(sg, "/pce/eigenvalues/coefficients").size(), 10u * 4u);
  {
    io::H5File f(MPI_COMM_SELF, sg, io::H5File::Mode::read);
    EXPECT_EQ(f.read_attribute_string("/samples", "method"), "galerkin");
    const auto dims = f.shape("/pce/mode_shapes/coefficients");
    ASSERT_EQ(dims.size(), 4u);
    EXPECT_EQ(dims[0], 81u);  // nodes (9 × 3 × 3)
    EXPECT_EQ(dims[1], 3u);   // dofs per node
    EXPECT_EQ(dims[2], 4u);   // modes
    EXPECT_EQ(dims[3], 10u);  // P_β
    EXPECT_EQ(f.read_attribute_int("/galerkin", "converged"), 1);
  }
  const auto ms = read(sg, "/statistics/frequencies/mean"), mc = read(co, "/statistics/frequencies/mean");
  const auto ss = read(sg, "/statistics/frequencies/std"), sc = read(co, "/statistics/frequencies/std");
  const auto s1s = read(sg, "/statistics/frequencies/sobol_first"), s1c = read(co, "/statistics/frequencies/sobol_first");
  for (int k = 0; k < 4; ++k) {
    // Measured: 2e-11 on the mean, 2e-8 on the std (both are projections of converged expansions).
    EXPECT_NEAR(ms[k] / mc[k] - 1, 0.0, 1e-8) << "mode " << k;
    EXPECT_NEAR(ss[k] / sc[k] - 1, 0.0, 1e-5) << "mode " << k;
    EXPECT_GT(sc[k] / mc[k], 0.01) << "the spread must show (mode " << k << ")";
  }
  for (std::size_t i = 0; i < s1s.size(); ++i) EXPECT_NEAR(s1s[i], s1c[i], 1e-5) << "sobol_first entry " << i;
  // The eigenvalue PCE and the frequency PCE describe the same variable: ω² = (2π f)².
  const auto ls = read(sg, "/statistics/eigenvalues/mean");
  for (int k = 0; k < 4; ++k) {
    const double w = 2 * M_PI * ms[k];
    EXPECT_NEAR(ls[k] / (w * w + std::pow(2 * M_PI * ss[k], 2)) - 1, 0.0, 1e-6) << "E[λ] = (2π)²(E[f]² + Var f)";
  }
}

// SG against Monte Carlo: a Monte Carlo campaign of direct FE solves (40 samples) against the SG
// frequency expansion evaluated at the same germ points, and 10⁶ evaluations of the expansion against
// its exact moments and against the direct samples' statistics.
TEST(GalerkinCampaign, AgreesWithMonteCarloOfDirectSolves) {
  const std::string& sg = galerkin_result();
  const std::string mc = name("sgc_monte_carlo");
  run(MPI_COMM_WORLD, job("method: {type: monte-carlo, samples: 40}\ncampaign: {seed: 11}\n"), mc);
  if (world_rank() != 0) return;
  const auto pce = read_pce(sg, "frequencies");
  const auto germ = read(mc, "/samples/germ"), y = read(mc, "/outputs/frequencies");
  const int N = 40, d = 2, n = 4;
  Eigen::MatrixXd X(N, d), Y(N, n);
  for (int r = 0; r < N; ++r) {
    for (int i = 0; i < d; ++i) X(r, i) = germ[static_cast<std::size_t>(r * d + i)];
    for (int k = 0; k < n; ++k) Y(r, k) = y[static_cast<std::size_t>(r * n + k)];
  }
  const Eigen::MatrixXd F = pce.evaluate(X);
  // Pointwise: the order-3 surrogate of a CoV-10 % input is accurate to ~1e-6 inside ±3σ.
  EXPECT_LT(((F - Y).cwiseQuotient(Y)).cwiseAbs().maxCoeff(), 2e-5);
  // 10⁶ surrogate evaluations: mean and std within 4 standard errors of the exact PCE moments, and
  // the direct samples' mean within 4 standard errors of the SG mean.
  const auto sp = space();
  uq::Sampler s(uq::SamplingMethod::MonteCarlo, d, 2024, 0);
  const Eigen::MatrixXd G = pce.evaluate(sp.germ_from_uniform(s.samples(0, 1000000)));
  const auto mean = read(sg, "/statistics/frequencies/mean"), sd = read(sg, "/statistics/frequencies/std");
  for (int k = 0; k < n; ++k) {
    const double m = G.col(k).mean();
    const double v = (G.col(k).array() - m).square().sum() / (G.rows() - 1);
    EXPECT_NEAR(m, mean[k], 4 * sd[k] / 1000.0) << "mode " << k;
    EXPECT_NEAR(std::sqrt(v) / sd[k] - 1, 0.0, 4 * std::sqrt(0.5 / 1e6) * 3) << "mode " << k; // kurtosis ≈ 3
    EXPECT_NEAR(Y.col(k).mean(), mean[k], 4 * sd[k] / std::sqrt(double(N))) << "mode " << k;
  }
}

// 1 rank = N groups of 1 rank = 1 group of N ranks: the same eigenvalue and frequency coefficients
// to 1e-10, the same mode-shape coefficients up to each mode's sign (order 2: P = 6, kept small).
// A Galerkin campaign stopped after 2 sweeps (max_it: 2 leaves the checkpoint a kill or a SLURM
// time-out leaves: the one of the last finished sweep) and resumed gives the uninterrupted results
// bit for bit; the checkpoint goes once the results are written. A checkpoint of another job (here
// order 2 against order 3) is not used: the resumed run equals a fresh one.
TEST(GalerkinCampaign, ResumeContinuesBitForBit) {
  const std::string ref = galerkin_result();
  const std::string out = name("sgc_resume"), ckpt = out + ".sg_checkpoint.h5";
  const std::string stopped = "method:\n  type: galerkin\n  galerkin: {order: 3, operator_order: 4, max_it: 2}\n";
  run(MPI_COMM_WORLD, job(stopped), out);
  EXPECT_TRUE(exists(ckpt));
  if (world_rank() == 0) {
    const auto a = read(ref, "/pce/eigenvalues/coefficients"), b = read(out, "/pce/eigenvalues/coefficients");
    EXPECT_NE(a, b) << "two sweeps already give the converged result: the test cannot see a resume";
  }
  run(MPI_COMM_WORLD, job(kGalerkin), out, /*resume=*/true);
  EXPECT_FALSE(exists(ckpt));
  if (world_rank() == 0) {
    for (const char* d : {"/pce/eigenvalues/coefficients", "/pce/frequencies/coefficients",
                          "/pce/mode_shapes/coefficients"})
      EXPECT_EQ(read(ref, d), read(out, d)) << d;
  }

  const std::string small = "method:\n  type: galerkin\n  galerkin: {order: 2, operator_order: 3}\n";
  const std::string fresh = name("sgc_resume_fresh");
  run(MPI_COMM_WORLD, job(small), fresh);
  run(MPI_COMM_WORLD, job(stopped), out);
  run(MPI_COMM_WORLD, job(small), out, /*resume=*/true);
  if (world_rank() == 0) {
    EXPECT_EQ(read(fresh, "/pce/eigenvalues/coefficients"), read(out, "/pce/eigenvalues/coefficients"));
  }
}

// --resume with the other preconditioner (method.galerkin.preconditioner, docs/sg.md): the checkpoint
// holds the iterate, not the preconditioner, so the sweeps go on with the new one. The result is the
// uninterrupted run's to the PCG tolerance (not bit for bit: the iterates differ), and the file names
// both preconditioners; an uninterrupted run names its own and no other.
TEST(GalerkinCampaign, ResumeWithTheOtherPreconditionerContinues) {
  const std::string ref = galerkin_result(); // kronecker (the default), uninterrupted
  const std::string out = name("sgc_resume_pre"), ckpt = out + ".sg_checkpoint.h5";
  run(MPI_COMM_WORLD,
      job("method:\n  type: galerkin\n  galerkin: {order: 3, operator_order: 4, max_it: 2, preconditioner: mean}\n"),
      out);
  ASSERT_TRUE(exists(ckpt)); // max_it reached unconverged: written whatever campaign.checkpoint_seconds
  if (world_rank() == 0) {
    io::H5File f(MPI_COMM_SELF, out, io::H5File::Mode::read);
    EXPECT_EQ(f.read_attribute_string("/galerkin", "preconditioner"), "mean");
    EXPECT_EQ(f.read_attribute_int("/galerkin", "converged"), 0);
  }
  run(MPI_COMM_WORLD, job(kGalerkin), out, /*resume=*/true);
  EXPECT_FALSE(exists(ckpt));
  if (world_rank() != 0) return;
  io::H5File f(MPI_COMM_SELF, out, io::H5File::Mode::read), g(MPI_COMM_SELF, ref, io::H5File::Mode::read);
  EXPECT_EQ(f.read_attribute_string("/galerkin", "preconditioner"), "kronecker");
  EXPECT_EQ(f.read_attribute_string("/galerkin", "resumed_from_preconditioner"), "mean");
  EXPECT_EQ(f.read_attribute_int("/galerkin", "converged"), 1);
  EXPECT_EQ(g.read_attribute_string("/galerkin", "preconditioner"), "kronecker");
  EXPECT_ANY_THROW(g.read_attribute_string("/galerkin", "resumed_from_preconditioner"));
  // Against the uninterrupted run: the eigenvalue coefficients relative to the mean eigenvalue.
  const auto a = read(ref, "/pce/eigenvalues/coefficients"), b = read(out, "/pce/eigenvalues/coefficients");
  ASSERT_EQ(a.size(), b.size());
  const std::size_t n = 4; // modes (outputs.frequencies); row k of the P × n coefficients
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / std::abs(a[i % n]));
  EXPECT_LT(worst, 1e-9);
  std::printf("resumed with the other preconditioner: eigenvalue coefficients within %.2e of the mean eigenvalue\n",
              worst);
}

TEST(GalerkinCampaign, RankCountsGiveTheSameResults) {
  const std::string small = "method:\n  type: galerkin\n  galerkin: {order: 2, operator_order: 3}\n";
  const std::string ref = name("sgc_ranks_ref");
  if (world_rank() == 0) run(MPI_COMM_SELF, job(small), ref);
  MPI_Barrier(MPI_COMM_WORLD);
  // N groups of 1, one group of N, and on 4 ranks 2 groups of 2 (the partitions must agree between
  // groups: the default Scotch partition is computed on one process, the same in every group).
  std::vector<int> layouts{1};
  if (world_size() == 4) layouts.push_back(2);
  if (world_size() > 1) layouts.push_back(world_size());
  for (int rps : layouts) {
    const std::string out = name("sgc_ranks_rps" + std::to_string(rps));
    run(MPI_COMM_WORLD, job(small + "campaign: {ranks_per_sample: " + std::to_string(rps) + "}\n"), out);
    if (world_rank() != 0) continue;
    for (const char* d : {"/pce/eigenvalues/coefficients", "/pce/frequencies/coefficients"}) {
      const auto a = read(ref, d), b = read(out, d);
      ASSERT_EQ(a.size(), b.size());
      double scale = 0, diff = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        scale = std::max(scale, std::abs(a[i]));
        diff = std::max(diff, std::abs(a[i] - b[i]));
      }
      EXPECT_LT(diff, 1e-10 * scale) << d << ", ranks per sample " << rps;
    }
    // Mode shapes [node][dof][mode][b]: fix each mode's sign by its block-0 inner product.
    const auto a = read(ref, "/pce/mode_shapes/coefficients"), b = read(out, "/pce/mode_shapes/coefficients");
    ASSERT_EQ(a.size(), b.size());
    const std::size_t P = 6, n = 4, rows = a.size() / (P * n);
    for (std::size_t s = 0; s < n; ++s) {
      double dot = 0, norm = 0, diff = 0;
      for (std::size_t r = 0; r < rows; ++r) dot += a[(r * n + s) * P] * b[(r * n + s) * P];
      const double sign = dot < 0 ? -1 : 1;
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t k = 0; k < P; ++k) {
          const std::size_t i = (r * n + s) * P + k;
          norm = std::max(norm, std::abs(a[i]));
          diff = std::max(diff, std::abs(a[i] - sign * b[i]));
        }
      EXPECT_LT(diff, 1e-8 * norm) << "mode " << s << ", ranks per sample " << rps;
    }
  }
}
