// SPDX-License-Identifier: MIT
// The body models (mbs/Body.hpp) on their own, at a body block in the middle of a larger vector:
// a rigid body's mass matrix against blockdiag(m 1, 4 GᵀJG) and its kinetic energy against
// ½ m |ṙ|² + ½ ω'ᵀJω' with ω' from the quaternion product (Eigen, independent of G); the initial
// rates; M·a without forming M against the formed block; a flexible body's gravity, strain energy,
// dissipation and Newton block against sums over the particles of tests/mbs/ParticleBody.hpp; its
// own forces against the virtual work of gravity and strain; make_body_model's choice; the constant
// uncoupled mass blocks (BodyModel::constant_mass_block) against mass_into at random poses.
#include "flexuq/mbs/System.hpp"

#include "MassBlockCheck.hpp"
#include "ParticleBody.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

using namespace flexuq::mbs;

namespace {

constexpr int kOffset = 5; // the body's block starts here: the models must use o, not 0

Vec4 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> n;
  return Vec4(n(rng), n(rng), n(rng), n(rng)).normalized();
}

Vec random_vector(int size, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Vec v(size);
  for (int k = 0; k < size; ++k) v(k) = u(rng);
  return v;
}

RigidBody rigid_spec(std::mt19937& rng) {
  RigidBody b;
  b.name = "link";
  b.mass = 2.5;
  const Mat3 r = rotation(random_unit(rng));
  b.inertia = r * Vec3(0.3, 0.5, 0.7).asDiagonal() * r.transpose();
  b.position = Vec3(0.1, -0.2, 0.3);
  b.orientation = random_unit(rng);
  b.velocity = Vec3(1.0, 2.0, -0.5);
  b.angular_velocity = Vec3(-3.0, 0.4, 2.0);
  return b;
}

/// ω' (body frame) from p and ṗ by the quaternion product: ṗ = ½ p ⊗ (0, ω').
Vec3 body_rate(const Vec4& p, const Vec4& pd) {
  const Eigen::Quaterniond qp(p(0), p(1), p(2), p(3)), qd(pd(0), pd(1), pd(2), pd(3));
  const Eigen::Quaterniond w = qp.conjugate() * qd;
  return 2.0 * w.vec();
}

} // namespace

TEST(BodyModel, RigidMassMatrixIsTheAnalyticOne) {
  std::mt19937 rng(7);
  const RigidBody spec = rigid_spec(rng);
  const auto model = make_body_model(spec);
  ASSERT_NE(dynamic_cast<const RigidBodyModel*>(model.get()), nullptr);
  ASSERT_EQ(model->n_coordinates(), 7);
  const int n = kOffset + 7 + 3;
  Vec q = random_vector(n, rng), v = random_vector(n, rng);
  const Vec4 p = random_unit(rng);
  q.segment<4>(kOffset + 3) = p;
  Vec4 pd = v.segment<4>(kOffset + 3);
  pd -= p * p.dot(pd); // pᵀṗ = 0
  v.segment<4>(kOffset + 3) = pd;

  Mat mm = Mat::Constant(n, n, 99.0);
  mm.block(kOffset, kOffset, 7, 7).setZero(); // System::mass_into zeroes M first
  model->mass_into(q, kOffset, 2.0, mm);
  const Mat34 g = g_matrix(p);
  const Mat block = mm.block(kOffset, kOffset, 7, 7);
  EXPECT_LT((block.topLeftCorner<3, 3>() - 2.0 * spec.mass * Mat3::Identity()).norm(), 1e-14);
  EXPECT_LT((block.bottomRightCorner<4, 4>() - 8.0 * g.transpose() * spec.inertia * g).norm(), 1e-13);
  EXPECT_EQ(mm(0, 0), 99.0) << "mass_into wrote outside the body's block";

  // ½ q̇_bᵀ M_b q̇_b = ½ m |ṙ|² + ½ ω'ᵀ J ω'.
  const Vec vb = v.segment(kOffset, 7);
  const Vec3 w = body_rate(p, pd);
  const double t_ref = 0.5 * spec.mass * vb.head<3>().squaredNorm() + 0.5 * w.dot(spec.inertia * w);
  EXPECT_NEAR(0.25 * vb.dot(block * vb), t_ref, 1e-12 * t_ref);

  // M·a without forming M.
  const Vec a = random_vector(n, rng);
  Vec ma = Vec::Zero(n);
  model->mass_times(q, a, kOffset, ma);
  EXPECT_LT((ma.segment(kOffset, 7) - 0.5 * block * a.segment(kOffset, 7)).norm(), 1e-12);
  EXPECT_EQ(ma.head(kOffset).norm(), 0.0);
}

TEST(BodyModel, RigidInitialRatesGiveTheAngularVelocity) {
  std::mt19937 rng(11);
  RigidBody spec = rigid_spec(rng);
  const auto model = make_body_model(spec);
  const int n = kOffset + 7;
  Vec q = Vec::Zero(n), v = Vec::Zero(n);
  model->initial_coordinates(q, kOffset);
  model->initial_rates(v, kOffset);
  EXPECT_EQ(q.segment<3>(kOffset), spec.position);
  EXPECT_LT((q.segment<4>(kOffset + 3) - spec.orientation).norm(), 1e-15);
  EXPECT_EQ(v.segment<3>(kOffset), spec.velocity);
  const Vec4 p = q.segment<4>(kOffset + 3), pd = v.segment<4>(kOffset + 3);
  EXPECT_NEAR(p.dot(pd), 0.0, 1e-15);
  // ω (global) = A ω'.
  EXPECT_LT((rotation(p) * body_rate(p, pd) - spec.angular_velocity).norm(), 1e-13);
}

TEST(BodyModel, RigidForcesAreGravityAndTheQuadraticVelocityVector) {
  std::mt19937 rng(13);
  const RigidBody spec = rigid_spec(rng);
  const auto model = make_body_model(spec);
  const int n = kOffset + 7;
  Vec q = random_vector(n, rng), v = random_vector(n, rng);
  q.segment<4>(kOffset + 3) = random_unit(rng);
  const Vec3 g(0.0, -9.81, 1.0);
  Vec f = Vec::Zero(n);
  model->add_body_forces(q, v, kOffset, g, false, f);
  EXPECT_EQ(f.norm(), 0.0) << "a rigid body takes its gravity per load (add_gravity), not the summed field";
  model->add_gravity(g, kOffset, f);
  EXPECT_LT((f.segment<3>(kOffset) - spec.mass * g).norm(), 1e-14);
  EXPECT_EQ(f.segment<4>(kOffset + 3).norm(), 0.0);
  EXPECT_NEAR(model->gravity_work(q, kOffset, g), spec.mass * g.dot(q.segment<3>(kOffset)), 1e-14);
  EXPECT_EQ(model->strain_energy(q, kOffset), 0.0);
  EXPECT_EQ(model->dissipation(v, kOffset), 0.0);
  Vec fq = Vec::Zero(n);
  model->add_body_forces(q, v, kOffset, g, true, fq);
  const Mat34 gd = g_matrix(Vec4(v.segment<4>(kOffset + 3)));
  EXPECT_LT((fq.segment<4>(kOffset + 3) - 8.0 * gd.transpose() * spec.inertia * gd * q.segment<4>(kOffset + 3)).norm(), 1e-12);
}

TEST(BodyModel, FlexibleBodyAgainstItsParticles) {
  using flexuq::mbs::test::Particles;
  const Particles pt = Particles::make(6, 3, 0.8, 5);
  auto data = pt.data(1.0, 0.02);
  std::mt19937 rng(3);
  data->V = Mat::Random(5, 3); // ξ = V η (unused by the dynamics)
  RigidBody spec = flexuq::mbs::test::flexible_body("bar", data, Vec3(0.2, 0.1, -0.3), Vec4(1, 0, 0, 0));
  const auto model = make_body_model(spec);
  ASSERT_NE(dynamic_cast<const FlexibleBodyModel*>(model.get()), nullptr);
  ASSERT_EQ(model->n_coordinates(), 7 + 3);
  const int n = kOffset + 10 + 2;
  Vec q = 0.05 * random_vector(n, rng), v = random_vector(n, rng);
  q.segment<3>(kOffset) = Vec3(0.3, -0.2, 0.5);
  const Vec4 p = random_unit(rng);
  q.segment<4>(kOffset + 3) = p;
  auto tangent = [&](Vec& x) { x.segment<4>(kOffset + 3) -= p * p.dot(x.segment<4>(kOffset + 3)); }; // pᵀṗ = 0
  tangent(v);
  const Vec eta = q.segment(kOffset + 7, 3), eta_d = v.segment(kOffset + 7, 3);
  auto particle = [&](const Vec& qq, int i) { // x_i = r + A (x0_i + Φ_i η)
    return Vec3(qq.segment<3>(kOffset) + rotation(qq.segment<4>(kOffset + 3)) * (pt.x[i] + pt.rows(i) * qq.segment(kOffset + 7, 3)));
  };

  // Gravity: g · Σ m_i x_i.
  const Vec3 g(0.5, -9.81, 0.3);
  double work = 0;
  for (int i = 0; i < 6; ++i) work += pt.m[i] * g.dot(particle(q, i));
  EXPECT_NEAR(model->gravity_work(q, kOffset, g), work, 1e-12 * std::abs(work));
  // Strain energy, dissipation, the Newton block: K = diag(k), D = diag(2 ζ √k).
  double strain = 0, diss = 0;
  for (int c = 0; c < 3; ++c) {
    strain += 0.5 * pt.k(c) * eta(c) * eta(c);
    diss += 2 * 0.02 * std::sqrt(pt.k(c)) * eta_d(c) * eta_d(c);
  }
  EXPECT_NEAR(model->strain_energy(q, kOffset), strain, 1e-12 * strain);
  EXPECT_NEAR(model->dissipation(v, kOffset), diss, 1e-12 * diss);
  Mat kd = Mat::Zero(n, n);
  model->add_stiffness_damping(q, kOffset, 2.0, 3.0, kd);
  EXPECT_LT((kd.block(kOffset + 7, kOffset + 7, 3, 3) - (2.0 * data->K + 3.0 * data->D)).norm(), 1e-12);
  EXPECT_NEAR(kd.norm(), (2.0 * data->K + 3.0 * data->D).norm(), 1e-12);
  EXPECT_LT((model->strain_amplitudes(eta) - data->V * eta).norm(), 1e-15);

  // Kinetic energy ½ Σ m_i |ẋ_i|² (ẋ by central differences of x along q̇), and M·a against M.
  Mat mm = Mat::Zero(n, n);
  model->mass_into(q, kOffset, 1.0, mm);
  const double h = 1e-6;
  double kin = 0;
  for (int i = 0; i < 6; ++i) kin += 0.5 * pt.m[i] * ((particle(q + h * v, i) - particle(q - h * v, i)) / (2 * h)).squaredNorm();
  EXPECT_NEAR(0.5 * v.dot(mm * v), kin, 1e-7 * kin);
  const Vec a = random_vector(n, rng);
  Vec ma = Vec::Zero(n);
  model->mass_times(q, a, kOffset, ma);
  EXPECT_LT((ma.segment(kOffset, 10) - (mm * a).segment(kOffset, 10)).norm(), 1e-11 * (mm * a).norm());

  // At rest, without quadratic-velocity terms, the body's own force does the virtual work of gravity
  // and strain: δqᵀ f = δ(g·Σ m_i x_i − ½ ηᵀKη) for any δq with pᵀδp = 0.
  Vec f = Vec::Zero(n), rest = Vec::Zero(n);
  model->add_body_forces(q, rest, kOffset, g, false, f);
  EXPECT_EQ(f.head(kOffset).norm(), 0.0);
  for (int trial = 0; trial < 3; ++trial) {
    Vec dq = Vec::Zero(n);
    dq.segment(kOffset, 10) = random_vector(10, rng);
    tangent(dq);
    auto energy = [&](const Vec& qq) {
      return model->gravity_work(qq, kOffset, g) - model->strain_energy(qq, kOffset);
    };
    const double fd = (energy(q + h * dq) - energy(q - h * dq)) / (2 * h);
    EXPECT_NEAR(dq.dot(f), fd, 1e-6 * std::max(1.0, std::abs(fd))) << "trial " << trial;
  }
}

TEST(BodyModel, RigidBodyRefusesNothingAndHoldsNoFrame) {
  std::mt19937 rng(17);
  const auto model = make_body_model(rigid_spec(rng));
  EXPECT_NO_THROW(model->check_axis("joint 'j'"));
  EXPECT_NO_THROW(model->check_point(Vec3(1, 2, 3), nullptr, "joint 'j'"));
  EXPECT_FALSE(model->frame_held());
  EXPECT_EQ(model->strain_amplitudes(Vec::Zero(0)).size(), 0);
}

TEST(BodyModel, ConstantMassBlockIsTheUncoupledConstantPart) {
  // Rigid: C = m 1 on r (3 × 3), at random unit p; planar: m 1 on (x, y), at random (e0, e3). The
  // block is the body's mass, not a value read back from mass_into.
  std::mt19937 rng(23);
  const RigidBody spec = rigid_spec(rng);
  const auto rigid = make_body_model(spec);
  ASSERT_EQ(rigid->constant_mass_block(), spec.mass * Mat::Identity(3, 3));
  RigidBody flat = spec;
  flat.planar = true;
  flat.orientation = Vec4(std::cos(0.35), 0, 0, std::sin(0.35));
  flat.velocity.z() = 0;
  flat.angular_velocity = Vec3(0, 0, 1.5);
  const auto planar = make_body_model(flat);
  ASSERT_EQ(planar->n_coordinates(), 4);
  ASSERT_EQ(planar->constant_mass_block(), spec.mass * Mat::Identity(2, 2));
  for (int trial = 0; trial < 3; ++trial) {
    Vec q = random_vector(kOffset + 9, rng);
    q.segment<4>(kOffset + 3) = random_unit(rng);
    test::expect_constant_leading_block(*rigid, q, kOffset, "rigid, trial " + std::to_string(trial));
    Vec qp = random_vector(kOffset + 6, rng);
    const double th = 3.0 * qp(0);
    qp(kOffset + 2) = std::cos(0.5 * th);
    qp(kOffset + 3) = std::sin(0.5 * th);
    test::expect_constant_leading_block(*planar, qp, kOffset, "planar, trial " + std::to_string(trial));
  }
  // A floating-frame body has none: its M_rr = m 1 is constant, but its r-p coupling −A s̃(η) 2G is not
  // zero (the particles' centre of mass is off the frame) and changes with p.
  using flexuq::mbs::test::Particles;
  const Particles pt = Particles::make(6, 3, 0.8, 5);
  const auto flex = make_body_model(flexuq::mbs::test::flexible_body("bar", pt.data(1.0, 0.02), Vec3(0.2, 0.1, -0.3),
                                                                    Vec4(1, 0, 0, 0)));
  EXPECT_EQ(flex->constant_mass_block().size(), 0);
  Mat m1 = Mat::Zero(kOffset + 10, kOffset + 10), m2 = m1;
  Vec q = 0.05 * random_vector(kOffset + 10, rng);
  q.segment<4>(kOffset + 3) = random_unit(rng);
  flex->mass_into(q, kOffset, 1.0, m1);
  q.segment<4>(kOffset + 3) = random_unit(rng);
  flex->mass_into(q, kOffset, 1.0, m2);
  double mass = 0;
  for (const double mp : pt.m) mass += mp;
  EXPECT_LT((m1.block<3, 3>(kOffset, kOffset) - mass * Mat3::Identity()).norm(), 1e-12);
  const Mat rp1 = m1.block(kOffset, kOffset + 3, 3, 4), rp2 = m2.block(kOffset, kOffset + 3, 3, 4);
  EXPECT_GT(rp1.norm(), 1e-3);
  EXPECT_GT((rp1 - rp2).norm(), 1e-3);
}
