// SPDX-License-Identifier: MIT
// Flexible floating-frame bodies in the multibody System, on a synthetic body whose every
// quantity has an independent oracle: N point masses m_i at x_i with a random elastic basis Φ
// (M-orthogonal to the rigid modes), so the inertia invariants are exact sums and the kinetic
// energy and momenta are sums over particles. Checks: M(q) against the particles' kinetic energy,
// the quadratic-velocity vector against Lagrange's equations by finite differences, attachment
// kinematics (C_q, γ) against finite differences, energy with α = 0, drift, momentum of a free
// body, a very stiff body against the rigid one, and bad input.
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"
#include "flexuq/mbs/Integrator.hpp"
#include "MbsTestUtil.hpp"
#include "ParticleBody.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

using namespace flexuq::mbs;
using flexuq::mbs::test::hht;
using flexuq::mbs::test::simulate;
using flexuq::mbs::test::Particles;
using flexuq::mbs::test::flexible_body;

namespace {

/// A random consistent state of @p sys (unit p, pᵀṗ = 0).
void random_state(const System& sys, std::uint32_t seed, Vec& q, Vec& v) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  q = sys.initial_q();
  v = Vec(sys.n());
  for (int k = 0; k < sys.n(); ++k) v(k) = u(gen);
  for (std::size_t b = 0; b < sys.bodies().size(); ++b) {
    const int o = sys.offset(static_cast<int>(b));
    for (int k = 0; k < 4; ++k) q(o + 3 + k) = u(gen);
    q.segment<4>(o + 3).normalize();
    const Vec4 p = q.segment<4>(o + 3);
    v.segment<4>(o + 3) -= p * p.dot(v.segment<4>(o + 3));
    for (int k = 0; k < sys.n_elastic(static_cast<int>(b)); ++k) q(o + 7 + k) = 0.05 * u(gen);
  }
}

/// A flexible pendulum: particle 0 of the body held by a spherical joint at the origin, gravity.
System pendulum(const Particles& pt, double stiffness_factor, double zeta = 0.0) {
  System sys;
  const Vec4 p0 = from_axis_angle(Vec3(0.2, 0.3, 1.0), -0.9);
  sys.add_body(flexible_body("beam", pt.data(stiffness_factor, zeta), -rotation(p0) * pt.x[0], p0));
  JointSpec j;
  j.name = "pivot";
  j.type = JointType::spherical;
  j.body_i = kGround;
  j.body_j = 0;
  j.point = Vec3::Zero();
  j.interface_j = "P0";
  sys.add_joint(j);
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  sys.add_force(g);
  return sys;
}

} // namespace

// M(q) of the system equals the particles' kinetic energy: ½ q̇ᵀ M q̇ = Σ ½ m_i |ṙ_i|².
TEST(MbsFlexible, MassMatrixGivesTheParticlesKineticEnergy) {
  const auto pt = Particles::make(6, 4, 1.0, 7);
  System sys;
  sys.add_body(flexible_body("beam", pt.data(), Vec3(0.1, 0.2, 0.3), from_axis_angle(Vec3(1, 1, 0), 0.3)));
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    Vec q, v;
    random_state(sys, seed, q, v);
    const double t_sys = sys.kinetic_energy(q, v), t_ref = pt.kinetic(sys, q, v, 0);
    EXPECT_NEAR(t_sys, t_ref, 1e-12 * t_ref) << "seed " << seed;
  }
}

// Lagrange: with T(q, q̇) = ½ q̇ᵀM(q)q̇ (the system's own M, equal to the particles' T by the test
// above), M q̈ + Ṁq̇ − ∂T/∂q = Q_ext. The system's quadratic-velocity vector must therefore equal
// ∂T/∂q − Ṁq̇ (finite differences) up to a multiple of [0; p; 0], the gradient of the norm
// constraint, which the norm row's multiplier absorbs (the rigid bodies' 8ĠᵀJĠp differs from
// 2Gᵀ(−ω̃Jω) the same way).
TEST(MbsFlexible, QuadraticVelocityVectorMatchesLagrangeEquations) {
  const auto pt = Particles::make(5, 3, 0.8, 11);
  System sys;
  sys.add_body(flexible_body("beam", pt.data(0.0), Vec3::Zero(), Vec4(1, 0, 0, 0))); // K = 0: inertia terms only
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    Vec q, v;
    random_state(sys, seed, q, v);
    const int n = sys.n();
    const double eps = 1e-6;
    Vec dtdq(n);
    for (int k = 0; k < n; ++k) {
      Vec qp = q, qm = q;
      qp(k) += eps;
      qm(k) -= eps;
      dtdq(k) = (sys.kinetic_energy(qp, v) - sys.kinetic_energy(qm, v)) / (2 * eps);
    }
    const Vec mdot_v = (sys.mass(q + eps * v) - sys.mass(q - eps * v)) / (2 * eps) * v;
    const Vec4 p = q.segment<4>(3);
    auto tangential = [&](Vec r) {
      r.segment<4>(3) -= p * p.dot(r.segment<4>(3));
      return r;
    };
    const Vec r = tangential(sys.forces(q, v, 0.0) - (dtdq - mdot_v));
    const double scale = dtdq.norm() + mdot_v.norm();
    EXPECT_LT(r.norm(), 1e-7 * scale) << "seed " << seed << ": residual " << r.transpose();
    // Switching the terms off changes the answer (the test can fail).
    sys.set_quadratic_velocity(false);
    EXPECT_GT(tangential(sys.forces(q, v, 0.0) - (dtdq - mdot_v)).norm(), 1e-3 * scale);
    sys.set_quadratic_velocity(true);
  }
}

// Points on an interface of a flexible body that is not the first body: position, velocity and
// acceleration against the particles (and finite differences in time for the acceleration).
TEST(MbsFlexible, InterfacePointKinematicsOnASecondBody) {
  const auto pt = Particles::make(4, 3, 0.6, 8);
  System sys; // a flexible body first: the second body's coordinates start after its η
  sys.add_body(flexible_body("first", pt.data(), Vec3(1, 2, 3), from_axis_angle(Vec3(0, 1, 0), 0.7)));
  sys.add_body(flexible_body("beam", pt.data(), Vec3(0.1, 0.2, 0.3), from_axis_angle(Vec3(1, 0, 1), 0.4)));
  Vec q, v;
  random_state(sys, 4, q, v);
  Vec a = Vec::Random(sys.n());
  for (int i = 0; i < 4; ++i) {
    const Mat L = sys.point_map(1, "P" + std::to_string(i), pt.x[i], "test");
    EXPECT_LT((sys.point_position(q, 1, pt.x[i], L) - pt.position(sys, q, 1, i)).norm(), 1e-14);
    EXPECT_LT((sys.point_velocity(q, v, 1, pt.x[i], L) - pt.velocity(sys, q, v, 1, i)).norm(), 1e-13);
    // ẍ along q(τ) = q + τv + ½τ²a: second difference of the position.
    const double h = 1e-4;
    auto at = [&](double tau) { return pt.position(sys, q + tau * v + 0.5 * tau * tau * a, 1, i); };
    const Vec3 fd = (at(h) - 2 * at(0) + at(-h)) / (h * h);
    EXPECT_LT((sys.point_acceleration(q, v, a, 1, pt.x[i], L) - fd).norm(), 1e-5) << "particle " << i;
  }
}

// A joint point on an interface moves with the deformation: C_q and γ against finite differences.
TEST(MbsFlexible, AttachedJointJacobianAndGammaMatchFiniteDifferences) {
  const auto pt = Particles::make(4, 3, 0.6, 3);
  auto data = pt.data();
  // Give interface P3 a rotation too, so axes on it turn with η.
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  Attachment& a3 = data->interfaces["P3"];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < pt.n(); ++c) a3.rotation(r, c) = 0.3 * u(gen);
  System sys;
  const Vec4 p0 = from_axis_angle(Vec3(0, 0, 1), 0.2);
  sys.add_body(flexible_body("beam", data, Vec3::Zero(), p0));
  RigidBody rb;
  rb.name = "link";
  rb.mass = 1.0;
  rb.inertia = Vec3(0.1, 0.1, 0.1).asDiagonal();
  rb.position = rotation(p0) * pt.x[3] + Vec3(0.2, 0, 0);
  sys.add_body(rb);
  for (JointType t : {JointType::revolute, JointType::fixed, JointType::cylindrical}) {
    System s2 = sys.with_flexible({}); // a System is move-only; this rebuilds it
    JointSpec j;
    j.name = "J";
    j.type = t;
    j.body_i = 0;
    j.body_j = 1;
    j.point = rotation(p0) * pt.x[3];
    j.axis = Vec3(0.3, 0.1, 1.0);
    j.interface_i = "P3";
    s2.add_joint(j);
    Vec q, v;
    random_state(s2, 9, q, v);
    const Mat cq = s2.jacobian_all(q, 0.0);
    const double eps = 1e-7;
    for (int k = 0; k < s2.n(); ++k) {
      Vec qp = q, qm = q;
      qp(k) += eps;
      qm(k) -= eps;
      const Vec fd = (s2.phi_all(qp, 0.0) - s2.phi_all(qm, 0.0)) / (2 * eps);
      EXPECT_LT((cq.col(k) - fd).norm(), 1e-6) << joint_type_name(t) << " column " << k;
    }
    // γ = −(C_q q̇)_q q̇ (no time dependence): d²C/dt² along q(τ) = q + τ v, with the curvature of
    // the path zero, equals q̇ᵀ C_qq q̇ = −γ.
    const double h = 1e-4;
    const Vec c2 = (s2.phi_all(q + h * v, 0.0) - 2 * s2.phi_all(q, 0.0) + s2.phi_all(q - h * v, 0.0)) / (h * h);
    const Vec gam = s2.gamma(q, v, 0.0);
    for (int r = 0; r < s2.m(); ++r) EXPECT_NEAR(gam(r), -c2(s2.active_rows()[r]), 1e-5) << joint_type_name(t) << " row " << r;
  }
}

// α = 0, no damping: a flexible pendulum conserves kinetic + potential + strain energy; the
// constraints hold to 1e-10.
TEST(MbsFlexible, PendulumConservesEnergyWithAlphaZeroAndHoldsConstraints) {
  const auto pt = Particles::make(5, 3, 0.5, 21);
  auto run = [&](double zeta) {
    System sys = pendulum(pt, 1.0, zeta);
    const auto r = simulate(sys, hht(5e-4, 0.5, 0.0));
    double e0 = 0, worst = 0, strain_max = 0, scale = 0;
    for (std::size_t k = 0; k < r.states.size(); ++k) {
      const auto& s = r.states[k];
      const double strain = sys.strain_energy(s.q);
      const double e = sys.kinetic_energy(s.q, s.v) + sys.potential_energy(s.q) + strain - r.work[k];
      if (k == 0) e0 = e;
      worst = std::max(worst, std::abs(e - e0));
      strain_max = std::max(strain_max, strain);
      scale = std::max(scale, sys.kinetic_energy(s.q, s.v));
    }
    return std::make_tuple(worst / scale, strain_max / scale, r.stats.max_drift, r.work.back() / scale);
  };
  const auto [err, strain, drift, work] = run(0.0);
  EXPECT_LT(err, 2e-3);   // trapezoidal rule: O(h²)
  EXPECT_GT(strain, 1e-4); // the body does deform (the test is not a rigid one in disguise)
  EXPECT_LT(drift, 1e-10);
  EXPECT_EQ(work, 0.0);
  // With modal damping the balance still closes (the dissipated work is booked) and energy is lost.
  const auto [err_d, strain_d, drift_d, work_d] = run(0.05);
  EXPECT_LT(err_d, 2e-3);
  EXPECT_LT(work_d, -10 * err_d);
  EXPECT_LT(drift_d, 1e-10);
}

// No joints, no forces: linear and angular momentum of the particles are conserved, to the
// integrator's O(h²) (HHT, α = 0, on body-frame equations does not conserve them exactly).
TEST(MbsFlexible, FreeFloatingBodyConservesMomentum) {
  const auto pt = Particles::make(5, 3, 0.5, 4);
  auto run = [&](double h) {
    System sys;
    RigidBody b = flexible_body("beam", pt.data(), Vec3(0.1, 0, 0), from_axis_angle(Vec3(1, 2, 3), 0.5));
    b.velocity = Vec3(0.3, -0.2, 0.1);
    b.angular_velocity = Vec3(2.0, -1.0, 6.0); // spin: centrifugal loads deform the body
    sys.add_body(b);
    const auto r = simulate(sys, hht(h, 0.5, 0.0));
    auto momenta = [&](const State& s) {
      Vec3 lin = Vec3::Zero(), ang = Vec3::Zero();
      for (std::size_t i = 0; i < pt.m.size(); ++i) {
        const Vec3 vi = pt.velocity(sys, s.q, s.v, 0, static_cast<int>(i));
        lin += pt.m[i] * vi;
        ang += pt.m[i] * pt.position(sys, s.q, 0, static_cast<int>(i)).cross(vi);
      }
      return std::make_pair(lin, ang);
    };
    const auto [l0, h0] = momenta(r.states.front());
    double dl = 0, dh = 0, eta_max = 0;
    for (const auto& s : r.states) {
      const auto [l, hh] = momenta(s);
      dl = std::max(dl, (l - l0).norm() / l0.norm());
      dh = std::max(dh, (hh - h0).norm() / h0.norm());
      eta_max = std::max(eta_max, sys.elastic(s.q, 0).norm());
    }
    return std::make_tuple(dl, dh, eta_max);
  };
  const auto [dl1, dh1, eta1] = run(1e-3);
  const auto [dl2, dh2, eta2] = run(5e-4);
  std::printf("momentum errors h = 1e-3: %.3g %.3g; h = 5e-4: %.3g %.3g; max |eta| %.3g\n", dl1, dh1, dl2, dh2, eta1);
  EXPECT_LT(dl1, 2e-5);
  EXPECT_LT(dh1, 2e-5);
  EXPECT_NEAR(std::log2(dl1 / dl2), 2.0, 0.3); // second order: a discretisation error, not a modelling one
  EXPECT_NEAR(std::log2(dh1 / dh2), 2.0, 0.3);
  EXPECT_GT(eta1, 1e-5);
}

// A very stiff flexible pendulum moves like the rigid body with the same mass properties.
TEST(MbsFlexible, VeryStiffBodyReproducesTheRigidOne) {
  const auto pt = Particles::make(5, 3, 0.5, 21);
  System flex = pendulum(pt, 1e6);
  const auto inv = pt.invariants();
  System rigid;
  const Vec4 p0 = flex.bodies()[0].orientation;
  const Vec3 r0 = flex.bodies()[0].position;
  RigidBody rb;
  rb.name = "beam";
  rb.mass = inv.mass;
  rb.inertia = inv.inertia_com;
  rb.position = r0 + rotation(p0) * inv.com;
  rb.orientation = p0;
  rigid.add_body(rb);
  JointSpec j;
  j.name = "pivot";
  j.type = JointType::spherical;
  j.body_i = kGround;
  j.body_j = 0;
  rigid.add_joint(j);
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  rigid.add_force(g);
  const auto rf = simulate(flex, hht(1e-4, 0.3, -0.1));
  const auto rr = simulate(rigid, hht(1e-4, 0.3, -0.1));
  ASSERT_EQ(rf.states.size(), rr.states.size());
  // Tip particle: flexible (deformed) against rigid.
  const int tip = static_cast<int>(pt.m.size()) - 1;
  double worst = 0;
  for (std::size_t k = 0; k < rf.states.size(); ++k) {
    const Vec3 xf = pt.position(flex, rf.states[k].q, 0, tip);
    const Vec3 xr = rigid.point_position(rr.states[k].q, 0, pt.x[tip] - inv.com);
    worst = std::max(worst, (xf - xr).norm());
  }
  EXPECT_LT(worst, 1e-5); // tip travels ~0.5 m
  // A soft body does not: the comparison can fail.
  System soft = pendulum(pt, 1e-2);
  const auto rs = simulate(soft, hht(1e-4, 0.3, -0.1));
  const Vec3 xs = pt.position(soft, rs.states.back().q, 0, tip);
  const Vec3 xr = rigid.point_position(rr.states.back().q, 0, pt.x[tip] - inv.com);
  EXPECT_GT((xs - xr).norm(), 1e-3);
}

TEST(MbsFlexible, BadInterfaceAndMissingFileAreNamed) {
  const auto pt = Particles::make(3, 2, 0.5, 1);
  System sys;
  sys.add_body(flexible_body("beam", pt.data(), Vec3::Zero(), Vec4(1, 0, 0, 0)));
  JointSpec j;
  j.name = "pin";
  j.body_j = 0;
  j.interface_j = "NOPE";
  try {
    sys.add_joint(j);
    FAIL() << "no error";
  } catch (const flexuq::InputError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("interface 'NOPE' is not in the body file synthetic"), std::string::npos) << w;
    EXPECT_NE(w.find("P0, P1, P2"), std::string::npos) << w;
    EXPECT_NE(w.find("joint 'pin'"), std::string::npos) << w;
  }
  j.interface_j.clear();
  EXPECT_THROW(sys.add_joint(j), flexuq::InputError); // a flexible body needs an interface
  try {
    load_flexible_body("/nonexistent/rod-cb.h5", {});
    FAIL() << "no error";
  } catch (const flexuq::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'/nonexistent/rod-cb.h5' does not exist"), std::string::npos) << e.what();
  }
}

// The Newton iteration matrix from analytic blocks (M(q), K̄, D̄, C_q) and the one by forward
// differences of the whole residual solve the same equations: both runs converge to the Newton
// tolerance, so their trajectories agree far below the step's discretisation error; the blocks
// matrix must not cost more than a few extra iterations. M(q) a without M equals M(q) · a.
TEST(MbsFlexible, BlocksIterationMatrixMatchesFiniteDifferences) {
  const auto pt = Particles::make(5, 3, 0.5, 21);
  System sys_b = pendulum(pt, 1.0, 0.05), sys_f = pendulum(pt, 1.0, 0.05);
  SolverOptions o = hht(5e-4, 0.2, -0.1);
  const auto rb = simulate(sys_b, o);
  o.fd_matrix = true;
  const auto rf = simulate(sys_f, o);
  ASSERT_EQ(rb.states.size(), rf.states.size());
  double worst = 0;
  for (std::size_t k = 0; k < rb.states.size(); ++k)
    worst = std::max(worst, (rb.states[k].q - rf.states[k].q).lpNorm<Eigen::Infinity>());
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT((rb.states.back().q - rb.states.front().q).norm(), 0.1); // it did move
  // Measured: 1623 iterations and 18 matrices (blocks) against 1609 and 18 (differences), 400 steps.
  EXPECT_LE(rb.stats.newton_iterations, 1.1 * rf.stats.newton_iterations);
  EXPECT_LE(rb.stats.jacobians, rf.stats.jacobians + 5);
  Vec q, v;
  random_state(sys_b, 5, q, v);
  const Vec a = Vec::Random(sys_b.n());
  EXPECT_LT((sys_b.mass_times(q, a) - sys_b.mass(q) * a).norm(), 1e-12 * (sys_b.mass(q) * a).norm());
}

// A force on an interface follows the deformation: its generalized force is the virtual work of F
// at the moving particle, Q = J_iᵀF with J_i the particle's velocity Jacobian [1, B(p, x_i + Φ_iη),
// AΦ_i], and its power is F·v_i. Without `interface` the point stays in the floating frame (no
// elastic part): the two differ, so the check can fail. A torque on an interface adds R_Iᵀ Aᵀ n to
// the elastic coordinates and n·A R_I η̇ to the power.
TEST(MbsFlexible, InterfaceForceFollowsTheDeformation) {
  const auto pt = Particles::make(4, 3, 0.6, 5);
  auto build = [&](bool follow) {
    System sys;
    sys.add_body(flexible_body("beam", pt.data(), Vec3(0.1, -0.2, 0.3), from_axis_angle(Vec3(1, -1, 2), 0.7)));
    ForceSpec f;
    f.type = ForceType::force;
    f.body = 0;
    f.direction = Vec3(0.3, -1.0, 0.5);
    f.value = TimeFunction::constant(2.5);
    f.point = sys.point_position(sys.initial_q(), 0, pt.x[2]);
    if (follow) f.interface = "P2";
    sys.add_force(f);
    return sys;
  };
  System sys = build(true), fixed = build(false);
  Vec q, v;
  random_state(sys, 99, q, v);
  const Vec3 F = 2.5 * Vec3(0.3, -1.0, 0.5).normalized();
  const Vec Q = sys.forces(q, v, 0.0);
  // Oracle: J_iᵀ F, the elastic forces K η and the quadratic-velocity terms removed by difference.
  System none;
  none.add_body(flexible_body("beam", pt.data(), Vec3(0.1, -0.2, 0.3), from_axis_angle(Vec3(1, -1, 2), 0.7)));
  const Vec Q0 = none.forces(q, v, 0.0);
  const int n = pt.n();
  Vec J = Vec::Zero(7 + n);
  const Vec4 p = q.segment<4>(3);
  J.head<3>() = F;
  J.segment<4>(3) = b_matrix(p, Vec3(pt.x[2] + pt.rows(2) * q.segment(7, n))).transpose() * F;
  J.tail(n) = (rotation(p) * pt.rows(2)).transpose() * F;
  EXPECT_LT((Q - Q0 - J).norm(), 1e-12 * J.norm());
  EXPECT_NEAR(sys.nonconservative_power(q, v, 0.0), F.dot(pt.velocity(sys, q, v, 0, 2)), 1e-12 * F.norm());
  // The force fixed in the floating frame has no elastic part and another rotational part.
  const Vec Qf = fixed.forces(q, v, 0.0) - Q0;
  EXPECT_LT(Qf.tail(n).norm(), 1e-14);
  EXPECT_GT((Qf - J).norm(), 1e-3 * J.norm());
  // A torque on the interface turns it: Q = [0; 2Eᵀn; R_Iᵀ Aᵀ n], and its power n·(ω + A R_I η̇) is Qᵀv
  // (the elastic part is what a torque on the floating frame lacks).
  auto turning = pt.data(); // point masses turn nothing: give interface P2 a small rotation R_I
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < n; ++c) turning->interfaces["P2"].rotation(r, c) = 0.1 * (r + 1) - 0.07 * c;
  System turned;
  turned.add_body(flexible_body("beam", turning, Vec3(0.1, -0.2, 0.3), from_axis_angle(Vec3(1, -1, 2), 0.7)));
  ForceSpec torque;
  torque.type = ForceType::torque;
  torque.body = 0;
  torque.direction = Vec3(0.3, -0.4, 0.866).normalized();
  torque.interface = "P2";
  turned.add_force(torque);
  const Vec Qt = turned.forces(q, v, 0.0) - Q0;  // same body and state as `none`
  const Mat& R = turned.bodies()[0].flex->interface("P2", "test").rotation;
  Vec Jt = Vec::Zero(Qt.size());
  Jt.segment<4>(3) = 2.0 * e_matrix(p).transpose() * torque.direction;
  Jt.tail(n) = R.transpose() * (rotation(p).transpose() * torque.direction);
  EXPECT_GT(Jt.tail(n).norm(), 1e-3 * Jt.norm()); // the interface does turn with η
  EXPECT_LT((Qt - Jt).norm(), 1e-12 * Jt.norm());
  EXPECT_NEAR(turned.nonconservative_power(q, v, 0.0) - none.nonconservative_power(q, v, 0.0), Qt.dot(v),
              1e-12 * Qt.norm() * v.norm());
  // An interface the body does not have is refused.
  ForceSpec bad = torque;
  bad.interface = "NOPE";
  EXPECT_THROW(none.add_force(bad), flexuq::InputError);
}
