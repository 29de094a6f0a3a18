// SPDX-License-Identifier: MIT
#pragma once
/// @file Quadrature.hpp
/// @brief Quadrature rules for expectations over the germ measure: 1-D Gauss (Golub–Welsch, see
/// PolynomialFamily::gauss), Clenshaw–Curtis, tensor grids and Smolyak sparse grids.
///
/// Every rule integrates against a *probability* measure: weights of an exact rule sum to 1 and
/// Σ_k w_k f(x_k) ≈ E[f(ξ)].

#include <Eigen/Dense>

#include <functional>
#include <vector>

namespace flexuq::uq {

class PolynomialFamily;

/// @brief Points (n × d, one point per row) and weights (n).
struct Quadrature {
  Eigen::MatrixXd points;
  Eigen::VectorXd weights;
  int size() const { return static_cast<int>(weights.size()); }
  int dim() const { return static_cast<int>(points.cols()); }
};

/// Clenshaw–Curtis rule with @p n points on [−1, 1] for the uniform probability measure dx/2.
/// Nodes −cos(πj/(n−1)); n = 1 is the midpoint rule. Exact for degree n−1 (n for odd n).
Quadrature clenshaw_curtis(int n);

/// Tensor product of 1-D rules (each of dim 1). The first dimension varies fastest.
Quadrature tensor_product(const std::vector<Quadrature>& rules);

/// Tensor Gauss rule: @p n[j] Gauss points of families[j] in dimension j.
Quadrature tensor_gauss(const std::vector<PolynomialFamily>& families, const std::vector<int>& n);

/// 1-D rule of a sparse grid at level l ≥ 1 (level 1 has one point).
using LevelRule = std::function<Quadrature(int level)>;

/// Clenshaw–Curtis growth 1, 3, 5, 9, 17, …: n(1) = 1, n(l) = 2^(l−1) + 1. Nested.
LevelRule clenshaw_curtis_levels();
/// Gauss rule of @p family with linear odd growth n(l) = 2l − 1 (1, 3, 5, …). Not nested except
/// for the centre point of symmetric measures; coincident points are merged by smolyak().
LevelRule gauss_levels(const PolynomialFamily& family);

/// @brief Smolyak sparse grid of level L ≥ 0 from one level rule per dimension (combination
/// technique): A(L, d) = Σ_{L−d+1 ≤ |k| ≤ L} (−1)^(L−|k|) C(d−1, L−|k|) ⊗_j U^{k_j+1}.
/// Coincident points (to 1e-12) are merged and their weights summed; points whose merged weight is
/// exactly zero are kept (so counts do not depend on cancellation). Level 0 is the one-point rule.
/// Exact for total degree 2L+1 with either level rule above.
Quadrature smolyak(const std::vector<LevelRule>& rules, int level);

/// Convenience: CC for Legendre (uniform) germs, Gauss with linear growth for all other germs.
Quadrature smolyak(const std::vector<PolynomialFamily>& families, int level);
/// An upper bound of smolyak(families, level).size() without building it (a few operations per
/// dimension and level): the points of every tensor rule of the combination, before coincident
/// points are merged. As a double: it may exceed every integer type (level 30 in 10 dimensions).
double smolyak_size_bound(const std::vector<PolynomialFamily>& families, int level);

} // namespace flexuq::uq
