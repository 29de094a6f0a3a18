// SPDX-License-Identifier: MIT
#pragma once
/// @file Pce.hpp
/// @brief Polynomial chaos expansion y(ξ) ≈ Σ_k c_k Ψ_k(ξ) with an orthonormal product basis, for
/// many outputs at once: the coefficient matrix is n_terms × n_outputs (one column per output,
/// e.g. per eigenfrequency), and every fit shares one design matrix / quadrature.
///
/// All inputs are germ coordinates ξ (see Distribution::to_germ / StochasticSpace).

#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/Quadrature.hpp"

#include <Eigen/Dense>

#include <functional>
#include <vector>

namespace flexuq::uq {

/// Leave-one-out errors of a least-squares fit, one entry per output. With the residuals
/// r_i and leverages h_i = [A(AᵀA)⁻¹Aᵀ]_ii (from the thin Q of the QR factorisation, h_i = ‖Q_i‖²)
/// the LOO residual is r_i/(1 − h_i) (closed form, no refits).
struct LooError {
  Eigen::VectorXd normalized; ///< (1/n) Σ (r_i/(1−h_i))² / Var̂(y)  (Var̂ with 1/(n−1)); Blatman–Sudret
  Eigen::VectorXd relative;   ///< (1/n) Σ ((r_i/(1−h_i)) / y_i)², seed 000 (5.20)
  double max_leverage = 0.0;
};

struct OrderSelection {
  int order = -1;                 ///< selected total degree
  std::vector<int> orders;        ///< candidates tried (those with fewer terms than samples)
  std::vector<double> loo;        ///< mean over outputs of LooError::normalized, per candidate
};

class Pce {
public:
  Pce() = default;
  Pce(std::vector<PolynomialFamily> families, MultiIndexSet basis, Eigen::MatrixXd coefficients);

  /// Ψ (n × P): Ψ(r, k) = Ψ_k(points.row(r)). Univariate polynomials are evaluated once per point and
  /// dimension, then multiplied per term.
  static Eigen::MatrixXd design_matrix(const std::vector<PolynomialFamily>& families, const MultiIndexSet& basis,
                                       const Eigen::MatrixXd& germ_points);

  /// c_k = Σ_q w_q y(ξ_q) Ψ_k(ξ_q). @p values: n_points × n_outputs.
  static Pce fit_projection(const std::vector<PolynomialFamily>& families, const MultiIndexSet& basis,
                            const Quadrature& rule, const Eigen::MatrixXd& values);
  /// Ordinary least squares by column-pivoted Householder QR of the design matrix (never the
  /// normal equations). Throws InputError when the design is rank deficient. Optionally
  /// returns the closed-form LOO errors.
  static Pce fit_regression(const std::vector<PolynomialFamily>& families, const MultiIndexSet& basis,
                            const Eigen::MatrixXd& germ_points, const Eigen::MatrixXd& values,
                            LooError* loo = nullptr);
  /// Total-degree regressions for p = p_min..p_max (skipping p with P ≥ n); returns the fit with
  /// the smallest mean normalised LOO error (seed 000 §5.1.2 selects the order by LOO).
  static Pce fit_regression_select_order(const std::vector<PolynomialFamily>& families,
                                         const Eigen::MatrixXd& germ_points, const Eigen::MatrixXd& values,
                                         int p_min, int p_max, OrderSelection* info = nullptr);

  int dim() const { return basis_.dim(); }
  int n_terms() const { return basis_.size(); }
  int n_outputs() const { return static_cast<int>(coef_.cols()); }
  const MultiIndexSet& basis() const { return basis_; }
  const std::vector<PolynomialFamily>& families() const { return families_; }
  const Eigen::MatrixXd& coefficients() const { return coef_; }

  Eigen::RowVectorXd mean() const;     ///< c_0 (the zero multi-index)
  Eigen::RowVectorXd variance() const; ///< Σ_{α≠0} c_α²
  /// First-order Sobol' indices S_i (dim × n_outputs): terms whose only non-zero entry is α_i.
  Eigen::MatrixXd sobol_first() const;
  /// Total indices S_Ti: all terms with α_i > 0.
  Eigen::MatrixXd sobol_total() const;
  /// Interaction index of exactly the variables in @p subset (0-based): terms with α_i > 0 iff
  /// i ∈ subset. For a single variable this equals sobol_first. Zero-variance outputs give 0.
  Eigen::RowVectorXd sobol_interaction(const std::vector<int>& subset) const;

  /// y at n points (n × n_outputs); processed in blocks, vectorised.
  Eigen::MatrixXd evaluate(const Eigen::MatrixXd& germ_points) const;

private:
  std::vector<PolynomialFamily> families_;
  MultiIndexSet basis_;
  Eigen::MatrixXd coef_;
  int zero_ = -1;
  Eigen::RowVectorXd share(const std::function<bool(const int*)>& term) const;
};

} // namespace flexuq::uq
