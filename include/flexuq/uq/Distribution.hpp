// SPDX-License-Identifier: MIT
#pragma once
/// @file Distribution.hpp
/// @brief Univariate input distributions, their germ (the standard variable ξ the polynomial
/// chaos is written in) and the isoprobabilistic maps x = from_germ(ξ), ξ = to_germ(x).
///
/// | kind | parameters | germ ξ | germ family |
/// |---|---|---|---|
/// | normal(μ, σ)                 | mean, std                         | N(0,1), x = μ + σξ               | Hermite |
/// | lognormal(μ_ln, σ_ln)        | parameters of ln x                | N(0,1), x = exp(μ_ln + σ_ln ξ)    | Hermite (of the Gaussian germ) |
/// | uniform(a, b)                | bounds                            | U(−1,1), x = (a+b)/2 + (b−a)/2 ξ  | Legendre |
/// | beta(α, β, a, b)             | pdf ∝ (x−a)^(α−1) (b−x)^(β−1)     | on [−1,1], x = a + (b−a)(1+ξ)/2   | Jacobi(β−1, α−1) |
/// | gamma(k, θ, loc)             | shape, scale, location            | Gamma(k,1), x = loc + θξ          | Laguerre(k−1) |
/// | truncated_normal(μ, σ, a, b) | parent mean/std, bounds           | standardised z = (x−μ)/σ on [(a−μ)/σ, (b−μ)/σ] | numerical (discretised Stieltjes on the truncated Gaussian) |
///
/// Log-normal inputs are deliberately expanded in Hermite polynomials of the Gaussian germ (the
/// log-normal law is moment-indeterminate; polynomials orthogonal to it are not dense in L²).

#include "flexuq/uq/PolynomialFamily.hpp"

#include <string>

namespace flexuq::uq {

class Distribution {
public:
  enum class Kind { Normal, LogNormal, Uniform, Beta, Gamma, TruncatedNormal };

  static Distribution normal(double mean, double std);
  static Distribution lognormal(double mu_ln, double sigma_ln);
  /// Log-normal with the given mean and standard deviation of x (moment matching):
  /// σ_ln² = ln(1 + (std/mean)²), μ_ln = ln(mean) − σ_ln²/2.
  static Distribution lognormal_from_moments(double mean, double std);
  static Distribution uniform(double a, double b);
  static Distribution beta(double alpha, double beta, double a = 0.0, double b = 1.0);
  static Distribution gamma(double shape, double scale, double loc = 0.0);
  /// Normal(μ, σ) conditioned on [a, b]; a may be −∞ and b +∞ (not both).
  static Distribution truncated_normal(double mu, double sigma, double a, double b);

  Kind kind() const { return kind_; }
  std::string describe() const;
  double parameter(int i) const { return p_[i]; } ///< the constructor arguments in order

  double pdf(double x) const;
  double cdf(double x) const;
  double quantile(double u) const; ///< u ∈ (0,1)
  double mean() const;
  double variance() const;
  double std() const;
  double lower() const; ///< support bounds (may be ±∞)
  double upper() const;

  double from_germ(double xi) const;
  double to_germ(double x) const;
  /// The germ value at probability u ∈ (0,1): ξ = F_ξ⁻¹(u), so from_germ(germ_quantile(u)) = quantile(u).
  double germ_quantile(double u) const;
  /// Polynomials orthonormal w.r.t. the germ law (see the table above). The numerical family of
  /// the truncated normal is generated to degree 40.
  PolynomialFamily germ_family() const;

private:
  Distribution(Kind k, double p0, double p1, double p2 = 0.0, double p3 = 0.0);
  Kind kind_;
  double p_[4];
  double z_ = 1.0; // truncated normal: Φ(β) − Φ(α); beta/gamma: cached log normalisation
};

} // namespace flexuq::uq
