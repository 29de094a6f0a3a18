// SPDX-License-Identifier: MIT
#pragma once
/// @file SaddleSolver.hpp
/// @brief LU factors of the multibody saddle matrices [A C_qᵀ; C_q 0] (A = M(q), or the Newton
/// iteration matrix), dense or sparse, and the minimum-norm projections with C_q C_qᵀ.
///
/// A mechanism of many rigid bodies (seed 003's V8: 17 bodies, 119 coordinates, 119 active rows)
/// has a saddle matrix that is a few per cent full: block-diagonal mass (7 × 7 per rigid body) and
/// joint rows that touch two bodies. A dense LU costs (2/3)N³ per factorisation; Eigen's supernodal
/// SparseLU with a COLAMD column ordering and partial pivoting (the matrix is indefinite; no
/// symmetric ordering is assumed) costs far less at such fill (the V8 driven by rk45: 4.1 s against
/// 11.6 s per run). A flexible body's mass block is dense (7 + modes), so a mechanism of few large
/// flexible bodies stays dense. `solver.linear_algebra: auto` chooses by size and fill at the
/// initial configuration (choose_sparse); both give the same solution to round-off (tests/mbs: a
/// mechanism run both ways). On the sparse path the matrices are also assembled sparse
/// (System::jacobian_sparse, mass_triplets, stiffness_damping_triplets): no (n + m)² or m × n dense
/// matrix is formed, so a chain of thousands of bodies runs in memory proportional to its joints
/// (issue #40; docs/performance.md "Large mechanisms").

#include "flexuq/core/EnumNames.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <Eigen/SparseCholesky>

#include <string>
#include <vector>

namespace flexuq::mbs {

enum class LinearAlgebra { automatic, dense, sparse };
/// The names of `solver.linear_algebra`.
inline constexpr EnumNames<LinearAlgebra, 3> kLinearAlgebraNames{
    {{{LinearAlgebra::automatic, "auto"}, {LinearAlgebra::dense, "dense"}, {LinearAlgebra::sparse, "sparse"}}}};

/// `auto`'s rule: sparse when the saddle matrix has at least @p min_size rows and at most
/// kSparseMaxFill of its entries are non-zero. The sizes are where sparse overtook dense on a
/// chain of rigid links (docs/performance.md "Multibody linear algebra"): rk45 and euler factorise
/// at every stage (sparse 1.2× faster at N = 52, 2.5× at 104); hht and generalized-α keep their Newton
/// LU across steps (modified Newton), so the two are within 15 % up to N ≈ 160 and sparse wins
/// from N ≈ 200 (1.8× at 312).
constexpr int kSparseMinSizeFactorEveryStage = 64;
constexpr int kSparseMinSizeKeptLu = 200;
constexpr double kSparseMaxFill = 0.15;
bool choose_sparse(const Eigen::MatrixXd& k, int min_size);
/// The same rule on a sparse matrix (its stored non-zeros; exact zeros are not counted).
bool choose_sparse(const Eigen::SparseMatrix<double>& k, int min_size);

/// Bytes the sparse path needs per non-zero of the saddle matrix at t = 0 (the estimate checked
/// against the machine's memory before a sparse run's first factorisation): the assembled iteration
/// and saddle matrices, their triplets, two sparse LU factors (docs/performance.md "Large
/// mechanisms": chains of 400-5,000 spherical links, 0.2-0.5 kB per non-zero past the rank test).
constexpr double kSparseBytesPerNonZero = 1000.0;

class SaddleLu {
public:
  explicit SaddleLu(bool sparse = false) : sparse_(sparse) {}
  bool sparse() const { return sparse_; }
  /// Switches between dense and sparse; forgets the factors (and the analysed pattern).
  void set_sparse(bool sparse);
  /// Factorises @p k. False when it is numerically singular: dense, rcond ≤ 1e-14; sparse, a zero
  /// pivot (a nearly singular sparse matrix is caught by solve_checked's residual instead).
  bool compute(const Eigen::MatrixXd& k);
  /// The same from a sparse matrix (sparse mode only; a throwing logic error otherwise).
  bool compute(const Eigen::SparseMatrix<double>& k);
  Eigen::VectorXd solve(const Eigen::VectorXd& b) const;
  /// solve() plus the backward-error check ‖k x − b‖∞ ≤ 1e-8 (‖k‖∞‖x‖∞ + ‖b‖∞) on the matrix of the
  /// last compute(); false (x unspecified) when it fails or x is not finite.
  bool solve_checked(const Eigen::MatrixXd& k, const Eigen::VectorXd& b, Eigen::VectorXd& x) const;
  bool solve_checked(const Eigen::SparseMatrix<double>& k, const Eigen::VectorXd& b, Eigen::VectorXd& x) const;

private:
  bool factor_sparse(); ///< LU of s_ (its pattern analysed again when it changed)
  bool sparse_;
  Eigen::PartialPivLU<Eigen::MatrixXd> dense_;
  Eigen::SparseMatrix<double> s_;
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu_;
  std::vector<int> outer_, inner_;               ///< compressed columns of the last matrix
  std::vector<double> values_;
  std::vector<int> pattern_outer_, pattern_inner_; ///< the analysed pattern (re-analysed when it changes)
};

/// The factors of P Pᵀ for a fixed full-row-rank P (m × n), dense LDLᵀ or sparse simplicial LDLᵀ:
/// minimum-norm corrections −Pᵀ (P Pᵀ)⁻¹ r for many right-hand sides with one factorisation (the
/// stabilised integrators' position correction keeps P through a step's Newton iterations).
class MinNormProjector {
public:
  void factor(const Eigen::MatrixXd& p, bool sparse);
  void factor(const Eigen::SparseMatrix<double>& p); ///< sparse LDLᵀ of a sparse P (no dense copy)
  /// −Pᵀ (P Pᵀ)⁻¹ r.
  Eigen::VectorXd correction(const Eigen::VectorXd& r) const;
private:
  Eigen::VectorXd gram_solve(const Eigen::VectorXd& r) const; ///< (P Pᵀ)⁻¹ r
  bool sparse_ = false, dense_fallback_ = false;
  Eigen::MatrixXd p_;
  Eigen::SparseMatrix<double> ps_;
  std::vector<int> pattern_outer_, pattern_inner_; ///< P Pᵀ's analysed pattern (kept while it holds)
  Eigen::LDLT<Eigen::MatrixXd> dense_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> simplicial_;
};
/// Minimum-norm correction −C_qᵀ (C_q C_qᵀ)⁻¹ r of the constraint Newton–Raphson projections;
/// C_q has full row rank (redundant rows were dropped). Dense LDLᵀ or sparse simplicial LDLᵀ.
Eigen::VectorXd min_norm_correction(const Eigen::MatrixXd& cq, const Eigen::VectorXd& r, bool sparse);
Eigen::VectorXd min_norm_correction(const Eigen::SparseMatrix<double>& cq, const Eigen::VectorXd& r);

} // namespace flexuq::mbs
