// SPDX-License-Identifier: MIT
// Polynomial chaos: log-normal coefficients (seed 000 T5, App. D), 1-DOF oscillator with
// log-normal stiffness, Ishigami Sobol' indices, regression/QR, closed-form LOO against brute
// force, order selection by LOO, multi-output fits, evaluation and KDE.
#include "flexuq/core/Error.hpp"
#include "flexuq/uq/Distribution.hpp"
#include "flexuq/uq/Kde.hpp"
#include "flexuq/uq/Pce.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

using namespace flexuq::uq;
using special::factorial;

namespace {
Eigen::MatrixXd lhs_germ(const StochasticSpace& S, int n, std::uint64_t seed) {
  const Sampler s(SamplingMethod::LatinHypercube, S.dim(), seed, n);
  return S.germ_from_uniform(s.samples(0, n));
}
} // namespace

TEST(Pce, LognormalCoefficientsT5) {
  // seed 000 T5: G ~ LN moment-matched to (76.9e9, 1e9); orthonormal Hermite coefficients
  // 7.69e10, 9.999577e8, 9.194369e6, 6.902662e4; closed form e^{μ+σ²/2} σ^a/√a!.
  const auto G = Distribution::lognormal_from_moments(76.9e9, 1e9);
  StochasticSpace S;
  S.add("G", G);
  const Quadrature q = S.gauss_rule(20);
  const Eigen::MatrixXd y = S.from_germ(q.points);
  const Pce pce = Pce::fit_projection(S.families(), MultiIndexSet::total_degree(1, 8), q, y);
  const double ref[4] = {7.69e10, 9.999577e8, 9.194369e6, 6.902662e4};
  const double mu = G.parameter(0), sg = G.parameter(1);
  for (int a = 0; a < 4; ++a) EXPECT_NEAR(pce.coefficients()(a, 0) / ref[a], 1.0, 1e-6) << a;
  // Closed form; the projection carries round-off ~1e-16·c_0 absolute, so compare to that scale.
  for (int a = 0; a <= 8; ++a) {
    const double exact = std::exp(mu + 0.5 * sg * sg) * std::pow(sg, a) / std::sqrt(factorial(a));
    EXPECT_NEAR(pce.coefficients()(a, 0), exact, 1e-14 * 7.69e10) << a;
  }
  // A wide log-normal (σ_ln = 0.6), where all coefficients matter: order 14 on 40 Gauss points.
  const auto W = Distribution::lognormal(0.2, 0.6);
  const PolynomialFamily h = W.germ_family();
  const Quadrature qw = h.gauss(40);
  Eigen::MatrixXd yw(qw.size(), 1);
  for (int i = 0; i < qw.size(); ++i) yw(i, 0) = W.from_germ(qw.points(i, 0));
  const Pce pw = Pce::fit_projection({h}, MultiIndexSet::total_degree(1, 14), qw, yw);
  for (int a = 0; a <= 14; ++a)
    EXPECT_NEAR(pw.coefficients()(a, 0), std::exp(0.2 + 0.18) * std::pow(0.6, a) / std::sqrt(factorial(a)), 1e-14) << a;
  EXPECT_NEAR(pw.variance()[0] / W.variance(), 1.0, 1e-9); // truncation at 14: Σ_{a>14} ≈ 1e-10
  EXPECT_NEAR(pce.mean()[0] / 76.9e9, 1.0, 1e-14);
  EXPECT_NEAR(pce.variance()[0] / 1e18, 1.0, 1e-10);
}

TEST(Pce, OscillatorWithLognormalStiffness) {
  // ω² = k/m, ω = √(k/m), k = exp(μ + σξ): both log-normal with closed-form moments and exact
  // Hermite coefficients c_n(ω) = e^{μ/2+σ²/8} (σ/2)^n/√n! /√m.
  const double m = 2.0;
  const auto k = Distribution::lognormal_from_moments(1e4, 1.5e3);
  const double mu = k.parameter(0), s = k.parameter(1);
  StochasticSpace S;
  S.add("k", k);
  const Quadrature q = S.gauss_rule(24);
  const Eigen::MatrixXd kk = S.from_germ(q.points);
  Eigen::MatrixXd y(q.size(), 2);
  y.col(0) = kk.col(0) / m;
  y.col(1) = (kk.col(0) / m).cwiseSqrt();
  const Pce pce = Pce::fit_projection(S.families(), MultiIndexSet::total_degree(1, 12), q, y);
  const double m_w2 = std::exp(mu + s * s / 2) / m, v_w2 = std::expm1(s * s) * std::exp(2 * mu + s * s) / (m * m);
  const double m_w = std::exp(mu / 2 + s * s / 8) / std::sqrt(m), v_w = std::expm1(s * s / 4) * std::exp(mu + s * s / 4) / m;
  EXPECT_NEAR(pce.mean()[0] / m_w2, 1.0, 1e-13);
  EXPECT_NEAR(pce.variance()[0] / v_w2, 1.0, 1e-10);
  EXPECT_NEAR(pce.mean()[1] / m_w, 1.0, 1e-13);
  EXPECT_NEAR(pce.variance()[1] / v_w, 1.0, 1e-10);
  for (int n = 0; n <= 6; ++n)
    EXPECT_NEAR(pce.coefficients()(n, 1), m_w * std::pow(s / 2, n) / std::sqrt(factorial(n)), 1e-14 * m_w) << n;

  // Same moments from a regression on 60 LHS points with the order chosen by LOO.
  const Eigen::MatrixXd X = lhs_germ(S, 60, 11);
  const Eigen::MatrixXd kx = S.from_germ(X);
  Eigen::MatrixXd yx(X.rows(), 2);
  yx.col(0) = kx.col(0) / m;
  yx.col(1) = (kx.col(0) / m).cwiseSqrt();
  OrderSelection sel;
  const Pce r = Pce::fit_regression_select_order(S.families(), X, yx, 1, 10, &sel);
  EXPECT_GE(sel.order, 3);
  EXPECT_NEAR(r.mean()[0] / m_w2, 1.0, 1e-9);
  EXPECT_NEAR(r.variance()[0] / v_w2, 1.0, 1e-6);
  EXPECT_NEAR(r.mean()[1] / m_w, 1.0, 1e-9);
  EXPECT_NEAR(r.variance()[1] / v_w, 1.0, 1e-6);
}

TEST(Pce, IshigamiSobolIndices) {
  // f = sin x1 + a sin² x2 + b x3⁴ sin x1, x_i ~ U(−π, π); closed-form variances:
  // V1 = ½(1 + bπ⁴/5)², V2 = a²/8, V13 = b²π⁸ (1/18 − 1/50), V = V1 + V2 + V13.
  const double a = 7.0, b = 0.1, pi = std::acos(-1.0);
  StochasticSpace S;
  for (const char* n : {"x1", "x2", "x3"}) S.add(n, Distribution::uniform(-pi, pi));
  const Quadrature q = S.gauss_rule(24);
  const Eigen::MatrixXd x = S.from_germ(q.points);
  Eigen::MatrixXd y(q.size(), 1);
  for (int i = 0; i < q.size(); ++i)
    y(i, 0) = std::sin(x(i, 0)) + a * std::pow(std::sin(x(i, 1)), 2) + b * std::pow(x(i, 2), 4) * std::sin(x(i, 0));
  const Pce pce = Pce::fit_projection(S.families(), MultiIndexSet::total_degree(3, 16), q, y);
  const double V1 = 0.5 * std::pow(1 + b * std::pow(pi, 4) / 5, 2), V2 = a * a / 8;
  const double V13 = b * b * std::pow(pi, 8) * (1.0 / 18 - 1.0 / 50), V = V1 + V2 + V13;
  EXPECT_NEAR(pce.mean()[0], a / 2, 1e-10);
  EXPECT_NEAR(pce.variance()[0] / V, 1.0, 1e-8);
  const Eigen::MatrixXd S1 = pce.sobol_first(), ST = pce.sobol_total();
  EXPECT_NEAR(S1(0, 0), V1 / V, 1e-7);
  EXPECT_NEAR(S1(1, 0), V2 / V, 1e-7);
  EXPECT_NEAR(S1(2, 0), 0.0, 1e-7);
  EXPECT_NEAR(ST(0, 0), (V1 + V13) / V, 1e-7);
  EXPECT_NEAR(ST(1, 0), V2 / V, 1e-7);
  EXPECT_NEAR(ST(2, 0), V13 / V, 1e-7);
  EXPECT_NEAR(pce.sobol_interaction({0, 2})[0], V13 / V, 1e-7);
  EXPECT_NEAR(pce.sobol_interaction({0, 1})[0], 0.0, 1e-7);
  EXPECT_NEAR(pce.sobol_interaction({0, 1, 2})[0], 0.0, 1e-7);
  // All 7 interaction indices sum to 1.
  double sum = 0.0;
  for (const auto& u : std::vector<std::vector<int>>{{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}})
    sum += pce.sobol_interaction(u)[0];
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(Pce, RegressionRecoversPolynomialAndLooMatchesBruteForce) {
  StochasticSpace S;
  S.add("a", Distribution::normal(0.0, 1.0)).add("b", Distribution::uniform(-1.0, 1.0));
  const auto basis = MultiIndexSet::total_degree(2, 3);
  const Eigen::MatrixXd X = lhs_germ(S, 40, 5);
  // y = polynomial of degree 3 (exactly representable) plus a non-polynomial part for the LOO.
  Eigen::MatrixXd Y(X.rows(), 2);
  for (int i = 0; i < X.rows(); ++i) {
    const double u = X(i, 0), v = X(i, 1);
    Y(i, 0) = 1.0 + 2.0 * u - u * v + 0.5 * u * u * u - v * v;
    Y(i, 1) = std::exp(0.7 * u) * std::cos(2.0 * v);
  }
  LooError loo;
  const Pce pce = Pce::fit_regression(S.families(), basis, X, Y, &loo);
  // Exact coefficients of output 0 on the orthonormal basis (ψ1 = ξ, He3 = ξ³ − 3ξ, Legendre ψ2 = √5(3v²−1)/2):
  // ξ³ = √6 ψ3 + 3 ψ1; v² = (2/(3√5)) ψ2 + 1/3; u v = ψ1(u) · ψ1(v)/√3.
  auto c = [&](std::vector<int> a) { return pce.coefficients()(basis.find(a), 0); };
  EXPECT_NEAR(c({0, 0}), 1.0 - 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(c({1, 0}), 2.0 + 1.5, 1e-12);
  EXPECT_NEAR(c({3, 0}), 0.5 * std::sqrt(6.0), 1e-12);
  EXPECT_NEAR(c({1, 1}), -1.0 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(c({0, 2}), -2.0 / (3.0 * std::sqrt(5.0)), 1e-12);
  EXPECT_NEAR(c({2, 1}), 0.0, 1e-12);
  EXPECT_LT(loo.normalized[0], 1e-20);
  // Brute-force LOO for output 1.
  double s = 0.0;
  for (int i = 0; i < X.rows(); ++i) {
    Eigen::MatrixXd Xi(X.rows() - 1, 2), Yi(X.rows() - 1, 1);
    for (int r = 0, t = 0; r < X.rows(); ++r)
      if (r != i) {
        Xi.row(t) = X.row(r);
        Yi(t++, 0) = Y(r, 1);
      }
    const Pce fi = Pce::fit_regression(S.families(), basis, Xi, Yi);
    const double e = Y(i, 1) - fi.evaluate(X.row(i))(0, 0);
    s += e * e;
  }
  const double mean = Y.col(1).mean(), var = (Y.col(1).array() - mean).square().sum() / (X.rows() - 1);
  EXPECT_NEAR(loo.normalized[1], s / X.rows() / var, 1e-10 * loo.normalized[1]);
  EXPECT_THROW(Pce::fit_regression(S.families(), basis, X.topRows(5), Y.topRows(5)), flexuq::InputError);
}

TEST(Pce, OrderSelectionByLooFindsCubic) {
  StochasticSpace S;
  S.add("a", Distribution::normal(1.0, 0.5)).add("b", Distribution::normal(-1.0, 2.0));
  const int n = 300;
  const Eigen::MatrixXd X = lhs_germ(S, n, 21);
  Eigen::MatrixXd Y(n, 1);
  for (int i = 0; i < n; ++i) {
    const double u = X(i, 0), v = X(i, 1);
    const double noise = special::normal_quantile(philox_uniform(77, 0, i, 0));
    Y(i, 0) = 1.0 + u - 2.0 * u * v + 0.5 * v * v * v + 0.01 * noise;
  }
  OrderSelection sel;
  const Pce pce = Pce::fit_regression_select_order(S.families(), X, Y, 1, 7, &sel);
  ASSERT_GE(sel.loo.size(), 3u);
  EXPECT_GE(sel.order, 3);
  EXPECT_GT(sel.loo[1] / sel.loo[2], 1e3); // p = 2 misses the cubic term by far
  // Coefficient of ψ3(v) = He3/√6: 0.5·√6.
  EXPECT_NEAR(pce.coefficients()(pce.basis().find({0, 3}), 0), 0.5 * std::sqrt(6.0), 3e-3);
}

TEST(Pce, MultiOutputFitEqualsSingleOutputFitsAndEvaluate) {
  StochasticSpace S;
  S.add("a", Distribution::gamma(3.0, 0.5)).add("b", Distribution::beta(2.0, 3.0, -1.0, 2.0)).add("c", Distribution::lognormal(0.0, 0.2));
  const auto basis = MultiIndexSet::total_degree(3, 4);
  const Quadrature q = S.gauss_rule(6);
  const Eigen::MatrixXd x = S.from_germ(q.points);
  Eigen::MatrixXd Y(q.size(), 3);
  for (int i = 0; i < q.size(); ++i) {
    Y(i, 0) = x(i, 0) * x(i, 1) + std::log(x(i, 2));
    Y(i, 1) = std::sin(x(i, 0)) * x(i, 2);
    Y(i, 2) = 1.0 / (1.0 + x(i, 1) * x(i, 1));
  }
  const Pce all = Pce::fit_projection(S.families(), basis, q, Y);
  for (int j = 0; j < 3; ++j) {
    const Pce one = Pce::fit_projection(S.families(), basis, q, Y.col(j));
    EXPECT_LT((one.coefficients().col(0) - all.coefficients().col(j)).cwiseAbs().maxCoeff(), 1e-14);
  }
  // Output 0 is a polynomial of degree 2 in the germs (ln x2 = 0.2 ξ2): the fit is exact, evaluate reproduces it.
  const Eigen::MatrixXd Z = lhs_germ(S, 5000, 3);
  const Eigen::MatrixXd z = S.from_germ(Z);
  const Eigen::MatrixXd e = all.evaluate(Z);
  for (int i = 0; i < Z.rows(); ++i) EXPECT_NEAR(e(i, 0), z(i, 0) * z(i, 1) + std::log(z(i, 2)), 1e-11 * (1 + std::abs(e(i, 0))));
  // Batch evaluation equals the term-by-term sum Σ c_k Π ψ.
  for (int i = 0; i < 20; ++i) {
    double v = 0.0;
    for (int k = 0; k < basis.size(); ++k) {
      double t = all.coefficients()(k, 1);
      for (int d = 0; d < 3; ++d) t *= S.families()[d].evaluate(Z(i, d), basis(k, d))[basis(k, d)];
      v += t;
    }
    EXPECT_NEAR(e(i, 1), v, 1e-13 * (1 + std::abs(v)));
  }
  // Exact mean of output 0: E[x0]E[x1] + E[ln x2] (= μ_ln = 0).
  const double m0 = S.distribution(0).mean() * S.distribution(1).mean();
  EXPECT_NEAR(all.mean()[0], m0, 1e-13);
}

TEST(Pce, KdeOfGaussianSample) {
  const int n = 100000;
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) z[i] = special::normal_quantile(philox_uniform(4, 0, i, 0));
  Eigen::VectorXd grid = Eigen::VectorXd::LinSpaced(401, -6.0, 6.0);
  const Eigen::VectorXd f = kde_gaussian(z, grid);
  // The estimate integrates to one (trapezoid) and matches φ at 0 within the smoothing bias
  // (h ≈ 0.9 n^(-1/5) ≈ 0.09: relative bias ≈ h²/2 ≈ 0.4 %) plus sampling error.
  const double dx = grid[1] - grid[0];
  EXPECT_NEAR(f.sum() * dx, 1.0, 1e-3);
  EXPECT_NEAR(f[200] / special::normal_pdf(0.0), 1.0, 0.02);
  EXPECT_NEAR(f[300] / special::normal_pdf(3.0), 1.0, 0.1);
}

TEST(Pce, KdeRecurrenceOnAUniformGridEqualsTheDirectSum) {
  // On a uniform grid the kernel values come from a product recurrence (three exp per sample); they
  // must equal the direct sum of φ((y − x_i)/h) over the samples within 8h, at every grid point, to
  // round-off — including grids coarser and finer than h, samples off the grid's span, and a
  // skewed sample. A wrong step, a window off by one point or a missed normalisation shows.
  const int n = 3000;
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) z[i] = std::exp(0.6 * special::normal_quantile(philox_uniform(9, 0, i, 0)));
  for (const auto& [G, a, b, h] : {std::tuple<int, double, double, double>{200, 0.1, 4.0, 0.0},
                                   {57, 0.5, 2.5, 0.3}, {1001, -1.0, 8.0, 0.02}, {3, 0.0, 5.0, 0.7}}) {
    const Eigen::VectorXd grid = Eigen::VectorXd::LinSpaced(G, a, b);
    const double hh = h > 0 ? h : silverman_bandwidth(z);
    const Eigen::VectorXd f = kde_gaussian(z, grid, hh);
    double worst = 0, fmax = 0;
    for (int g = 0; g < G; ++g) {
      double direct = 0;
      for (int i = 0; i < n; ++i)
        if (std::abs(grid[g] - z[i]) <= 8.0 * hh) direct += special::normal_pdf((grid[g] - z[i]) / hh);
      direct /= n * hh;
      fmax = std::max(fmax, direct);
      worst = std::max(worst, std::abs(f[g] - direct));
    }
    ASSERT_GT(fmax, 0.01) << "grid " << G;
    EXPECT_LE(worst, 1e-12 * fmax) << "grid of " << G << " points on [" << a << ", " << b << "], h = " << hh;
  }
}
