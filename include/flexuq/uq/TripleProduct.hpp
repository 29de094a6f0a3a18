// SPDX-License-Identifier: MIT
#pragma once
/// @file TripleProduct.hpp
/// @brief Expectations of products of three orthonormal basis functions, E[ψ_a ψ_b ψ_c] (the
/// "delta tensor" of seed 000 App. C, as corrected there: products, not sums).
///
/// Hermite (ψ_n = He_n/√n!), with s = (a+b+c)/2 integer and |b−c| ≤ a ≤ b+c:
///   E[ψ_a ψ_b ψ_c] = √(a! b! c!) / ((s−a)! (s−b)! (s−c)!), else 0.
/// Legendre (ψ_n = √(2n+1) P_n, uniform measure on [−1,1]), same selection rules:
///   E[ψ_a ψ_b ψ_c] = √((2a+1)(2b+1)(2c+1)) · (a b c; 0 0 0)², with the Wigner 3j symbol squared
///   (a b c; 0 0 0)² = (2s−2a)!(2s−2b)!(2s−2c)!/(2s+1)! · [s!/((s−a)!(s−b)!(s−c)!)]².
/// Other families: Gauss quadrature with ⌈(a+b+c+1)/2⌉ points (exact).
/// Multivariate: product of the univariate factors.

#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"

#include <vector>

namespace flexuq::uq {

double hermite_triple(int a, int b, int c);
double legendre_triple(int a, int b, int c);
/// Closed form for Hermite/Legendre, exact Gauss quadrature otherwise.
double triple_product(const PolynomialFamily& f, int a, int b, int c);
/// Multivariate E[Ψ_α Ψ_β Ψ_γ] = Π_i E[ψ_{α_i} ψ_{β_i} ψ_{γ_i}].
double triple_product(const std::vector<PolynomialFamily>& families, const int* alpha, const int* beta,
                      const int* gamma);

struct TripleEntry {
  int a, b, c;
  double value;
};
/// All nonzero E[Ψ_a Ψ_b Ψ_c] with a, b, c positions in @p basis, listed for a ≤ b ≤ c only
/// (the tensor is symmetric). For stochastic Galerkin assembly.
std::vector<TripleEntry> triple_product_tensor(const std::vector<PolynomialFamily>& families,
                                               const MultiIndexSet& basis, double drop_tol = 1e-14);

} // namespace flexuq::uq
