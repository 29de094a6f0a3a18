// SPDX-License-Identifier: MIT
#pragma once
/// @file ReducedConstraints.hpp
/// @brief The constraint operators of seed 003's reduced model contracted directly (issue #34 Goals):
///   Γᵀ Φ(q̃, t) (l),   Vᵀ C_q(q̃)ᵀ Γ λ_l (r),   Γᵀ C_q(q̃) V (l × r),
/// without the n-row C_q of the full model and with each body vector differentiated once. A row of
/// mbs::ConstraintRows is Φ_k = Σ c(t) uᵀv − g(t) − φ0 over body vectors u, v; so for multipliers μ
/// (μ = Γλ_l, or the l columns of Γ for the Jacobian)
///   Σ_k μ_k ∇Φ_k = Σ_w (Σ_{k, terms with w} μ_k c w_other)ᵀ ∂w/∂q,
/// one 3 × p coefficient per vector, then its ∂w/∂q once (the full model's pass differentiates u and v
/// per term and row: the V8's crank-pin separations three times each). The bodies' rotation matrices
/// are formed once per evaluation, not once per vector part. The norm rows pᵀp − 1 add 2μp. Rows
/// whose Γ row is zero (and constant vectors) are skipped. The projection by V is one product of the
/// n × p gradient block (the residual's n-vector is projected by the caller with M q̈ − Q).
///
/// The body-vector parts it knows are those of mbs::ConstraintRows (points r_b + A_b s, axes A_b s,
/// flexible parts A_b(s + L η)); the constructor compares its Φ and C_qᵀμ with the rows' own
/// evaluation (System::phi, System::constraint_residual) at a generic state and, where they differ
/// (a part kind it does not know), falls back to the full evaluation — always the same numbers up to
/// round-off. Not thread-safe (work arrays), as System is not.

#include "flexuq/mbs/System.hpp"

#include <Eigen/Dense>

#include <vector>

namespace flexuq::rom {

class ReducedConstraints {
public:
  using Vec = Eigen::VectorXd;
  using Mat = Eigen::MatrixXd;
  /// @p V (n × r) and @p gamma (m × l, on the system's active rows) are kept by reference.
  ReducedConstraints(const mbs::System& sys, const Mat& V, const Mat& gamma);
  /// Γᵀ Φ(q, t) into @p gphi (l) and C_qᵀ (Γ λ_l) into @p ct (n: the caller projects it by Vᵀ with
  /// the rest of its residual).
  void residual(const Vec& q, double t, const Vec& lambda_l, Vec& gphi, Vec& ct);
  /// Γᵀ C_q(q, t) V (l × r).
  Mat jacobian(const Vec& q, double t);
  /// max |Φ| over every row, dropped redundant rows and norm rows included (= System::phi_all's ∞-norm).
  double drift(const Vec& q, double t);
  /// Whether the direct contraction is used (false: it disagreed with the rows' own evaluation).
  bool direct() const { return direct_; }

private:
  /// Rotation matrices of the bodies and the body vectors' values w at @p q.
  void states(const Vec& q);
  /// Φ of full row @p r (states() first).
  double value(int r, double t) const;
  /// @p grad (n × p) = Σ_k μ(k, ·) ∇Φ_k over the used active rows (states() first); P = 1 (the
  /// residual's Γλ_l, fixed-size coefficients) or Dynamic (Γ's l columns, the Jacobian).
  template <int P>
  void transpose_product(const Vec& q, double t, const Eigen::Matrix<double, Eigen::Dynamic, P>& mu,
                         std::vector<Eigen::Matrix<double, 3, P>>& coef, Eigen::Matrix<double, Eigen::Dynamic, P>& grad);
  void residual_direct(const Vec& q, double t, const Vec& lambda_l, Vec& gphi, Vec& ct);
  Mat jacobian_direct(const Vec& q, double t);

  const mbs::System& sys_;
  const mbs::ConstraintRows& rows_;
  const Mat& V_;
  const Mat& gamma_;
  bool direct_ = true;
  std::vector<int> used_;            ///< active-row indices k whose Γ row is not zero
  std::vector<int> bodies_;          ///< bodies that some vector part sits on
  std::vector<mbs::Mat3> rot_;       ///< per body: A(p) at the last states()
  std::vector<mbs::Vec4> p_;         ///< per body: p at the last states()
  std::vector<mbs::Vec3> w_;         ///< per vector: w at the last states()
  std::vector<Eigen::Matrix<double, 3, Eigen::Dynamic>> coef_; ///< per vector: Σ μ c w_other (3 × l)
  std::vector<mbs::Vec3> coef1_;     ///< the same for one column (the residual)
  std::vector<char> touched_;        ///< per vector: a non-zero coefficient
  Mat grad_;                         ///< n × l
  /// V's rows grouped by their non-zero columns (a type-sensitive basis: the translational rows on the
  /// translational columns, ...), so Γᵀ C_q V = Σ_g (grad's rows g)ᵀ V_g on g's columns; empty when
  /// one group holds every column (a combined basis: the plain product).
  struct RowGroup {
    std::vector<int> rows, cols;
    Mat vg; ///< V(rows, cols)
  };
  std::vector<RowGroup> groups_;
  Mat gg_, pg_; ///< work arrays: grad's rows of a group, its product
  Vec mu_;                           ///< Γ λ_l (m)
};

} // namespace flexuq::rom
