// SPDX-License-Identifier: MIT
#pragma once
/// @file RecycledModes.hpp
/// @brief The lowest eigenpairs of K φ = λ M φ from a fixed reference basis Φ_ref of a nearby
/// problem (issue #38 item 2): a Rayleigh–Ritz on the block Krylov space [Φ_ref, A Φ_ref, …],
/// A = K⁻¹M, with the factorization of K a point already holds (one MUMPS multi-RHS solve per
/// block, KSPMatSolve), and per wanted pair the residual test of the full solver. The caller (ModeSolver) falls back to
/// the full Krylov–Schur solve when the test fails. Theory and limits: docs/stochastic-cb.md,
/// "Recycled fixed-interface modes".
///
/// Each block is M-orthogonalised against the basis twice (classical Gram–Schmidt, twice) and
/// orthonormalised within itself by SVQB (Stathopoulos & Wu 2002: the eigen-decomposition of its
/// scaled Gram matrix, directions of relative size below round-off dropped), so the basis V is
/// M-orthonormal to round-off even when K⁻¹MΦ_ref is nearly in span(Φ_ref) (θ close to θ_ref); the
/// directions it adds then have the size of the change, which is what the Ritz vectors need.
/// Everything is a function of (K, M, Φ_ref) and the partition: no random start, no history.

#include "flexuq/core/Handle.hpp"

#include <petscksp.h>

#include <string>
#include <vector>

namespace flexuq::fe {

struct RecycleSettings {
  int count = 10;            ///< wanted pairs; the multiplet at the cut is completed
  /// Acceptance: every wanted pair has ‖K⁻¹(Kφ − λMφ)‖_M ≤ tol (‖φ‖_M = 1): the test SLEPc's
  /// Krylov–Schur applies to a shift-and-invert pair (σ = 0), ‖Aφ − θφ‖_M/|θ| with A = K⁻¹M, θ = 1/λ.
  double tol = 1e-12;
  double cluster_tol = 1e-6; ///< relative gap below which eigenvalues form one multiplet
  /// Block solves at most. Solve k tests the Ritz pairs of the space built so far and gives the
  /// next block (E = K⁻¹R of the pairs not converged and of the guard pairs): solve 1 tests
  /// span(Φ_ref) and makes [Φ_ref, K⁻¹MΦ_ref]; solve 2 tests that space; and so on.
  int max_steps = 8;
};

struct RecycledPairs {
  std::vector<double> values;    ///< wanted Ritz values, ascending
  std::vector<VecH> vectors;     ///< their Ritz vectors, M-orthonormal
  std::vector<double> errors;    ///< ‖K⁻¹(Kφ − λMφ)‖_M per wanted pair (the test; also on failure)
  std::vector<double> residuals; ///< ‖Kφ − λMφ‖/‖Kφ‖ per wanted pair (reported)
  int steps = 0;                 ///< block solves made
  int subspace = 0;              ///< dimension of the last Rayleigh–Ritz space
  double max_error = 0;          ///< largest of errors
  double max_residual = 0;       ///< largest of residuals
  std::string reason;            ///< why the pairs were not accepted; empty when they were
  bool ok() const { return reason.empty(); }
};

/// The @p s.count lowest pairs of (K, M) (the multiplet at the cut completed) by Rayleigh–Ritz on a
/// space grown from span(Φ_ref) by blocks E = K⁻¹(KX − MXΛ) of the Ritz pairs (the wanted ones not
/// yet converged and the guard pairs up to Φ_ref's width): after the first block the space is
/// [Φ_ref, K⁻¹MΦ_ref], after k blocks the block Krylov space of A = K⁻¹M from Φ_ref with the
/// converged directions left out. Stops at the first test that every wanted pair passes.
/// @p factor: a set-up KSP whose operator is @p K (a factorization; its option scope must be
/// open). @p reference: Φ_ref (any independent vectors of K's layout; M-orthonormalised here).
/// Fails (reason set, nothing thrown) when a pair has not passed after s.max_steps solves, when
/// the multiplet at the cut reaches the top of the Ritz set (its completeness cannot be told), when
/// a Ritz value is not positive, or when the subspace holds fewer than s.count + 1 directions. The
/// test certifies each returned pair; it cannot see an eigenvalue below the cut whose vector is
/// missing from the space (a mode that moved down past the reference's guard pairs): the caller
/// keeps the parameter steps small enough (docs/stochastic-cb.md). @note Collective on K's
/// communicator.
RecycledPairs recycled_eigenpairs(Mat K, Mat M, KSP factor, const std::vector<VecH>& reference, const RecycleSettings& s);

} // namespace flexuq::fe
