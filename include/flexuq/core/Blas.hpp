// SPDX-License-Identifier: MIT
#pragma once
/// @file Blas.hpp
/// @brief Dense products of tall local blocks through the BLAS that PETSc links (OpenBLAS at run
/// time, see jobs/local/setup.sh): Eigen's own kernels are built for the baseline ISA and run several
/// times slower than OpenBLAS's AVX2/AVX-512 DGEMM on the O(N n²) products of reduced bases.

#include "flexuq/core/Error.hpp"

#include <Eigen/Dense>
#include <petscblaslapack.h>

namespace flexuq::blas {

/// C = Xᵀ Y (X: m × n, Y: m × b, both column-major and contiguous), written into @p C (n × b,
/// leading dimension @p ldc). Collective over nothing; the caller reduces over ranks.
inline void gemm_tn(const Eigen::MatrixXd& X, const double* Y, Eigen::Index b, double* C, Eigen::Index ldc) {
  const PetscBLASInt m = static_cast<PetscBLASInt>(X.rows()), n = static_cast<PetscBLASInt>(X.cols()),
                     bb = static_cast<PetscBLASInt>(b), lc = static_cast<PetscBLASInt>(ldc);
  if (n == 0 || bb == 0) return;
  const PetscScalar one = 1.0, zero = 0.0;
  const PetscBLASInt ld = m > 0 ? m : 1;
  if (m == 0) { // empty local block: the product is zero
    for (Eigen::Index j = 0; j < b; ++j)
      for (Eigen::Index i = 0; i < X.cols(); ++i) C[i + j * ldc] = 0.0;
    return;
  }
  BLASgemm_("T", "N", &n, &bb, &m, &one, X.data(), &ld, Y, &ld, &zero, C, &lc);
}

/// Xᵀ Y as a new matrix.
inline Eigen::MatrixXd gemm_tn(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y) {
  FLEXUQ_REQUIRE(X.rows() == Y.rows(), "internal: gemm_tn row mismatch");
  Eigen::MatrixXd C(X.cols(), Y.cols());
  gemm_tn(X, Y.data(), Y.cols(), C.data(), C.rows());
  return C;
}

} // namespace flexuq::blas
