// SPDX-License-Identifier: MIT
#pragma once
/// @file Tsqr.hpp
/// @brief Tall-skinny QR and thin SVD of a matrix whose rows are distributed over a communicator
/// (each rank holds a contiguous block of rows as a local Eigen matrix, possibly empty): a local
/// Householder QR per rank, the small R factors gathered and factored again on every rank (so every
/// rank count does the same kind of arithmetic), then a Jacobi SVD of the final n × n R. This is
/// the "TSQR" of Demmel, Grigori, Hoemmen and Langou (2012), used by seed-001 (footnote 10) for the
/// singular values of the GCMS basis and by POD for the snapshot matrix.

#include <Eigen/Dense>
#include <mpi.h>

namespace flexuq::la {

/// R factor (n × n, upper triangular, n = columns) of the matrix whose rows are @p local_rows on
/// each rank of @p comm. Every rank returns the same R. The ranks must agree on n (a rank may hold
/// zero rows); Error otherwise. n = 0 gives a 0 × 0 R. @note Collective.
Eigen::MatrixXd tsqr(MPI_Comm comm, const Eigen::MatrixXd& local_rows);

/// Thin SVD A = U Σ Vᵀ of a row-distributed A (N × n, N ≥ n not required).
struct ThinSvd {
  Eigen::VectorXd sigma;   ///< n singular values, descending (identical on every rank)
  Eigen::MatrixXd V;       ///< n × n right singular vectors (columns), same order, identical on every rank
  /// This rank's rows of the left singular vectors (local rows × n); only with `left = true`, else
  /// empty. Columns of zero σ are the TSQR Q's completion and are orthonormal only when A has full
  /// column rank; columns of positive σ always equal A v_i / σ_i.
  Eigen::MatrixXd U_local;
};

/// Thin SVD through tsqr(). Signs are fixed so that the entry of largest magnitude of each column
/// of V is positive (ties: the first), which makes V, and U, independent of the rank count up to
/// round-off. With @p left, also this rank's rows of U (Q of the TSQR times the left singular
/// vectors of R). @note Collective.
ThinSvd thin_svd(MPI_Comm comm, const Eigen::MatrixXd& local_rows, bool left = false);

/// σ_max/σ_min of singular values; +inf when σ_min = 0; 1 for a single nonzero value; NaN for an
/// empty list.
double condition_number(const Eigen::VectorXd& sigma);

} // namespace flexuq::la
