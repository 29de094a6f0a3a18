// SPDX-License-Identifier: MIT
// Quadrature: tensor exactness, Clenshaw–Curtis exactness, Smolyak point counts (published CC
// counts and the nested-count formula) and total-degree exactness 2L+1.
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/Quadrature.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace flexuq::uq;

namespace {
// E[Π ξ_j^{k_j}] for a product measure with the given univariate moments.
double product_moment(const std::vector<std::function<double(int)>>& m, const std::vector<int>& k) {
  double v = 1.0;
  for (size_t j = 0; j < k.size(); ++j) v *= m[j](k[j]);
  return v;
}
double rule_value(const Quadrature& q, const std::vector<int>& k) {
  double s = 0.0;
  for (int i = 0; i < q.size(); ++i) {
    double t = q.weights[i];
    for (size_t j = 0; j < k.size(); ++j) t *= std::pow(q.points(i, j), k[j]);
    s += t;
  }
  return s;
}
double gauss_moment(int k) {
  if (k % 2) return 0.0;
  double m = 1.0;
  for (int j = k - 1; j > 0; j -= 2) m *= j;
  return m;
}
double uniform_moment(int k) { return k % 2 ? 0.0 : 1.0 / (k + 1.0); }

// All exponent vectors with |k| ≤ deg in d dimensions.
void for_each_exponent(int d, int deg, const std::function<void(const std::vector<int>&)>& f) {
  std::vector<int> k(d, 0);
  std::function<void(int, int)> rec = [&](int j, int left) {
    if (j == d) {
      f(k);
      return;
    }
    for (int v = 0; v <= left; ++v) {
      k[j] = v;
      rec(j + 1, left - v);
    }
    k[j] = 0;
  };
  rec(0, deg);
}
} // namespace

TEST(Quadrature, ClenshawCurtisExactness) {
  for (int n : {1, 3, 5, 9, 17, 33}) {
    const Quadrature q = clenshaw_curtis(n);
    const int deg = (n % 2) ? n : n - 1;
    for (int k = 0; k <= deg; ++k) EXPECT_NEAR(rule_value(q, {k}), uniform_moment(k), 1e-14) << n << " " << k;
    if (n > 1 && n <= 9) {
      EXPECT_GT(std::abs(rule_value(q, {deg + 1}) - uniform_moment(deg + 1)), 1e-5) << n;
    }
  }
  const Quadrature s = clenshaw_curtis(3); // Simpson: 1/6, 2/3, 1/6
  EXPECT_NEAR(s.weights[0], 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(s.weights[1], 2.0 / 3.0, 1e-15);
}

TEST(Quadrature, TensorGaussExactPerDimension) {
  const std::vector<PolynomialFamily> fam = {PolynomialFamily::hermite(), PolynomialFamily::legendre()};
  const Quadrature q = tensor_gauss(fam, {3, 4});
  EXPECT_EQ(q.size(), 12);
  for (int a = 0; a <= 5; ++a)
    for (int b = 0; b <= 7; ++b) EXPECT_NEAR(rule_value(q, {a, b}), gauss_moment(a) * uniform_moment(b), 1e-12);
  EXPECT_GT(std::abs(rule_value(q, {6, 0}) - gauss_moment(6)), 1.0);
}

TEST(Quadrature, SmolyakClenshawCurtisCounts) {
  // Published CC sparse-grid sizes (e.g. Gerstner & Griebel 1998; Novak & Ritter):
  // d = 2: 1, 5, 13, 29, 65, 145; d = 3: 1, 7, 25, 69, 177.
  const int d2[] = {1, 5, 13, 29, 65, 145}, d3[] = {1, 7, 25, 69, 177};
  for (int L = 0; L < 6; ++L) EXPECT_EQ(smolyak(std::vector<LevelRule>(2, clenshaw_curtis_levels()), L).size(), d2[L]);
  for (int L = 0; L < 5; ++L) EXPECT_EQ(smolyak(std::vector<LevelRule>(3, clenshaw_curtis_levels()), L).size(), d3[L]);
  // Nested count: Σ_{|k| ≤ L} Π Δ(k_j), with new points per level Δ(0)=1, Δ(1)=2, Δ(l)=2^(l−1).
  auto delta = [](int l) { return l == 0 ? 1LL : (l == 1 ? 2LL : (1LL << (l - 1))); };
  for (int d : {4, 5}) {
    for (int L = 0; L <= 4; ++L) {
      long long count = 0;
      std::vector<int> k(d, 0);
      std::function<void(int, int)> rec = [&](int j, int left) {
        if (j == d) {
          long long p = 1;
          for (int v : k) p *= delta(v);
          count += p;
          return;
        }
        for (int v = 0; v <= left; ++v) {
          k[j] = v;
          rec(j + 1, left - v);
        }
      };
      rec(0, L);
      EXPECT_EQ(smolyak(std::vector<LevelRule>(d, clenshaw_curtis_levels()), L).size(), count) << d << " " << L;
    }
  }
}

TEST(Quadrature, SmolyakGaussHermiteCounts) {
  // Linear odd growth 1, 3, 5 points, only the origin shared. d = 2, L = 1: 3 + 3 − 1 = 5.
  // L = 2: union of the 5-point axes and the 3×3 grid: 7 on each axis (origin shared) → 13, plus
  // the 4 corners (±√3, ±√3) → 17.
  const std::vector<PolynomialFamily> h(2, PolynomialFamily::hermite());
  EXPECT_EQ(smolyak(h, 0).size(), 1);
  EXPECT_EQ(smolyak(h, 1).size(), 5);
  EXPECT_EQ(smolyak(h, 2).size(), 17);
}

TEST(Quadrature, SmolyakExactForTotalDegree2LPlus1) {
  const std::vector<std::function<double(int)>> mh = {gauss_moment, gauss_moment, gauss_moment};
  const std::vector<std::function<double(int)>> mu = {uniform_moment, uniform_moment, uniform_moment};
  const std::vector<std::function<double(int)>> mix = {gauss_moment, uniform_moment, gauss_moment};
  for (int L = 0; L <= 4; ++L) {
    const Quadrature qh = smolyak(std::vector<PolynomialFamily>(3, PolynomialFamily::hermite()), L);
    const Quadrature qu = smolyak(std::vector<PolynomialFamily>(3, PolynomialFamily::legendre()), L);
    const Quadrature qm = smolyak({PolynomialFamily::hermite(), PolynomialFamily::legendre(), PolynomialFamily::hermite()}, L);
    EXPECT_NEAR(qh.weights.sum(), 1.0, 1e-13);
    for_each_exponent(3, 2 * L + 1, [&](const std::vector<int>& k) {
      EXPECT_NEAR(rule_value(qh, k), product_moment(mh, k), 1e-11 * std::max(1.0, product_moment(mh, k)));
      EXPECT_NEAR(rule_value(qu, k), product_moment(mu, k), 1e-13);
      EXPECT_NEAR(rule_value(qm, k), product_moment(mix, k), 1e-11 * std::max(1.0, product_moment(mix, k)));
    });
  }
  // Not exact at total degree 2L+2 for CC (x² y^(2L)… fails somewhere): L = 1, x²y².
  const Quadrature qu1 = smolyak(std::vector<PolynomialFamily>(2, PolynomialFamily::legendre()), 1);
  EXPECT_GT(std::abs(rule_value(qu1, {2, 2}) - 1.0 / 9.0), 1e-3);
}
