// SPDX-License-Identifier: MIT
// Seed 002's generalised superelement in motion (mbs/GsBody.hpp) on a synthetic body of point masses,
// whose kinetic energy is a sum over the particles (the oracle, independent of J, M(ξ) and κ):
// * M_GS: ½ ġᵀ M_GS ġ = Σ ½ m_p |ẋ_p|², the particle velocities by differences of their positions along ġ;
// * C_GS (eq 84): the fictitious forces are Lagrange's Ṁ ġ − ∂T/∂g, T from the particles (so C_GS
//   derives from the kinetic energy: Aᵀ M_FF Ȧ and the floating frame's quadratic velocity together),
//   and ġᵀ C_GS ġ = ½ ġᵀ Ṁ_GS ġ (its power is that of the changing mass);
// * S7: a rigid pose (any position and turn) gives ξ = 0, zero elastic force and energy.
// * M̄ (ReducedBody::M, which the body does not read): with the frame point at rest M_GS = Eᵀ M̄ E, E the
//   closed-form map from ġ to the body's columns.
// The particle positions use the digest's definitions (§3.3, frame at interface point k):
// R_j = R_z(θ_k), r_j = x_k − R_j X_k, q_i = [R_jᵀ(x_i − r_j) − X_i; θ_i − θ_k], x_p = r_j + R_j(X_p + Φ_p ξ).
#include "flexuq/mbs/GsBody.hpp"

#include "GsSynthetic.hpp"
#include "MassBlockCheck.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Integrator.hpp"
#include "flexuq/mbs/System.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace flexuq;
using namespace flexuq::mbs;

namespace {

/// Seven particles, interface points A (the first) and B (the last); REF B uy scaled by 2.
struct Synthetic : test::GsSynthetic {
  static constexpr int n_internal = 3;

  static Synthetic make(std::uint32_t seed) {
    Synthetic s;
    static_cast<test::GsSynthetic&>(s) = test::make_gs_synthetic(seed, 7, 0.04, 0.02, {{"A", 0}, {"B", 6}}, n_internal);
    s.body.column_scale(7) = 2.0; // REF B uy: the physical DOF is 2 ξ
    return s;
  }

  /// The particle positions at g (frame at point k = "A" or "B"), by the digest's definitions.
  std::vector<Vec3> positions(const Vec& g, int k) const {
    const auto& x = part.x;
    const Vec3 XA = x.front(), XB = x.back();
    const Vec3 X[2] = {XA, XB};
    auto xi_ = [&](int i) { return Vec3(X[i] + Vec3(g(3 * i), g(3 * i + 1), 0.0)); };
    const double th = g(3 * k + 2);
    Mat3 R = Mat3::Identity();
    R(0, 0) = R(1, 1) = std::cos(th);
    R(1, 0) = std::sin(th);
    R(0, 1) = -std::sin(th);
    const Vec3 r = xi_(k) - R * X[k];
    Vec xi = Vec::Zero(part.phi.cols());
    const int o = 1 - k; // the other point
    const Vec3 q = R.transpose() * (xi_(o) - r) - X[o];
    for (int c = 0; c < 3; ++c) xi(6 * o + c) = q(c) / body.column_scale(6 * o + c);
    xi(6 * o + 5) = g(3 * o + 2) - th;
    for (int c = 0; c < n_internal; ++c) xi(12 + c) = g(6 + c);
    std::vector<Vec3> out;
    for (std::size_t p = 0; p < x.size(); ++p)
      out.push_back(r + R * (x[p] + part.phi.middleRows(3 * static_cast<Eigen::Index>(p), 3) * xi));
    return out;
  }

  /// T = Σ ½ m_p |ẋ_p|², ẋ_p by 4th-order differences of the positions along ġ.
  double kinetic(const Vec& g, const Vec& gd, int k) const {
    const double e = 1e-3;
    const auto p1 = positions(g + e * gd, k), m1 = positions(g - e * gd, k);
    const auto p2 = positions(g + 2 * e * gd, k), m2 = positions(g - 2 * e * gd, k);
    double t = 0;
    for (std::size_t p = 0; p < part.x.size(); ++p) {
      const Vec3 v = (8.0 * (p1[p] - m1[p]) - (p2[p] - m2[p])) / (12.0 * e);
      t += 0.5 * part.m[p] * v.squaredNorm();
    }
    return t;
  }
};

using test::random_vec;

/// A deformed, turned state: g of a rigid pose plus a deformation.
Vec state(const GsData& d, std::mt19937& gen) {
  std::uniform_real_distribution<double> u(-1, 1);
  Vec g = gs_pose(d, Vec3(0.3 * u(gen), 0.2 * u(gen), 0.0), 2.0 * u(gen));
  return g + random_vec(d.n(), gen, 0.02);
}

} // namespace

TEST(MbsGs, LayoutFromTheLabels) {
  const auto s = Synthetic::make(3);
  const auto d = make_gs_data(s.body, "A", "synthetic");
  ASSERT_EQ(d->n_points(), 2);
  EXPECT_EQ(d->points[1], "B");
  EXPECT_EQ(d->frame, 0);
  EXPECT_EQ(d->n(), 6 + Synthetic::n_internal);
  EXPECT_EQ(d->n_kept(), 6 + Synthetic::n_internal); // A's six columns dropped
  EXPECT_EQ(d->columns[1], 7);
  EXPECT_DOUBLE_EQ(d->scale(1), 0.5); // REF B uy: ξ = (physical DOF) / 2
  EXPECT_THROW(make_gs_data(s.body, "C", "synthetic"), InputError);
  auto bad = s.body;
  bad.column_kinds[2] = "constraint_mode";
  EXPECT_THROW(make_gs_data(bad, "A", "synthetic"), InputError);
}

TEST(MbsGs, MassMatrixGivesTheParticlesKineticEnergy) {
  const auto s = Synthetic::make(5);
  for (int k = 0; k < 2; ++k) {
    const auto d = make_gs_data(s.body, k == 0 ? "A" : "B", "synthetic");
    std::mt19937 gen(17 + k);
    for (int trial = 0; trial < 3; ++trial) {
      const Vec g = state(*d, gen), gd = random_vec(d->n(), gen, 1.0);
      const double t = 0.5 * gd.dot(gs_body_mass(*d, g) * gd), t_ref = s.kinetic(g, gd, k);
      std::printf("frame %d trial %d: |T_GS - T_particles| / T = %.2e\n", k, trial, std::abs(t - t_ref) / t_ref);
      EXPECT_NEAR(t, t_ref, 1e-11 * t_ref) << "frame " << k << ", trial " << trial;
    }
  }
}

// ReducedBody::M (M̄ = ΦᵀM_pΦ, which the GS body does not read: its mass comes from the invariants) in
// closed form: with the frame point at rest (ġ_k = 0: v_O = 0, ω = 0) the body's velocity is Φ ξ̇ in
// the frame, so T = ½ ξ̇ᵀ M̄ ξ̇ at any pose, ξ̇ from the digest's definitions: the other point's
// (ux, uy) = Rᵀ(θ_k) ẋ_o / s, rz = θ̇_o / s, the internal ones ġ. M_GS on the other point's and the
// internal coordinates is then Eᵀ M̄ E (E: 15 × 6 over the body's columns, the frame point's zero).
TEST(MbsGs, MassMatrixWithTheFrameAtRestIsTheReducedBodysM) {
  const auto s = Synthetic::make(19);
  const Mat& mbar = s.body.M;
  const Vec& sc = s.body.column_scale;
  for (int k = 0; k < 2; ++k) {
    const auto d = make_gs_data(s.body, k == 0 ? "A" : "B", "synthetic");
    const int o = 1 - k, ni = Synthetic::n_internal;
    std::vector<int> sub = {3 * o, 3 * o + 1, 3 * o + 2};
    for (int j = 0; j < ni; ++j) sub.push_back(6 + j);
    std::mt19937 gen(53 + k);
    for (int trial = 0; trial < 3; ++trial) {
      const Vec g = state(*d, gen);
      const double c = std::cos(g(3 * k + 2)), sn = std::sin(g(3 * k + 2)); // R = [c −s; s c]
      Mat e = Mat::Zero(mbar.rows(), 3 + ni);
      e(6 * o, 0) = c / sc(6 * o), e(6 * o, 1) = sn / sc(6 * o);              // (Rᵀ ẋ)_x / s
      e(6 * o + 1, 0) = -sn / sc(6 * o + 1), e(6 * o + 1, 1) = c / sc(6 * o + 1); // (Rᵀ ẋ)_y / s
      e(6 * o + 5, 2) = 1.0 / sc(6 * o + 5);
      for (int j = 0; j < ni; ++j) e(12 + j, 3 + j) = 1.0;
      const Mat ref = e.transpose() * mbar * e, mgs = gs_body_mass(*d, g);
      Mat got(3 + ni, 3 + ni);
      for (int a = 0; a < 3 + ni; ++a)
        for (int b = 0; b < 3 + ni; ++b) got(a, b) = mgs(sub[static_cast<std::size_t>(a)], sub[static_cast<std::size_t>(b)]);
      const double err = (got - ref).norm() / ref.norm();
      std::printf("frame %d trial %d: |M_GS - E'M E| / |E'M E| = %.2e\n", k, trial, err);
      EXPECT_LT(err, 1e-12) << "frame " << k << ", trial " << trial;
    }
  }
}

TEST(MbsGs, FictitiousForcesAreLagrangesOfTheParticles) {
  const auto s = Synthetic::make(7);
  for (int k = 0; k < 2; ++k) {
    const auto d = make_gs_data(s.body, k == 0 ? "A" : "B", "synthetic");
    std::mt19937 gen(29 + k);
    for (int trial = 0; trial < 3; ++trial) {
      const Vec g = state(*d, gen), gd = random_vec(d->n(), gen, 3.0);
      const int n = d->n();
      const double e = 1e-4;
      // ∂T/∂g (4th-order differences of the particles' T) and Ṁ ġ along ġ.
      Vec dtdg(n);
      for (int c = 0; c < n; ++c) {
        Vec h = Vec::Zero(n);
        h(c) = e;
        dtdg(c) = (8.0 * (s.kinetic(g + h, gd, k) - s.kinetic(g - h, gd, k)) -
                   (s.kinetic(g + 2 * h, gd, k) - s.kinetic(g - 2 * h, gd, k))) / (12.0 * e);
      }
      const Mat mdot = (8.0 * (gs_body_mass(*d, g + e * gd) - gs_body_mass(*d, g - e * gd)) -
                        (gs_body_mass(*d, g + 2 * e * gd) - gs_body_mass(*d, g - 2 * e * gd))) / (12.0 * e);
      const Vec lagrange = mdot * gd - dtdg;
      const Vec c_gs = gs_quadratic_velocity(*d, g, gd);
      const double scale = (mdot * gd).norm() + dtdg.norm();
      EXPECT_LT((c_gs - lagrange).norm(), 1e-8 * scale) << "frame " << k << ", trial " << trial << ": "
                                                        << (c_gs - lagrange).transpose();
      // Its power is half the rate of the mass: ġᵀ C_GS ġ = ½ ġᵀ Ṁ ġ.
      EXPECT_NEAR(gd.dot(c_gs), 0.5 * gd.dot(mdot * gd), 1e-7 * std::abs(gd.dot(mdot * gd)) + 1e-12);
      // Without Aᵀ M_FF Ȧ ġ (κ) the forces are wrong: the test can fail.
      const auto kin = gs_kinematics(*d, g, gd);
      const Vec qv_only = -kin.J.transpose() * cms::quadratic_velocity(d->invariants, kin.xi, kin.xi_dot,
                                                                        Vec3(0, 0, kin.omega));
      EXPECT_GT((qv_only - lagrange).norm(), 1e-3 * scale);
      std::printf("frame %d trial %d: |C_GS - Lagrange| / scale = %.2e; without kappa %.2e\n", k, trial,
                  (c_gs - lagrange).norm() / scale, (qv_only - lagrange).norm() / scale);
    }
  }
}

TEST(MbsGs, RigidPoseIsUnstrained) { // S7 in the plane
  const auto s = Synthetic::make(9);
  const auto d = make_gs_data(s.body, "A", "synthetic");
  for (double angle : {0.0, 1.1, -2.9, 7.0}) {
    const Vec g = gs_pose(*d, Vec3(0.7, -1.3, 0.0), angle);
    const auto kin = gs_kinematics(*d, g, Vec());
    EXPECT_LT(kin.xi.norm(), 1e-14) << angle;
    EXPECT_LT(gs_elastic_force(*d, g).norm(), 1e-12 * d->K.norm()) << angle;
    EXPECT_LT(gs_strain_energy(*d, g), 1e-24 * d->K.norm());
    // A deformation is strained.
    Vec gg = g;
    gg(0) += 1e-3;
    EXPECT_GT(gs_strain_energy(*d, gg), 1e-8 * d->K.norm() * 1e-6);
  }
}

// The GS body's held frame has the placeholder mass m 1 (7 × 7), constant and uncoupled from g's block
// (BodyModel::constant_mass_block, which the reduced-order integrator projects once).
TEST(MbsGs, HeldFrameIsTheConstantMassBlock) {
  const auto s = Synthetic::make(11);
  RigidBody b;
  b.name = "gs";
  b.flex = gs_flexible_data(make_gs_data(s.body, "A", "synthetic"), "synthetic");
  const auto model = make_body_model(b);
  EXPECT_EQ(model->constant_mass_block(), s.body.invariants.mass * Mat::Identity(7, 7));
  const auto& d = *b.flex->gs;
  std::mt19937 gen(41);
  for (int trial = 0; trial < 2; ++trial) {
    Vec q = Vec::Zero(3 + model->n_coordinates());
    q.segment(3, 7) = random_vec(7, gen, 1.0);
    q.segment(10, d.n()) = state(d, gen);
    test::expect_constant_leading_block(*model, q, 3, "trial " + std::to_string(trial));
  }
}

// A free GS body in a System (its frame held by `<b>.frame`, its g the elastic block), spinning at
// 20 rad/s with its origin moving and started deformed: the energy T + V is conserved to the rk45
// tolerance (the digest §7.2 item 3's check that C_GS is complete), and without C_GS it is not.
TEST(MbsGs, FreeSpinningBodyConservesEnergy) {
  const auto s = Synthetic::make(13);
  RigidBody b;
  b.name = "gs";
  b.flex = gs_flexible_data(make_gs_data(s.body, "A", "synthetic"), "synthetic");
  b.position = Vec3(0.1, -0.2, 0.0);
  b.velocity = Vec3(0.5, 0.3, 0.0);
  b.angular_velocity = Vec3(0, 0, 20.0);
  double drift[2] = {0, 0};
  for (int qv = 1; qv >= 0; --qv) {
    System sys;
    const int id = sys.add_body(b);
    sys.set_quadratic_velocity(qv == 1);
    SolverOptions o;
    o.scheme = Scheme::rk45;
    o.rtol = 1e-10;
    o.atol = 1e-12;
    o.step = 1e-5;
    o.end = 0.3;
    o.output_step = 0.01;
    Integrator integ(sys, o);
    State st;
    integ.initialise(st);
    const int off = sys.offset(id) + 7;
    st.q.segment(off + 6, 3) += Vec3(0.01, -0.02, 0.015); // the internal coordinates: started deformed
    const double e0 = sys.kinetic_energy(st.q, st.v) + sys.strain_energy(st.q);
    double worst = 0;
    integ.run(st, [&](const State& x, double) {
      const double e = sys.kinetic_energy(x.q, x.v) + sys.strain_energy(x.q);
      worst = std::max(worst, std::abs(e - e0) / e0);
    });
    drift[qv] = worst;
    std::printf("free spinning GS body, C_GS %s: max |E - E0| / E0 = %.2e over 0.3 s\n", qv ? "on" : "off", worst);
  }
  EXPECT_LT(drift[1], 1e-9);
  EXPECT_GT(drift[0], 1e-3);
}
