// SPDX-License-Identifier: MIT
// Seed 002's generalised superelement in 3-D (mbs/GsBody3d.hpp) on a synthetic body of point masses in
// space with three interface points, whose kinetic energy is a sum over the particles (the oracle,
// independent of J, M(ξ) and κ). The particle positions follow the digest's definitions (§3.3, frame at
// interface point k), written here with unit quaternions (the textbook rotation matrix) and Eigen's
// angle-axis rather than the engine's G/E/B matrices and hyper-dual numbers:
//   R_j = R(p_k/|p_k|), r_j = x_k − R_j X_k, u_i = R_jᵀ(x_i − r_j) − X_i,
//   θ_i = the rotation vector (angle × axis) of R_jᵀR_i, x_p = r_j + R_j(X_p + Φ_p ξ).
// * J and κ against central differences of ξ(g) and of J(g) ġ along ġ;
// * M_GS: ½ ġᵀ M_GS ġ = Σ ½ m_p |ẋ_p|²;
// * C_GS (eq 84) = Lagrange's Ṁ ġ − ∂T/∂g (all of g: the map is that of the normalised p̂_i, so the
//   radial directions of the Euler parameters carry nothing), and ġᵀ C_GS ġ = ½ ġᵀ Ṁ ġ;
// * S7 in 3-D: any rigid pose gives ξ = 0 and no elastic force;
// * in a System: a free body spinning about a skew axis keeps T + V (rk45, tight), a pendulum on an exact
//   revolute joint at an interface point keeps T + V − W_gravity and its hinge axis, the norm rows hold.
#include "flexuq/mbs/GsBody3d.hpp"

#include "GsSynthetic.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Force.hpp"
#include "flexuq/mbs/Integrator.hpp"
#include "flexuq/mbs/System.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>

using namespace flexuq;
using namespace flexuq::mbs;

namespace {

constexpr int kPoints = 3, kInternal = 3, kCols = 6 * kPoints + kInternal;
const int kPointParticle[kPoints] = {0, 4, 8};
const char* kNames[kPoints] = {"A", "B", "C"};

/// The rotation matrix of the unit quaternion q/|q| (the textbook formula).
Mat3 quat_matrix(Vec4 q) {
  q.normalize();
  const double w = q(0), x = q(1), y = q(2), z = q(3);
  Mat3 r;
  r << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 2 * (x * y + w * z), 1 - 2 * (x * x + z * z),
      2 * (y * z - w * x), 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return r;
}

/// Nine particles, interface points A, B, C on particles 0, 4, 8; REF B uy scaled by 2, REF C ry by 1/2.
struct Synthetic3d : test::GsSynthetic {
  static Synthetic3d make(std::uint32_t seed) {
    Synthetic3d s;
    std::vector<test::GsPoint> points;
    for (int i = 0; i < kPoints; ++i) points.push_back({kNames[i], kPointParticle[i]});
    static_cast<test::GsSynthetic&>(s) = test::make_gs_synthetic(seed, 9, 0.1, 0.08, points, kInternal);
    s.body.column_scale(7) = 2.0;  // REF B uy: the physical DOF is 2 ξ
    s.body.column_scale(16) = 0.5; // REF C ry
    return s;
  }

  /// The particle positions at g (frame at point k), by the digest's definitions (header comment).
  std::vector<Vec3> positions(const Vec& g, int k) const {
    auto X = [&](int i) { return part.x[static_cast<std::size_t>(kPointParticle[i])]; };
    auto x = [&](int i) { return Vec3(X(i) + g.segment<3>(7 * i)); };
    const Vec4 pk = g.segment<4>(7 * k + 3).normalized();
    const Mat3 R = quat_matrix(pk);
    const Vec3 r = x(k) - R * X(k);
    Vec xi = Vec::Zero(kCols);
    for (int i = 0; i < kPoints; ++i) {
      if (i == k) continue;
      const Vec3 u = R.transpose() * (x(i) - r) - X(i);
      // The rotation vector of R_jᵀR_i (Eigen's angle-axis of the matrix product).
      const Eigen::AngleAxisd rel(Mat3(R.transpose() * quat_matrix(g.segment<4>(7 * i + 3))));
      const Vec3 th = rel.angle() * rel.axis();
      for (int c = 0; c < 3; ++c) {
        xi(6 * i + c) = u(c) / body.column_scale(6 * i + c);
        xi(6 * i + 3 + c) = th(c) / body.column_scale(6 * i + 3 + c);
      }
    }
    for (int c = 0; c < kInternal; ++c) xi(6 * kPoints + c) = g(7 * kPoints + c);
    std::vector<Vec3> out;
    for (std::size_t p = 0; p < part.x.size(); ++p)
      out.push_back(r + R * (part.x[p] + part.phi.middleRows(3 * static_cast<Eigen::Index>(p), 3) * xi));
    return out;
  }

  /// T = Σ ½ m_p |ẋ_p|², ẋ_p by 6th-order central differences of the positions along ġ.
  double kinetic(const Vec& g, const Vec& gd, int k) const {
    const double e = 2e-3, w[3] = {45.0, -9.0, 1.0};
    std::vector<Vec3> v(part.x.size(), Vec3::Zero());
    for (int j = 1; j <= 3; ++j) {
      const auto p = positions(g + j * e * gd, k), m = positions(g - j * e * gd, k);
      for (std::size_t q = 0; q < v.size(); ++q) v[q] += w[j - 1] * (p[q] - m[q]) / (60.0 * e);
    }
    double t = 0;
    for (std::size_t q = 0; q < v.size(); ++q) t += 0.5 * part.m[q] * v[q].squaredNorm();
    return t;
  }
};

using test::random_vec;

Vec4 random_quaternion(std::mt19937& gen) {
  Vec4 p = random_vec(4, gen, 1.0);
  return p.normalized();
}

/// A deformed state at a random 3-D pose: unit Euler parameters near the pose's (@p amp 0.02: relative
/// turns of a few hundredths of a radian, the rotation vector's series branch; 0.3: tenths, its atan branch).
Vec state(const GsData& d, std::mt19937& gen, double amp = 0.02) {
  Vec g = gs3d_pose(d, random_vec(3, gen, 0.3), random_quaternion(gen)) + random_vec(gs3d_size(d), gen, amp);
  for (int i = 0; i < d.n_points(); ++i) g.segment<4>(7 * i + 3).normalize();
  return g;
}

/// Rates tangent to the unit spheres of the Euler parameters (pᵀṗ = 0, as the norm rows hold them).
Vec rates(const GsData& d, const Vec& g, std::mt19937& gen, double scale) {
  Vec gd = random_vec(gs3d_size(d), gen, scale);
  for (int i = 0; i < d.n_points(); ++i) {
    const Vec4 p = g.segment<4>(7 * i + 3);
    gd.segment<4>(7 * i + 3) -= p.dot(gd.segment<4>(7 * i + 3)) * p;
  }
  return gd;
}

/// d f/dt at t = 0 by 4th-order central differences (f: double or a matrix).
template <class F> auto derivative(const F& f, double e = 1e-4) {
  using T = std::decay_t<decltype(f(0.0))>;
  return T((8.0 * (f(e) - f(-e)) - (f(2 * e) - f(-2 * e))) / (12.0 * e));
}

/// The projector onto those tangent spaces (the norm rows' multipliers take the rest).
Mat tangent_projector(const GsData& d, const Vec& g) {
  Mat P = Mat::Identity(gs3d_size(d), gs3d_size(d));
  for (int i = 0; i < d.n_points(); ++i) {
    const Vec4 p = g.segment<4>(7 * i + 3).normalized();
    P.block<4, 4>(7 * i + 3, 7 * i + 3) -= p * p.transpose();
  }
  return P;
}

} // namespace

TEST(MbsGs3d, LayoutAndInterfaces) {
  const auto s = Synthetic3d::make(3);
  const auto d = make_gs_data(s.body, "B", "synthetic");
  ASSERT_EQ(d->n_points(), 3);
  EXPECT_EQ(gs3d_size(*d), 21 + kInternal);
  EXPECT_EQ(d->n_kept(), 12 + kInternal); // B's six columns dropped
  const auto fd = gs3d_flexible_data(d, "synthetic");
  ASSERT_TRUE(fd->gs3d && !fd->gs);
  EXPECT_EQ(fd->interface("C", "test").euler, 17);
  EXPECT_EQ(fd->interface("C", "test").translation(2, 16), 1.0);
}

TEST(MbsGs3d, JacobianAndKappaAgainstDifferences) {
  const auto s = Synthetic3d::make(4);
  for (int k = 0; k < kPoints; ++k) {
    const auto d = make_gs_data(s.body, kNames[k], "synthetic");
    std::mt19937 gen(11 + k);
    for (double amp : {0.02, 0.3}) {
      const Vec g = state(*d, gen, amp), gd = rates(*d, g, gen, 2.0);
      const auto kin = gs3d_kinematics(*d, g, gd);
      const int n = gs3d_size(*d), nf = d->n_kept();
      // ξ rows of J: ∂ξ/∂g by central differences (every direction, not only tangent ones).
      const double h = 1e-6;
      Mat jfd(nf, n);
      for (int c = 0; c < n; ++c) {
        Vec e = Vec::Zero(n);
        e(c) = h;
        jfd.col(c) = (gs3d_kinematics(*d, g + e, Vec()).xi - gs3d_kinematics(*d, g - e, Vec()).xi) / (2 * h);
      }
      const double ej = (jfd - kin.J.bottomRows(nf)).norm() / kin.J.norm();
      EXPECT_LT(ej, 1e-9) << "frame " << k;
      // κ: w' − J g̈ along the path g + t ġ (g̈ = 0): ξ and ω rows d/dt (J ġ); the frame rows
      // R_jᵀ r̈_j = d/dt (R_jᵀ ṙ_j) + ω' × R_jᵀ ṙ_j.
      const Vec w = kin.J * gd;
      const Vec wdot =
          (gs3d_kinematics(*d, g + h * gd, Vec()).J * gd - gs3d_kinematics(*d, g - h * gd, Vec()).J * gd) / (2 * h);
      Vec kref = wdot;
      kref.head<3>() += kin.omega.cross(Vec3(w.head<3>()));
      // ω' by differences of R: R_jᵀ Ṙ_j = ω̃'.
      const Mat3 rdot = (gs3d_kinematics(*d, g + h * gd, Vec()).R - gs3d_kinematics(*d, g - h * gd, Vec()).R) / (2 * h);
      const Mat3 wt = kin.R.transpose() * rdot;
      EXPECT_LT((Vec3(wt(2, 1), wt(0, 2), wt(1, 0)) - kin.omega).norm(), 1e-8 * kin.omega.norm()) << "frame " << k;
      // R_jᵀ ṙ_j by differences of r_j.
      const Vec3 rd = (gs3d_kinematics(*d, g + h * gd, Vec()).r - gs3d_kinematics(*d, g - h * gd, Vec()).r) / (2 * h);
      EXPECT_LT((kin.R.transpose() * rd - w.head<3>()).norm(), 1e-8 * rd.norm()) << "frame " << k;
      const double ek = (kref - kin.kappa).norm() / kin.kappa.norm();
      EXPECT_LT(ek, 1e-7) << "frame " << k;
      std::printf("frame %s, amplitude %.2f: |J - dxi/dg| / |J| = %.2e, |kappa - differences| / |kappa| = %.2e\n",
                  kNames[k], amp, ej, ek);
    }
  }
}

TEST(MbsGs3d, MassMatrixGivesTheParticlesKineticEnergy) {
  const auto s = Synthetic3d::make(5);
  double worst = 0;
  for (int k = 0; k < kPoints; ++k) {
    const auto d = make_gs_data(s.body, kNames[k], "synthetic");
    std::mt19937 gen(17 + k);
    for (int trial = 0; trial < 3; ++trial) {
      const Vec g = state(*d, gen, trial == 2 ? 0.3 : 0.02), gd = rates(*d, g, gen, 1.0);
      const double t = 0.5 * gd.dot(gs3d_body_mass(*d, g) * gd), t_ref = s.kinetic(g, gd, k);
      worst = std::max(worst, std::abs(t - t_ref) / t_ref);
      EXPECT_NEAR(t, t_ref, 1e-12 * t_ref) << "frame " << k << ", trial " << trial;
    }
  }
  std::printf("max |T_GS - T_particles| / T = %.2e (9 states, 3 frames)\n", worst);
}

TEST(MbsGs3d, FictitiousForcesAreLagrangesOfTheParticles) {
  const auto s = Synthetic3d::make(7);
  for (int k = 0; k < kPoints; ++k) {
    const auto d = make_gs_data(s.body, kNames[k], "synthetic");
    std::mt19937 gen(29 + k);
    for (int trial = 0; trial < 2; ++trial) {
      const Vec g = state(*d, gen, trial == 1 ? 0.3 : 0.02), gd = rates(*d, g, gen, 3.0);
      const int n = gs3d_size(*d);
      // ∂T/∂g of the particles' T and Ṁ ġ along ġ, by 4th-order differences.
      Vec dtdg(n);
      for (int c = 0; c < n; ++c)
        dtdg(c) = derivative([&](double t) { return s.kinetic(g + t * Vec::Unit(n, c), gd, k); });
      const Mat mdot = derivative([&](double t) { return gs3d_body_mass(*d, g + t * gd); });
      const Vec lagrange = mdot * gd - dtdg;
      const Vec c_gs = gs3d_quadratic_velocity(*d, g, gd);
      const Mat P = tangent_projector(*d, g);
      const double scale = (mdot * gd).norm() + dtdg.norm();
      const double err = (c_gs - lagrange).norm() / scale, tangent = (P * (c_gs - lagrange)).norm() / scale;
      EXPECT_LT(err, 1e-8) << "frame " << k << ", trial " << trial;
      EXPECT_NEAR(gd.dot(c_gs), 0.5 * gd.dot(mdot * gd), 1e-7 * std::abs(gd.dot(mdot * gd)) + 1e-12);
      const auto kin = gs3d_kinematics(*d, g, gd);
      const Vec qv_only = -kin.J.transpose() * cms::quadratic_velocity(d->invariants, kin.xi, kin.xi_dot, kin.omega);
      const double without = (P * (qv_only - lagrange)).norm() / scale;
      EXPECT_GT(without, 1e-3);
      std::printf("frame %s trial %d: |C_GS - Lagrange| / scale = %.2e (tangent part %.2e); without kappa %.2e\n",
                  kNames[k], trial, err, tangent, without);
    }
  }
}

TEST(MbsGs3d, RigidPoseIsUnstrained) { // S7 in 3-D
  const auto s = Synthetic3d::make(9);
  std::mt19937 gen(41);
  for (int k = 0; k < kPoints; ++k) {
    const auto d = make_gs_data(s.body, kNames[k], "synthetic");
    for (int trial = 0; trial < 4; ++trial) {
      // Large turns: 4 random unit quaternions (angles up to 2π) and positions metres away.
      const Vec4 p = random_quaternion(gen);
      const Vec g = gs3d_pose(*d, random_vec(3, gen, 5.0), trial == 0 ? Vec4(-p) : p);
      const auto kin = gs3d_kinematics(*d, g, Vec());
      EXPECT_LT(kin.xi.norm(), 1e-12);
      EXPECT_LT(gs3d_elastic_force(*d, g).norm(), 1e-12 * d->K.norm());
      EXPECT_LT(gs3d_strain_energy(*d, g), 1e-24 * d->K.norm());
      Vec gg = g;
      gg(7 * ((k + 1) % kPoints) + 2) += 1e-3; // a deformation is strained
      EXPECT_GT(gs3d_strain_energy(*d, gg), 1e-7);
    }
  }
}

namespace {

SolverOptions tight_rk45(double end) {
  SolverOptions o;
  o.scheme = Scheme::rk45;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  o.step = 1e-5;
  o.end = end;
  o.output_step = 0.01;
  return o;
}

/// Largest |‖p_i‖ − 1| over the body's interface Euler parameters.
double norm_error(const System& sys, int id, const Vec& q, int points) {
  double e = 0;
  for (int i = 0; i < points; ++i) e = std::max(e, std::abs(q.segment<4>(sys.offset(id) + 7 + 7 * i + 3).norm() - 1.0));
  return e;
}

} // namespace

// A free 3-D GS body spinning at 15 rad/s about a skew axis, its origin moving, started deformed: T + V
// is conserved to the rk45 tolerance (C_GS complete in 3-D), the norm rows hold; without C_GS it is not.
TEST(MbsGs3d, FreeBodySpinningAboutASkewAxisConservesEnergy) {
  const auto s = Synthetic3d::make(13);
  RigidBody b;
  b.name = "gs";
  b.flex = gs3d_flexible_data(make_gs_data(s.body, "A", "synthetic"), "synthetic");
  b.position = Vec3(0.1, -0.2, 0.3);
  b.orientation = from_axis_angle(Vec3(1, 2, 3), 0.7);
  b.velocity = Vec3(0.5, 0.3, -0.2);
  b.angular_velocity = 15.0 * Vec3(1, -1, 2).normalized();
  double drift[2] = {0, 0};
  for (int qv = 1; qv >= 0; --qv) {
    System sys;
    const int id = sys.add_body(b);
    sys.set_quadratic_velocity(qv == 1);
    Integrator integ(sys, tight_rk45(0.2));
    State st;
    integ.initialise(st);
    const int off = sys.offset(id) + 7 + 7 * kPoints;
    st.q.segment(off, 3) += Vec3(0.01, -0.02, 0.015); // the internal coordinates: started deformed
    const double e0 = sys.kinetic_energy(st.q, st.v) + sys.strain_energy(st.q);
    double worst = 0, norm = 0;
    integ.run(st, [&](const State& x, double) {
      const double e = sys.kinetic_energy(x.q, x.v) + sys.strain_energy(x.q);
      worst = std::max(worst, std::abs(e - e0) / e0);
      norm = std::max(norm, norm_error(sys, id, x.q, kPoints));
    });
    drift[qv] = worst;
    if (qv) {
      EXPECT_LT(norm, 1e-9);
    }
    std::printf("free GS3d body, skew spin, C_GS %s: max |E - E0| / E0 = %.2e, max ||p_i| - 1| = %.2e over 0.2 s\n",
                qv ? "on" : "off", worst, norm);
  }
  EXPECT_LT(drift[1], 1e-8);
  EXPECT_GT(drift[0], 1e-3);
}

// A pendulum: the GS body on a revolute joint at interface A about a skew axis (exact: A(p_A) a), under
// gravity. T + V + strain is conserved, and the hinge axis fixed in A stays the ground axis.
TEST(MbsGs3d, PendulumOnAnExactRevoluteKeepsEnergyAndAxis) {
  const auto s = Synthetic3d::make(15);
  RigidBody b;
  b.name = "gs";
  auto fd = gs3d_flexible_data(make_gs_data(s.body, "B", "synthetic"), "synthetic");
  b.flex = fd;
  b.position = Vec3(0.0, 0.0, 0.0);
  b.orientation = from_axis_angle(Vec3(0, 1, 1), 0.4);
  System sys;
  const int id = sys.add_body(b);
  const Vec3 XA = fd->interface("A", "t").ref, axis = Vec3(1, 1, 0).normalized();
  JointSpec j;
  j.name = "hinge";
  j.type = JointType::revolute;
  j.body_i = kGround;
  j.body_j = id;
  j.point = rotation(b.orientation) * XA;
  j.axis = axis;
  j.interface_j = "A";
  sys.add_joint(j);
  ForceSpec gr;
  gr.type = ForceType::gravity;
  gr.direction = Vec3(0, 0, -9.81);
  sys.add_force(gr);
  Integrator integ(sys, tight_rk45(0.3));
  State st;
  integ.initialise(st);
  const double e0 = sys.kinetic_energy(st.q, st.v) + sys.strain_energy(st.q) + sys.potential_energy(st.q);
  const Vec3 a_local = rotation(b.orientation).transpose() * axis;
  double worst = 0, axis_err = 0, tmax = 0;
  integ.run(st, [&](const State& x, double) {
    const double t = sys.kinetic_energy(x.q, x.v);
    tmax = std::max(tmax, t);
    worst = std::max(worst, std::abs(t + sys.strain_energy(x.q) + sys.potential_energy(x.q) - e0));
    const Vec4 pa = x.q.segment<4>(sys.offset(id) + 7 + 3);
    axis_err = std::max(axis_err, (rotation(pa) * a_local - axis).norm());
  });
  std::printf("GS3d pendulum on a skew revolute: max |E - E0| = %.2e J (peak T %.3f J), axis drift %.2e\n", worst, tmax,
              axis_err);
  EXPECT_GT(tmax, 0.05);
  EXPECT_LT(worst, 1e-8 * tmax);
  EXPECT_LT(axis_err, 1e-8);
}
