// SPDX-License-Identifier: MIT
#pragma once
/// @file StreamingPod.hpp
/// @brief POD updated as snapshots arrive (a campaign feeds it sample by sample; no rank ever holds
/// all snapshots, and the snapshot matrix is never stored). Rank-revealing incremental SVD:
///
///   current S ≈ U Σ Vᵀ (rank k); new block C (b columns):
///   P = Uᵀ C (two Gram–Schmidt passes), C_⊥ = C − U P = Q_c R_c (TSQR),
///   [U Σ Vᵀ, C] = [U Q_c] K [[V, 0], [0, I]]ᵀ with K = [[Σ, P], [0, R_c]] ((k+b)²),
///   K = Ũ Σ̃ Ṽᵀ (small SVD): U ← [U Q_c] Ũ, V ← blkdiag(V, I) Ṽ, then directions with
///   σ ≤ drop_tolerance·σ₁ are dropped (and at most max_rank kept).
///
/// Without dropping this is exact: the result equals the batch SVD of all snapshots to round-off.
/// With centring the mean is updated too (incremental PCA): the block is centred on its own mean and
/// one extra column sqrt(n_a n_b/(n_a+n_b)) (μ_b − μ_a) carries the shift of the mean, which makes
/// U and σ exact for the centred matrix; right vectors are then not kept.

#include "flexuq/pod/Pod.hpp"

namespace flexuq::pod {

struct StreamingOptions {
  bool centre = false;
  double drop_tolerance = 1e-13; ///< relative to σ₁; directions below are dropped (rank-revealing)
  int max_rank = -1;             ///< cap on the kept rank (−1: none)
};

class StreamingPod {
public:
  /// @param local_rows this rank's rows (the component's DOF layout). @note Collective.
  StreamingPod(MPI_Comm comm, PetscInt local_rows, StreamingOptions options = {});

  /// Append one snapshot (PETSc vector with this layout). @note Collective.
  void append(Vec v);
  /// Append a block of snapshots given by this rank's rows. @note Collective.
  void append_local(const Eigen::Ref<const Eigen::MatrixXd>& block);

  long long snapshots() const { return count_; }
  int rank() const { return static_cast<int>(sigma_.size()); }
  const Eigen::VectorXd& sigma() const { return sigma_; }

  /// The current basis truncated by @p t (on top of the dropping done while streaming). Not collective.
  PodResult result(const Truncation& t = {}) const;

private:
  MPI_Comm comm_;
  Eigen::Index local_rows_;
  StreamingOptions opt_;
  long long count_ = 0;
  Eigen::MatrixXd U_;     ///< local rows × k
  Eigen::VectorXd sigma_; ///< k
  Eigen::MatrixXd V_;     ///< count × k (not kept when centring)
  Eigen::VectorXd mean_;  ///< local rows (centring)
};

} // namespace flexuq::pod
