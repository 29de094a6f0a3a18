// SPDX-License-Identifier: MIT
// Triple products (seed 000 T4, App. C as corrected; seed 004 V3): closed forms, selection rules,
// agreement with exact Gauss quadrature, and the He/H product identities.
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"
#include "flexuq/uq/TripleProduct.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq::uq;

namespace {
double quad_triple(const PolynomialFamily& f, int a, int b, int c) {
  const Quadrature q = f.gauss((a + b + c) / 2 + 2);
  const int p = std::max(a, std::max(b, c));
  double s = 0.0;
  for (int k = 0; k < q.size(); ++k) {
    const Eigen::VectorXd v = f.evaluate(q.points(k, 0), p);
    s += q.weights[k] * v[a] * v[b] * v[c];
  }
  return s;
}
} // namespace

TEST(TripleProduct, SeedT4Values) {
  EXPECT_NEAR(hermite_triple(1, 1, 2), std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(hermite_triple(2, 2, 2), 2.0 * std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(hermite_triple(1, 2, 3), std::sqrt(3.0), 1e-14);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) EXPECT_NEAR(hermite_triple(0, a, b), a == b ? 1.0 : 0.0, 1e-14);
  EXPECT_EQ(hermite_triple(1, 1, 1), 0.0); // odd sum
  EXPECT_EQ(hermite_triple(1, 2, 2), 0.0);
  EXPECT_EQ(hermite_triple(4, 1, 1), 0.0); // triangle violated
  // seed 004 V3 on the unnormalised He basis: E[He1 He1 He2] = 2, E[He2³] = 8, E[He1 He2 He3] = 6.
  using special::factorial;
  EXPECT_NEAR(hermite_triple(1, 1, 2) * std::sqrt(factorial(1) * factorial(1) * factorial(2)), 2.0, 1e-13);
  EXPECT_NEAR(hermite_triple(2, 2, 2) * std::sqrt(factorial(2) * factorial(2) * factorial(2)), 8.0, 1e-13);
  EXPECT_NEAR(hermite_triple(1, 2, 3) * std::sqrt(factorial(1) * factorial(2) * factorial(3)), 6.0, 1e-13);
}

TEST(TripleProduct, ProductExpansionsHeAndPhysicists) {
  // He_b He_g = Σ_a √(b! g!/a!) E[ψ_a ψ_b ψ_g] He_a; for b = g = 2: He4 + 4 He2 + 2 He0.
  using special::factorial;
  const double expected[5] = {2, 0, 4, 0, 1};
  for (int a = 0; a <= 4; ++a)
    EXPECT_NEAR(std::sqrt(factorial(2) * factorial(2) / factorial(a)) * hermite_triple(a, 2, 2), expected[a], 1e-13);
  // Physicists' H_n(x) = 2^(n/2) He_n(√2 x) = 2^(n/2) √n! ψ_n(√2 x): H2² = H4 + 8 H2 + 8 H0.
  const auto h = PolynomialFamily::hermite();
  for (double x : {-1.3, 0.2, 0.9, 2.5}) {
    const Eigen::VectorXd v = h.evaluate(std::sqrt(2.0) * x, 4);
    auto H = [&](int n) { return std::pow(2.0, 0.5 * n) * std::sqrt(factorial(n)) * v[n]; };
    EXPECT_NEAR(H(2), 4 * x * x - 2, 1e-12);
    EXPECT_NEAR(H(2) * H(2), H(4) + 8 * H(2) + 8, 1e-10 * (1 + H(2) * H(2)));
  }
}

TEST(TripleProduct, ClosedFormsMatchGaussQuadrature) {
  const auto h = PolynomialFamily::hermite(), l = PolynomialFamily::legendre();
  for (int a = 0; a <= 9; ++a)
    for (int b = 0; b <= 9; ++b)
      for (int c = 0; c <= 9; ++c) {
        const double qh = quad_triple(h, a, b, c), ql = quad_triple(l, a, b, c);
        EXPECT_NEAR(hermite_triple(a, b, c), qh, 1e-12 * std::max(1.0, std::abs(qh))) << a << b << c;
        EXPECT_NEAR(legendre_triple(a, b, c), ql, 1e-13) << a << b << c;
      }
  // Legendre closed values: E[ψ1 ψ1 ψ2] = 2/√5 (from P1² = (2 P2 + P0)/3).
  EXPECT_NEAR(legendre_triple(1, 1, 2), 2.0 / std::sqrt(5.0), 1e-15);
}

TEST(TripleProduct, MultivariateIsProductAndTensorIsComplete) {
  const std::vector<PolynomialFamily> fam = {PolynomialFamily::hermite(), PolynomialFamily::legendre(),
                                             PolynomialFamily::laguerre(1.0)};
  const auto basis = MultiIndexSet::total_degree(3, 2);
  const int a[3] = {1, 1, 0}, b[3] = {1, 0, 1}, c[3] = {0, 1, 1};
  EXPECT_NEAR(triple_product(fam, a, b, c),
              hermite_triple(1, 1, 0) * legendre_triple(1, 0, 1) * quad_triple(fam[2], 0, 1, 1), 1e-14);
  // Tensor entries with a = 0 are δ_bc.
  const auto t = triple_product_tensor(fam, basis);
  int zero_entries = 0;
  for (const auto& e : t)
    if (e.a == 0) {
      EXPECT_EQ(e.b, e.c);
      EXPECT_NEAR(e.value, 1.0, 1e-13);
      ++zero_entries;
    }
  EXPECT_EQ(zero_entries, basis.size());
}
