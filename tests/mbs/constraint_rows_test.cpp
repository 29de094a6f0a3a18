// SPDX-License-Identifier: MIT
// The constraint-row algebra (mbs/ConstraintRows.hpp) without System: rows over body vectors on two
// rigid bodies and a flexible one (parts A(p)(s + L η)), with a distance row, a dot row, a driver
// with cos θ(t) / −sin θ(t) coefficients and a translation driver. Against finite differences of Φ
// at a random q (the algebra holds for any p, unit or not): C_q, Φ_t, dΦ/dt along q̇ and γ = C_q q̈ − Φ̈;
// the distance row against the hand-computed |d|² − φ0; the rows after a move of the container.
#include "flexuq/mbs/ConstraintRows.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace flexuq::mbs;

namespace {

Vec random_vector(int size, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Vec v(size);
  for (int k = 0; k < size; ++k) v(k) = u(rng);
  return v;
}

/// Bodies 0 and 1 rigid (7 coordinates), body 2 flexible with 2 elastic coordinates.
const std::vector<int> kOff = {0, 7, 14};
constexpr int kN = 23, kRows = 5;

struct Fixture {
  ConstraintRows rows;
  Vec3 s1, s2;
  Mat L2;
  double phi0 = 0.3;
};

Fixture make_rows(std::mt19937& rng) {
  Fixture fx;
  auto v3 = [&] { return Vec3(random_vector(3, rng)); };
  fx.s1 = v3();
  fx.s2 = v3();
  fx.L2 = Mat::Random(3, 2);
  ConstraintRows& cr = fx.rows;
  const int axis0 = cr.add_vector(BodyVector{{{0, v3(), 1.0, false}}});
  BodyVector sep;
  sep.parts.push_back({1, fx.s1, 1.0, true});
  sep.parts.push_back({2, fx.s2, -1.0, true, fx.L2});
  const int d = cr.add_vector(sep);
  const int c = cr.constant_vector(v3());
  const int axis2 = cr.add_vector(BodyVector{{{2, v3(), 1.0, false, Mat(Mat::Random(3, 2))}}});
  BodyVector ground;
  ground.parts.push_back({0, v3(), 1.0, true});
  ground.parts.push_back({kGround, v3(), -1.0, true});
  const int e = cr.add_vector(ground);

  cr.add_dot_row(0, "dot", axis0, d);
  cr.add_dot_row(0, "distance", d, d, fx.phi0);
  const TimeFunction* theta = cr.keep(TimeFunction::harmonic(0.7, 0.3, 0.2, 0.1));
  ConstraintRows::Row angle;
  angle.terms.push_back({ConstraintRows::Coef{ConstraintRows::Coef::cos_motion, theta}, axis2, axis0});
  angle.terms.push_back({ConstraintRows::Coef{ConstraintRows::Coef::neg_sin_motion, theta}, c, axis0});
  angle.joint = 1;
  angle.label = "angle";
  cr.add_row(std::move(angle));
  ConstraintRows::Row slide;
  slide.terms.push_back({ConstraintRows::Coef{}, axis0, e});
  slide.g = cr.keep(TimeFunction::polynomial({0.1, 0.2, -0.3, 0.05}));
  slide.phi0 = -0.2;
  slide.joint = 2;
  slide.label = "translation";
  cr.add_row(std::move(slide));
  cr.add_dot_row(3, "flexible-axis", c, axis2);
  return fx;
}

double value(const ConstraintRows& cr, int r, const Vec& q, double t) {
  std::vector<ConstraintRows::VecState> s;
  cr.vector_states(q, nullptr, kOff, s);
  return cr.value(r, s, t);
}

Eigen::RowVectorXd gradient(const ConstraintRows& cr, int r, const Vec& q, double t, double scale = 1.0) {
  std::vector<ConstraintRows::VecState> s;
  cr.vector_states(q, nullptr, kOff, s);
  Eigen::RowVectorXd g = Eigen::RowVectorXd::Zero(kN);
  cr.add_gradient(r, s, q, t, scale, kOff, g);
  return g;
}

} // namespace

TEST(ConstraintRows, LayoutAndLabels) {
  std::mt19937 rng(1);
  const Fixture fx = make_rows(rng);
  ASSERT_EQ(fx.rows.size(), kRows);
  EXPECT_EQ(fx.rows.row(1).label, "distance");
  EXPECT_EQ(fx.rows.row(2).joint, 1);
  EXPECT_EQ(fx.rows.row(3).phi0, -0.2);
  EXPECT_EQ(fx.rows.vector(2).parts.size(), 1u);
  EXPECT_EQ(fx.rows.vector(2).parts[0].body, kGround);
}

TEST(ConstraintRows, DistanceRowIsTheSquaredSeparation) {
  std::mt19937 rng(2);
  const Fixture fx = make_rows(rng);
  const Vec q = random_vector(kN, rng);
  const Vec3 x1 = q.segment<3>(7) + rotation(q.segment<4>(10)) * fx.s1;
  const Vec3 x2 = q.segment<3>(14) + rotation(q.segment<4>(17)) * (fx.s2 + fx.L2 * q.segment<2>(21));
  EXPECT_NEAR(value(fx.rows, 1, q, 0.4), (x1 - x2).squaredNorm() - fx.phi0, 1e-13);
}

TEST(ConstraintRows, JacobianRatesAndGammaMatchFiniteDifferences) {
  std::mt19937 rng(3);
  const Fixture fx = make_rows(rng);
  const ConstraintRows& cr = fx.rows;
  for (int trial = 0; trial < 3; ++trial) {
    const Vec q = random_vector(kN, rng), v = random_vector(kN, rng), a = random_vector(kN, rng);
    const double t = 0.3 + 0.5 * trial;
    std::vector<ConstraintRows::VecState> s;
    cr.vector_states(q, &v, kOff, s);
    for (int r = 0; r < kRows; ++r) {
      SCOPED_TRACE("row " + cr.row(r).label + ", trial " + std::to_string(trial));
      // C_q by central differences, coordinate by coordinate.
      const Eigen::RowVectorXd g = gradient(cr, r, q, t);
      const double h = 1e-6;
      Eigen::RowVectorXd fd(kN);
      for (int k = 0; k < kN; ++k) {
        Vec qp = q, qm = q;
        qp(k) += h;
        qm(k) -= h;
        fd(k) = (value(cr, r, qp, t) - value(cr, r, qm, t)) / (2 * h);
      }
      EXPECT_LT((g - fd).norm(), 1e-7 * std::max(1.0, g.norm()));
      EXPECT_LT((gradient(cr, r, q, t, -2.5) + 2.5 * g).norm(), 1e-14 * std::max(1.0, g.norm()));
      // Φ_t and dΦ/dt = C_q q̇ + Φ_t along (q + τ q̇, t + τ).
      const double phi_t = cr.phi_t(r, s, t);
      EXPECT_NEAR(phi_t, (value(cr, r, q, t + h) - value(cr, r, q, t - h)) / (2 * h), 1e-7);
      Eigen::RowVectorXd unused = Eigen::RowVectorXd::Zero(kN);
      double rate = 0;
      cr.add_gradient(r, s, q, t, 1.0, kOff, unused, &rate);
      const double rate_fd = (value(cr, r, q + h * v, t + h) - value(cr, r, q - h * v, t - h)) / (2 * h);
      EXPECT_NEAR(rate, rate_fd, 1e-7 * std::max(1.0, std::abs(rate)));
      EXPECT_NEAR(rate, g.dot(v) + phi_t, 1e-12 * std::max(1.0, std::abs(rate)));
      // γ = C_q q̈ − Φ̈ along q(τ) = q + τ q̇ + ½ τ² q̈ at t + τ.
      const double h2 = 1e-4;
      auto along = [&](double tau) { return value(cr, r, q + tau * v + 0.5 * tau * tau * a, t + tau); };
      const double phi_dd = (along(h2) - 2 * along(0) + along(-h2)) / (h2 * h2);
      EXPECT_NEAR(cr.gamma(r, s, t), g.dot(a) - phi_dd, 2e-5 * std::max(1.0, std::abs(phi_dd)));
    }
  }
}

TEST(ConstraintRows, RowsSurviveAMoveOfTheContainer) {
  std::mt19937 rng(4);
  Fixture fx = make_rows(rng);
  const Vec q = random_vector(kN, rng);
  std::vector<double> before;
  for (int r = 0; r < kRows; ++r) before.push_back(value(fx.rows, r, q, 1.3));
  const ConstraintRows moved = std::move(fx.rows); // the drivers' motions keep their addresses
  for (int r = 0; r < kRows; ++r) EXPECT_EQ(value(moved, r, q, 1.3), before[static_cast<std::size_t>(r)]) << r;
}
