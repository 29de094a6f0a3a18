// SPDX-License-Identifier: MIT
// rom without the CLI: a 3-D double pendulum (two bars on revolute joints, 14 coordinates, 12 active
// rows) run by the full index-3 HHT, its type-sensitive basis and constraint reduction, and the reduced
// run against the full one. Oracles: the planar motion's structure (translational velocities in x, y of
// two bodies: rank 4; Euler-parameter rates in e0, e3: rank 4; two degrees of freedom: r − l = 2),
// exact algebraic identities (VᵀV = I, every snapshot velocity and displacement in span V,
// R0 = (I − VVᵀ)q0, rank ΓᵀC_qV = l at every snapshot) and the full model's own trajectory.
// The directly contracted constraint operators (rom/ReducedConstraints.hpp) against the rows' own
// evaluation (System::phi_all, constraint_residual, jacobian) on rigid 3-D, planar and flexible bodies.
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/System.hpp"
#include "flexuq/rom/Basis.hpp"
#include "flexuq/rom/ReducedIntegrator.hpp"
#include "../mbs/MbsTestUtil.hpp"
#include "../mbs/ParticleBody.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

namespace {

using namespace flexuq;
using mbs::Vec3;
using rom::Mat;
using rom::Vec;

mbs::System double_pendulum() { return mbs::test::double_pendulum_system(0.5, 0.4, 1.0, 0.8, 2.0, 2.6); }

mbs::SolverOptions options(mbs::Scheme scheme) {
  mbs::SolverOptions o;
  o.scheme = scheme;
  o.step = 1e-3;
  o.output_step = 1e-2;
  o.end = 1.0;
  o.tol = 1e-12;
  o.stabilized = false; // index-3, as the reduced scheme
  return o;
}

struct FullRun {
  std::vector<mbs::State> states;
  rom::Training training;
};

FullRun run_full(mbs::System& sys, const mbs::SolverOptions& o) {
  mbs::Integrator integ(sys, o);
  mbs::State s;
  integ.initialise(s);
  FullRun r;
  integ.run(s, [&](const mbs::State& st, double) { r.states.push_back(st); });
  const auto h = static_cast<Eigen::Index>(r.states.size());
  r.training.q.resize(sys.n(), h);
  r.training.v.resize(sys.n(), h);
  for (Eigen::Index k = 0; k < h; ++k) {
    r.training.q.col(k) = r.states[static_cast<std::size_t>(k)].q;
    r.training.v.col(k) = r.states[static_cast<std::size_t>(k)].v;
    r.training.t.push_back(r.states[static_cast<std::size_t>(k)].t);
  }
  return r;
}

double max_relative_error(const std::vector<mbs::State>& full, const std::vector<mbs::State>& red) {
  EXPECT_EQ(full.size(), red.size());
  const auto n = full.front().q.size();
  Vec scale = Vec::Zero(n);
  for (const auto& s : full) scale = scale.cwiseMax(s.q.cwiseAbs());
  double e = 0;
  for (std::size_t k = 0; k < std::min(full.size(), red.size()); ++k)
    for (Eigen::Index i = 0; i < n; ++i)
      if (scale(i) > 1e-12) e = std::max(e, std::abs(full[k].q(i) - red[k].q(i)) / scale(i));
  return e;
}

TEST(Rom, DoublePendulumBasisInvariants) {
  auto sys = double_pendulum();
  const auto full = run_full(sys, options(mbs::Scheme::hht));
  const auto b = rom::build_basis(sys, {full.training}, rom::RomOptions{});
  EXPECT_EQ(sys.n(), 14);
  EXPECT_EQ(b.rank_of(rom::translational), 4); // x, y of two bodies
  EXPECT_EQ(b.rank_of(rom::rotational), 4);    // e0, e3 of two bodies
  EXPECT_EQ(b.r() - b.l(), 2);                 // two degrees of freedom
  EXPECT_LE(b.l(), b.r());
  const Mat& V = b.V;
  EXPECT_LT((V.transpose() * V - Mat::Identity(b.r(), b.r())).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((b.R0 - (b.q0 - V * (V.transpose() * b.q0))).cwiseAbs().maxCoeff(), 1e-14);
  double worst_v = 0, worst_q = 0;
  for (Eigen::Index k = 0; k < full.training.v.cols(); ++k) {
    const Vec v = full.training.v.col(k), dq = full.training.q.col(k) - b.q0;
    worst_v = std::max(worst_v, (v - V * (V.transpose() * v)).norm() / std::max(v.norm(), 1e-300));
    worst_q = std::max(worst_q, (dq - V * (V.transpose() * dq)).norm());
    const auto rc = rom::reduced_jacobian_rank(sys, b, full.training.q.col(k), full.training.t[static_cast<std::size_t>(k)]);
    EXPECT_EQ(rc.rank, b.l()) << "snapshot " << k;
  }
  EXPECT_LT(worst_v, 1e-9);  // every velocity snapshot lies in span V (the velocities of k = 0 are zero)
  EXPECT_LT(worst_q, 1e-9);  // and so does q − q0: q0 + span V holds the trajectory
}

/// A pendulum of two bars on revolute-2d joints, planar bodies [x, y, e0, e3] (8 coordinates, 6 rows),
/// turning at 2 and 1 rad/s at the start.
mbs::System planar_pendulum() {
  mbs::System s;
  for (int k = 0; k < 2; ++k) {
    mbs::RigidBody b;
    b.name = k ? "lower" : "upper";
    b.mass = 1.0;
    b.inertia = mbs::Mat3::Identity() * 0.1;
    b.position = Vec3(0.5 + k, 0, 0);
    b.planar = true;
    b.angular_velocity = Vec3(0, 0, 2.0 - k); // moving (the reduced run); made consistent by initialise
    s.add_body(b);
    mbs::JointSpec j;
    j.name = b.name + ".pin";
    j.type = mbs::JointType::revolute_2d;
    j.body_i = k ? 0 : mbs::kGround;
    j.body_j = k;
    j.point = Vec3(k, 0, 0);
    j.axis = Vec3::UnitZ();
    s.add_joint(j);
  }
  return s;
}

TEST(Rom, ReducedRunEqualsFullRun) {
  // hht and generalized-alpha with the projected analytic matrix; hht with the reduced
  // finite-difference matrix (solver.matrix: finite-difference). 3-D rigid bodies and planar ones
  // (their constant mass blocks m 1 projected once, mbs::BodyModel::constant_mass_block).
  for (auto* model : {&double_pendulum, &planar_pendulum})
  for (const auto& [scheme, fd] : {std::pair{mbs::Scheme::hht, false}, std::pair{mbs::Scheme::generalized_alpha, false},
                                   std::pair{mbs::Scheme::hht, true}}) {
    auto sys = model();
    auto o = options(scheme);
    o.fd_matrix = fd;
    const auto full = run_full(sys, o);
    rom::RomOptions ro;
    ro.constraints_at_start = model == &planar_pendulum; // stacked: l = 5 > r = 4 (over-determined)
    const auto b = rom::build_basis(sys, {full.training}, ro);
    auto sys2 = model();
    mbs::Integrator integ(sys2, o);
    mbs::State s0;
    integ.initialise(s0);
    rom::ReducedIntegrator red(sys2, o, b);
    red.initialise(s0);
    std::vector<mbs::State> states;
    const auto st = red.run([&](const mbs::State& st, double) { states.push_back(st); });
    const double e = max_relative_error(full.states, states);
    EXPECT_LT(e, 1e-8) << mbs::scheme_name(scheme) << (fd ? " fd" : "") << (model == &planar_pendulum ? " planar" : "");
    EXPECT_LT(st.initial_offset, 1e-14);
    EXPECT_GT(st.min_rank_ratio, 1e-3);
    EXPECT_GT(st.rank_checks, 0);
    std::printf("%s%s%s: r = %d, l = %d, max |dq|/max|q| = %.2e, %ld Newton iterations, %ld matrices\n",
                model == &planar_pendulum ? "planar " : "", mbs::scheme_name(scheme), fd ? " (finite-difference matrix)" : "", b.r(), b.l(), e,
                st.run.newton_iterations, st.run.jacobians);
  }
}

/// A flexible body (5 particles, 3 elastic coordinates) on a spherical joint at its interface P0,
/// and a rigid bar on a revolute joint at its interface P4 (rows with L η parts on both).
mbs::System flexible_chain() {
  const auto pt = mbs::test::Particles::make(5, 3, 0.8, 11);
  mbs::System s;
  s.add_body(mbs::test::flexible_body("beam", pt.data(1.0, 0.0), Vec3::Zero(), mbs::Vec4(1, 0, 0, 0)));
  mbs::RigidBody bar;
  bar.name = "bar";
  bar.mass = 1.0;
  bar.inertia = mbs::Mat3::Identity() * 0.1;
  bar.position = pt.x[4] + Vec3(0.3, 0, 0);
  s.add_body(bar);
  mbs::JointSpec pivot;
  pivot.name = "pivot";
  pivot.type = mbs::JointType::spherical;
  pivot.body_i = mbs::kGround;
  pivot.body_j = 0;
  pivot.point = pt.x[0];
  pivot.interface_j = "P0";
  s.add_joint(pivot);
  mbs::JointSpec hinge;
  hinge.name = "hinge";
  hinge.type = mbs::JointType::revolute;
  hinge.body_i = 0;
  hinge.body_j = 1;
  hinge.point = pt.x[4];
  hinge.axis = Vec3::UnitY();
  hinge.interface_i = "P4";
  s.add_joint(hinge);
  return s;
}

TEST(Rom, DirectConstraintOperatorsEqualTheRowsOwn) {
  // Random V (orthonormal, r = n / 2) and Γ (one row zero: skipped) at random states off the
  // constraints: Γᵀ Φ, C_qᵀ Γλ, Γᵀ C_q V and max |Φ| of every row as System evaluates them row by row.
  std::mt19937 gen(34);
  std::uniform_real_distribution<double> u(-1, 1);
  auto random = [&](Eigen::Index rows, Eigen::Index cols) {
    Mat a(rows, cols);
    for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = u(gen);
    return a;
  };
  std::vector<std::pair<const char*, mbs::System>> systems;
  systems.emplace_back("3-D double pendulum", double_pendulum());
  systems.emplace_back("planar pendulum", planar_pendulum());
  systems.emplace_back("flexible chain", flexible_chain());
  for (auto& [name, sys] : systems) {
    const int n = sys.n(), m = sys.m(), r = std::max(2, n / 2), l = std::max(1, m / 2);
    const Mat V = Eigen::HouseholderQR<Mat>(random(n, r)).householderQ() * Mat::Identity(n, r);
    Mat gamma = random(m, l);
    gamma.row(1).setZero();
    rom::ReducedConstraints rc(sys, V, gamma);
    EXPECT_TRUE(rc.direct()) << name;
    double worst = 0;
    for (int trial = 0; trial < 5; ++trial) {
      const Vec q = sys.initial_q() + 0.1 * random(n, 1);
      const Vec lam = random(l, 1);
      const double t = 0.1 * trial;
      Vec gphi, ct, ctl, ph;
      rc.residual(q, t, lam, gphi, ct);
      sys.constraint_residual(q, t, gamma * lam, ctl, ph);
      const Mat j = rc.jacobian(q, t), jf = gamma.transpose() * sys.jacobian(q, t) * V;
      const Vec all = sys.phi_all(q, t);
      worst = std::max({worst, (gphi - gamma.transpose() * ph).cwiseAbs().maxCoeff() / ph.cwiseAbs().maxCoeff(),
                        (ct - ctl).cwiseAbs().maxCoeff() / ctl.cwiseAbs().maxCoeff(),
                        (j - jf).cwiseAbs().maxCoeff() / jf.cwiseAbs().maxCoeff(),
                        std::abs(rc.drift(q, t) - all.cwiseAbs().maxCoeff()) / all.cwiseAbs().maxCoeff()});
      EXPECT_EQ(ct.size(), n);
      EXPECT_EQ(j.rows(), l);
      EXPECT_EQ(j.cols(), r);
    }
    EXPECT_LT(worst, 1e-13) << name;
    std::printf("%s: n = %d, m = %d, direct = %d, largest relative difference %.1e\n", name, n, m, rc.direct(), worst);
  }
}

TEST(Rom, RefusesWhatItCannotRun) {
  auto sys = double_pendulum();
  const auto full = run_full(sys, options(mbs::Scheme::hht));
  EXPECT_THROW(rom::build_basis(sys, {}, rom::RomOptions{}), OptionError);
  rom::RomOptions none;
  none.constraints = rom::ConstraintMethod::none; // l = 12 > r = 8
  try {
    rom::build_basis(sys, {full.training}, none);
    ADD_FAILURE() << "constraints none was accepted";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "constraints.method");
  }
  const auto b = rom::build_basis(sys, {full.training}, rom::RomOptions{});
  auto o = options(mbs::Scheme::rk45);
  try {
    rom::ReducedIntegrator red(sys, o, b);
    ADD_FAILURE() << "rk45 was accepted";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "solver.type");
  }
  o = options(mbs::Scheme::hht);
  o.adaptive = true;
  EXPECT_THROW(rom::ReducedIntegrator(sys, o, b), OptionError);
}

} // namespace
