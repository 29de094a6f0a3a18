// SPDX-License-Identifier: MIT
#include "flexuq/uq/Distribution.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace flexuq::uq {

namespace sp = special;
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// Safeguarded Newton on cdf(x) = u inside the bracket [lo, hi] (cdf increasing).
template <class Cdf, class Pdf>
double invert_cdf(const Cdf& cdf, const Pdf& pdf, double u, double lo, double hi, double x0) {
  double x = std::min(std::max(x0, lo), hi);
  for (int it = 0; it < 200; ++it) {
    const double f = cdf(x) - u;
    if (f == 0.0) return x;
    if (f < 0.0) lo = x; else hi = x;
    const double d = pdf(x);
    double xn = (d > 0.0) ? x - f / d : 0.5 * (lo + hi);
    if (!(xn > lo && xn < hi)) xn = 0.5 * (lo + hi);
    if (std::abs(xn - x) <= 1e-15 * std::max(1.0, std::abs(x))) return xn;
    x = xn;
  }
  return x;
}
} // namespace

Distribution::Distribution(Kind k, double p0, double p1, double p2, double p3) : kind_(k), p_{p0, p1, p2, p3} {}

Distribution Distribution::normal(double mean, double std) {
  FLEXUQ_REQUIRE(std::isfinite(mean) && std > 0.0 && std::isfinite(std), "normal: need finite mean and std > 0 (got " << mean << ", " << std << ")");
  return Distribution(Kind::Normal, mean, std);
}

Distribution Distribution::lognormal(double mu_ln, double sigma_ln) {
  FLEXUQ_REQUIRE(std::isfinite(mu_ln) && sigma_ln > 0.0 && std::isfinite(sigma_ln), "lognormal: need finite mu_ln and sigma_ln > 0 (got " << mu_ln << ", " << sigma_ln << ")");
  return Distribution(Kind::LogNormal, mu_ln, sigma_ln);
}

Distribution Distribution::lognormal_from_moments(double mean, double std) {
  FLEXUQ_REQUIRE(mean > 0.0 && std > 0.0, "lognormal_from_moments: need mean > 0 and std > 0 (got " << mean << ", " << std << ")");
  const double cv = std / mean;
  const double s2 = std::log1p(cv * cv);
  return lognormal(std::log(mean) - 0.5 * s2, std::sqrt(s2));
}

Distribution Distribution::uniform(double a, double b) {
  FLEXUQ_REQUIRE(std::isfinite(a) && std::isfinite(b) && b > a, "uniform: need finite a < b (got " << a << ", " << b << ")");
  return Distribution(Kind::Uniform, a, b);
}

Distribution Distribution::beta(double alpha, double beta, double a, double b) {
  FLEXUQ_REQUIRE(alpha > 0.0 && beta > 0.0, "beta: shape parameters must be > 0 (got " << alpha << ", " << beta << ")");
  FLEXUQ_REQUIRE(std::isfinite(a) && std::isfinite(b) && b > a, "beta: need finite a < b (got " << a << ", " << b << ")");
  Distribution d(Kind::Beta, alpha, beta, a, b);
  d.z_ = std::lgamma(alpha) + std::lgamma(beta) - std::lgamma(alpha + beta); // ln B(α, β)
  return d;
}

Distribution Distribution::gamma(double shape, double scale, double loc) {
  FLEXUQ_REQUIRE(shape > 0.0 && scale > 0.0 && std::isfinite(loc), "gamma: need shape > 0, scale > 0 (got " << shape << ", " << scale << ")");
  Distribution d(Kind::Gamma, shape, scale, loc);
  d.z_ = std::lgamma(shape);
  return d;
}

Distribution Distribution::truncated_normal(double mu, double sigma, double a, double b) {
  FLEXUQ_REQUIRE(std::isfinite(mu) && sigma > 0.0, "truncated_normal: need finite mu and sigma > 0");
  FLEXUQ_REQUIRE(a < b && (std::isfinite(a) || std::isfinite(b)), "truncated_normal: need a < b and at least one finite bound (got " << a << ", " << b << ")");
  Distribution d(Kind::TruncatedNormal, mu, sigma, a, b);
  const double al = (a - mu) / sigma, be = (b - mu) / sigma;
  d.z_ = sp::normal_cdf(be) - sp::normal_cdf(al);
  FLEXUQ_REQUIRE(d.z_ > 1e-300, "truncated_normal: [" << a << ", " << b << "] carries no probability");
  return d;
}

std::string Distribution::describe() const {
  std::ostringstream os;
  os.precision(10);
  switch (kind_) {
  case Kind::Normal: os << "normal(mean=" << p_[0] << ", std=" << p_[1] << ")"; break;
  case Kind::LogNormal: os << "lognormal(mu_ln=" << p_[0] << ", sigma_ln=" << p_[1] << ")"; break;
  case Kind::Uniform: os << "uniform(" << p_[0] << ", " << p_[1] << ")"; break;
  case Kind::Beta: os << "beta(alpha=" << p_[0] << ", beta=" << p_[1] << ", [" << p_[2] << ", " << p_[3] << "])"; break;
  case Kind::Gamma: os << "gamma(shape=" << p_[0] << ", scale=" << p_[1] << ", loc=" << p_[2] << ")"; break;
  case Kind::TruncatedNormal: os << "truncated_normal(mu=" << p_[0] << ", sigma=" << p_[1] << ", [" << p_[2] << ", " << p_[3] << "])"; break;
  }
  return os.str();
}

double Distribution::lower() const {
  switch (kind_) {
  case Kind::Normal: return -kInf;
  case Kind::LogNormal: return 0.0;
  case Kind::Uniform: case Kind::Beta: return p_[0 + (kind_ == Kind::Beta ? 2 : 0)];
  case Kind::Gamma: return p_[2];
  case Kind::TruncatedNormal: return p_[2];
  }
  return -kInf;
}

double Distribution::upper() const {
  switch (kind_) {
  case Kind::Uniform: return p_[1];
  case Kind::Beta: return p_[3];
  case Kind::TruncatedNormal: return p_[3];
  default: return kInf;
  }
}

double Distribution::pdf(double x) const {
  switch (kind_) {
  case Kind::Normal: return sp::normal_pdf((x - p_[0]) / p_[1]) / p_[1];
  case Kind::LogNormal:
    if (x <= 0.0) return 0.0;
    return sp::normal_pdf((std::log(x) - p_[0]) / p_[1]) / (p_[1] * x);
  case Kind::Uniform: return (x >= p_[0] && x <= p_[1]) ? 1.0 / (p_[1] - p_[0]) : 0.0;
  case Kind::Beta: {
    if (x < p_[2] || x > p_[3]) return 0.0;
    const double L = p_[3] - p_[2], t = (x - p_[2]) / L;
    if ((t == 0.0 && p_[0] < 1.0) || (t == 1.0 && p_[1] < 1.0)) return kInf;
    return std::exp((p_[0] - 1.0) * std::log(t) + (p_[1] - 1.0) * std::log1p(-t) - z_) / L;
  }
  case Kind::Gamma: {
    const double t = (x - p_[2]) / p_[1];
    if (t < 0.0) return 0.0;
    if (t == 0.0) return p_[0] < 1.0 ? kInf : (p_[0] == 1.0 ? 1.0 / p_[1] : 0.0);
    return std::exp((p_[0] - 1.0) * std::log(t) - t - z_) / p_[1];
  }
  case Kind::TruncatedNormal:
    if (x < p_[2] || x > p_[3]) return 0.0;
    return sp::normal_pdf((x - p_[0]) / p_[1]) / (p_[1] * z_);
  }
  return 0.0;
}

double Distribution::cdf(double x) const {
  switch (kind_) {
  case Kind::Normal: return sp::normal_cdf((x - p_[0]) / p_[1]);
  case Kind::LogNormal: return x <= 0.0 ? 0.0 : sp::normal_cdf((std::log(x) - p_[0]) / p_[1]);
  case Kind::Uniform: return std::min(1.0, std::max(0.0, (x - p_[0]) / (p_[1] - p_[0])));
  case Kind::Beta: return sp::beta_i(p_[0], p_[1], (x - p_[2]) / (p_[3] - p_[2]));
  case Kind::Gamma: return sp::gamma_p(p_[0], (x - p_[2]) / p_[1]);
  case Kind::TruncatedNormal: {
    if (x <= p_[2]) return 0.0;
    if (x >= p_[3]) return 1.0;
    const double al = (p_[2] - p_[0]) / p_[1];
    return (sp::normal_cdf((x - p_[0]) / p_[1]) - sp::normal_cdf(al)) / z_;
  }
  }
  return 0.0;
}

double Distribution::germ_quantile(double u) const {
  FLEXUQ_REQUIRE(u > 0.0 && u < 1.0, describe() << ": quantile probability " << u << " is not in (0,1)");
  switch (kind_) {
  case Kind::Normal: case Kind::LogNormal: return sp::normal_quantile(u);
  case Kind::Uniform: return 2.0 * u - 1.0;
  case Kind::Beta: {
    auto c = [&](double t) { return sp::beta_i(p_[0], p_[1], t); };
    auto d = [&](double t) {
      return (t <= 0.0 || t >= 1.0) ? 0.0 : std::exp((p_[0] - 1.0) * std::log(t) + (p_[1] - 1.0) * std::log1p(-t) - z_);
    };
    const double t = invert_cdf(c, d, u, 0.0, 1.0, p_[0] / (p_[0] + p_[1]));
    return 2.0 * t - 1.0;
  }
  case Kind::Gamma: {
    auto c = [&](double t) { return sp::gamma_p(p_[0], t); };
    auto d = [&](double t) { return t <= 0.0 ? 0.0 : std::exp((p_[0] - 1.0) * std::log(t) - t - z_); };
    double hi = p_[0] + 10.0 * std::sqrt(p_[0]) + 10.0;
    while (c(hi) < u) hi *= 2.0;
    return invert_cdf(c, d, u, 0.0, hi, p_[0]);
  }
  case Kind::TruncatedNormal: {
    const double al = (p_[2] - p_[0]) / p_[1], be = (p_[3] - p_[0]) / p_[1];
    // Work in the tail with less mass to keep relative accuracy.
    const double Fa = sp::normal_cdf(al);
    double z;
    if (al > 0.0) {
      const double Qa = sp::normal_cdf(-al);
      z = -sp::normal_quantile(std::min(1.0 - 1e-300, std::max(1e-300, Qa - u * z_)));
    } else {
      z = sp::normal_quantile(std::min(1.0 - 1e-16, std::max(1e-300, Fa + u * z_)));
    }
    return std::min(be, std::max(al, z));
  }
  }
  return 0.0;
}

double Distribution::quantile(double u) const { return from_germ(germ_quantile(u)); }

double Distribution::from_germ(double xi) const {
  switch (kind_) {
  case Kind::Normal: return p_[0] + p_[1] * xi;
  case Kind::LogNormal: return std::exp(p_[0] + p_[1] * xi);
  case Kind::Uniform: return 0.5 * (p_[0] + p_[1]) + 0.5 * (p_[1] - p_[0]) * xi;
  case Kind::Beta: return p_[2] + (p_[3] - p_[2]) * 0.5 * (1.0 + xi);
  case Kind::Gamma: return p_[2] + p_[1] * xi;
  case Kind::TruncatedNormal: return p_[0] + p_[1] * xi;
  }
  return 0.0;
}

double Distribution::to_germ(double x) const {
  switch (kind_) {
  case Kind::Normal: return (x - p_[0]) / p_[1];
  case Kind::LogNormal:
    FLEXUQ_REQUIRE(x > 0.0, describe() << ": to_germ of non-positive value " << x);
    return (std::log(x) - p_[0]) / p_[1];
  case Kind::Uniform: return (2.0 * x - p_[0] - p_[1]) / (p_[1] - p_[0]);
  case Kind::Beta: return 2.0 * (x - p_[2]) / (p_[3] - p_[2]) - 1.0;
  case Kind::Gamma: return (x - p_[2]) / p_[1];
  case Kind::TruncatedNormal: return (x - p_[0]) / p_[1];
  }
  return 0.0;
}

double Distribution::mean() const {
  switch (kind_) {
  case Kind::Normal: return p_[0];
  case Kind::LogNormal: return std::exp(p_[0] + 0.5 * p_[1] * p_[1]);
  case Kind::Uniform: return 0.5 * (p_[0] + p_[1]);
  case Kind::Beta: return p_[2] + (p_[3] - p_[2]) * p_[0] / (p_[0] + p_[1]);
  case Kind::Gamma: return p_[2] + p_[0] * p_[1];
  case Kind::TruncatedNormal: {
    const double al = (p_[2] - p_[0]) / p_[1], be = (p_[3] - p_[0]) / p_[1];
    const double pa = std::isfinite(al) ? sp::normal_pdf(al) : 0.0, pb = std::isfinite(be) ? sp::normal_pdf(be) : 0.0;
    return p_[0] + p_[1] * (pa - pb) / z_;
  }
  }
  return 0.0;
}

double Distribution::variance() const {
  switch (kind_) {
  case Kind::Normal: return p_[1] * p_[1];
  case Kind::LogNormal: return std::expm1(p_[1] * p_[1]) * std::exp(2.0 * p_[0] + p_[1] * p_[1]);
  case Kind::Uniform: return (p_[1] - p_[0]) * (p_[1] - p_[0]) / 12.0;
  case Kind::Beta: {
    const double a = p_[0], b = p_[1], L = p_[3] - p_[2];
    return L * L * a * b / ((a + b) * (a + b) * (a + b + 1.0));
  }
  case Kind::Gamma: return p_[0] * p_[1] * p_[1];
  case Kind::TruncatedNormal: {
    const double al = (p_[2] - p_[0]) / p_[1], be = (p_[3] - p_[0]) / p_[1];
    const double pa = std::isfinite(al) ? sp::normal_pdf(al) : 0.0, pb = std::isfinite(be) ? sp::normal_pdf(be) : 0.0;
    const double apa = std::isfinite(al) ? al * pa : 0.0, bpb = std::isfinite(be) ? be * pb : 0.0;
    const double m = (pa - pb) / z_;
    return p_[1] * p_[1] * (1.0 + (apa - bpb) / z_ - m * m);
  }
  }
  return 0.0;
}

double Distribution::std() const { return std::sqrt(variance()); }

PolynomialFamily Distribution::germ_family() const {
  switch (kind_) {
  case Kind::Normal: case Kind::LogNormal: return PolynomialFamily::hermite();
  case Kind::Uniform: return PolynomialFamily::legendre();
  case Kind::Beta: return PolynomialFamily::jacobi(p_[1] - 1.0, p_[0] - 1.0);
  case Kind::Gamma: return PolynomialFamily::laguerre(p_[0] - 1.0);
  case Kind::TruncatedNormal: {
    const double al = (p_[2] - p_[0]) / p_[1], be = (p_[3] - p_[0]) / p_[1];
    // Infinite bounds are cut 12 standard units beyond the other bound (relative mass < 1e-31).
    const double lo = std::isfinite(al) ? al : std::min(be, 0.0) - 12.0;
    const double hi = std::isfinite(be) ? be : std::max(al, 0.0) + 12.0;
    const int panels = std::max(8, static_cast<int>(std::ceil((hi - lo) / 0.5)));
    return PolynomialFamily::from_density([](double z) { return std::exp(-0.5 * z * z); }, lo, hi, 40, panels,
                                          "truncated_normal");
  }
  }
  return PolynomialFamily::hermite();
}

} // namespace flexuq::uq
