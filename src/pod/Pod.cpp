// SPDX-License-Identifier: MIT
#include "flexuq/pod/Pod.hpp"

#include "flexuq/la/Blas.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"

#include <slepcsvd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace flexuq::pod {

namespace {

void check_same_cols(MPI_Comm comm, Eigen::Index n, const char* what) {
  long long nc = n, nmax = 0, nmin = 0;
  FLEXUQ_MPI(MPI_Allreduce(&nc, &nmax, 1, MPI_LONG_LONG, MPI_MAX, comm));
  FLEXUQ_MPI(MPI_Allreduce(&nc, &nmin, 1, MPI_LONG_LONG, MPI_MIN, comm));
  if (nmax != nmin) throw Error(FLEXUQ_MSG(what << ": ranks disagree on the column count (" << nmin << " vs " << nmax << ")"));
}

/// SVD of a small replicated matrix; Jacobi (most accurate) up to 64 columns, divide and conquer above.
void small_svd(const Eigen::MatrixXd& R, Eigen::MatrixXd& U, Eigen::VectorXd& s, Eigen::MatrixXd& V) {
  if (R.cols() <= 64) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(R, Eigen::ComputeThinU | Eigen::ComputeThinV);
    U = svd.matrixU();
    s = svd.singularValues();
    V = svd.matrixV();
  } else {
    Eigen::BDCSVD<Eigen::MatrixXd> svd(R, Eigen::ComputeThinU | Eigen::ComputeThinV);
    U = svd.matrixU();
    s = svd.singularValues();
    V = svd.matrixV();
  }
}

} // namespace

Eigen::MatrixXd inner(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::MatrixXd>& Y) {
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(X.cols(), Y.cols());
  if (X.rows() > 0 && G.size() > 0)
    blas::gemm("T", "N", X.cols(), Y.cols(), X.rows(), X.data(), X.outerStride(), Y.data(), Y.outerStride(), G.data(),
               G.rows());
  if (G.size() > 0)
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, G.data(), static_cast<int>(G.size()), MPI_DOUBLE, MPI_SUM, comm));
  return G;
}

Eigen::MatrixXd apply(Mat W, const Eigen::Ref<const Eigen::MatrixXd>& X) {
  MPI_Comm comm = MPI_COMM_NULL;
  FLEXUQ_PETSC(PetscObjectGetComm(reinterpret_cast<PetscObject>(W), &comm));
  PetscInt nl = 0, nc = 0;
  FLEXUQ_PETSC(MatGetLocalSize(W, &nl, &nc));
  if (nl != X.rows() || nc != X.rows())
    throw Error(FLEXUQ_MSG("pod: the weight matrix has " << nl << " local rows, the snapshots " << X.rows()));
  Eigen::MatrixXd Y(X.rows(), X.cols());
  VecH x, y;
  FLEXUQ_PETSC(MatCreateVecs(W, x.out(), y.out()));
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayWrite(x.get(), &a));
    std::copy_n(X.col(j).data(), X.rows(), a);
    FLEXUQ_PETSC(VecRestoreArrayWrite(x.get(), &a));
    FLEXUQ_PETSC(MatMult(W, x.get(), y.get()));
    const PetscScalar* b = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(y.get(), &b));
    std::copy_n(b, X.rows(), Y.col(j).data());
    FLEXUQ_PETSC(VecRestoreArrayRead(y.get(), &b));
  }
  return Y;
}

void fix_signs(Eigen::MatrixXd& U_local, Eigen::MatrixXd& V) {
  for (Eigen::Index j = 0; j < V.cols(); ++j) {
    Eigen::Index imax = 0;
    V.col(j).cwiseAbs().maxCoeff(&imax);
    if (V(imax, j) < 0) {
      V.col(j) *= -1.0;
      if (j < U_local.cols()) U_local.col(j) *= -1.0;
    }
  }
}

ThinSvd svd_tsqr(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& A) {
  return la::thin_svd(comm, Eigen::MatrixXd(A), /*left=*/true);
}

ThinSvd svd_snapshots(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& A, Mat W) {
  const Eigen::Index n = A.cols();
  check_same_cols(comm, n, "method of snapshots");
  ThinSvd out;
  if (n == 0) return out;
  const Eigen::MatrixXd WA = W ? apply(W, A) : Eigen::MatrixXd();
  const Eigen::MatrixXd G = W ? inner(comm, A, WA) : inner(comm, A, A);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (G + G.transpose()));
  if (es.info() != Eigen::Success) throw Error("method of snapshots: the eigensolver of the Gram matrix failed");
  // Descending order.
  Eigen::VectorXd lam = es.eigenvalues().reverse();
  Eigen::MatrixXd V = es.eigenvectors().rowwise().reverse();
  Eigen::VectorXd sigma = lam.cwiseMax(0.0).cwiseSqrt();
  const double s1 = sigma.size() ? sigma(0) : 0.0;
  Eigen::Index k = 0;
  while (k < n && sigma(k) > 1e-7 * s1 && sigma(k) > 0) ++k;
  if (k == 0) {
    out.sigma = sigma;
    out.V = V;
    out.U_local = Eigen::MatrixXd(A.rows(), 0);
    return out;
  }
  // Refinement: Q = A V_k Σ_k⁻¹, made W-orthonormal by one Cholesky QR, then the exact projection
  // B = Qᵀ W A and its SVD. W Q is W A V_k Σ_k⁻¹ C⁻¹: no further product with W.
  Eigen::MatrixXd T = V.leftCols(k) * sigma.head(k).cwiseInverse().asDiagonal();
  Eigen::MatrixXd Q = A.rows() > 0 ? blas::gemm(Eigen::MatrixXd(A), false, T, false) : Eigen::MatrixXd(0, k);
  Eigen::MatrixXd WQ = W ? (A.rows() > 0 ? blas::gemm(WA, false, T, false) : Eigen::MatrixXd(0, k)) : Q;
  const Eigen::MatrixXd C = inner(comm, Q, WQ);
  Eigen::LLT<Eigen::MatrixXd> llt(0.5 * (C + C.transpose()));
  if (llt.info() != Eigen::Success) throw Error("method of snapshots: the Cholesky re-orthonormalisation failed");
  const Eigen::MatrixXd Ru = llt.matrixU();
  // Q ← Q Ru⁻¹ (and W Q alike).
  Q = Ru.transpose().triangularView<Eigen::Lower>().solve(Q.transpose()).transpose();
  if (W) WQ = Ru.transpose().triangularView<Eigen::Lower>().solve(WQ.transpose()).transpose();
  else WQ = Q;
  const Eigen::MatrixXd B = inner(comm, WQ, A); // k × n
  Eigen::MatrixXd Ub, Vb;
  Eigen::VectorXd sb;
  small_svd(B.transpose(), Vb, sb, Ub); // Bᵀ = Vb Σ Ubᵀ
  out.sigma = sigma;
  out.sigma.head(k) = sb;
  out.V = V;
  out.V.leftCols(k) = Vb;
  out.U_local = Q.rows() > 0 ? blas::gemm(Q, false, Ub, false) : Eigen::MatrixXd(0, k);
  fix_signs(out.U_local, out.V);
  return out;
}

ThinSvd svd_slepc(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& A, int k, double tol) {
  const Eigen::Index n = A.cols();
  check_same_cols(comm, n, "SLEPc SVD");
  ThinSvd out;
  if (n == 0 || k <= 0) return out;
  k = static_cast<int>(std::min<Eigen::Index>(k, n));
  SnapshotMatrix S = SnapshotMatrix::from_local(comm, Eigen::MatrixXd(A));
  MatH Am = S.to_petsc();
  SvdH svd;
  FLEXUQ_PETSC(SVDCreate(comm, svd.out()));
  FLEXUQ_PETSC(SVDSetOperators(svd.get(), Am.get(), nullptr));
  FLEXUQ_PETSC(SVDSetType(svd.get(), SVDTRLANCZOS));
  FLEXUQ_PETSC(SVDSetDimensions(svd.get(), k, PETSC_DEFAULT, PETSC_DEFAULT));
  FLEXUQ_PETSC(SVDSetWhichSingularTriplets(svd.get(), SVD_LARGEST));
  FLEXUQ_PETSC(SVDSetTolerances(svd.get(), tol, 1000));
  FLEXUQ_PETSC(SVDSetOptionsPrefix(svd.get(), "pod_"));
  FLEXUQ_PETSC(SVDSetFromOptions(svd.get()));
  FLEXUQ_PETSC(SVDSolve(svd.get()));
  PetscInt nconv = 0;
  FLEXUQ_PETSC(SVDGetConverged(svd.get(), &nconv));
  if (nconv < k)
    throw Error(FLEXUQ_MSG("SLEPc SVD: only " << nconv << " of " << k << " singular triplets converged"));
  VecH v, u;
  FLEXUQ_PETSC(MatCreateVecs(Am.get(), v.out(), u.out()));
  ScatterH to_all;
  VecH v_all;
  FLEXUQ_PETSC(VecScatterCreateToAll(v.get(), to_all.out(), v_all.out()));
  out.sigma.resize(k);
  out.U_local.resize(A.rows(), k);
  out.V.resize(n, k);
  for (int i = 0; i < k; ++i) {
    PetscReal s = 0;
    FLEXUQ_PETSC(SVDGetSingularTriplet(svd.get(), i, &s, u.get(), v.get()));
    out.sigma(i) = s;
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(u.get(), &a));
    std::copy_n(a, A.rows(), out.U_local.col(i).data());
    FLEXUQ_PETSC(VecRestoreArrayRead(u.get(), &a));
    FLEXUQ_PETSC(VecScatterBegin(to_all.get(), v.get(), v_all.get(), INSERT_VALUES, SCATTER_FORWARD));
    FLEXUQ_PETSC(VecScatterEnd(to_all.get(), v.get(), v_all.get(), INSERT_VALUES, SCATTER_FORWARD));
    FLEXUQ_PETSC(VecGetArrayRead(v_all.get(), &a));
    std::copy_n(a, n, out.V.col(i).data());
    FLEXUQ_PETSC(VecRestoreArrayRead(v_all.get(), &a));
  }
  fix_signs(out.U_local, out.V);
  return out;
}

PodResult compute_pod(const SnapshotMatrix& S, const PodOptions& o) {
  MPI_Comm comm = S.comm();
  if (o.weight && o.method == SvdMethod::slepc)
    throw InputError("pod: method slepc has no weighted inner product; use tsqr or snapshots with a weight");
  PodResult res;
  Eigen::MatrixXd centred;
  if (o.centre) {
    res.mean_local = S.local_mean();
    centred = S.local().colwise() - res.mean_local;
  }
  const Eigen::Ref<const Eigen::MatrixXd> A = o.centre ? Eigen::Ref<const Eigen::MatrixXd>(centred) : S.local();
  ThinSvd t;
  if (o.weight) t = svd_snapshots(comm, A, o.weight); // the M^{1/2}-free weighted kernel
  else if (o.method == SvdMethod::tsqr) t = svd_tsqr(comm, A);
  else if (o.method == SvdMethod::snapshots) t = svd_snapshots(comm, A, nullptr);
  else t = svd_slepc(comm, A, o.slepc_triplets, o.slepc_tolerance);
  res.sigma = t.sigma;
  res.rank = std::min<int>(truncation_rank(t.sigma, o.truncation), static_cast<int>(t.U_local.cols()));
  res.energy_lost = lost_energy(t.sigma, res.rank);
  res.U_local = t.U_local.leftCols(res.rank);
  res.V = t.V.leftCols(res.rank);
  return res;
}

} // namespace flexuq::pod
