// SPDX-License-Identifier: MIT
// Uncertain initial conditions in the intrusive PCT (issue #35 item 4; seed 004 §2.6 "a dedicated random
// variable for an uncertain IC"): a linear oscillator m ÿ + k y = 0 with y(0) = ȳ0 + σ ξ has the exact PCE
// y = (ȳ0 + σ ξ) cos ωt: coefficients [ȳ0 cos ωt, σ cos ωt, 0, …]; with k uncertain too, the statistics of
// y0 cos(√(k/m) t) by a 16×16 Gauss–Hermite rule of the closed form. A planar body with an uncertain
// position and velocity (moves: bodies.<b>.position / velocity) equals the same oscillator model.
#include "flexuq/pct/Galerkin.hpp"
#include "flexuq/pct/Models.hpp"
#include "pct_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace flexuq::pct {

using testing::run_at;

namespace {
constexpr double kY0 = 0.1, kSy = 0.02, kK = 100.0, kM = 1.0;
}

TEST(PctInitial, UncertainDisplacementOfALinearOscillator) {
  const MassSpringDamper osc(kM, 0.0, 0.0, kK, kY0, 0.0);
  GalerkinOptions o;
  o.order = 2;
  const GalerkinSystem g(osc, {{"y0", uq::Distribution::normal(kY0, kSy), {{MassSpringDamper::initial_y, 1.0}}}}, o);
  EXPECT_EQ(g.uncertain_initial_positions(), std::vector<int>{1});
  EXPECT_TRUE(g.uncertain_initial_velocities().empty());
  const DaeState s0 = g.initial_state();
  EXPECT_NEAR(s0.q[3], kY0, 1e-15);
  EXPECT_NEAR(s0.q[4], kSy, 1e-15); // He_1 = ξ: the coefficient is σ
  EXPECT_NEAR(s0.q[5], 0.0, 1e-15);
  const std::vector<double> times{0.25, 0.5, 1.0};
  const auto r = run_at(g, times, 1e-4);
  const double w = std::sqrt(kK / kM);
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double c = std::cos(w * times[i]);
    EXPECT_NEAR(r[i].q[3], kY0 * c, 1e-6) << "t = " << times[i]; // trapezoidal phase error ω³h²t/12 ≈ 8e-7 t
    EXPECT_NEAR(r[i].q[4], kSy * c, 2e-7) << "t = " << times[i];
    EXPECT_NEAR(r[i].q[5], 0.0, 1e-14) << "t = " << times[i];
  }
}

TEST(PctInitial, UncertainDisplacementAndStiffness) {
  // y0 ~ N(0.1, 0.02²), k ~ N(100, 5²), order 4: mean and std of y0 cos(√(k/m) t) (16×16 Gauss–Hermite).
  const MassSpringDamper osc(kM, 0.0, 0.0, kK, kY0, 0.0);
  GalerkinOptions o;
  o.order = 4;
  const uq::Distribution yd = uq::Distribution::normal(kY0, kSy), kd = uq::Distribution::normal(kK, 5.0);
  const GalerkinSystem g(osc, {{"y0", yd, {{MassSpringDamper::initial_y, 1.0}}}, {"k", kd, {{MassSpringDamper::stiffness, 1.0}}}}, o);
  const std::vector<double> times{0.25, 0.5, 1.0};
  const auto r = run_at(g, times, 1e-4);
  const uq::Quadrature q = uq::tensor_gauss({yd.germ_family(), kd.germ_family()}, {16, 16});
  for (std::size_t i = 0; i < times.size(); ++i) {
    double m = 0, m2 = 0;
    for (int n = 0; n < q.size(); ++n) {
      const double y = yd.from_germ(q.points(n, 0)) * std::cos(std::sqrt(kd.from_germ(q.points(n, 1)) / kM) * times[i]);
      m += q.weights[n] * y;
      m2 += q.weights[n] * y * y;
    }
    const double sd = std::sqrt(m2 - m * m);
    const double pm = testing::coef_mean(r[i].q, 1, g.terms()), ps = testing::coef_std(r[i].q, 1, g.terms());
    EXPECT_NEAR(pm, m, 2e-6) << "t = " << times[i];
    EXPECT_NEAR(ps, sd, 1e-4 * sd) << "t = " << times[i]; // measured 1e-6 relative
    std::printf("ic+k t=%g mean %.8g (exact %.8g) std %.6e (exact %.6e)\n", times[i], pm, m, ps, sd);
  }
}

TEST(PctInitial, PlanarBodyPositionAndVelocityAreTheOscillatorsInitialConditions) {
  // A body on a vertical line, tied to the ground by a zero-length spring: y(0) ~ N(0.1, 0.02²) and
  // ẏ(0) ~ U(−0.3, 0.3) moved through the body's initial data equal the oscillator's, coefficient for coefficient.
  PlanarMechanism m;
  const int b = m.add_body({"mass", kM, 0.1, 0.0, kY0, 0.0, true, 0});
  m.add_joint({"line", PlanarJoint::Type::slot, -1, b, {0, 0}, {0, 0}, {0, 1}});
  m.add_spring({"k", -1, b, {0, 0}, {0, 0}, kK, 0.2, 0.0});
  const uq::Distribution yd = uq::Distribution::normal(kY0, kSy), vd = uq::Distribution::uniform(-0.3, 0.3);
  GalerkinOptions o;
  o.order = 2;
  const GalerkinSystem g(m, {{"y0", yd, {{m.initial_data(b, 1), 1.0}}}, {"v0", vd, {{m.initial_data(b, 3), 1.0}}}}, o);
  EXPECT_EQ(g.uncertain_initial_positions(), std::vector<int>{1});
  EXPECT_EQ(g.uncertain_initial_velocities(), std::vector<int>{1});
  const MassSpringDamper osc(kM, 0.2, 0.0, kK, kY0, 0.0);
  const GalerkinSystem ref(osc, {{"y0", yd, {{MassSpringDamper::initial_y, 1.0}}}, {"v0", vd, {{MassSpringDamper::initial_velocity, 1.0}}}}, o);
  const auto a = run_at(g, {0.5, 1.0}, 1e-3), c = run_at(ref, {0.5, 1.0}, 1e-3);
  const int T = g.terms();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Vec ya = a[i].q.segment(T, T), yc = c[i].q.segment(T, T);
    EXPECT_LT((ya - yc).cwiseAbs().maxCoeff(), 1e-12) << ya.transpose() << " vs " << yc.transpose();
    EXPECT_GT(std::abs(yc[2]), 1e-3); // the velocity's coefficient (Legendre, ξ2) is there
  }
  // The coefficient of the uniform velocity: (b − a)/(2√3) on the orthonormal Legendre P1.
  EXPECT_NEAR(g.initial_state().v[T + 2], 0.6 / (2 * std::sqrt(3.0)), 1e-14);
}

} // namespace flexuq::pct
