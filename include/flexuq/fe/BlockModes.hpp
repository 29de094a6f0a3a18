// SPDX-License-Identifier: MIT
#pragma once
/// @file BlockModes.hpp
/// @brief The lowest eigenpairs of K φ = λ M φ by a block shift-and-invert Krylov method (issue #38
/// item 1, `modes.solver: block`): every application of S⁻¹ = (K − σM)⁻¹ is one MUMPS
/// multi-right-hand-side solve (KSPMatSolve) on a whole block with the existing factorization.
///
/// Block Lanczos in the M inner product (Grimes, Lewis & Simon 1994): the start block X₀ is
/// deterministic pseudo-random (a function of the global row index only, so the result does not
/// depend on the rank count), M-orthonormalised; each step solves W = S⁻¹MV_new for the newest block
/// and M-orthogonalises W against the whole basis twice (classical Gram–Schmidt, full
/// reorthogonalisation) and within itself by SVQB (fe/BlockOps, BLAS-3 on each rank's rows, one
/// reduction per product) into the next block. Rayleigh–Ritz on H = VᵀM S⁻¹M V (θ, λ = σ + 1/θ).
/// When the basis would pass its width (2 × (count + extra + guard) + 2 blocks) it is restarted
/// thick on the Ritz vectors of the largest θ (the Krylov relation S⁻¹MX = XΘ + Y B Z is kept).
/// A pair passes the test of Krylov–Schur for a shift-and-invert pair, ‖S⁻¹Mx − θx‖_M/θ ≤ tol
/// (= ‖S⁻¹(Kx − λMx)‖_M; ‖x‖_M = 1), estimated from the Krylov relation as Krylov–Schur does and
/// checked explicitly (S⁻¹Mx = Wz: no extra solve) before the pairs are returned. A degenerate
/// eigenspace of up to block_size members is seen whole from the start block (the block Krylov
/// space holds at most block_size directions of one eigenspace).

#include "flexuq/core/Handle.hpp"

#include <petscksp.h>

#include <string>
#include <vector>

namespace flexuq::fe {

struct BlockEigenSettings {
  int count = 10;           ///< elastic pairs wanted (above zero_tol); the multiplet at the cut is completed
  int extra = 6;            ///< zero-energy pairs expected (sizes the start block only)
  int guard = 4;            ///< pairs carried above the wanted ones (tested and grown every step)
  /// Columns solved per step (the block); also the largest multiplet the method completes.
  int block_size = 0;       ///< 0: min(8, count + extra + guard)
  double tol = 1e-12;       ///< ‖S⁻¹(Kφ − λMφ)‖_M ≤ tol
  double cluster_tol = 1e-6;
  double zero_tol = 0;      ///< |λ| ≤ zero_tol: a zero-energy pair (not counted in count)
  double shift = 0;         ///< σ of the factorization S = K − σM
  int max_steps = 1000;     ///< block solves at most
  /// An optional start block (issue #38 item 2, `reduce.modes.recycle: block`): these vectors (K's
  /// layout, e.g. the fixed reference modes Φ_ref of a stochastic-CB group, never a previous
  /// point's) followed by start_extra pseudo-random columns replace the pseudo-random start block,
  /// and the block width becomes their number (block_size is then ignored). Not owned; M-orthonormalised
  /// here. Empty: the pseudo-random block of block_size columns.
  std::vector<Vec> start;
  int start_extra = 4;      ///< pseudo-random guard columns appended to a given start block
  /// The widest basis before a thick restart; 0: 2 × (count + extra + guard) + 2 blocks. A restart
  /// keeps the Ritz vectors only and so loses the super-linear phase of a start block that is
  /// already close (a reference basis): such a solve is given room for all its steps.
  int max_basis = 0;
};

struct BlockEigenResult {
  std::vector<double> values; ///< wanted (zero-energy ones included) and passing guard pairs, ascending
  std::vector<VecH> vectors;  ///< their Ritz vectors, M-orthonormal
  int steps = 0;              ///< block solves (KSPMatSolve calls)
  long long columns = 0;      ///< right-hand sides solved in all
  int restarts = 0;           ///< thick restarts
  int max_subspace = 0;       ///< widest basis
  double max_error = 0;       ///< largest test value of the wanted pairs at the last test
  std::string reason;         ///< why it did not converge; empty when it did
  bool ok() const { return reason.empty(); }
};

/// @p shifted: a set-up KSP whose operator is S = K − σM (a factorization, its option scope open);
/// @p K, @p M the pencil. @note Collective on K's communicator.
BlockEigenResult block_eigenpairs(Mat K, Mat M, KSP shifted, const BlockEigenSettings& s);

} // namespace flexuq::fe
