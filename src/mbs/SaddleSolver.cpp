// SPDX-License-Identifier: MIT
#include "flexuq/mbs/SaddleSolver.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::mbs {

bool choose_sparse(const Eigen::MatrixXd& k, int min_size) {
  if (k.rows() < min_size) return false;
  const double nnz = static_cast<double>((k.array() != 0.0).count());
  return nnz <= kSparseMaxFill * static_cast<double>(k.rows()) * static_cast<double>(k.cols());
}

bool choose_sparse(const Eigen::SparseMatrix<double>& k, int min_size) {
  if (k.rows() < min_size) return false;
  double nnz = 0;
  for (Eigen::Index c = 0; c < k.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(k, c); it; ++it) nnz += it.value() != 0.0 ? 1.0 : 0.0;
  return nnz <= kSparseMaxFill * static_cast<double>(k.rows()) * static_cast<double>(k.cols());
}

void SaddleLu::set_sparse(bool sparse) {
  sparse_ = sparse;
  pattern_outer_.clear();
  pattern_inner_.clear();
}

bool SaddleLu::compute(const Eigen::MatrixXd& k) {
  if (!sparse_) {
    dense_.compute(k);
    return dense_.rcond() > 1e-14;
  }
  // Compressed columns of the exact non-zeros, in one pass over the dense storage (Eigen's
  // sparseView took as long as the sparse LU itself on the V8).
  const Eigen::Index n = k.rows();
  outer_.resize(static_cast<std::size_t>(n) + 1);
  inner_.clear();
  values_.clear();
  outer_[0] = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double* col = k.data() + j * n;
    for (Eigen::Index i = 0; i < n; ++i)
      if (col[i] != 0.0) {
        inner_.push_back(static_cast<int>(i));
        values_.push_back(col[i]);
      }
    outer_[static_cast<std::size_t>(j) + 1] = static_cast<int>(inner_.size());
  }
  s_ = Eigen::Map<const Eigen::SparseMatrix<double>>(n, n, static_cast<Eigen::Index>(inner_.size()), outer_.data(),
                                                     inner_.data(), values_.data());
  return factor_sparse();
}

bool SaddleLu::compute(const Eigen::SparseMatrix<double>& k) {
  FLEXUQ_REQUIRE(sparse_, "SaddleLu: a sparse matrix given to the dense factorisation");
  s_ = k;
  s_.makeCompressed();
  return factor_sparse();
}

bool SaddleLu::factor_sparse() {
  // The ordering depends on the pattern only; a configuration where an entry happens to vanish
  // (sin θ = 0) changes it, and is analysed again.
  const auto outer = s_.outerIndexPtr(), inner = s_.innerIndexPtr();
  const std::size_t nouter = static_cast<std::size_t>(s_.outerSize()) + 1, nnz = static_cast<std::size_t>(s_.nonZeros());
  if (pattern_outer_.size() != nouter || pattern_inner_.size() != nnz ||
      !std::equal(pattern_outer_.begin(), pattern_outer_.end(), outer) ||
      !std::equal(pattern_inner_.begin(), pattern_inner_.end(), inner)) {
    lu_.analyzePattern(s_);
    pattern_outer_.assign(outer, outer + nouter);
    pattern_inner_.assign(inner, inner + nnz);
  }
  lu_.factorize(s_);
  return lu_.info() == Eigen::Success;
}

Eigen::VectorXd SaddleLu::solve(const Eigen::VectorXd& b) const {
  if (!sparse_) return dense_.solve(b);
  return lu_.solve(b);
}

namespace {
/// The backward-error test of solve_checked: ‖k x − b‖∞ ≤ 1e-8 (‖k‖∞‖x‖∞ + ‖b‖∞).
template <class M> bool small_residual(const M& k, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  const double r = (k * x - b).template lpNorm<Eigen::Infinity>();
  const double knorm = (k.cwiseAbs() * Eigen::VectorXd::Ones(k.cols())).maxCoeff();
  return r <= 1e-8 * (knorm * x.lpNorm<Eigen::Infinity>() + b.lpNorm<Eigen::Infinity>());
}
} // namespace

bool SaddleLu::solve_checked(const Eigen::MatrixXd& k, const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  x = solve(b);
  if (!x.allFinite()) return false;
  if (!sparse_) return true; // compute() checked rcond
  return small_residual(k, b, x);
}

bool SaddleLu::solve_checked(const Eigen::SparseMatrix<double>& k, const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  x = solve(b);
  return x.allFinite() && small_residual(k, b, x);
}

void MinNormProjector::factor(const Eigen::MatrixXd& p, bool sparse) {
  sparse_ = sparse;
  dense_fallback_ = false;
  if (!sparse) {
    p_ = p;
    dense_.compute(p * p.transpose());
    return;
  }
  factor(Eigen::SparseMatrix<double>(p.sparseView(1.0, 0.0)));
}

void MinNormProjector::factor(const Eigen::SparseMatrix<double>& p) {
  sparse_ = true;
  dense_fallback_ = false;
  ps_ = p;
  // P Pᵀ from the columns: rows that share a column meet there (a joint row touches two bodies), so
  // the sum over columns of (rows in it)² is small; Eigen's general sparse product cost the V8 drive
  // a fifth of its run time when formed every step.
  const int m = static_cast<int>(p.rows());
  std::vector<Eigen::Triplet<double>> t;
  for (int c = 0; c < ps_.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator a(ps_, c); a; ++a)
      for (Eigen::SparseMatrix<double>::InnerIterator b(ps_, c); b; ++b)
        if (b.row() <= a.row()) t.emplace_back(static_cast<int>(a.row()), static_cast<int>(b.row()), a.value() * b.value());
  Eigen::SparseMatrix<double> lower(m, m);
  lower.setFromTriplets(t.begin(), t.end());
  Eigen::SparseMatrix<double> g = lower.selfadjointView<Eigen::Lower>();
  g.makeCompressed();
  // The ordering (AMD) is computed again only when the pattern changes: a step's P has the pattern
  // of the last one unless a joint row's entries cross zero.
  const bool same = pattern_outer_.size() == static_cast<std::size_t>(g.outerSize() + 1) &&
                    std::equal(pattern_outer_.begin(), pattern_outer_.end(), g.outerIndexPtr()) &&
                    pattern_inner_.size() == static_cast<std::size_t>(g.nonZeros()) &&
                    std::equal(pattern_inner_.begin(), pattern_inner_.end(), g.innerIndexPtr());
  if (!same) {
    simplicial_.analyzePattern(g);
    pattern_outer_.assign(g.outerIndexPtr(), g.outerIndexPtr() + g.outerSize() + 1);
    pattern_inner_.assign(g.innerIndexPtr(), g.innerIndexPtr() + g.nonZeros());
  }
  simplicial_.factorize(g);
  if (simplicial_.info() != Eigen::Success) { // not SPD to working precision: the dense LDLᵀ pivots
    dense_fallback_ = true;
    dense_.compute(Eigen::MatrixXd(g));
  }
}

Eigen::VectorXd MinNormProjector::gram_solve(const Eigen::VectorXd& r) const {
  if (!sparse_ || dense_fallback_) return dense_.solve(r);
  return simplicial_.solve(r);
}

Eigen::VectorXd MinNormProjector::correction(const Eigen::VectorXd& r) const {
  if (!sparse_) return -(p_.transpose() * gram_solve(r));
  return -(ps_.transpose() * gram_solve(r));
}

Eigen::VectorXd min_norm_correction(const Eigen::SparseMatrix<double>& cq, const Eigen::VectorXd& r) {
  MinNormProjector p;
  p.factor(cq);
  return p.correction(r);
}

Eigen::VectorXd min_norm_correction(const Eigen::MatrixXd& cq, const Eigen::VectorXd& r, bool sparse) {
  MinNormProjector p;
  // Large and sparse Jacobians go sparse even before the integrator has chosen its mode (the t = 0
  // projections): the dense C_q C_qᵀ of a 1,600-body chain took 80 s of its set-up (issue #40).
  p.factor(cq, sparse || choose_sparse(cq, kSparseMinSizeKeptLu));
  return p.correction(r);
}

} // namespace flexuq::mbs
