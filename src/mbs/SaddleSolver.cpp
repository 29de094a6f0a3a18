// SPDX-License-Identifier: MIT
#include "flexuq/mbs/SaddleSolver.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::mbs {

LinearAlgebra parse_linear_algebra(const std::string& s) {
  if (s == "auto") return LinearAlgebra::automatic;
  if (s == "dense") return LinearAlgebra::dense;
  if (s == "sparse") return LinearAlgebra::sparse;
  throw InputError("must be auto, dense or sparse, got '" + s + "'");
}

const char* linear_algebra_name(LinearAlgebra l) {
  switch (l) {
  case LinearAlgebra::automatic: return "auto";
  case LinearAlgebra::dense: return "dense";
  case LinearAlgebra::sparse: return "sparse";
  }
  return "?";
}

bool choose_sparse(const Eigen::MatrixXd& k, int min_size) {
  if (k.rows() < min_size) return false;
  const double nnz = static_cast<double>((k.array() != 0.0).count());
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
  // The ordering depends on the pattern only; a configuration where an entry happens to vanish
  // (sin θ = 0) changes it, and is analysed again.
  if (pattern_outer_ != outer_ || pattern_inner_ != inner_) {
    lu_.analyzePattern(s_);
    pattern_outer_ = outer_;
    pattern_inner_ = inner_;
  }
  lu_.factorize(s_);
  return lu_.info() == Eigen::Success;
}

Eigen::VectorXd SaddleLu::solve(const Eigen::VectorXd& b) const {
  if (!sparse_) return dense_.solve(b);
  return lu_.solve(b);
}

bool SaddleLu::solve_checked(const Eigen::MatrixXd& k, const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  x = solve(b);
  if (!x.allFinite()) return false;
  if (!sparse_) return true; // compute() checked rcond
  const double r = (k * x - b).lpNorm<Eigen::Infinity>();
  const double knorm = k.cwiseAbs().rowwise().sum().maxCoeff();
  return r <= 1e-8 * (knorm * x.lpNorm<Eigen::Infinity>() + b.lpNorm<Eigen::Infinity>());
}

void MinNormProjector::factor(const Eigen::MatrixXd& p, bool sparse) {
  sparse_ = sparse;
  dense_fallback_ = false;
  if (!sparse) {
    p_ = p;
    dense_.compute(p * p.transpose());
    return;
  }
  ps_ = p.sparseView(1.0, 0.0);
  const Eigen::SparseMatrix<double> g = ps_ * ps_.transpose();
  simplicial_.compute(g);
  if (simplicial_.info() != Eigen::Success) { // not SPD to working precision: the dense LDLᵀ pivots
    dense_fallback_ = true;
    dense_.compute(Eigen::MatrixXd(g));
  }
}

Eigen::VectorXd MinNormProjector::correction(const Eigen::VectorXd& r) const {
  if (!sparse_) return -(p_.transpose() * dense_.solve(r));
  if (dense_fallback_) return -(ps_.transpose() * dense_.solve(r));
  return -(ps_.transpose() * simplicial_.solve(r));
}

Eigen::VectorXd min_norm_correction(const Eigen::MatrixXd& cq, const Eigen::VectorXd& r, bool sparse) {
  MinNormProjector p;
  p.factor(cq, sparse);
  return p.correction(r);
}

} // namespace flexuq::mbs
