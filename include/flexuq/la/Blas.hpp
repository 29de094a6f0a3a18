// SPDX-License-Identifier: MIT
#pragma once
/// @file Blas.hpp
/// @brief Dense products of tall local blocks through the BLAS that PETSc links (OpenBLAS at run
/// time, see jobs/local/setup.sh): Eigen's own kernels are built for the baseline ISA and run several
/// times slower than OpenBLAS's AVX2/AVX-512 DGEMM on the O(N n²) products of reduced bases.

#include "flexuq/core/Error.hpp"

#include <Eigen/Dense>
#include <petscblaslapack.h>

#include <algorithm>
#include <vector>

namespace flexuq::blas {

/// C = op(A) op(B) (DGEMM, column-major, op = transpose for "T"): op(A) m × k, op(B) k × n, C m × n.
/// k = 0 (an empty local block) gives C = 0. Local only; callers reduce over ranks.
inline void gemm(const char* ta, const char* tb, Eigen::Index m, Eigen::Index n, Eigen::Index k, const double* A,
                 Eigen::Index lda, const double* B, Eigen::Index ldb, double* C, Eigen::Index ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < m; ++i) C[i + j * ldc] = 0.0;
    return;
  }
  const PetscBLASInt mm = static_cast<PetscBLASInt>(m), nn = static_cast<PetscBLASInt>(n), kk = static_cast<PetscBLASInt>(k),
                     la = static_cast<PetscBLASInt>(lda), lb = static_cast<PetscBLASInt>(ldb), lc = static_cast<PetscBLASInt>(ldc);
  const PetscScalar one = 1.0, zero = 0.0;
  BLASgemm_(ta, tb, &mm, &nn, &kk, &one, A, &la, B, &lb, &zero, C, &lc);
}

/// C = Xᵀ Y for column-major blocks: X m × n (leading dimension ldx), Y m × b (ldy), C n × b (ldc).
inline void gemm_tn(const double* X, Eigen::Index m, Eigen::Index n, Eigen::Index ldx, const double* Y, Eigen::Index b,
                    Eigen::Index ldy, double* C, Eigen::Index ldc) {
  gemm("T", "N", n, b, m, X, ldx, Y, ldy, C, ldc);
}

/// C = Xᵀ Y with Y stored row-major (m × b, row stride b): X m × n column-major (ldx), C n × b (ldc).
/// Row-major Y is column-major Yᵀ (b × m) with leading dimension b, so C = Xᵀ (Yᵀ)ᵀ.
inline void gemm_tn_rowmajor(const double* X, Eigen::Index m, Eigen::Index n, Eigen::Index ldx, const double* Y,
                             Eigen::Index b, double* C, Eigen::Index ldc) {
  gemm("T", "T", n, b, m, X, ldx, Y, std::max<Eigen::Index>(1, b), C, ldc);
}

/// op(A) op(B) as a new matrix, op = transpose when @p ta / @p tb.
inline Eigen::MatrixXd gemm(const Eigen::MatrixXd& A, bool ta, const Eigen::MatrixXd& B, bool tb) {
  const Eigen::Index m = ta ? A.cols() : A.rows(), k = ta ? A.rows() : A.cols(), n = tb ? B.rows() : B.cols();
  FLEXUQ_REQUIRE(k == (tb ? B.cols() : B.rows()), "internal: gemm inner dimensions differ");
  Eigen::MatrixXd C(m, n);
  gemm(ta ? "T" : "N", tb ? "T" : "N", m, n, k, A.data(), std::max<Eigen::Index>(1, A.rows()), B.data(),
       std::max<Eigen::Index>(1, B.rows()), C.data(), std::max<Eigen::Index>(1, m));
  return C;
}

/// Xᵀ Y as a new matrix.
inline Eigen::MatrixXd gemm_tn(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y) { return gemm(X, true, Y, false); }

/// Vᵀ S V.
inline Eigen::MatrixXd congruence(const Eigen::MatrixXd& V, const Eigen::MatrixXd& S) {
  return gemm(V, true, gemm(S, false, V, false), false);
}

/// K v = λ M v, K and M symmetric, M positive definite (LAPACK DSYGV, itype 1, upper triangles).
/// Eigenvalues ascending into @p lambda; M-orthonormal eigenvectors into @p V when it is not null.
/// @return false if M is not positive definite (LAPACK info > n); throws on other failures.
inline bool sygv(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, Eigen::VectorXd& lambda, Eigen::MatrixXd* V) {
  const Eigen::Index n = K.rows();
  FLEXUQ_REQUIRE(K.cols() == n && M.rows() == n && M.cols() == n, "internal: sygv needs square matrices of one size");
  lambda.resize(n);
  if (n == 0) return true;
  Eigen::MatrixXd A = K, B = M;
  const PetscBLASInt itype = 1, nn = static_cast<PetscBLASInt>(n);
  PetscBLASInt lwork = -1, info = 0;
  PetscScalar query = 0;
  const char* jobz = V ? "V" : "N";
  LAPACKsygv_(&itype, jobz, "U", &nn, A.data(), &nn, B.data(), &nn, lambda.data(), &query, &lwork, &info);
  lwork = static_cast<PetscBLASInt>(query);
  std::vector<PetscScalar> work(static_cast<std::size_t>(std::max<PetscBLASInt>(1, lwork)));
  LAPACKsygv_(&itype, jobz, "U", &nn, A.data(), &nn, B.data(), &nn, lambda.data(), work.data(), &lwork, &info);
  if (info > nn) return false;
  FLEXUQ_REQUIRE(info == 0, "LAPACK dsygv failed (info " << info << ")");
  if (V) *V = std::move(A);
  return true;
}

/// Eigenvalues of a symmetric matrix, ascending (LAPACK DSYEV, no vectors).
inline Eigen::VectorXd syev_values(const Eigen::MatrixXd& S) {
  const Eigen::Index n = S.rows();
  Eigen::VectorXd w(n);
  if (n == 0) return w;
  Eigen::MatrixXd A = S;
  const PetscBLASInt nn = static_cast<PetscBLASInt>(n);
  PetscBLASInt lwork = -1, info = 0;
  PetscScalar query = 0;
  LAPACKsyev_("N", "U", &nn, A.data(), &nn, w.data(), &query, &lwork, &info);
  lwork = static_cast<PetscBLASInt>(query);
  std::vector<PetscScalar> work(static_cast<std::size_t>(std::max<PetscBLASInt>(1, lwork)));
  LAPACKsyev_("N", "U", &nn, A.data(), &nn, w.data(), work.data(), &lwork, &info);
  FLEXUQ_REQUIRE(info == 0, "LAPACK dsyev failed (info " << info << ")");
  return w;
}

} // namespace flexuq::blas
