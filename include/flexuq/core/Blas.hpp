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

namespace flexuq::blas {

/// C = Xᵀ Y for raw column-major blocks: X m × n (leading dimension ldx), Y m × b (ldy), C n × b
/// (ldc). Local only; the caller reduces over ranks.
inline void gemm_tn(const double* X, Eigen::Index m, Eigen::Index n, Eigen::Index ldx, const double* Y, Eigen::Index b,
                    Eigen::Index ldy, double* C, Eigen::Index ldc) {
  if (n == 0 || b == 0) return;
  if (m == 0) { // empty local block: the product is zero
    for (Eigen::Index j = 0; j < b; ++j)
      for (Eigen::Index i = 0; i < n; ++i) C[i + j * ldc] = 0.0;
    return;
  }
  const PetscBLASInt mm = static_cast<PetscBLASInt>(m), nn = static_cast<PetscBLASInt>(n), bb = static_cast<PetscBLASInt>(b),
                     lx = static_cast<PetscBLASInt>(ldx), ly = static_cast<PetscBLASInt>(ldy), lc = static_cast<PetscBLASInt>(ldc);
  const PetscScalar one = 1.0, zero = 0.0;
  BLASgemm_("T", "N", &nn, &bb, &mm, &one, X, &lx, Y, &ly, &zero, C, &lc);
}

/// C = Xᵀ Y with Y stored row-major (m × b, row stride b): X m × n column-major (ldx), C n × b (ldc).
inline void gemm_tn_rowmajor(const double* X, Eigen::Index m, Eigen::Index n, Eigen::Index ldx, const double* Y,
                             Eigen::Index b, double* C, Eigen::Index ldc) {
  if (n == 0 || b == 0) return;
  if (m == 0) {
    for (Eigen::Index j = 0; j < b; ++j)
      for (Eigen::Index i = 0; i < n; ++i) C[i + j * ldc] = 0.0;
    return;
  }
  const PetscBLASInt mm = static_cast<PetscBLASInt>(m), nn = static_cast<PetscBLASInt>(n), bb = static_cast<PetscBLASInt>(b),
                     lx = static_cast<PetscBLASInt>(ldx), lc = static_cast<PetscBLASInt>(ldc);
  const PetscScalar one = 1.0, zero = 0.0;
  // Row-major Y (m × b) is column-major Yᵀ (b × m) with leading dimension b: C = Xᵀ (Yᵀ)ᵀ.
  BLASgemm_("T", "T", &nn, &bb, &mm, &one, X, &lx, Y, &bb, &zero, C, &lc);
}

/// C = Xᵀ Y with X a contiguous Eigen matrix and Y (X.rows() × b, leading dimension X.rows()).
inline void gemm_tn(const Eigen::MatrixXd& X, const double* Y, Eigen::Index b, double* C, Eigen::Index ldc) {
  gemm_tn(X.data(), X.rows(), X.cols(), std::max<Eigen::Index>(1, X.rows()), Y, b, std::max<Eigen::Index>(1, X.rows()), C, ldc);
}

/// Xᵀ Y as a new matrix.
inline Eigen::MatrixXd gemm_tn(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y) {
  FLEXUQ_REQUIRE(X.rows() == Y.rows(), "internal: gemm_tn row mismatch");
  Eigen::MatrixXd C(X.cols(), Y.cols());
  gemm_tn(X, Y.data(), Y.cols(), C.data(), C.rows());
  return C;
}

} // namespace flexuq::blas
