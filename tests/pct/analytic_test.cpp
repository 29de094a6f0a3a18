// SPDX-License-Identifier: MIT
// The closed-form Lagrange residual and constraint Jacobian of planar mechanisms (the fast path of the
// intrusive PCT, issue #35 Goals) against the automatic differentiation of the same model's energies,
// virtual work and constraints (pct::lagrange_ad, pct::constraints_ad), at random states for every
// element type: bodies under gravity, springs with zero and non-zero free length, with and without
// damping, body torques, contacts in and out of contact, and revolute, slot (with a motion), fixed,
// prismatic and distance joints to bodies and to the ground; then the whole projected residual, Φ̊ and
// Φ̊_q of the seed-004 slider-crank at order 2 by either path.
#include "flexuq/pct/Galerkin.hpp"
#include "flexuq/pct/Models.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace flexuq::pct {

namespace {

/// Every element type of PlanarMechanism in one model (four bodies; geometry arbitrary: the identities
/// hold at any state, consistent or not).
PlanarMechanism everything() {
  PlanarMechanism m;
  const int a = m.add_body({"a", 2.0, 0.7, 1.0, 0.2, 0.3, false, 0});
  const int b = m.add_body({"b", 1.5, 0.4, 2.0, -0.4, -0.5, false, 0});
  const int c = m.add_body({"c", 0.8, 0.2, 0.5, 1.5, 1.1, false, 0});
  const int d = m.add_body({"d", 1.1, 0.3, -1.0, 0.7, 0.2, false, 0});
  m.add_joint({"pin", PlanarJoint::Type::revolute, -1, a, {0.1, -0.2}, {-1, 0.3}});
  m.add_joint({"hinge", PlanarJoint::Type::revolute, a, b, {0.9, 0.1}, {-0.6, 0.2}});
  PlanarJoint slot{"slot", PlanarJoint::Type::slot, -1, c, {0.3, 0.4}, {0.2, -0.1}, {0.6, 0.8}};
  slot.motion.steps = {{{0.0, 1.0, 0.5}}};
  m.add_joint(slot);
  m.add_joint({"weld", PlanarJoint::Type::fixed, b, d, {0.3, 0.2}, {-0.4, 0.1}});
  m.add_joint({"guide", PlanarJoint::Type::prismatic, a, c, {0.2, 0.5}, {-0.3, 0.6}, {0.8, -0.3}});
  m.add_joint({"ground_guide", PlanarJoint::Type::prismatic, -1, d, {0.1, 0.1}, {0.2, 0.0}, {0.0, 1.0}});
  m.add_joint({"link", PlanarJoint::Type::distance, c, d, {0.4, -0.1}, {0.2, 0.3}, {1, 0}, 1.7});
  m.add_joint({"tether", PlanarJoint::Type::distance, d, -1, {0.1, 0.2}, {-2.0, 1.0}, {1, 0}, 2.5});
  m.add_joint({"ground_weld", PlanarJoint::Type::fixed, c, -1, {0.0, 0.1}, {0.5, 1.6}});
  m.add_spring({"plain", a, b, {0.2, 0.3}, {-0.1, 0.4}, 40.0, 0.0, 0.0});
  m.add_spring({"free_length", b, -1, {0.5, -0.2}, {3.0, 0.5}, 25.0, 1.3, 0.8});
  m.add_spring({"damped", c, d, {0.1, 0.0}, {0.0, -0.2}, 0.0, 2.1, 0.0});
  m.add_spring({"ground_spring", -1, a, {-1.0, -1.0}, {0.3, 0.3}, 15.0, 0.7, 0.0});
  m.add_contact({"touching", b, {0.3, -0.2}, {0.0, 1.0}, {0.0, 5.0}, 0.05, 1e4, 30.0});  // gap < 0
  m.add_contact({"apart", c, {0.0, 0.1}, {1.0, 1.0}, {-20.0, 0.0}, 0.1, 5e3, 10.0});     // gap > 0
  m.add_contact({"undamped", d, {0.2, 0.1}, {-1.0, 0.2}, {-4.0, 0.0}, 0.0, 2e3, 0.0});     // gap < 0
  m.add_torque({a, [](double t) { return 1.0 + 0.5 * t; }});
  m.add_torque({d, [](double t) { return -0.3 * t * t; }});
  m.set_gravity(0.4, -9.81);
  return m;
}

double max_abs(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s = std::max(s, std::abs(v));
  return s;
}

} // namespace

TEST(PctAnalytic, LagrangeResidualEqualsAutomaticDifferentiation) {
  const PlanarMechanism m = everything();
  const int n = m.coordinates();
  std::vector<double> p = m.nominal_data();
  std::mt19937 rng(35);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int in_contact = 0;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> q(n), v(n), a(n), ea(n), ed(n);
    for (int b = 0; b < n / 4; ++b) {
      const double th = 3.0 * u(rng), r = 1.0 + 0.2 * u(rng); // quaternions not normalised on purpose
      q[4 * b] = 2.0 * u(rng);
      q[4 * b + 1] = 2.0 * u(rng);
      q[4 * b + 2] = r * std::cos(0.5 * th);
      q[4 * b + 3] = r * std::sin(0.5 * th);
    }
    for (int k = 0; k < n; ++k) {
      v[k] = 3.0 * u(rng);
      a[k] = 10.0 * u(rng);
    }
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = m.nominal_data()[j] * (1.0 + 0.1 * u(rng)); // data vary too
    const double t = 2.0 * std::abs(u(rng));
    ASSERT_TRUE(m.lagrange_analytic(q.data(), v.data(), a.data(), t, p.data(), ea.data()));
    lagrange_ad(m, q.data(), v.data(), a.data(), t, p.data(), ed.data());
    const double scale = std::max(1.0, max_abs(ed));
    for (int k = 0; k < n; ++k) EXPECT_NEAR(ea[k], ed[k], 1e-12 * scale) << "trial " << trial << " coordinate " << m.coordinate_name(k);
    // The contact "touching" acts while body b's point lies below y = 5 + radius: count those trials.
    const double yb = q[5] + 2.0 * q[6] * q[7] * 0.3 + (2.0 * q[6] * q[6] - 1.0) * -0.2;
    in_contact += yb < 5.0 + p[m.contact_data(0, 1)];
  }
  EXPECT_GT(in_contact, 40); // the contact branch is exercised, not skipped
}

TEST(PctAnalytic, ConstraintJacobianEqualsAutomaticDifferentiation) {
  const PlanarMechanism m = everything();
  const int n = m.coordinates(), rows = m.constraint_rows();
  ASSERT_EQ(rows, 2 + 2 + 1 + 3 + 2 + 2 + 1 + 1 + 3 + 4);
  std::vector<double> p = m.nominal_data();
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> q(n), pa(rows), pd(rows), ja(rows * n, 7.0), jd(rows * n), only(rows);
    for (int k = 0; k < n; ++k) q[k] = 2.0 * u(rng);
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = m.nominal_data()[j] + 0.1 * u(rng);
    ASSERT_TRUE(m.constraints_analytic(q.data(), p.data(), pa.data(), ja.data())); // ja's 7s must be overwritten
    constraints_ad(m, q.data(), p.data(), pd.data(), jd.data());
    for (int c = 0; c < rows; ++c) EXPECT_NEAR(pa[c], pd[c], 1e-12 * std::max(1.0, std::abs(pd[c]))) << "row " << c;
    for (int k = 0; k < rows * n; ++k) EXPECT_NEAR(ja[k], jd[k], 1e-12 * std::max(1.0, std::abs(jd[k]))) << "entry " << k;
    ASSERT_TRUE(m.constraints_analytic(q.data(), p.data(), only.data(), nullptr)); // Φ alone: the same values
    for (int c = 0; c < rows; ++c) EXPECT_EQ(only[c], pa[c]);
  }
}

TEST(PctAnalytic, ProjectedSliderCrankEqualsAutomaticDifferentiation) {
  const PlanarMechanism crank = seed004_slider_crank();
  GalerkinOptions fast, ad;
  fast.order = ad.order = 2;
  ad.analytic = false;
  const GalerkinSystem sf(crank, seed004_link_lengths(crank), fast), sa(crank, seed004_link_lengths(crank), ad);
  const DaeState s0 = sa.initial_state();
  std::mt19937 rng(17);
  std::normal_distribution<double> g(0.0, 0.05);
  Vec q = s0.q, v = s0.v, a = s0.a, l = s0.lambda;
  for (Eigen::Index k = 0; k < q.size(); ++k) {
    q[k] += g(rng);
    v[k] += g(rng);
    a[k] += 10 * g(rng);
  }
  for (Eigen::Index k = 0; k < l.size(); ++k) l[k] += 10 * g(rng);
  for (double t : {0.5, 1.0, 1.995}) { // before, at and inside a torque switch
    const Vec rf = sf.residual(q, v, a, l, t), ra = sa.residual(q, v, a, l, t);
    EXPECT_LE((rf - ra).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, ra.cwiseAbs().maxCoeff())) << "t = " << t;
    EXPECT_GT(ra.cwiseAbs().maxCoeff(), 1e-3); // a residual that is not trivially zero
  }
  EXPECT_LE((sf.phi(q) - sa.phi(q)).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((sf.phi_q(q) - sa.phi_q(q)).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LE((sf.force(q, v, 1.2) - sa.force(q, v, 1.2)).cwiseAbs().maxCoeff(), 1e-12 * sa.force(q, v, 1.2).cwiseAbs().maxCoeff());
}

TEST(PctAnalytic, OnePassResidualAndPhiEqualTheSeparateOnes) {
  // Every element type, a driven slot (Φ − g(t)), pseudo-spectral (free length, contacts): the one-pass
  // residual_and_phi gives residual() and phi_at() bit for bit, analytic or AD.
  const PlanarMechanism mech = everything();
  const std::vector<UncertainInput> in{{"mass", uq::Distribution::normal(2.0, 0.1), {{mech.body_data(0, 0), 1.0}}},
                                       {"point", uq::Distribution::uniform(-0.1, 0.1), {{mech.joint_data(1, 0), 1.0}}}};
  for (bool analytic : {true, false}) {
    GalerkinOptions o;
    o.order = 1;
    o.quadrature_points = 2;
    o.analytic = analytic;
    const GalerkinSystem sys(mech, in, o);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Vec q(sys.n()), v(sys.n()), a(sys.n()), l(sys.m()), r, ph;
    for (Eigen::Index k = 0; k < q.size(); ++k) {
      q[k] = u(rng);
      v[k] = u(rng);
      a[k] = u(rng);
    }
    for (Eigen::Index k = 0; k < l.size(); ++k) l[k] = u(rng);
    sys.residual_and_phi(q, v, a, l, 0.5, r, ph);
    EXPECT_EQ((r - sys.residual(q, v, a, l, 0.5)).cwiseAbs().maxCoeff(), 0.0) << "analytic " << analytic;
    EXPECT_EQ((ph - sys.phi_at(q, 0.5)).cwiseAbs().maxCoeff(), 0.0) << "analytic " << analytic;
    EXPECT_NE((sys.phi_at(q, 0.5) - sys.phi(q)).cwiseAbs().maxCoeff(), 0.0); // the driver moved its row
  }
}

} // namespace flexuq::pct
