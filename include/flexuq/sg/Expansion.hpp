// SPDX-License-Identifier: MIT
#pragma once
/// @file Expansion.hpp
/// @brief Polynomial chaos expansion of affine operators: K(ξ) = Σ_k θ_k(x(ξ)) K_k = Σ_a K^(a) Ψ_a(ξ)
/// with K^(a) = Σ_k θ_k^(a) K_k (seed 000 §2.13 "Obtaining K_ii^(α)", App. D).
///
/// The coefficients θ_k^(a) = E[θ_k Ψ_a] come from
/// - exact projection when θ is affine in the inputs x (θ_k = c_k + Σ_i L_ki x_i): then
///   θ_k^(a) = c_k δ_a0 + Σ_i L_ki x_i^(a), and x_i^(a) is nonzero only for a = n·e_i. For a
///   log-normal x = exp(μ + σξ) on orthonormal Hermite the closed form of App. D holds,
///   x^(n) = e^{μ+σ²/2} σⁿ/√(n!); other inputs are projected by a 1-D Gauss rule (exact for normal
///   and uniform inputs);
/// - least-squares regression on germ samples when θ is not affine in x (the seed's (G, C) case,
///   E = 9CG/(3C+G)), as the thesis did; or, when asked explicitly, tensor Gauss projection.
/// A non-affine map without regression (or quadrature) settings is an error.

#include "flexuq/core/Handle.hpp"
#include "flexuq/fe/AffineOperator.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace flexuq::sg {

/// @brief Physical inputs x → coefficients of the affine stiffness (and mass) terms.
struct AffineMap {
  int n_stiffness = 0;
  int n_mass = 0;  ///< 0: the mass matrix is deterministic
  /// θ_K(x) (size n_stiffness) and θ_M(x) (size n_mass; not called when n_mass = 0).
  std::function<std::vector<double>(const Eigen::VectorXd& x)> stiffness;
  std::function<std::vector<double>(const Eigen::VectorXd& x)> mass;
  /// True when θ is affine in x (exact projection applies).
  bool affine = true;
  /// Optional admissibility check of a sample (e.g. the Poisson guard 0 ≤ ν < 0.5); throws
  /// InputError naming @p where (the sample) when x is not admissible.
  std::function<void(const Eigen::VectorXd& x, const std::string& where)> check;
  std::string description; ///< for messages, e.g. "component material map"
};

enum class Projection { Automatic, Exact, Quadrature, Regression };

struct ExpansionOptions {
  int order = 2;  ///< p_α, total degree of the operator expansion
  /// Automatic: Exact for affine maps; for non-affine maps Regression if regression_samples > 0,
  /// otherwise an InputError.
  Projection method = Projection::Automatic;
  int regression_samples = 0;        ///< number of germ samples (≥ 2 P_α recommended, seed 000 (5.9))
  std::uint64_t regression_seed = 1; ///< Latin hypercube seed
  int quadrature_points = 0;         ///< Gauss points per input (0: order + 8)
  std::string key = "method.galerkin"; ///< config key named in messages
};

struct CoefficientExpansion {
  uq::MultiIndexSet basis;    ///< operator basis (total degree p_α), graded lexicographic
  Eigen::MatrixXd stiffness;  ///< P_α × n_stiffness: θ_k^(a)
  Eigen::MatrixXd mass;       ///< P_α × n_mass (empty when M is deterministic)
  Projection used = Projection::Exact;
  double regression_loo = 0;  ///< max normalised LOO error over the terms (regression only)
};

/// Orthonormal-Hermite coefficients x^(0..order) of x = exp(μ + σξ) (App. D in the orthonormal
/// basis ψ_n = He_n/√n!): x^(n) = e^{μ+σ²/2} σⁿ/√(n!).
Eigen::VectorXd lognormal_hermite_coefficients(double mu_ln, double sigma_ln, int order);

/// 1-D germ coefficients x^(0..order) of one input (closed form for log-normal, Gauss otherwise).
Eigen::VectorXd input_coefficients(const uq::Distribution& d, int order, int gauss_points = 0);

/// θ^(a) for every term. Not collective (pure arithmetic; every rank computes the same).
CoefficientExpansion expand_coefficients(const uq::StochasticSpace& space, const AffineMap& map,
                                         const ExpansionOptions& opt);

/// K^(a) = Σ_k θ_k^(a) K_k for every row a of @p coefficients (P_α × terms). Each result has the
/// terms' common nonzero pattern. @note Collective on the terms' communicator.
std::vector<MatH> expand_operator(const fe::AffineOperator& terms, const Eigen::MatrixXd& coefficients);

/// The affine map of the shared material parametrisation (fe/MaterialParametrisation.hpp: the map
/// a sampling campaign applies per sample), so SG and the non-intrusive methods expand the same
/// θ(x). Affine when every parameter is E or ρ (λ, μ, G are then proportional to E at the group's
/// fixed ν); ν, G or C make it non-affine (regression settings needed). M is expanded when some
/// parameter is a density. The check runs MaterialParametrisation::materials (E > 0, 0 ≤ ν < 0.5,
/// the Poisson guard) and names the sample. @p p must outlive the map.
AffineMap parametrisation_map(const fe::MaterialParametrisation& p);

} // namespace flexuq::sg
