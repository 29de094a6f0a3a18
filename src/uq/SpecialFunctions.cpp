// SPDX-License-Identifier: MIT
#include "flexuq/uq/SpecialFunctions.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>
#include <limits>

namespace flexuq::uq::special {

namespace {
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt1_2 = 0.70710678118654752440;
} // namespace

double normal_pdf(double z) { return kInvSqrt2Pi * std::exp(-0.5 * z * z); }

double normal_cdf(double z) { return 0.5 * std::erfc(-z * kSqrt1_2); }

double normal_quantile(double p) {
  FLEXUQ_REQUIRE(p > 0.0 && p < 1.0, "normal_quantile: probability " << p << " is not in (0,1)");
  // Work on the lower half (1 - p is exact for p >= 0.5 by Sterbenz' lemma) and flip the sign.
  const bool upper = p > 0.5;
  const double q = upper ? 1.0 - p : p;
  // Start: Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4), then Halley on Φ(x) = q, which is
  // cubically convergent; three steps reach round-off from that start.
  double x;
  if (q == 0.5) {
    x = 0.0;
  } else {
    const double t = std::sqrt(-2.0 * std::log(q));
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                  (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
    for (int it = 0; it < 3; ++it) {
      const double f = normal_cdf(x) - q;
      const double d = normal_pdf(x);
      if (d == 0.0) break;
      const double s = f / d;
      x -= s / (1.0 + 0.5 * x * s);
    }
  }
  return upper ? -x : x;
}

double log_gamma(double x) {
  FLEXUQ_REQUIRE(x > 0.0, "log_gamma: argument " << x << " must be positive");
  return std::lgamma(x);
}

double gamma_p(double a, double x) {
  FLEXUQ_REQUIRE(a > 0.0, "gamma_p: shape " << a << " must be positive");
  if (x <= 0.0) return 0.0;
  const double log_pref = a * std::log(x) - x - std::lgamma(a);
  const double eps = 1e-16;
  if (x < a + 1.0) {
    // Series: P = x^a e^-x / Γ(a+1) · Σ x^n / ((a+1)...(a+n)).
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 10000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::abs(term) < std::abs(sum) * eps) break;
    }
    return sum * std::exp(log_pref);
  }
  // Continued fraction for Q = 1 - P (modified Lentz).
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int n = 1; n < 10000; ++n) {
    const double an = -n * (n - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1.0) < eps) break;
  }
  return 1.0 - std::exp(log_pref) * h;
}

namespace {
// Continued fraction of I_x(a,b) (modified Lentz), valid for x < (a+1)/(a+b+2).
double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300, eps = 1e-16;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1.0) < eps) break;
  }
  return h;
}
} // namespace

double beta_i(double a, double b, double x) {
  FLEXUQ_REQUIRE(a > 0.0 && b > 0.0, "beta_i: parameters (" << a << ", " << b << ") must be positive");
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(log_front) * beta_cf(a, b, x) / a;
  return 1.0 - std::exp(log_front) * beta_cf(b, a, 1.0 - x) / b;
}

double factorial(int n) {
  FLEXUQ_REQUIRE(n >= 0 && n <= 170, "factorial: n = " << n << " out of range [0, 170]");
  double f = 1.0;
  for (int k = 2; k <= n; ++k) f *= k;
  return f;
}

double binomial(int n, int k) {
  if (k < 0 || k > n) return 0.0;
  k = std::min(k, n - k);
  double r = 1.0;
  for (int j = 1; j <= k; ++j) r = r * (n - k + j) / j;
  return r < 9.0e15 ? std::round(r) : r;
}

} // namespace flexuq::uq::special
