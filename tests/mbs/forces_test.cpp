// SPDX-License-Identifier: MIT
// Loads, springs, dampers and energies of System (src/mbs/Forces.cpp) on two rigid bodies: the
// potential energy against ½ k (l − l0)² and −m g·r by hand (positions from Eigen's quaternions,
// independent of mbs::rotation); the conservative forces against minus the gradient of that
// energy; the power of the torque, force and dampers against its hand formula and against
// q̇ᵀQ + dV/dt; the springs' and damper's Newton blocks against −∂Q/∂q (zero tension) and −∂Q/∂q̇.
#include "flexuq/mbs/System.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

using namespace flexuq::mbs;

namespace {

const Vec3 kG(0.3, -9.81, 0.5);
const Vec3 kGroundPoint(0.5, 1.0, 0.0), kPa(0.1, 0.2, 0.05), kPb(0.9, 0.1, -0.1), kPf(-0.1, 0.05, 0.2);
constexpr double kK1 = 120.0, kL1 = 0.4, kK2 = 80.0, kC2 = 3.0, kCr = 0.7, kTorque = 2.0, kForce = 5.0;

Vec4 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> n;
  return Vec4(n(rng), n(rng), n(rng), n(rng)).normalized();
}

RigidBody body(const std::string& name, double m, const Vec3& r, const Vec4& p) {
  RigidBody b;
  b.name = name;
  b.mass = m;
  b.inertia = Vec3(0.2, 0.3, 0.4).asDiagonal();
  b.position = r;
  b.orientation = p;
  return b;
}

/// A load of @p type between @p body and @p body2 along @p direction (at @p point), of @p damping.
ForceSpec load(ForceType type, int body, int body2, const Vec3& direction, const Vec3& point = Vec3::Zero(),
               double damping = 0.0) {
  ForceSpec f;
  f.type = type;
  std::tie(f.body, f.body2, f.direction, f.point, f.damping) = std::tie(body, body2, direction, point, damping);
  return f;
}

/// A spring from @p p1 on @p body to @p p2 on @p body2 (global at t = 0; @p length < 0: the initial one).
ForceSpec spring(int body, int body2, const Vec3& p1, const Vec3& p2, double k, double c, double length) {
  ForceSpec s = load(ForceType::spring, body, body2, Vec3::Zero(), p1, c);
  std::tie(s.point2, s.stiffness, s.length) = std::tie(p2, k, length);
  return s;
}
ForceSpec ground_spring(double length) { return spring(kGround, 0, kGroundPoint, kPa, kK1, 0.0, length); }
ForceSpec ab_spring(double k, double c) { return spring(0, 1, kPa, kPb, k, c, -1.0); }
/// A rotational damper a–b about z (the axis is normalised by add_force).
ForceSpec ab_damper() { return load(ForceType::rotational_damper, 0, 1, Vec3(0, 0, 2), Vec3::Zero(), kCr); }

/// Bodies a, b; gravity; spring ground–a (k1, length l1); damped spring a–b (k2, c2, initial length);
/// with @p nonconservative also a rotational damper a–b, a torque on b (reaction on a) and a force on a.
System two_bodies(bool nonconservative, std::mt19937& rng) {
  System sys;
  sys.add_body(body("a", 1.5, Vec3(0.0, 0.0, 0.0), random_unit(rng)));
  sys.add_body(body("b", 0.8, Vec3(1.0, 0.2, 0.0), random_unit(rng)));
  sys.add_force(load(ForceType::gravity, kGround, kGround, kG));
  sys.add_force(ground_spring(kL1));
  sys.add_force(ab_spring(kK2, nonconservative ? kC2 : 0.0));
  if (nonconservative) {
    sys.add_force(ab_damper());
    ForceSpec t = load(ForceType::torque, 1, 0, Vec3(1, 1, 0));
    t.value = TimeFunction::constant(kTorque);
    sys.add_force(t);
    ForceSpec f = load(ForceType::force, 0, kGround, Vec3(0, 1, 0), kPf);
    f.value = TimeFunction::constant(kForce);
    sys.add_force(f);
  }
  sys.set_quadratic_velocity(false);
  return sys;
}

Mat3 quat_rotation(const Vec4& p) { return Eigen::Quaterniond(p(0), p(1), p(2), p(3)).normalized().toRotationMatrix(); }

/// Global position of the point given at @p global0 at t = 0 on body @p b, at q.
Vec3 moved(const System& sys, const Vec& q, int b, const Vec3& global0) {
  const RigidBody& rb = sys.bodies()[static_cast<std::size_t>(b)];
  const Vec3 local = quat_rotation(rb.orientation).transpose() * (global0 - rb.position);
  return q.segment<3>(sys.offset(b)) + quat_rotation(q.segment<4>(sys.offset(b) + 3)) * local;
}

/// A random state: unit p, ṗ ⊥ p.
void random_state(const System& sys, std::mt19937& rng, Vec& q, Vec& v) {
  std::uniform_real_distribution<double> u(-1, 1);
  q = sys.initial_q();
  v = Vec(sys.n());
  for (int b = 0; b < 2; ++b) {
    const int o = sys.offset(b);
    q.segment<3>(o) += 0.2 * Vec3(u(rng), u(rng), u(rng));
    q.segment<4>(o + 3) = random_unit(rng);
    for (int k = 0; k < 7; ++k) v(o + k) = u(rng);
    const Vec4 p = q.segment<4>(o + 3);
    v.segment<4>(o + 3) -= p * p.dot(v.segment<4>(o + 3));
  }
}

} // namespace

TEST(MbsForces, PotentialEnergyByHand) {
  std::mt19937 rng(21);
  const System sys = two_bodies(true, rng);
  Vec q, v;
  random_state(sys, rng, q, v);
  const double l1 = (moved(sys, q, 0, kPa) - kGroundPoint).norm();
  const double l20 = (kPb - kPa).norm(); // the initial length
  const double l2 = (moved(sys, q, 1, kPb) - moved(sys, q, 0, kPa)).norm();
  const double v_ref = -1.5 * kG.dot(q.segment<3>(0)) - 0.8 * kG.dot(q.segment<3>(7)) +
                       0.5 * kK1 * (l1 - kL1) * (l1 - kL1) + 0.5 * kK2 * (l2 - l20) * (l2 - l20);
  EXPECT_NEAR(sys.potential_energy(q), v_ref, 1e-12 * std::abs(v_ref));
  EXPECT_EQ(sys.strain_energy(q), 0.0);
  const Mat m = sys.mass(q);
  EXPECT_NEAR(sys.kinetic_energy(q, v), 0.5 * v.dot(m * v), 1e-14);
}

TEST(MbsForces, ConservativeForcesAreMinusTheEnergyGradient) {
  std::mt19937 rng(22);
  const System sys = two_bodies(false, rng);
  Vec q, v;
  random_state(sys, rng, q, v);
  const Vec f = sys.forces(q, Vec::Zero(sys.n()), 0.0);
  const double h = 1e-6;
  for (int k = 0; k < sys.n(); ++k) {
    Vec qp = q, qm = q;
    qp(k) += h;
    qm(k) -= h;
    const double grad = (sys.potential_energy(qp) - sys.potential_energy(qm)) / (2 * h);
    EXPECT_NEAR(f(k), -grad, 1e-6 * std::max(1.0, std::abs(grad))) << "coordinate " << k;
  }
}

TEST(MbsForces, PowerOfTheNonConservativeForces) {
  std::mt19937 rng(23);
  const System sys = two_bodies(true, rng);
  Vec q, v;
  random_state(sys, rng, q, v);
  const double t = 0.7, h = 1e-6;
  auto omega = [&](int b) { // global ω = A ω', ṗ = ½ p ⊗ (0, ω')
    const int o = sys.offset(b);
    const Eigen::Quaterniond p(q(o + 3), q(o + 4), q(o + 5), q(o + 6)), pd(v(o + 3), v(o + 4), v(o + 5), v(o + 6));
    return Vec3(quat_rotation(q.segment<4>(o + 3)) * (2.0 * (p.conjugate() * pd).vec()));
  };
  auto rate = [&](int b, const Vec3& global0) { return Vec3((moved(sys, q + h * v, b, global0) - moved(sys, q - h * v, b, global0)) / (2 * h)); };
  const Vec3 d = moved(sys, q, 1, kPb) - moved(sys, q, 0, kPa), dd = rate(1, kPb) - rate(0, kPa);
  const Vec3 axis(0, 0, 1), torque = kTorque * Vec3(1, 1, 0).normalized();
  const double p_ref = -kC2 * std::pow(d.normalized().dot(dd), 2) - kCr * std::pow(axis.dot(omega(0) - omega(1)), 2) +
                       torque.dot(omega(1) - omega(0)) + kForce * Vec3(0, 1, 0).dot(rate(0, kPf));
  const double p = sys.nonconservative_power(q, v, t);
  EXPECT_NEAR(p, p_ref, 1e-7 * std::abs(p_ref));
  // The same from the forces: q̇ᵀQ = P_nc − dV/dt (no quadratic-velocity terms).
  const double dv_dt = (sys.potential_energy(q + h * v) - sys.potential_energy(q - h * v)) / (2 * h);
  EXPECT_NEAR(v.dot(sys.forces(q, v, t)), p - dv_dt, 1e-6 * std::max(1.0, std::abs(p - dv_dt)));
}

TEST(MbsForces, NewtonBlocksOfSpringsAndDampers) {
  std::mt19937 rng(24);
  const System probe = two_bodies(true, rng);
  Vec q, v;
  random_state(probe, rng, q, v);
  // The same bodies with the ground spring's length the current one (zero tension at q): then
  // −∂Q/∂q of the springs is exactly k (∂l/∂q)ᵀ(∂l/∂q) for the ground spring; and at q̇ = 0 the
  // damping of the springs and dampers is exactly linear in q̇.
  System sys;
  for (const auto& b : probe.bodies()) sys.add_body(b);
  sys.add_force(ground_spring((moved(probe, q, 0, kPa) - kGroundPoint).norm()));
  sys.add_force(ab_spring(0.0, kC2)); // no stiffness: its tension at q̇ = 0 is zero too
  sys.add_force(ab_damper());
  sys.set_quadratic_velocity(false);
  ASSERT_EQ(sys.n(), 14);
  const double h = 1e-6;
  const Vec zero = Vec::Zero(14);
  Mat k_fd(14, 14), c_fd(14, 14);
  for (int k = 0; k < 14; ++k) {
    Vec qp = q, qm = q, vp = zero, vm = zero;
    qp(k) += h;
    qm(k) -= h;
    vp(k) += h;
    vm(k) -= h;
    k_fd.col(k) = -(sys.forces(qp, zero, 0.0) - sys.forces(qm, zero, 0.0)) / (2 * h);
    c_fd.col(k) = -(sys.forces(q, vp, 0.0) - sys.forces(q, vm, 0.0)) / (2 * h);
  }
  Mat k_newton = Mat::Zero(14, 14), c_newton = Mat::Zero(14, 14);
  sys.add_stiffness_damping(q, 1.0, 0.0, k_newton);
  sys.add_stiffness_damping(q, 0.0, 1.0, c_newton);
  EXPECT_GT(k_newton.norm(), 1.0);
  EXPECT_GT(c_newton.norm(), 0.1);
  EXPECT_LT((k_newton - k_fd).norm(), 1e-6 * k_newton.norm());
  EXPECT_LT((c_newton - c_fd).norm(), 1e-6 * c_newton.norm());
}
