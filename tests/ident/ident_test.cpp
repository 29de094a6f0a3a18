// SPDX-License-Identifier: MIT
// ident: the discrete adjoint gradient of the trajectory-matching cost against central differences of
// the cost itself (full and reduced cart–pendulum chain, digest V17), and BFGS identifying Table 10's
// parameters from synthetic measurements made with the targets.
#include "flexuq/ident/Adjoint.hpp"
#include "flexuq/ident/Bfgs.hpp"
#include "flexuq/rom/Basis.hpp"
#include "CartPendulumChain.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

namespace {

using namespace flexuq;
using ident::Mat;
using ident::Vec;

ident::Problem chain_problem(double end) {
  ident::Problem pr;
  pr.make = [](const Vec& p) { return ident::test::cart_pendulum_chain(p); };
  pr.solver.scheme = mbs::Scheme::hht;
  pr.solver.alpha = -0.05;
  pr.solver.start = 0;
  pr.solver.end = end;
  pr.solver.step = 0.01;
  // φ_P1…φ_P4, ω_P1…ω_P4 (bodies 2…5), x_C1, ẋ_C1 (body 0): the seed's measured signals.
  for (int i = 0; i < 4; ++i)
    pr.signals.push_back({"phi_P" + std::to_string(i + 1), 2 + i, ident::SignalKind::angle, mbs::Vec3::UnitZ(), 1.0});
  for (int i = 0; i < 4; ++i)
    pr.signals.push_back({"omega_P" + std::to_string(i + 1), 2 + i, ident::SignalKind::rate, mbs::Vec3::UnitZ(), 1.0});
  pr.signals.push_back({"x_C1", 0, ident::SignalKind::x, mbs::Vec3::UnitZ(), 1.0});
  pr.signals.push_back({"v_C1", 0, ident::SignalKind::vx, mbs::Vec3::UnitZ(), 1.0});
  pr.measured = Mat::Zero(pr.steps() + 1, static_cast<Eigen::Index>(pr.signals.size()));
  return pr;
}

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

/// The chain's ROM from full runs at the parameters @p ps (their whole trajectories as velocity snapshots).
rom::ReducedBasis chain_basis(const ident::Problem& pr, const std::vector<Vec>& ps) {
  std::vector<rom::Training> runs;
  for (const auto& p : ps) {
    const auto ev = ident::cost(pr, p);
    rom::Training t;
    t.q = ev.trajectory.x;
    t.v = ev.trajectory.xd;
    t.t = ev.trajectory.t;
    runs.push_back(t);
  }
  mbs::System sys = pr.make(ps.front());
  mbs::Integrator integ(sys, pr.solver);
  mbs::State s;
  integ.initialise(s); // the active rows
  return rom::build_basis(sys, runs, rom::RomOptions{});
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
}

} // namespace
