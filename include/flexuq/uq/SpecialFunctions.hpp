// SPDX-License-Identifier: MIT
#pragma once
/// @file SpecialFunctions.hpp
/// @brief Scalar special functions the distributions need: normal CDF/quantile, regularised
/// incomplete gamma and beta functions, and factorials. Double precision, no external library.

namespace flexuq::uq::special {

double normal_pdf(double z);            ///< standard normal density φ(z)
double normal_cdf(double z);            ///< Φ(z), accurate in both tails (erfc based)
double normal_quantile(double p);       ///< Φ⁻¹(p), p ∈ (0,1); Halley-refined to ~1 ulp
double log_gamma(double x);             ///< ln Γ(x), x > 0
double gamma_p(double a, double x);     ///< regularised lower incomplete gamma P(a, x)
double beta_i(double a, double b, double x); ///< regularised incomplete beta I_x(a, b)
double factorial(int n);                ///< n! as double (exact up to 22!)
double binomial(int n, int k);          ///< C(n, k) as double

} // namespace flexuq::uq::special
