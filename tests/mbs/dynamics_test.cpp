// SPDX-License-Identifier: MIT
// Integrators on small mechanisms with known answers: analytic (1-DOF reference) pendulum, HHT
// order and ρ∞ (seed 003 V3), energy with α = 0, constraint drift, a redundant four-bar against
// its planar-equivalent joint set, seed 004's slider-crank (V10–V12), the four schemes against
// each other, and bad input naming the joint / body / time.
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Integrator.hpp"
#include "MbsTestUtil.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <map>
#include <tuple>

using namespace flexuq::mbs;
using flexuq::mbs::test::hht;
using flexuq::mbs::test::simulate;

namespace {

constexpr double kG = 9.81;

/// A rod pendulum: CoM at distance l from a revolute about global z at the origin.
struct Pendulum {
  double m = 1.0, l = 1.0, jz = 0.02, theta0 = 0.9;
  System sys() const {
    System s;
    RigidBody b;
    b.name = "bob";
    b.mass = m;
    b.inertia = Vec3(0.05, 0.05, jz).asDiagonal();
    b.position = Vec3(l * std::sin(theta0), -l * std::cos(theta0), 0);
    b.orientation = from_axis_angle(Vec3::UnitZ(), theta0);
    s.add_body(b);
    JointSpec j;
    j.name = "pivot";
    j.body_i = kGround;
    j.body_j = 0;
    j.axis = Vec3::UnitZ();
    s.add_joint(j);
    ForceSpec g;
    g.direction = Vec3(0, -kG, 0);
    s.add_force(g);
    return s;
  }
  /// θ(t) of (J + m l²) θ̈ = −m g l sin θ by RK4 with a tiny step.
  double reference(double t_end) const {
    const double w2 = m * kG * l / (jz + m * l * l);
    double th = theta0, om = 0;
    const int n = 200000;
    const double h = t_end / n;
    auto f = [&](double a) { return -w2 * std::sin(a); };
    for (int i = 0; i < n; ++i) {
      const double k1t = om, k1o = f(th);
      const double k2t = om + 0.5 * h * k1o, k2o = f(th + 0.5 * h * k1t);
      const double k3t = om + 0.5 * h * k2o, k3o = f(th + 0.5 * h * k2t);
      const double k4t = om + h * k3o, k4o = f(th + h * k3t);
      th += h / 6 * (k1t + 2 * k2t + 2 * k3t + k4t);
      om += h / 6 * (k1o + 2 * k2o + 2 * k3o + k4o);
    }
    return th;
  }
};

} // namespace

TEST(MbsDynamics, PendulumMatchesOneDofReferenceWithTinyDrift) {
  Pendulum p;
  System sys = p.sys();
  const auto r = simulate(sys, hht(1e-3, 1.0));
  const double th = p.theta0 + sys.joint_angle(r.states.back().q, 0);
  EXPECT_NEAR(th, p.reference(1.0), 2e-5);
  EXPECT_LT(r.stats.max_drift, 1e-10);
  EXPECT_TRUE(r.dropped.empty());
  // Index-3 HHT (solver.formulation: index-3) holds the positions only: its velocities leave
  // C_q q̇ = 0 by O(h²). The stabilised formulation (the default) meets C_q q̇ = 0 at every step, and
  // so does the index-3 one with solver.project_velocities (a mass-weighted projection after each
  // step); the angle stays as accurate either way.
  auto velocity_drift = [&](const flexuq::mbs::test::Run& run) {
    double d = 0;
    for (const auto& st : run.states) d = std::max(d, (sys.jacobian(st.q, st.t) * st.v).lpNorm<Eigen::Infinity>());
    return d;
  };
  auto o = hht(1e-3, 1.0);
  o.stabilized = false;
  System sys3 = p.sys();
  const auto r3 = simulate(sys3, o);
  EXPECT_NEAR(p.theta0 + sys3.joint_angle(r3.states.back().q, 0), p.reference(1.0), 2e-5);
  o.project_velocities = true;
  System sys2 = p.sys();
  const auto rp = simulate(sys2, o);
  const double thp = p.theta0 + sys2.joint_angle(rp.states.back().q, 0);
  EXPECT_NEAR(thp, p.reference(1.0), 2e-5);
  EXPECT_GT(velocity_drift(r3), 1e-9);
  EXPECT_LT(velocity_drift(rp), 1e-13);
  EXPECT_LT(velocity_drift(r), 1e-13);
}

namespace {
/// A body on a spring (k, m = 1) held by a prismatic joint along x: a linear oscillator with
/// constant mass, x(t) = x0 cos(ωt).
System oscillator(double k, double x0) {
  System sys;
  RigidBody b;
  b.name = "mass";
  b.mass = 1.0;
  b.inertia = Vec3(1, 1, 1).asDiagonal();
  b.position = Vec3(x0, 0, 0);
  sys.add_body(b);
  JointSpec j;
  j.name = "slot";
  j.type = JointType::prismatic;
  j.body_j = 0;
  j.axis = Vec3::UnitX();
  sys.add_joint(j);
  ForceSpec sp;
  sp.type = ForceType::spring;
  sp.body = kGround;
  sp.body2 = 0;
  sp.point = Vec3(-1e7, 0, 0); // far anchor: Newton's first iterate (h²β·ẍ ≈ 2.5e6 at ωh = 1e4) must not
                               // cross zero spring length into the mirrored solution
  sp.point2 = Vec3(x0, 0, 0);
  sp.length = 1e7;
  sp.stiffness = k;
  sys.add_force(sp);
  return sys;
}
} // namespace

// Seed 003 V3: HHT (α = −0.1) is second order on the linear oscillator; on the nonlinear pendulum
// HHT with α = 0 and α = −0.1 and generalized-α are. (Seed 003 §2.6's HHT multiplied q̈_{n+1} by
// M(q_{n+1}) while q̈_{n+1} approximates q̈(t_{n+1} + αh): with the configuration-dependent mass
// 4GᵀJG of Euler parameters that left an O(αh) error — errors 2.2e-5, 6.8e-6, 2.3e-6, 9.0e-7,
// 3.8e-7 for h = 4e-3 … 2.5e-4 at α = −0.1 on this pendulum. flexuq's hht is now generalized-α with
// α_m = 0, α_f = −α, the same recursion on linear systems; tests/mbs/integrator_order_test.cpp has
// the fast mechanisms.)
TEST(MbsDynamics, SecondOrderConvergence) {
  auto orders = [](const std::vector<double>& err) {
    return std::make_pair(std::log2(err[0] / err[1]), std::log2(err[1] / err[2]));
  };
  std::vector<double> err;
  for (double h : {4e-3, 2e-3, 1e-3}) {
    System sys = oscillator(100.0, 0.1);
    const auto r = simulate(sys, hht(h, 1.0, -0.1));
    err.push_back(std::abs(r.states.back().q(0) - 0.1 * std::cos(10.0)));
  }
  auto [o1, o2] = orders(err);
  EXPECT_NEAR(o1, 2.0, 0.1) << "hht on the oscillator " << err[0] << " " << err[1];
  EXPECT_NEAR(o2, 2.0, 0.1) << "hht on the oscillator " << err[1] << " " << err[2];
  Pendulum p;
  const double ref = p.reference(1.0);
  for (int scheme = 0; scheme < 3; ++scheme) {
    err.clear();
    for (double h : {4e-3, 2e-3, 1e-3}) {
      System sys = p.sys();
      SolverOptions o = hht(h, 1.0, scheme == 2 ? -0.1 : 0.0);
      if (scheme == 1) {
        o.scheme = Scheme::generalized_alpha;
        o.rho_inf = 0.6;
      }
      const auto r = simulate(sys, o);
      err.push_back(std::abs(p.theta0 + sys.joint_angle(r.states.back().q, 0) - ref));
    }
    std::tie(o1, o2) = orders(err);
    const char* what = scheme == 1 ? "generalized-alpha" : scheme == 2 ? "hht alpha = -0.1" : "hht alpha = 0";
    EXPECT_NEAR(o1, 2.0, 0.1) << what << " " << err[0] << " " << err[1];
    EXPECT_NEAR(o2, 2.0, 0.1) << what << " " << err[1] << " " << err[2];
  }
}

// Seed 003 V3: spectral radius at ωh = 1e4 on the linear oscillator. HHT's state is (x, ẋ, ẍ);
// the amplification matrix A (Y_{n+1} = A Y_n, scaled Y = [x, ẋ/ω, ẍ/ω²]) is fitted from 12 steps.
TEST(MbsDynamics, SpectralRadiusAtInfinity) {
  auto radius = [](double alpha) {
    const double w = 1e4;
    System sys = oscillator(w * w, 0.1); // h = 1 s
    SolverOptions o = hht(1.0, 12.0, alpha);
    o.tol = 1e-8; // the far anchor leaves ~1e-9 of round-off in the spring force
    o.min_step = 1.0;  // no step may be halved: one output = one step
    const auto r = simulate(sys, o);
    Eigen::MatrixXd y0(3, 12), y1(3, 12);
    for (int k = 0; k < 12; ++k) {
      const State& a = r.states[k];
      const State& b = r.states[k + 1];
      y0.col(k) << a.q(0), a.v(0) / w, a.aux(0) / (w * w);
      y1.col(k) << b.q(0), b.v(0) / w, b.aux(0) / (w * w);
    }
    // Minimum-norm fit: with α = 0, ẍ = −ω²x and the states span only two dimensions.
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(y0.transpose());
    cod.setThreshold(1e-9);
    const Eigen::MatrixXd amp = cod.solve(y1.transpose()).transpose();
    return amp.eigenvalues().cwiseAbs().maxCoeff();
  };
  EXPECT_NEAR(radius(0.0), 1.0, 1e-3);
  EXPECT_NEAR(radius(-0.05), 0.95 / 1.05, 1e-3); // (1 + α)/(1 − α) = 0.904762 (Negrut et al. 2007)
  EXPECT_NEAR(radius(-1.0 / 3.0), 0.5, 2e-3);    // 0.5017 at ωh = 1e4 (Negrut et al. 2007: ρ∞ = (1 + α)/(1 − α))
}

// α = 0 (trapezoidal) conserves energy on an undamped 3-D top (spherical joint, gravity,
// spin about a tilted axis); α = −1/3 dissipates visibly more.
TEST(MbsDynamics, EnergyConservedWithAlphaZero) {
  auto drift = [](double alpha, double h) {
    System sys;
    RigidBody b;
    b.name = "top";
    b.mass = 2.0;
    b.inertia = Vec3(0.1, 0.15, 0.25).asDiagonal();
    b.position = Vec3(0.1, 0.3, 0.05);
    b.orientation = from_axis_angle(Vec3(1, 2, 3), 0.4);
    b.angular_velocity = Vec3(1.0, -2.0, 3.0);
    sys.add_body(b);
    JointSpec j;
    j.name = "tip";
    j.type = JointType::spherical;
    j.body_j = 0;
    sys.add_joint(j);
    ForceSpec g;
    g.direction = Vec3(0, -kG, 0);
    sys.add_force(g);
    const auto r = simulate(sys, hht(h, 2.0, alpha));
    double e0 = 0, worst = 0;
    for (std::size_t k = 0; k < r.states.size(); ++k) {
      const auto& s = r.states[k];
      const double e = sys.kinetic_energy(s.q, s.v) + sys.potential_energy(s.q) - r.work[k];
      if (k == 0) e0 = e;
      worst = std::max(worst, std::abs(e - e0));
    }
    return std::make_pair(worst / std::abs(e0), r.stats.max_drift);
  };
  const auto [d0, c0] = drift(0.0, 1e-3);
  const auto [d0h, c0h] = drift(0.0, 5e-4);
  const auto [d3, c3] = drift(-1.0 / 3.0, 1e-3);
  const auto [d3h, c3h] = drift(-1.0 / 3.0, 5e-4);
  EXPECT_LT(d0, 5e-5);                        // measured 1.8e-5 (2.8e-4 in the index-3 formulation)
  EXPECT_NEAR(std::log2(d0 / d0h), 2.0, 0.2); // the energy error of the trapezoidal rule is O(h²)
  // α = −1/3 dissipates more, and at second order too: seed 003's (2.50) weighted the forces but
  // not M(q) q̈ and dissipated at first order (d3 was > 10 d0 at h = 1e-3); measured 3.0e-5, 7.6e-6.
  EXPECT_GT(d3, 1.3 * d0);
  EXPECT_NEAR(std::log2(d3 / d3h), 2.0, 0.2);
  EXPECT_LT(c3h, 1e-10);
  EXPECT_LT(c0, 1e-10);
  EXPECT_LT(c0h, 1e-10);
  EXPECT_LT(c3, 1e-10);
}

namespace {

/// A planar four-bar in 3-D: revolutes about z at A, B, D and at C either a revolute (3
/// redundant rows) or its planar equivalent, a point-on-line along z (no redundancy).
System four_bar(bool redundant, double coupler_stretch = 0.0) {
  const Vec3 A(0, 0, 0), B(0.5, 0.8660254037844386, 0), C(3.2, 2.0, 0), D(4, 0, 0);
  System s;
  auto rod = [&](const std::string& name, const Vec3& p, const Vec3& q, double m) {
    RigidBody b;
    b.name = name;
    b.mass = m;
    const double l2 = (q - p).squaredNorm();
    b.inertia = Vec3(0.01, m * l2 / 12, m * l2 / 12).asDiagonal();
    b.position = 0.5 * (p + q);
    b.orientation = from_axis_angle(Vec3::UnitZ(), std::atan2(q.y() - p.y(), q.x() - p.x()));
    return s.add_body(b);
  };
  const int crank = rod("crank", A, B, 1.0), coupler = rod("coupler", B, C, 2.0), rocker = rod("rocker", D, C, 1.5);
  auto joint = [&](const std::string& name, JointType t, int i, int j, const Vec3& p) {
    JointSpec js;
    js.name = name;
    js.type = t;
    js.body_i = i;
    js.body_j = j;
    js.point = p;
    js.axis = Vec3::UnitZ();
    s.add_joint(js);
  };
  joint("A", JointType::revolute, kGround, crank, A);
  joint("B", JointType::revolute, crank, coupler, B);
  if (coupler_stretch == 0.0) {
    joint("C", redundant ? JointType::revolute : JointType::point_on_line, coupler, rocker, C);
  } else { // the rocker's end is not where the coupler's end is: cannot be assembled
    JointSpec js;
    js.name = "C";
    js.type = JointType::distance;
    js.body_i = coupler;
    js.body_j = rocker;
    js.point = B;
    js.point2 = C;
    js.has_point2 = true;
    js.distance = (C - B).norm() * coupler_stretch;
    s.add_joint(js);
  }
  joint("D", JointType::revolute, kGround, rocker, D);
  ForceSpec g;
  g.direction = Vec3(0, -kG, 0);
  s.add_force(g);
  return s;
}

} // namespace

TEST(MbsDynamics, RedundantFourBarMatchesPlanarEquivalent) {
  System a = four_bar(true), b = four_bar(false);
  const auto ra = simulate(a, hht(1e-3, 1.0));
  const auto rb = simulate(b, hht(1e-3, 1.0));
  EXPECT_EQ(ra.dropped.size(), 3u);
  EXPECT_TRUE(rb.dropped.empty());
  EXPECT_EQ(a.m(), b.m());
  ASSERT_EQ(ra.states.size(), rb.states.size());
  double worst = 0, moved = 0;
  for (std::size_t k = 0; k < ra.states.size(); ++k) {
    worst = std::max(worst, std::abs(a.joint_angle(ra.states[k].q, 0) - b.joint_angle(rb.states[k].q, 0)));
    moved = std::max(moved, std::abs(a.joint_angle(ra.states[k].q, 0)));
  }
  EXPECT_LT(worst, 1e-8);
  EXPECT_GT(moved, 0.1); // the mechanism really moves under gravity
  // Every row, the dropped redundant ones included, holds along the run.
  EXPECT_LT(ra.stats.max_drift, 1e-10);
}

namespace {

/// A chain of @p links rod pendulums (revolutes about z, each link hanging from the previous
/// one's end), released from a bent configuration under gravity: 7 coordinates and 6 rows per
/// link, so the saddle matrix of 20 links is 260 × 260 and a few per cent full.
System chain(int links) {
  System s;
  const double l = 0.5;
  Vec3 top(0, 0, 0);
  for (int i = 0; i < links; ++i) {
    const double th = 0.3 + 0.05 * i; // bent: the links fall at different rates
    const Vec3 dir(std::sin(th), -std::cos(th), 0);
    RigidBody b;
    b.name = "link" + std::to_string(i);
    b.mass = 1.0 + 0.1 * i;
    b.inertia = Vec3(0.01, b.mass * l * l / 12, b.mass * l * l / 12).asDiagonal();
    b.position = top + 0.5 * l * dir;
    b.orientation = from_axis_angle(Vec3::UnitZ(), th - M_PI / 2);
    const int id = s.add_body(b);
    JointSpec j;
    j.name = "pin" + std::to_string(i);
    j.type = JointType::revolute;
    j.body_i = i == 0 ? kGround : id - 1;
    j.body_j = id;
    j.point = top;
    j.axis = Vec3::UnitZ();
    s.add_joint(j);
    top += l * dir;
  }
  ForceSpec g;
  g.direction = Vec3(0, -kG, 0);
  s.add_force(g);
  return s;
}

} // namespace

// solver.linear_algebra: the sparse saddle LU and projections give the dense solution to round-off
// for every scheme and its velocity projection, and `auto` picks sparse for the long chain only.
TEST(MbsDynamics, SparseAndDenseLinearAlgebraAgree) {
  for (Scheme sc : {Scheme::hht, Scheme::generalized_alpha, Scheme::rk45}) {
    for (int links : {3, 20}) {
      SolverOptions o = hht(2e-3, 0.2);
      o.scheme = sc;
      o.project_velocities = true;
      o.output_step = 0.05;
      flexuq::mbs::test::Run rd, rs, ra;
      bool auto_sparse = false;
      for (LinearAlgebra la : {LinearAlgebra::dense, LinearAlgebra::sparse, LinearAlgebra::automatic}) {
        System sys = chain(links);
        o.linear_algebra = la;
        Integrator integ(sys, o);
        State s;
        flexuq::mbs::test::Run r;
        r.dropped = integ.initialise(s);
        EXPECT_EQ(integ.sparse(), la == LinearAlgebra::sparse || (la == LinearAlgebra::automatic && links == 20))
            << flexuq::enum_name(kLinearAlgebraNames, la) << ", " << links << " links";
        if (la == LinearAlgebra::automatic) auto_sparse = integ.sparse();
        r.stats = integ.run(s, [&](const State& st, double) { r.states.push_back(st); });
        (la == LinearAlgebra::dense ? rd : la == LinearAlgebra::sparse ? rs : ra) = r;
      }
      EXPECT_EQ(auto_sparse, links == 20);
      ASSERT_EQ(rd.states.size(), rs.states.size());
      double diff = 0, moved = 0;
      for (std::size_t k = 0; k < rd.states.size(); ++k) {
        diff = std::max(diff, (rd.states[k].q - rs.states[k].q).lpNorm<Eigen::Infinity>());
        diff = std::max(diff, (rd.states[k].v - rs.states[k].v).lpNorm<Eigen::Infinity>());
        moved = std::max(moved, (rd.states[k].q - rd.states[0].q).lpNorm<Eigen::Infinity>());
      }
      EXPECT_LT(diff, 1e-9) << scheme_name(sc) << ", " << links << " links";
      EXPECT_GT(moved, 0.01) << "the chain must move";
      EXPECT_LT(rs.stats.max_drift, 1e-9) << scheme_name(sc);
    }
  }
}

TEST(MbsLinearAlgebra, AutoRuleAndSingularSparseMatrices) {
  // The rule: small or fuller matrices stay dense.
  for (int min : {kSparseMinSizeFactorEveryStage, kSparseMinSizeKeptLu}) {
    EXPECT_FALSE(choose_sparse(Mat::Identity(min - 1, min - 1), min));
    EXPECT_TRUE(choose_sparse(Mat::Identity(min, min), min));
    EXPECT_FALSE(choose_sparse(Mat::Ones(min, min), min));
  }
  // A saddle matrix whose mass block misses a rotation (zero row and column) is singular: the
  // sparse LU reports it, as the dense rcond does.
  Mat k = Mat::Zero(4, 4);
  k(0, 0) = 2.0;
  k(1, 1) = 3.0;
  k(0, 3) = k(3, 0) = 1.0; // one constraint row on the first coordinate; coordinate 2 is free and massless
  for (bool sparse : {false, true}) {
    SaddleLu lu(sparse);
    Vec x;
    const Vec b = Vec::Ones(4);
    EXPECT_FALSE(lu.compute(k) && lu.solve_checked(k, b, x)) << (sparse ? "sparse" : "dense");
  }
  // A regular one gives the dense solution; a changed pattern (an entry that vanishes) is analysed again.
  k(2, 2) = 1.5;
  SaddleLu dense(false), sparse(true);
  ASSERT_TRUE(dense.compute(k));
  ASSERT_TRUE(sparse.compute(k));
  Vec xs;
  const Vec b = Vec::LinSpaced(4, 1.0, 4.0);
  ASSERT_TRUE(sparse.solve_checked(k, b, xs));
  EXPECT_LT((xs - dense.solve(b)).norm(), 1e-14);
  k(1, 1) = 0.0;
  k(1, 2) = k(2, 1) = 2.0;
  ASSERT_TRUE(dense.compute(k));
  ASSERT_TRUE(sparse.compute(k));
  ASSERT_TRUE(sparse.solve_checked(k, b, xs));
  EXPECT_LT((xs - dense.solve(b)).norm(), 1e-13);
  EXPECT_LT((k * xs - b).norm(), 1e-13);
}

namespace {

/// Seed 004 §3.2 slider-crank in 3-D: crank (half-length 1) and rod (half-length 1.5) with
/// revolutes about z at A and B, the rod end C on the global x axis (point-on-line, one row
/// redundant with the planar revolutes), torque +1 / −1 / 0 smoothed over ±0.01 s.
System seed004_slider_crank() {
  System s;
  const double l1 = 1.0, l2 = 1.5, th1 = M_PI / 4, th2 = -std::asin(l1 / l2 * std::sin(th1));
  const Vec3 u1(std::cos(th1), std::sin(th1), 0), u2(std::cos(th2), std::sin(th2), 0);
  RigidBody c;
  c.name = "crank";
  c.mass = 2.0;
  c.inertia = Vec3(0.667, 0.667, 2.0 / 3.0).asDiagonal();
  c.position = l1 * u1;
  c.orientation = from_axis_angle(Vec3::UnitZ(), th1);
  s.add_body(c);
  RigidBody r;
  r.name = "rod";
  r.mass = 3.0;
  r.inertia = Vec3(2.25, 2.25, 2.25).asDiagonal();
  r.position = 2 * l1 * u1 + l2 * u2;
  r.orientation = from_axis_angle(Vec3::UnitZ(), th2);
  s.add_body(r);
  JointSpec a;
  a.name = "A";
  a.body_j = 0;
  s.add_joint(a);
  JointSpec b;
  b.name = "B";
  b.body_i = 0;
  b.body_j = 1;
  b.point = 2 * l1 * u1;
  s.add_joint(b);
  JointSpec cc;
  cc.name = "C";
  cc.type = JointType::point_on_line;
  cc.body_i = kGround;
  cc.body_j = 1;
  cc.point = 2 * l1 * u1 + 2 * l2 * u2;
  cc.axis = Vec3::UnitX();
  s.add_joint(cc);
  ForceSpec t;
  t.type = ForceType::torque;
  t.body = 0;
  t.direction = Vec3::UnitZ();
  t.value = TimeFunction::table({{0.99, 1.0}, {1.01, -1.0}, {1.99, -1.0}, {2.01, 0.0}});
  s.add_force(t);
  return s;
}

} // namespace

TEST(MbsDynamics, Seed004SliderCrankReproducesReferenceAngles) {
  System sys = seed004_slider_crank();
  SolverOptions o = hht(1e-3, 3.0);
  o.output_step = 0.5;
  const auto r = simulate(sys, o);
  // V10: the consistent initial state (rod CoM x and Euler parameters).
  const Vec& q0 = r.states.front().q;
  EXPECT_NEAR(q0(7), 2.73708922, 1e-8);
  EXPECT_NEAR(q0(10), 0.97003018, 1e-8);
  EXPECT_NEAR(q0(13), -0.24298446, 1e-8);
  EXPECT_EQ(r.dropped.size(), 1u); // C's z row repeats what the planar revolutes impose
  // V11: θ1(t) at t = 0.5 … 3.0 (Ryan 2018, Sec. 3.7 slider-crank; the thesis prints no θ1 values, these come from an independent tight-tolerance integration of that model), tolerance 2e-6.
  const double expect[] = {0.794030, 0.819679, 0.845135, 0.853949, 0.854549, 0.855149};
  ASSERT_EQ(r.states.size(), 7u);
  for (int k = 0; k < 6; ++k)
    EXPECT_NEAR(M_PI / 4 + sys.joint_angle(r.states[k + 1].q, 0), expect[k], 2e-6) << "t = " << r.states[k + 1].t;
  // V12: the work of the torque equals the kinetic energy (no gravity), drift ≤ 1e-10. The
  // reference's 1e-8 assumes a tight-tolerance SI2 integration; HHT's energy error at h = 1e-3 is
  // O(h²): measured 6.4e-6 of the largest kinetic energy. Newmark (α = 0, no numerical dissipation)
  // at h = 1e-4 in the stabilised formulation (an SI2 scheme) meets the digest's 1e-8: 2.5e-9
  // (HHT α = −0.05 there: 6.4e-8).
  auto energy_error = [&](const flexuq::mbs::test::Run& run) {
    double kmax = 0, worst = 0;
    for (const auto& st : run.states) kmax = std::max(kmax, sys.kinetic_energy(st.q, st.v));
    for (std::size_t k = 0; k < run.states.size(); ++k)
      worst = std::max(worst, std::abs(sys.kinetic_energy(run.states[k].q, run.states[k].v) - run.work[k]));
    return worst / kmax;
  };
  EXPECT_LT(energy_error(r), 2e-5);
  EXPECT_LT(r.stats.max_drift, 1e-10);
  o.step = 1e-4;
  o.alpha = 0;
  const auto fine = simulate(sys, o);
  EXPECT_LT(energy_error(fine), 1e-8);
}

// The four schemes agree on seed 004's rigid slider-crank to their accuracies (seed 000's own T17,
// Euler at 1e-6 on its flexible slider-crank against rk45: tests/mbs/seed000_t17_test.sh).
TEST(MbsDynamics, SchemesAgreeOnSliderCrank) {
  std::map<std::string, double> theta;
  for (Scheme sc : {Scheme::hht, Scheme::generalized_alpha, Scheme::rk45, Scheme::euler}) {
    System sys = seed004_slider_crank();
    SolverOptions o = hht(sc == Scheme::euler ? 1e-4 : 1e-3, 1.5);
    o.scheme = sc;
    o.output_step = 0.5;
    o.rtol = 1e-9;
    o.atol = 1e-11;
    const auto r = simulate(sys, o);
    theta[scheme_name(sc)] = M_PI / 4 + sys.joint_angle(r.states.back().q, 0);
    EXPECT_LT(r.stats.max_drift, 1e-9) << scheme_name(sc);
  }
  EXPECT_NEAR(theta["hht"], 0.845135, 2e-6);
  EXPECT_NEAR(theta["generalized-alpha"], 0.845135, 2e-6);
  EXPECT_NEAR(theta["rk45"], 0.845135, 2e-6);
  EXPECT_NEAR(theta["euler"], 0.845135, 1e-4); // first order
}

TEST(MbsDynamics, RotationalDamperMatchesTheExponentialSpinUp) {
  // A wheel on a revolute about a skew axis, torque T and a rotational damper c about that axis
  // (body-fixed, to exercise the frame rotation): J ω̇ = T − c ω, ω(t) = (T/c)(1 − exp(−c t/J)). The
  // damper's power enters the work, so the energy balance holds to the integrator's accuracy. A
  // second damper with body2 on the ground side and the axis reversed adds c' with the same sign.
  const Vec3 axis = Vec3(1, 2, 2).normalized();
  const double J = 0.3, T = 2.0, c = 0.5, c2 = 0.25;
  auto build = [&](bool two) {
    System sys;
    RigidBody b;
    b.name = "wheel";
    b.mass = 4.0;
    b.inertia = Eigen::Matrix3d(J * axis * axis.transpose() + 0.7 * (Eigen::Matrix3d::Identity() - axis * axis.transpose()));
    b.position = Vec3(0.2, -0.1, 0.3);
    sys.add_body(b);
    JointSpec j;
    j.name = "axle";
    j.body_j = 0;
    j.point = b.position;
    j.axis = axis;
    sys.add_joint(j);
    ForceSpec t;
    t.type = ForceType::torque;
    t.body = 0;
    t.direction = axis;
    t.value = TimeFunction::constant(T);
    sys.add_force(t);
    ForceSpec d;
    d.type = ForceType::rotational_damper;
    d.body = 0;
    d.direction = axis;
    d.body_frame = true;
    d.damping = c;
    sys.add_force(d);
    if (two) {
      ForceSpec e;
      e.type = ForceType::rotational_damper;
      e.body = kGround;
      e.body2 = 0;
      e.direction = -axis;
      e.damping = c2;
      sys.add_force(e);
    }
    return sys;
  };
  for (bool two : {false, true}) {
    System sys = build(two);
    const double ct = two ? c + c2 : c;
    const auto r = simulate(sys, hht(1e-3, 2.0, 0.0));
    double worst = 0, balance = 0;
    for (std::size_t k = 0; k < r.states.size(); ++k) {
      const auto& st = r.states[k];
      const Vec3 w = 2.0 * e_matrix(st.q.segment<4>(3)) * st.v.segment<4>(3);
      const double ref = T / ct * (1 - std::exp(-ct * st.t / J));
      worst = std::max(worst, std::abs(w.dot(axis) - ref));
      EXPECT_LT((w - w.dot(axis) * axis).norm(), 1e-9);
      balance = std::max(balance, std::abs(sys.kinetic_energy(st.q, st.v) - r.work[k]));
    }
    EXPECT_LT(worst, 1e-5 * T / ct) << (two ? "two dampers" : "one damper");
    EXPECT_LT(balance, 1e-5 * 0.5 * J * std::pow(T / ct, 2));
    EXPECT_GT(r.states.back().t, 1.999);
  }
  // Bad input names the problem.
  System sys = build(false);
  ForceSpec bad;
  bad.type = ForceType::rotational_damper;
  bad.body = 0;
  bad.direction = Vec3::Zero();
  bad.damping = 1.0;
  EXPECT_THROW(sys.add_force(bad), flexuq::InputError);
}

TEST(MbsDynamics, AdaptiveHhtControlsTheError) {
  Pendulum p;
  System sys = p.sys();
  SolverOptions o = hht(1e-2, 1.0);
  o.adaptive = true;
  o.output_step = 0.25;
  o.rtol = 1e-7;
  o.atol = 1e-9;
  const auto r = simulate(sys, o);
  EXPECT_NEAR(p.theta0 + sys.joint_angle(r.states.back().q, 0), p.reference(1.0), 1e-5);
  EXPECT_GT(r.stats.steps, 20);
  EXPECT_LT(r.stats.max_drift, 1e-10);
}

// ---- bad input: a clear message naming the culprit ----

namespace {
/// Runs @p f, which must throw an E whose message contains every one of @p parts.
template <class E, class F> void expect_message(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const E& e) {
    const std::string m = e.what();
    for (const char* p : parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
  }
}
} // namespace

TEST(MbsBadInput, UnknownBodyIsNamed) {
  System sys = Pendulum().sys();
  expect_message<flexuq::InputError>([&] { sys.body_index("bogus", "joint 'B'"); },
                                     {"joint 'B'", "'bogus' does not exist"});
}

TEST(MbsBadInput, ConfigurationThatCannotBeAssembledNamesTheJoint) {
  System sys = four_bar(false, 3.0); // the coupler would have to be three times longer
  Integrator integ(sys, hht(1e-3, 1.0));
  State s;
  expect_message<flexuq::InputError>([&] { integ.initialise(s); }, {"cannot be assembled at t = 0", "joint '"});
}

TEST(MbsBadInput, SingularMassMatrixNamesTheBody) {
  System sys = Pendulum().sys();
  RigidBody ghost;
  ghost.name = "ghost"; // no mass, no inertia, held only at a point: its rotation is free
  ghost.position = Vec3(0, 2, 0);
  sys.add_body(ghost);
  JointSpec j;
  j.name = "ball";
  j.type = JointType::spherical;
  j.body_j = 1;
  j.point = Vec3(0, 2, 0);
  sys.add_joint(j);
  Integrator integ(sys, hht(1e-3, 1.0));
  State s;
  expect_message<flexuq::InputError>([&] { integ.initialise(s); }, {"singular", "'ghost'"});
}

TEST(MbsBadInput, StepThatFailsToConvergeNamesTheTime) {
  System sys = Pendulum().sys();
  SolverOptions o = hht(1e-2, 1.0);
  o.max_iter = 1;
  o.min_step = 1e-3;
  expect_message<flexuq::Error>([&] { simulate(sys, o); }, {"failed at t = 0", "Newton did not converge"});
}

TEST(MbsBadInput, JointOptionsAreChecked) {
  System sys = Pendulum().sys();
  JointSpec j;
  j.name = "U";
  j.type = JointType::universal;
  j.body_j = 0;
  j.axis = Vec3::UnitZ();
  j.axis2 = Vec3(1, 0, 1);
  j.has_axis2 = true;
  EXPECT_THROW(sys.add_joint(j), flexuq::InputError);
  j.type = JointType::revolute;
  j.axis = Vec3::Zero();
  EXPECT_THROW(sys.add_joint(j), flexuq::InputError);
  EXPECT_FALSE(flexuq::parse_enum(kJointTypeNames, "hinge")); // the job-file parser refuses it (tests/app)
  EXPECT_EQ(flexuq::parse_enum(kJointTypeNames, "perpendicular"), JointType::dot1);
  SolverOptions o;
  o.alpha = -0.5;
  EXPECT_THROW(o.validate(), flexuq::InputError);
}
