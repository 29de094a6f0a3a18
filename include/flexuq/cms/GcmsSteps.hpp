// SPDX-License-Identifier: MIT
#pragma once
/// @file GcmsSteps.hpp
/// @brief The steps of the GCMS preconditioning, usable one by one, and what each records: removed
/// fields, canonicalised degenerate eigenspaces, the c_th sweep (part of cms/Gcms.hpp).

#include "flexuq/cms/GcmsBasis.hpp"
#include "flexuq/cms/GcmsOptions.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace flexuq::cms {

/// One flexible field taken out of the basis, and why.
struct GcmsRemoval {
  std::string field;   ///< e.g. "f3_z"
  std::string reason;  ///< "zero", "cosine", "gram-schmidt", "svd"
  double measure = 0;  ///< |cos|, ‖φ'‖/mean, or null-space weight
  std::string detail;  ///< e.g. "|cos| with f1_y"
};

/// One degenerate eigenspace and the rotation that made its basis canonical.
struct GcmsCluster {
  std::vector<int> modes;          ///< 1-based mode numbers (positions in the basis)
  std::vector<double> eigenvalues; ///< of those modes, as given
  double spread = 0;               ///< (λ_max − λ_min) / λ_max
  /// d × d: canonical member i = Σ_j (input member j) · rotation(j, i). Orthogonal when the input
  /// members are orthonormal with equal norms (e.g. unit-norm modes of a symmetric eigenspace).
  Eigen::MatrixXd rotation;
  std::vector<int> axis;           ///< dominant displacement axis (0 = x, 1 = y, 2 = z) per member
  std::vector<double> share;       ///< fraction of the member's squared norm along that axis
};

/// One threshold of the c_th sweep.
struct GcmsSweepStep {
  double threshold = 1;
  int removed_columns = 0;   ///< Φ_f columns removed at this threshold (greedy, from the start basis)
  double cond_x = 0;         ///< cond of the kept Φ_f
  double cond_xs = 0;        ///< cond of the kept Φ_f with every column scaled to one norm
};

struct GcmsSweep {
  std::vector<GcmsSweepStep> steps;
  double threshold = 1;      ///< the chosen c_th (the last one that improved cond_xs)
  bool converged = false;    ///< stopped by two changes without improvement; false: reached the floor
};

/// @name Steps of the strategy, usable one by one. Each logs its tolerance and outcome on rank 0.
/// @{
/// Groups of mode indices (0-based) whose eigenvalues chain within @p tol (relative gap between
/// neighbours in ascending order, as fe::cluster_multiplicity); only groups of two or more, each in
/// ascending index order, the groups ordered by their first index.
std::vector<std::vector<int>> degenerate_clusters(const std::vector<double>& eigenvalues, double tol);
/// Rotate the modes of every degenerate cluster of @p eigenvalues (one per mode of @p b) to the
/// canonical basis of their eigenspace: with W an orthonormal basis of the span and A_k the d × d
/// Gram matrix of the k-components (Σ_k A_k = I), pick greedily the unit vector of the remaining
/// subspace with the largest share along any axis (top eigenvector of A_k over k), continue in its
/// complement, then order the members by dominant axis (x, y, z; ties by decreasing share), fix
/// each sign (largest dominant component positive; ties to the lexicographically smallest node
/// (x, y, z)) and rescale to the RMS norm of the input members. Depends only on the eigenspace, not
/// on the basis the eigensolver returned. Must run before any other edit. @note Collective.
std::vector<GcmsCluster> canonicalize_degenerate(GcmsBasis& b, const std::vector<double>& eigenvalues, double tol);
/// Remove flexible fields with norm ≤ tol · mean flexible field norm. @note Collective.
std::vector<GcmsRemoval> remove_zero_fields(GcmsBasis& b, double tol);
/// Greedy cosine-similarity removal in basis order (keep the earlier field). @note Collective.
std::vector<GcmsRemoval> cosine_removal(GcmsBasis& b, double threshold);
/// Sweep of the cosine threshold on @p b (not modified): c_th = cosine_sweep_start − i ·
/// cosine_sweep_step down to cosine_floor. At each c_th the greedy removal is applied to @p b and,
/// when the kept set changed, cond_xs (cond of the kept Φ_f, columns scaled to one norm) computed.
/// A change of the kept set *improves* if cond_xs ≤ (1 − cosine_sweep_rtol) × the best cond_xs so
/// far. The sweep has converged after two changes in a row that do not improve (the paper's
/// "removing correlated columns does not improve the condition number further"), and stops there;
/// otherwise it ends at the floor. The chosen c_th is the threshold of the last improving change
/// (the start if none): the highest c_th that reaches the converged cond_xs, i.e. the fewest
/// removals. Changes of the kept set, not threshold steps, are counted because |cos| values come in
/// clusters: a fixed-step plateau between two clusters is not convergence. Logs n_x and cond per step.
/// @note Collective.
GcmsSweep cosine_sweep(const GcmsBasis& b, const GcmsOptions& opt);
/// Shortened Gram–Schmidt (CGS with one re-orthogonalisation, no normalisation) of the flexible
/// fields in basis order. Zero test against the mean output norm of an undropped first pass.
/// @p ratios receives ‖φ'‖/mean per flexible field (of the first pass). @note Collective.
std::vector<GcmsRemoval> shortened_gram_schmidt(GcmsBasis& b, double tol, std::vector<double>* ratios = nullptr);
/// Scale translation and flexible fields to the mean rotation-field norm; returns that norm.
/// @note Collective.
double scale_to_rotation_norm(GcmsBasis& b);
/// Null-space loop on the full Φ. @note Collective.
std::vector<GcmsRemoval> svd_null_space_loop(GcmsBasis& b, const GcmsOptions& opt);
/// @}

} // namespace flexuq::cms
