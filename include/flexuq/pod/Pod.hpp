// SPDX-License-Identifier: MIT
#pragma once
/// @file Pod.hpp
/// @brief Proper orthogonal decomposition of a row-distributed snapshot matrix S (n DOFs × m
/// snapshots): S − s̄1ᵀ = U Σ Vᵀ (centring optional), U the POD modes. Kernels (docs/pod.md):
///
/// - **tsqr** (default, exact, one pass over S): local Householder QR per rank, the m × m R factors
///   gathered and factored again (TSQR, la::thin_svd), SVD of the final R; U = Q U_R with the TSQR's
///   Q, so U is orthonormal to round-off and every σ is accurate to ε·σ₁ (no squaring). Columns of
///   zero σ are the TSQR's completion, orthonormal only at full column rank: the default truncation
///   (numerical rank) drops them.
/// - **slepc**: SLEPc SVD (thick-restart Lanczos bidiagonalisation) for a few leading triplets of a
///   large set; the other σ are not computed.
/// - **snapshots** (the method of snapshots): Gram matrix G = Sᵀ W S (one reduction), its
///   eigenvectors V and σ = sqrt(λ(G)), then one refinement pass: Q = S V Σ⁻¹ re-orthonormalised in
///   the W inner product (Cholesky of QᵀWQ), B = Qᵀ W S and SVD(B) = Ũ Σ Vᵀ, U = Q Ũ. The subspace
///   is exact for σ_i ≫ sqrt(ε) σ₁; σ below ~1e-8 σ₁ keep the sqrt(ε) accuracy of the Gram matrix.
///
/// Weighted inner product (W = M, e.g. the mass matrix): UᵀMU = I. It uses the snapshots kernel,
/// which needs only products with M (no M^{1/2} and no factorisation of M): the Gram matrix SᵀMS,
/// then a Cholesky QR in the M inner product. The σ are those of M^{1/2}S.
///
/// Signs: each right singular vector's largest entry is made positive (V is replicated, so the
/// signs do not depend on the rank count; la::thin_svd uses the same rule).

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/pod/Snapshots.hpp"
#include "flexuq/pod/Truncation.hpp"
#include "flexuq/la/Tsqr.hpp"

#include <Eigen/Dense>
#include <mpi.h>
#include <petscmat.h>

#include <string>

namespace flexuq::pod {

enum class SvdMethod { tsqr, slepc, snapshots };
/// The names of the POD kernels (docs/pod.md).
inline constexpr EnumNames<SvdMethod, 3> kSvdMethodNames{
    {{{SvdMethod::tsqr, "tsqr"}, {SvdMethod::slepc, "slepc"}, {SvdMethod::snapshots, "snapshots"}}}};

struct PodOptions {
  SvdMethod method = SvdMethod::tsqr;
  bool centre = false;
  Mat weight = nullptr;    ///< W (symmetric positive definite, same row layout) or null for W = I
  int slepc_triplets = 10; ///< number of leading triplets for method slepc
  double slepc_tolerance = 1e-12;
  Truncation truncation;
};

struct PodResult {
  Eigen::VectorXd sigma;      ///< all computed singular values, descending (not normalised)
  Eigen::MatrixXd U_local;    ///< this rank's rows of the kept modes (local rows × rank)
  Eigen::MatrixXd V;          ///< right singular vectors of the kept modes (snapshots × rank), every rank
  Eigen::VectorXd mean_local; ///< this rank's rows of the snapshot mean (empty unless centred)
  int rank = 0;               ///< modes kept
  double energy_lost = 0.0;   ///< Σ_{k>rank} σ_k² / Σ σ_k² over the computed σ
  Eigen::VectorXd sigma_normalised() const { return normalised(sigma); }
};

/// POD of @p S. @note Collective on S.comm().
PodResult compute_pod(const SnapshotMatrix& S, const PodOptions& options);

// ---- kernels (exposed for tests and benchmarks) ---------------------------------------------------

/// Thin SVD of a row-distributed tall matrix: la::ThinSvd (σ and V identical on every rank,
/// U_local this rank's rows of the left vectors).
using la::ThinSvd;

/// TSQR + SVD(R) with the left vectors (la::thin_svd, the project's one TSQR). @note Collective.
ThinSvd svd_tsqr(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& A);
/// Method of snapshots with the refinement pass, in the inner product of @p W (null: identity).
/// Only the left vectors of σ_i > 1e-7 σ₁ (and not exactly zero) are formed. @note Collective.
ThinSvd svd_snapshots(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& A, Mat W);
/// The @p k leading triplets by SLEPc SVD. @note Collective.
ThinSvd svd_slepc(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& A, int k, double tol);

/// Make the largest-magnitude entry of each column of V positive, flipping U alike.
void fix_signs(Eigen::MatrixXd& U_local, Eigen::MatrixXd& V);

/// XᵀY for row-distributed X, Y (summed over ranks; identical on every rank). @note Collective.
Eigen::MatrixXd inner(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::MatrixXd>& Y);
/// W X column by column (W a PETSc matrix with the rows' layout). @note Collective.
Eigen::MatrixXd apply(Mat W, const Eigen::Ref<const Eigen::MatrixXd>& X);

} // namespace flexuq::pod
