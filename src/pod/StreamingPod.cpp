// SPDX-License-Identifier: MIT
#include "flexuq/pod/StreamingPod.hpp"

#include "flexuq/la/Blas.hpp"
#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::pod {

StreamingPod::StreamingPod(MPI_Comm comm, PetscInt local_rows, StreamingOptions options)
    : comm_(comm), local_rows_(local_rows), opt_(options), U_(local_rows, 0), mean_(Eigen::VectorXd::Zero(local_rows)) {
  if (local_rows < 0) throw Error(FLEXUQ_MSG("StreamingPod: negative local row count " << local_rows));
  FLEXUQ_MPI(MPI_Barrier(comm)); // every rank must take part (collective contract)
}

void StreamingPod::append(Vec v) {
  PetscInt n = 0;
  FLEXUQ_PETSC(VecGetLocalSize(v, &n));
  if (n != local_rows_) throw Error(FLEXUQ_MSG("StreamingPod: snapshot has " << n << " local rows, expected " << local_rows_));
  const PetscScalar* a = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(v, &a));
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(a, n);
  FLEXUQ_PETSC(VecRestoreArrayRead(v, &a));
  append_local(x);
}

void StreamingPod::append_local(const Eigen::Ref<const Eigen::MatrixXd>& block) {
  if (block.rows() != local_rows_)
    throw Error(FLEXUQ_MSG("StreamingPod: snapshot block has " << block.rows() << " local rows, expected " << local_rows_));
  const Eigen::Index nb = block.cols();
  if (nb == 0) return;
  Eigen::MatrixXd C;
  if (opt_.centre) {
    // Incremental PCA: centre the block on its own mean and carry the mean shift in one column.
    const Eigen::VectorXd mb = block.rowwise().sum() / static_cast<double>(nb);
    const double na = static_cast<double>(count_), nbd = static_cast<double>(nb);
    C.resize(local_rows_, nb + (count_ > 0 ? 1 : 0));
    C.leftCols(nb) = block.colwise() - mb;
    if (count_ > 0) C.col(nb) = std::sqrt(na * nbd / (na + nbd)) * (mb - mean_);
    mean_ = (na * mean_ + nbd * mb) / (na + nbd);
  } else {
    C = block;
  }
  const Eigen::Index k = U_.cols(), b = C.cols();
  // Project out the current basis twice (classical Gram–Schmidt, re-orthogonalised).
  Eigen::MatrixXd P = inner(comm_, U_, C);
  if (k > 0 && local_rows_ > 0) C -= blas::gemm(U_, false, P, false);
  if (k > 0) {
    const Eigen::MatrixXd P2 = inner(comm_, U_, C);
    if (local_rows_ > 0) C -= blas::gemm(U_, false, P2, false);
    P += P2;
  }
  // C⊥ = Q_c R_c with Q_c = U_c and R_c = Σ_c V_cᵀ from the TSQR thin SVD (la::thin_svd): directions
  // of C⊥ with zero σ get zero rows in K and are dropped below.
  const la::ThinSvd cs = la::thin_svd(comm_, C, /*left=*/true);
  const Eigen::MatrixXd& Qc = cs.U_local;
  const Eigen::MatrixXd Rc = cs.sigma.asDiagonal() * cs.V.transpose();
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(k + b, k + b);
  K.topLeftCorner(k, k) = sigma_.asDiagonal();
  K.topRightCorner(k, b) = P;
  K.bottomRightCorner(b, b) = Rc;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(K, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::VectorXd& s = svd.singularValues();
  // Rank-revealing: keep σ above the tolerance (relative to σ₁), at most max_rank.
  Eigen::Index keep = 0;
  const double s1 = s.size() ? s(0) : 0.0;
  while (keep < s.size() && s(keep) > opt_.drop_tolerance * s1 && s(keep) > 0) ++keep;
  if (opt_.max_rank >= 0) keep = std::min<Eigen::Index>(keep, opt_.max_rank);
  Eigen::MatrixXd UQ(local_rows_, k + b);
  UQ.leftCols(k) = U_;
  UQ.rightCols(b) = Qc;
  const Eigen::MatrixXd Ut = svd.matrixU().leftCols(keep);
  U_ = local_rows_ > 0 ? blas::gemm(UQ, false, Ut, false) : Eigen::MatrixXd(0, keep);
  sigma_ = s.head(keep);
  if (!opt_.centre) {
    Eigen::MatrixXd Vb = Eigen::MatrixXd::Zero(count_ + nb, k + b);
    Vb.topLeftCorner(count_, k) = V_;
    Vb.bottomRightCorner(nb, b) = Eigen::MatrixXd::Identity(nb, b);
    V_ = Vb * svd.matrixV().leftCols(keep);
  }
  count_ += nb;
}

PodResult StreamingPod::result(const Truncation& t) const {
  PodResult r;
  r.sigma = sigma_;
  r.rank = std::min(truncation_rank(sigma_, t), static_cast<int>(sigma_.size()));
  r.energy_lost = lost_energy(sigma_, r.rank);
  r.U_local = U_.leftCols(r.rank);
  if (!opt_.centre) r.V = V_.leftCols(r.rank);
  if (opt_.centre) r.mean_local = mean_;
  Eigen::MatrixXd V = r.V;
  if (!opt_.centre) {
    fix_signs(r.U_local, V);
    r.V = V;
  }
  return r;
}

} // namespace flexuq::pod
