// SPDX-License-Identifier: MIT
// Orthonormal families: closed-form moments of the germ laws, Gauss exactness degree 2n−1 (and
// not 2n), the rules of seed 004 V1, and Stieltjes reproducing classical recurrences.
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace flexuq::uq;

namespace {
double rule_moment(const Quadrature& q, int k, double shift = 0.0, double scale = 1.0) {
  double s = 0.0;
  for (int i = 0; i < q.size(); ++i) s += q.weights[i] * std::pow(shift + scale * q.points(i, 0), k);
  return s;
}

struct Case {
  PolynomialFamily fam;
  std::function<double(int)> moment; // closed-form E[t^k] of the germ law, t = shift + scale·ξ
  double shift = 0.0, scale = 1.0;
};

std::vector<Case> cases() {
  using special::factorial;
  std::vector<Case> c;
  c.push_back({PolynomialFamily::hermite(), [](int k) {
                 if (k % 2) return 0.0;
                 double m = 1.0; // (k−1)!!
                 for (int j = k - 1; j > 0; j -= 2) m *= j;
                 return m;
               }});
  c.push_back({PolynomialFamily::legendre(), [](int k) { return k % 2 ? 0.0 : 1.0 / (k + 1.0); }});
  const double al = 1.5;
  c.push_back({PolynomialFamily::laguerre(al), [al](int k) { return std::exp(std::lgamma(al + 1 + k) - std::lgamma(al + 1)); }});
  // Jacobi(a, b): ξ = 2t − 1 with t ~ Beta(b+1, a+1); E[t^j] = Π_{i<j} (b+1+i)/(a+b+2+i).
  const double a = 0.5, b = 2.0;
  c.push_back({PolynomialFamily::jacobi(a, b),
               [a, b](int k) {
                 double et = 1.0;
                 for (int i = 0; i < k; ++i) et *= (b + 1 + i) / (a + b + 2 + i);
                 return et;
               },
               0.5, 0.5});
  return c;
}
} // namespace

TEST(PolynomialFamily, GaussExactForDegree2nMinus1NotBeyond) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.fam.name());
    for (int n = 1; n <= 8; ++n) {
      const Quadrature q = c.fam.gauss(n);
      EXPECT_NEAR(q.weights.sum(), 1.0, 1e-14);
      for (int k = 0; k <= 2 * n - 1; ++k) {
        // Scale: odd moments vanish for symmetric laws, so use the neighbouring even magnitude.
        const double m = c.moment(k), mag = std::max({1.0, std::abs(m), std::abs(c.moment(k + 1))});
        EXPECT_NEAR(rule_moment(q, k, c.shift, c.scale), m, 1e-12 * mag) << "n=" << n << " k=" << k;
      }
      // Degree 2n is not integrated exactly: ψ_n vanishes at the n nodes, so the rule gives 0 for
      // E[ψ_n²] = 1.
      double e = 0.0;
      for (int i = 0; i < q.size(); ++i) e += q.weights[i] * std::pow(c.fam.evaluate(q.points(i, 0), n)[n], 2);
      EXPECT_NEAR(e, 0.0, 1e-10) << "n=" << n;
    }
  }
}

TEST(PolynomialFamily, OrthonormalUnderOwnGaussRule) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.fam.name());
    const int p = 12;
    const Quadrature q = c.fam.gauss(p + 1); // exact for degree 2p+1 ≥ 2p
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(p + 1, p + 1);
    for (int i = 0; i < q.size(); ++i) {
      const Eigen::VectorXd v = c.fam.evaluate(q.points(i, 0), p);
      G += q.weights[i] * v * v.transpose();
    }
    EXPECT_LT((G - Eigen::MatrixXd::Identity(p + 1, p + 1)).cwiseAbs().maxCoeff(), 1e-11);
  }
}

TEST(PolynomialFamily, HermiteIsHeOverSqrtFactorial) {
  // He_0..He_5 explicit; ψ_n = He_n/√n!; leading coefficient positive.
  const auto h = PolynomialFamily::hermite();
  for (double x : {-2.3, -0.4, 0.0, 1.1, 3.7}) {
    const double He[6] = {1, x, x * x - 1, x * x * x - 3 * x, std::pow(x, 4) - 6 * x * x + 3,
                          std::pow(x, 5) - 10 * std::pow(x, 3) + 15 * x};
    const Eigen::VectorXd v = h.evaluate(x, 5);
    for (int n = 0; n <= 5; ++n) EXPECT_NEAR(v[n], He[n] / std::sqrt(special::factorial(n)), 1e-13 * (1 + std::abs(He[n])));
  }
  // Legendre: ψ_2 = √5 (3x² − 1)/2.
  EXPECT_NEAR(PolynomialFamily::legendre().evaluate(0.3, 2)[2], std::sqrt(5.0) * (3 * 0.09 - 1) / 2, 1e-15);
}

TEST(PolynomialFamily, SeedV1GaussHermiteRules) {
  // seed 004 V1: 2 nodes ±1 with w = ½; 3 nodes 0, ±√3 with w = 2/3, 1/6.
  const auto h = PolynomialFamily::hermite();
  const Quadrature q2 = h.gauss(2), q3 = h.gauss(3);
  EXPECT_NEAR(q2.points(0, 0), -1.0, 1e-14);
  EXPECT_NEAR(q2.points(1, 0), 1.0, 1e-14);
  EXPECT_NEAR(q2.weights[0], 0.5, 1e-14);
  EXPECT_NEAR(q3.points(2, 0), std::sqrt(3.0), 1e-14);
  EXPECT_EQ(q3.points(1, 0), 0.0);
  EXPECT_NEAR(q3.weights[1], 2.0 / 3.0, 1e-14);
  EXPECT_NEAR(q3.weights[0], 1.0 / 6.0, 1e-14);
}

TEST(PolynomialFamily, StieltjesReproducesClassicalRecurrences) {
  // Discrete measures that are exact for the polynomials involved: large Gauss rules.
  const auto h = PolynomialFamily::hermite();
  const Quadrature qh = h.gauss(60);
  const auto nh = PolynomialFamily::from_discrete_measure(qh.points.col(0), qh.weights, 20);
  for (int n = 0; n <= 20; ++n) {
    EXPECT_NEAR(nh.a(n), 0.0, 1e-12);
    EXPECT_NEAR(nh.b(n), n == 0 ? 1.0 : n, 1e-11 * (n + 1));
  }
  // Gamma(α+1) density on [0, 60] by discretisation: Laguerre(α) recurrence a_n = 2n+α+1, b_n = n(n+α).
  const double al = 0.7;
  const auto nl = PolynomialFamily::from_density([al](double x) { return std::pow(x, al) * std::exp(-x); }, 0.0, 80.0, 8, 400);
  for (int n = 0; n <= 8; ++n) {
    EXPECT_NEAR(nl.a(n), 2 * n + al + 1, 1e-6 * (n + 1));
    if (n > 0) {
      EXPECT_NEAR(nl.b(n), n * (n + al), 1e-6 * n * n);
    }
  }
}

TEST(PolynomialFamily, JacobiWithEqualParametersIsGegenbauerAndLegendreLimit) {
  // Jacobi(0,0) is Legendre.
  const auto j = PolynomialFamily::jacobi(0.0, 0.0), l = PolynomialFamily::legendre();
  for (int n = 0; n < 30; ++n) {
    EXPECT_NEAR(j.a(n), l.a(n), 1e-15);
    EXPECT_NEAR(j.b(n), l.b(n), 1e-15);
  }
  // a + b = −1 (the n = 1 special case): still orthonormal (tested through moments in Gauss tests).
  const auto jm = PolynomialFamily::jacobi(-0.5, -0.5); // Chebyshev first kind: b_1 = 1/2, b_n = 1/4
  EXPECT_NEAR(jm.b(1), 0.5, 1e-15);
  EXPECT_NEAR(jm.b(5), 0.25, 1e-15);
}
