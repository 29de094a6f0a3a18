// SPDX-License-Identifier: MIT
// ident: the discrete adjoint gradient of the trajectory-matching cost against central differences of
// the cost itself (full and reduced cart–pendulum chain, digest V17), and BFGS identifying Table 10's
// parameters from synthetic measurements made with the targets.
#include "flexuq/ident/Adjoint.hpp"
#include "flexuq/ident/Bfgs.hpp"
#include "flexuq/rom/Basis.hpp"
#include "CartPendulumChain.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <cstdio>

namespace {

using namespace flexuq;
using ident::Mat;
using ident::Vec;

using ident::test::chain_basis;
using ident::test::chain_problem;

/// Central differences of J with relative step @p rel per parameter.
Vec fd_gradient(const ident::Problem& pr, const Vec& p, double rel) {
  Vec g(p.size());
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    const double e = rel * std::abs(p(i));
    Vec pp = p, pm = p;
    pp(i) += e;
    pm(i) -= e;
    g(i) = (ident::cost(pr, pp).cost - ident::cost(pr, pm).cost) / (2 * e);
  }
  return g;
}

TEST(Ident, FullAdjointGradientEqualsFiniteDifferences) {
  auto pr = chain_problem(0.5);
  pr.measured = ident::simulate_signals(pr, ident::test::chain_target());
  const Vec p = ident::test::chain_start();
  const auto ev = ident::cost_and_gradient(pr, p);
  const Vec fd = fd_gradient(pr, p, 1e-5);
  const double err = (ev.gradient - fd).cwiseAbs().maxCoeff() / fd.cwiseAbs().maxCoeff();
  std::printf("full: J = %.6e, |dJ/dp| = %.3e, max |adjoint - fd| / max |fd| = %.2e, forward %.3f s, adjoint %.3f s\n",
              ev.cost, fd.cwiseAbs().maxCoeff(), err, ev.forward_seconds, ev.adjoint_seconds);
  for (Eigen::Index i = 0; i < p.size(); ++i) std::printf("  %2ld  adjoint %+.10e  fd %+.10e\n", long(i), ev.gradient(i), fd(i));
  EXPECT_GT(ev.cost, 0);
  EXPECT_LT(err, 1e-6);
  for (Eigen::Index i = 0; i < p.size(); ++i) EXPECT_NEAR(ev.gradient(i), fd(i), 1e-6 * std::abs(fd(i))) << i;
}

TEST(Ident, ReducedAdjointGradientEqualsFiniteDifferences) {
  auto pr = chain_problem(0.5);
  pr.measured = ident::simulate_signals(pr, ident::test::chain_target());
  const Vec p = ident::test::chain_start();
  // Trained at the start and at the targets: at the start the left cart's pendula are alike and move
  // alike; the right cart's four always do (same data), so the excited motion has 2 + 4 + 1 = 7 degrees
  // of freedom, not the digest's 10.
  const auto b = chain_basis(pr, {p, ident::test::chain_target()});
  std::printf("ROM: n = %d, r = %d (%d translational, %d rotational), l = %zu of %zu rows -> %d\n", b.n(), b.r(),
              b.rank_of(rom::translational), b.rank_of(rom::rotational), static_cast<std::size_t>(b.l()), b.rows.size(),
              b.r() - b.l());
  EXPECT_EQ(b.r() - b.l(), 7); // the excited degrees of freedom (V16)
  pr.basis = &b;
  const auto ev = ident::cost_and_gradient(pr, p);
  const Vec fd = fd_gradient(pr, p, 1e-5);
  const double err = (ev.gradient - fd).cwiseAbs().maxCoeff() / fd.cwiseAbs().maxCoeff();
  std::printf("reduced: J = %.6e, max |adjoint - fd| / max |fd| = %.2e, forward %.3f s, adjoint %.3f s\n", ev.cost, err,
              ev.forward_seconds, ev.adjoint_seconds);
  for (Eigen::Index i = 0; i < p.size(); ++i) std::printf("  %2ld  adjoint %+.10e  fd %+.10e\n", long(i), ev.gradient(i), fd(i));
  EXPECT_LT(err, 1e-6);
  for (Eigen::Index i = 0; i < p.size(); ++i) EXPECT_NEAR(ev.gradient(i), fd(i), 1e-6 * std::abs(fd(i))) << i;
  // The basis holds the start's motion (trained there): the reduced J and gradient are the full ones.
  pr.basis = nullptr;
  const auto full = ident::cost_and_gradient(pr, p);
  const double gdiff = (full.gradient - ev.gradient).cwiseAbs().maxCoeff() / full.gradient.cwiseAbs().maxCoeff();
  std::printf("reduced vs full: J %.2e relative, gradient %.2e\n", std::abs(full.cost - ev.cost) / full.cost, gdiff);
  EXPECT_NEAR(ev.cost, full.cost, 1e-8 * full.cost);
  EXPECT_LT(gdiff, 1e-6);
}

TEST(Ident, ForwardRunIsTheIndex3Integrator) {
  // The identification's own forward run is mbs::Integrator's index-3 HHT (solver.formulation: index-3),
  // step for step: the adjoint differentiates the scheme the simulate verb runs.
  const auto pr = chain_problem(0.5);
  const Vec p = ident::test::chain_target();
  const auto ev = ident::cost(pr, p);
  mbs::System sys = pr.make(p);
  mbs::SolverOptions o = pr.solver;
  o.stabilized = false;
  o.tol = 1e-13;
  mbs::Integrator integ(sys, o);
  mbs::State s;
  integ.initialise(s);
  std::vector<Vec> q;
  integ.run(s, [&](const mbs::State& st, double) { q.push_back(st.q); });
  ASSERT_EQ(static_cast<Eigen::Index>(q.size()), ev.trajectory.x.cols());
  double worst = 0, scale = 0;
  for (std::size_t k = 0; k < q.size(); ++k) {
    worst = std::max(worst, (q[k] - ev.trajectory.x.col(static_cast<Eigen::Index>(k))).cwiseAbs().maxCoeff());
    scale = std::max(scale, (q[k] - q[0]).cwiseAbs().maxCoeff());
  }
  std::printf("forward run vs mbs::Integrator (index-3 hht): max |dq| = %.2e (motion %.2e)\n", worst, scale);
  EXPECT_LT(worst, 1e-9 * scale);
}

} // namespace

namespace {

struct Identified {
  ident::BfgsResult result;
  double seconds = 0;
};

Identified identify(const ident::Problem& pr) {
  auto f = [&](const Vec& p, bool want, Vec& g) {
    if (!want) return ident::cost(pr, p).cost;
    const auto ev = ident::cost_and_gradient(pr, p);
    g = ev.gradient;
    return ev.cost;
  };
  ident::BfgsOptions o;
  o.max_iterations = 100;
  o.cost_tolerance = 1e-9; // J reduced 1e9-fold
  o.gradient_tolerance = 1e-7;
  const std::clock_t t0 = std::clock();
  Identified id;
  id.result = ident::bfgs(f, ident::test::chain_start(), o, [](const Vec& p) { return p.minCoeff() > 0; });
  id.seconds = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  return id;
}

/// One line of the V17 comparison.
double report(const char* what, const Identified& id, const Vec& target) {
  const auto& last = id.result.history.back();
  const double worst = (last.p - target).cwiseQuotient(target).cwiseAbs().maxCoeff();
  std::printf("%s BFGS: %zu iterations, %d evaluations, J %.3e -> %.3e (%s), worst parameter error %.2e, %.2f s cpu\n",
              what, id.result.history.size() - 1, last.evaluations, id.result.history.front().cost, last.cost,
              id.result.reason.c_str(), worst, id.seconds);
  return worst;
}

TEST(Ident, BfgsRecoversTable10TargetsFullAndReduced) {
  // Digest V17: from Table 10's start values to its targets, measurements φ_P1…4, ω_P1…4, x_C1, ẋ_C1 made
  // by the full model at the targets (0.5 s, h = 0.02 s: the test's budget; the seed's run is 15 s).
  auto pr = chain_problem(0.5, 0.02);
  const Vec target = ident::test::chain_target();
  pr.measured = ident::simulate_signals(pr, target);
  for (std::size_t i = 0; i < pr.signals.size(); ++i) // each signal relative to its mean square
    pr.signals[i].weight = double(pr.measured.rows()) / pr.measured.col(static_cast<Eigen::Index>(i)).squaredNorm();
  const auto full = identify(pr);
  const double worst_full = report("full", full, target);
  EXPECT_TRUE(full.result.converged) << full.result.reason;
  EXPECT_LT(worst_full, 0.01);
  EXPECT_LT(full.result.history.back().cost, 1e-7 * full.result.history.front().cost);
  // The ROM from one training run at parameters that are neither start nor target (left pendula unlike
  // each other, so every planar direction of the chain is excited and V holds the motion at any p).
  Vec train(9);
  train << 2.0, 0.10, 0.13, 0.16, 0.19, 0.15, 0.2, 0.25, 0.3;
  const auto b = chain_basis(chain_problem(1.0, 0.01), {train}); // training: 1 s at h = 0.01 s, 101 snapshots
  EXPECT_EQ(b.r() - b.l(), 7);
  pr.basis = &b;
  const auto red = identify(pr);
  const double worst_red = report("reduced", red, target);
  EXPECT_TRUE(red.result.converged) << red.result.reason;
  EXPECT_LT(worst_red, 0.01);
  std::printf("V17: reduced / full identification time %.2f (r = %d, l = %d of n = 70, m = 60); seed: 2183 / 2655 s = 0.82\n",
              red.seconds / full.seconds, b.r(), b.l());
}

} // namespace
