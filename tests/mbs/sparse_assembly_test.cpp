// SPDX-License-Identifier: MIT
// The sparse iteration matrices of large mechanisms (issue #40 item 2): System's sparse forms hold
// exactly the dense matrices' entries (C_q on the active and on all rows, M(q), the stiffness and
// damping blocks with springs and rotational dampers, rigid and flexible bodies), and a long chain
// run on the sparse path (sparse assembly and LU) follows the dense path's trajectory to 1e-10.
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Integrator.hpp"
#include "MbsTestUtil.hpp"
#include "ParticleBody.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace flexuq::mbs;

namespace {

/// A bent chain of @p links rigid links on spherical joints hanging from the ground, a flexible
/// particle body at its end (pinned at its interface P0), a spring from the ground to the fifth
/// link and a rotational damper between the first two links: every kind of entry the iteration
/// matrix has.
System mixed_chain(int links, bool flexible = true) {
  System s;
  const double l = 0.4;
  Vec3 top(0, 0, 0);
  for (int i = 0; i < links; ++i) {
    const double th = 0.4 + 0.07 * i;
    const Vec3 dir(std::sin(th), -std::cos(th), 0.1 * std::sin(3.0 * i));
    RigidBody b;
    b.name = "link" + std::to_string(i);
    b.mass = 1.0 + 0.05 * i;
    b.inertia = Vec3(0.01, b.mass * l * l / 12, b.mass * l * l / 14).asDiagonal();
    b.position = top + 0.5 * l * dir.normalized();
    b.orientation = from_axis_angle(Vec3(0.2, 0.3, 1.0).normalized(), th - M_PI / 2);
    b.angular_velocity = Vec3(0.1, -0.2, 0.3 * std::cos(i));
    const int id = s.add_body(b);
    JointSpec j;
    j.name = "ball" + std::to_string(i);
    j.type = JointType::spherical;
    j.body_i = i == 0 ? kGround : id - 1;
    j.body_j = id;
    j.point = top;
    s.add_joint(j);
    top += l * dir.normalized();
  }
  if (flexible) {
    const auto p = test::Particles::make(5, 3, 0.6, 7u);
    const int id = s.add_body(test::flexible_body("flex", p.data(1.0, 0.02), top, from_axis_angle(Vec3::UnitZ(), -0.3)));
    JointSpec j;
    j.name = "to_flex";
    j.type = JointType::spherical;
    j.body_i = id - 1;
    j.body_j = id;
    j.point = s.point_position(s.initial_q(), id, p.x[0]);
    j.interface_j = "P0";
    s.add_joint(j);
  }
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  s.add_force(g);
  ForceSpec spring;
  spring.type = ForceType::spring;
  spring.body = kGround;
  spring.body2 = std::min(4, links - 1);
  spring.point = Vec3(1.0, 0.5, 0.2);
  spring.point2 = s.point_position(s.initial_q(), spring.body2, Vec3(0.05, 0.0, 0.0));
  spring.stiffness = 50.0;
  spring.damping = 0.3;
  spring.length = 0.8;
  s.add_force(spring);
  ForceSpec damper;
  damper.type = ForceType::rotational_damper;
  damper.body = 0;
  damper.body2 = 1;
  damper.direction = Vec3(0.3, 0.1, 1.0).normalized();
  damper.damping = 0.7;
  s.add_force(damper);
  return s;
}

SpMat from_triplets(const Triplets& t, int n) {
  SpMat a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

} // namespace

// The sparse forms are the dense matrices' entries exactly (the same code computes each entry;
// only where it is stored differs), at a general state of a mechanism with every kind of entry.
TEST(MbsSparseAssembly, SparseFormsHoldTheDenseEntriesExactly) {
  System sys = mixed_chain(8);
  SolverOptions o = test::hht(1e-3, 0.02);
  o.linear_algebra = LinearAlgebra::dense;
  Integrator integ(sys, o);
  State s;
  integ.initialise(s);
  integ.run(s, [](const State&, double) {}); // a general state: every link turned and moving
  const int n = sys.n();
  const double t = s.t;
  ASSERT_GT(sys.n_elastic(8), 0);
  const Mat cq = sys.jacobian(s.q, t), cq_all = sys.jacobian_all(s.q, t);
  EXPECT_EQ((Mat(sys.jacobian_sparse(s.q, t)) - cq).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ((Mat(sys.jacobian_sparse(s.q, t, true)) - cq_all).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(sys.jacobian_sparse(s.q, t).nonZeros(), (cq.array() != 0.0).count()); // no stored zeros
  Triplets mt;
  sys.mass_triplets(s.q, 1.5, mt);
  Mat m = Mat::Zero(n, n);
  sys.mass_into(s.q, 1.5, m);
  EXPECT_EQ((Mat(from_triplets(mt, n)) - m).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_GT(m.cwiseAbs().maxCoeff(), 0.0);
  Triplets kt;
  sys.stiffness_damping_triplets(s.q, 2e-3, 3e-2, kt);
  Mat k = Mat::Zero(n, n);
  sys.add_stiffness_damping(s.q, 2e-3, 3e-2, k);
  EXPECT_EQ((Mat(from_triplets(kt, n)) - k).cwiseAbs().maxCoeff(), 0.0);
  // The spring (link 4's coordinates) and the damper (links 0 and 1's Euler parameters) are there.
  EXPECT_NE(k(sys.offset(4), sys.offset(4)), 0.0);
  EXPECT_NE(k(sys.offset(0) + 3, sys.offset(1) + 3), 0.0);
  // The kinetic energy body by body equals ½ vᵀ M v.
  EXPECT_NEAR(sys.kinetic_energy(s.q, s.v), 0.5 * s.v.dot(m / 1.5 * s.v), 1e-13 * s.v.squaredNorm());
}

// A chain of 60 links and a flexible body run on both paths: `auto` takes the sparse one (n + m =
// 719), whose states equal the dense path's to 1e-10 relative for the implicit schemes (stabilised,
// with the velocity projection) and rk45.
TEST(MbsSparseAssembly, LongChainSameTrajectoryOnBothPaths) {
  for (Scheme sc : {Scheme::hht, Scheme::generalized_alpha, Scheme::rk45}) {
    SolverOptions o = test::hht(2e-3, 0.06);
    o.scheme = sc;
    o.output_step = 0.02;
    o.project_velocities = sc != Scheme::rk45;
    test::Run rd, ra;
    for (LinearAlgebra la : {LinearAlgebra::dense, LinearAlgebra::automatic}) {
      System sys = mixed_chain(60);
      o.linear_algebra = la;
      Integrator integ(sys, o);
      State s;
      test::Run r;
      r.dropped = integ.initialise(s);
      EXPECT_EQ(integ.sparse(), la == LinearAlgebra::automatic) << scheme_name(sc);
      r.stats = integ.run(s, [&](const State& st, double) { r.states.push_back(st); });
      (la == LinearAlgebra::dense ? rd : ra) = r;
    }
    ASSERT_EQ(rd.states.size(), ra.states.size());
    double dq = 0, dv = 0, qmax = 0, vmax = 0, moved = 0;
    for (std::size_t k = 0; k < rd.states.size(); ++k) {
      dq = std::max(dq, (rd.states[k].q - ra.states[k].q).lpNorm<Eigen::Infinity>());
      dv = std::max(dv, (rd.states[k].v - ra.states[k].v).lpNorm<Eigen::Infinity>());
      qmax = std::max(qmax, rd.states[k].q.lpNorm<Eigen::Infinity>());
      vmax = std::max(vmax, rd.states[k].v.lpNorm<Eigen::Infinity>());
      moved = std::max(moved, (rd.states[k].q - rd.states[0].q).lpNorm<Eigen::Infinity>());
    }
    std::printf("%s: 60 links + flexible body, dense vs sparse: |dq|/|q| = %.2e, |dv|/|v| = %.2e, moved %.3f\n",
                scheme_name(sc), dq / qmax, dv / vmax, moved);
    EXPECT_LT(dq, 1e-10 * qmax) << scheme_name(sc);
    EXPECT_LT(dv, 1e-10 * vmax) << scheme_name(sc);
    EXPECT_GT(moved, 1e-3) << "the chain must move";
    EXPECT_LT(ra.stats.max_drift, 1e-9) << scheme_name(sc);
  }
}

// The memory estimate follows the path: a dense run is refused with the (n + m)² estimate, the
// sparse one with its non-zeros.
TEST(MbsSparseAssembly, MemoryEstimateOfEachPath) {
  ::setenv("FLEXUQ_MAX_MEMORY", "100000", 1); // 100 kB
  for (LinearAlgebra la : {LinearAlgebra::dense, LinearAlgebra::sparse}) {
    System sys = mixed_chain(30, false);
    SolverOptions o = test::hht(1e-3, 0.01);
    o.linear_algebra = la;
    Integrator integ(sys, o);
    State s;
    try {
      integ.initialise(s);
      ADD_FAILURE() << "no memory refusal";
    } catch (const flexuq::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(la == LinearAlgebra::dense ? "dense iteration matrices of (n + m)² entries"
                                                     : "sparse iteration matrices of "),
                std::string::npos)
          << what;
    }
  }
  ::unsetenv("FLEXUQ_MAX_MEMORY");
}
