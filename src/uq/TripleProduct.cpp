// SPDX-License-Identifier: MIT
#include "flexuq/uq/TripleProduct.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <cmath>
#include <cstdlib>

namespace flexuq::uq {

namespace {
bool selection_ok(int a, int b, int c) {
  if (a < 0 || b < 0 || c < 0) return false;
  if ((a + b + c) % 2 != 0) return false;
  return std::abs(b - c) <= a && a <= b + c;
}
double lf(int n) { return std::lgamma(n + 1.0); } // ln n!
} // namespace

double hermite_triple(int a, int b, int c) {
  if (!selection_ok(a, b, c)) return 0.0;
  const int s = (a + b + c) / 2;
  if (s <= 20) {
    using special::factorial;
    return std::sqrt(factorial(a) * factorial(b) * factorial(c)) /
           (factorial(s - a) * factorial(s - b) * factorial(s - c));
  }
  return std::exp(0.5 * (lf(a) + lf(b) + lf(c)) - lf(s - a) - lf(s - b) - lf(s - c));
}

double legendre_triple(int a, int b, int c) {
  if (!selection_ok(a, b, c)) return 0.0;
  const int s = (a + b + c) / 2;
  double w2;
  if (2 * s + 1 <= 170) {
    using special::factorial;
    const double r = factorial(s) / (factorial(s - a) * factorial(s - b) * factorial(s - c));
    w2 = factorial(2 * s - 2 * a) * factorial(2 * s - 2 * b) * factorial(2 * s - 2 * c) / factorial(2 * s + 1) * r * r;
  } else {
    w2 = std::exp(lf(2 * s - 2 * a) + lf(2 * s - 2 * b) + lf(2 * s - 2 * c) - lf(2 * s + 1) +
                  2.0 * (lf(s) - lf(s - a) - lf(s - b) - lf(s - c)));
  }
  return std::sqrt((2.0 * a + 1.0) * (2.0 * b + 1.0) * (2.0 * c + 1.0)) * w2;
}

double triple_product(const PolynomialFamily& f, int a, int b, int c) {
  FLEXUQ_REQUIRE(a >= 0 && b >= 0 && c >= 0, "triple_product: negative degree");
  switch (f.kind()) {
  case PolynomialFamily::Kind::Hermite: return hermite_triple(a, b, c);
  case PolynomialFamily::Kind::Legendre: return legendre_triple(a, b, c);
  default: break;
  }
  const int n = (a + b + c) / 2 + 1;
  const Quadrature q = f.gauss(n);
  const int p = std::max(a, std::max(b, c));
  std::vector<double> psi(p + 1);
  double s = 0.0;
  for (int k = 0; k < q.size(); ++k) {
    f.evaluate(q.points(k, 0), p, psi.data());
    s += q.weights[k] * psi[a] * psi[b] * psi[c];
  }
  return s;
}

double triple_product(const std::vector<PolynomialFamily>& families, const int* alpha, const int* beta,
                      const int* gamma) {
  double v = 1.0;
  for (size_t i = 0; i < families.size() && v != 0.0; ++i)
    v *= triple_product(families[i], alpha[i], beta[i], gamma[i]);
  return v;
}

std::vector<TripleEntry> triple_product_tensor(const std::vector<PolynomialFamily>& families,
                                               const MultiIndexSet& basis, double drop_tol) {
  FLEXUQ_REQUIRE(static_cast<int>(families.size()) == basis.dim(), "triple_product_tensor: " << families.size() << " families for a basis of dimension " << basis.dim());
  std::vector<TripleEntry> out;
  const int P = basis.size();
  for (int a = 0; a < P; ++a)
    for (int b = a; b < P; ++b)
      for (int c = b; c < P; ++c) {
        const double v = triple_product(families, basis.data(a), basis.data(b), basis.data(c));
        if (std::abs(v) > drop_tol) out.push_back({a, b, c, v});
      }
  return out;
}

} // namespace flexuq::uq
