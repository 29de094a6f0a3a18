// SPDX-License-Identifier: MIT
#pragma once
/// @file PodCb.hpp
/// @brief POD-based Craig–Bampton (seed 000 §2.12, Algorithm 4): per-column POD over parameter
/// samples of the boundary (constraint) modes B(ξ) = −K_ii⁻¹K_ib and of the fixed-interface modes,
/// the augmented basis Û = [Φ̄ˢ, U_rˢ] with the (r+1) reduced eigenproblem and the pair rule, and the
/// leave-one-out driver of Tables 7.7/7.8 (T10) on the thesis's bar.
///
/// pod takes the bar as dense operators (CbBar); the tests build the thesis's bar from a generated
/// beam mesh and fe::Component (tests/support/PodCbBar.hpp, where its data are given), so pod does not
/// depend on io or fe.

#include "flexuq/pod/Pod.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <vector>

namespace flexuq::pod {

/// Dense operators of a small bar with the middle node fixed, replicated on every rank:
/// K = E K_E + G K_G and M (e.g. the affine terms of an fe::Component, gathered).
struct CbBar {
  Eigen::MatrixXd K_E, K_G, M; ///< all free DOFs
  std::vector<int> boundary;   ///< DOFs of the end nodes
  std::vector<int> internal;   ///< all other free DOFs
  Eigen::MatrixXd block(const Eigen::MatrixXd& A, const std::vector<int>& rows, const std::vector<int>& cols) const;
};

/// Craig–Bampton pieces of the bar at (E, G): B = −K_ii⁻¹K_ib (n_i × n_b) and the @p n_modes lowest
/// fixed-interface modes (M_ii-normalised) with their eigenvalues λ = ω².
struct CbPieces {
  Eigen::MatrixXd B, Phi;
  Eigen::VectorXd lambda;
};
CbPieces cb_pieces(const CbBar& bar, double E, double G, int n_modes);

/// Groups of (numerically) equal eigenvalues: consecutive values within @p rel_tol. Returns the
/// cluster index of each value.
std::vector<int> eigenvalue_clusters(const Eigen::VectorXd& lambda, double rel_tol = 1e-6);

/// Rotate each degenerate cluster of @p Phi onto @p Phi_ref in the M inner product (orthogonal
/// Procrustes: Φ_c ← Φ_c polar(Φ_cᵀ M Φ_ref,c)); signs of simple modes are fixed the same way.
/// Returns the smallest cosine of the match (1 = the same subspace; a lost match shows as < 1).
double align_modes(Eigen::MatrixXd& Phi, const Eigen::MatrixXd& Phi_ref, const Eigen::MatrixXd& M,
                   const std::vector<int>& clusters);

/// One internal mode from the augmented basis Û (first column Φ̄ˢ): the reduced eigenproblem
/// (ÛᵀKÛ) â = λ (ÛᵀMÛ) â (6.15) — solved on an orthonormal basis of span(Û), so a rank-deficient Û is
/// fine — the eigenpair whose mode has the largest M-cosine with Φ̄ˢ, normalised so that â(1) = 1
/// (the thesis picks "the" pair; with aligned snapshots there is no pair, so we pick by MAC); if other reduced
/// eigenvalues equal it (relative @p pair_tol), the pair rule (6.16) sums the eigenvectors of the
/// group (each with â(1) ≥ 0) and normalises the sum's first entry to 1.
struct ReducedMode {
  Eigen::VectorXd a;  ///< coefficients in Û
  double lambda = 0;  ///< reduced eigenvalue
  int group = 1;      ///< size of the equal-eigenvalue group summed (2 = the thesis's pair)
};
ReducedMode reduced_internal_mode(const Eigen::MatrixXd& Uhat, const Eigen::MatrixXd& K, const Eigen::MatrixXd& M,
                                  double pair_tol = 1e-8);

/// Leave-one-out study (Algorithm 4): for each sample i of @p G (m+1 values, the study sorts them),
/// POD bases from the other m samples, then errors (7.8), (7.10) with the least-squares pairing
/// (7.9) over the degenerate cluster of the Monte Carlo mode, and (7.11), averaged over the modes
/// and over the m+1 left-out samples. The snapshot rows (the internal DOFs) are distributed over
/// @p comm and each POD is the distributed kernel @p method.
struct PodCbLooOptions {
  std::vector<int> ranks{10, 5, 2, 1}; ///< r values (one POD per mode and left-out sample serves all)
  int n_modes = 8;
  bool align = true; ///< align fixed-interface modes to the mean-parameter modes before the POD
  double pair_tol = 1e-8;
  SvdMethod method = SvdMethod::tsqr;
};
struct PodCbLooRow {
  int m = 0, r = 0;
  double boundary_error = 0;   ///< mean (7.8) over the n_b boundary modes
  double mode_error = 0;       ///< mean (7.10)
  double eigenvalue_error = 0; ///< mean (7.11)
  double max_boundary_error = 0, max_mode_error = 0, max_eigenvalue_error = 0;
  long long pair_groups = 0;   ///< how often the pair rule was applied
  double min_alignment = 1;    ///< smallest cosine of the mode alignment (1 = exact)
};
/// @note Collective.
std::vector<PodCbLooRow> pod_cb_loo(MPI_Comm comm, const CbBar& bar, std::vector<double> G, double C,
                                    const PodCbLooOptions& options);

/// The thesis's sample of G: m+1 draws exp(μ_ln + σ_ln ξ), moment-matched to (mean, std), ξ from a
/// fixed-seed generator (Box–Muller on a 64-bit Mersenne twister), sorted.
std::vector<double> lognormal_samples(int count, double mean, double std, unsigned long long seed);

} // namespace flexuq::pod
