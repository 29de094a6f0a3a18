// SPDX-License-Identifier: MIT
#pragma once
/// @file Gcms.hpp
/// @brief Preconditioning of the GCMS basis (seed-001 §2.7–2.9, Algorithm 1 as rebuilt there) and
/// the entry point for `flexuq reduce` with `method: gcms`:
///   0. (build_gcms) rotate every degenerate eigenspace to its canonical, axis-aligned basis;
///   1. drop zero fields (e.g. the y, z fields of a rigid x-translation put in by mistake);
///   2a. cosine-similarity removal of flexible fields (|cos| ≥ c_th, greedy, keep the earlier field),
///       at one c_th or with c_th chosen by a sweep with a cond-convergence check, or
///   2b. shortened Gram–Schmidt on the flexible fields (drop outputs ≤ tol · mean output norm);
///   3. equal column scaling: translation and flexible fields to the mean Φ_r column norm;
///   4. SVD null-space loop: while σ(Φ) has a sharp drop, remove the flexible field that carries the
///      most weight in the null space, and keep the removal only if it lowers the number of vanishing
///      σ or cond(Φ).
/// Every step acts on whole fields (l-triples of Φ). Every tolerance is an option and logged.

#include "flexuq/cms/GcmsBasis.hpp"
#include "flexuq/cms/GcmsDiagnostics.hpp"
#include "flexuq/core/Handle.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::io {
class Config;
}
namespace flexuq::fe {
class Component;
}

namespace flexuq::cms {

enum class GcmsStrategy { none, cosine, gram_schmidt };
const char* strategy_name(GcmsStrategy s); ///< "none", "cosine", "gram-schmidt"

struct GcmsOptions {
  GcmsStrategy strategy = GcmsStrategy::gram_schmidt; ///< the paper's recommendation
  double cosine_threshold = 0.993;   ///< c_th: remove a flexible field if |cos| ≥ c_th with a kept earlier one
  double cosine_floor = 0.95;        ///< thresholds below this are refused ("extremely low", §2.7)
  /// Sweep of c_th (cosine strategy only): c_th = start, start − step, … down to cosine_floor; stop
  /// when cond of the kept, column-normalised Φ_f has converged (see cosine_sweep()); replaces
  /// cosine_threshold.
  bool cosine_sweep = false;
  double cosine_sweep_start = 1.0;   ///< first threshold of the sweep
  double cosine_sweep_step = 1e-3;   ///< decrement of c_th per step
  double cosine_sweep_rtol = 0.05;   ///< a removal "improves" if it lowers cond_xs by this fraction
  /// Rotate each degenerate eigenspace (eigenvalues within degeneracy_tol) to its canonical,
  /// axis-aligned basis before building Φ (build_gcms only; see canonicalize_degenerate()).
  bool canonicalize = true;
  double degeneracy_tol = 1e-6;      ///< relative eigenvalue gap |λ_i − λ_j| ≤ tol · max(λ_i, λ_j)
  double gs_tolerance = 1e-3;        ///< GS zero test: ‖φ'‖ ≤ tol · mean norm of the GS outputs
  double zero_field_tolerance = 1e-10; ///< a field with ‖·‖ ≤ tol · mean flexible field norm is zero
  bool scaling = true;               ///< scale Φ_t and Φ_f to the mean Φ_r column norm
  bool svd_loop = true;              ///< run the null-space loop on the full Φ
  double svd_tolerance = 1e-4;       ///< σ_{i+1}/σ_1 above which σ never counts as vanishing
  double gap_ratio = 30;             ///< σ_i/σ_{i+1} that makes a sharp drop
  int svd_max_iterations = 100;      ///< cap on removals in the null-space loop
  bool unit_norm_modes = true;       ///< scale each mode to unit Euclidean norm before building Φ
  std::optional<std::array<double, 3>> origin; ///< body-frame origin; default: nodal centroid
  std::string csv;                   ///< cosine-similarity matrix of the initial Φ ("" = none)
  std::string csv_final;             ///< the same for the final Φ ("" = none)
};

/// Cross-option checks (the job keys are parsed in app: app::parse_gcms_options). Throws
/// InputError naming the offending option.
void validate(const GcmsOptions& opt);

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

struct GcmsResult {
  GcmsBasis basis;                   ///< final basis, compact form
  std::vector<VecH> columns;         ///< kept columns of Φ, component DOF layout
  std::vector<std::string> labels;   ///< "t_x", "r_xy", "f3_zx", …
  std::vector<GcmsStage> stages;     ///< initial, after the strategy, after scaling, final
  std::vector<GcmsRemoval> removed;
  std::vector<double> gs_ratios;     ///< per flexible field: ‖φ'‖ / mean output norm (GS only)
  double cond_psi = 0;               ///< cond of the mode matrix Ψ (3n × n_m)
  double scale_target = 0;           ///< mean Φ_r column norm used for scaling (0 without)
  std::vector<GcmsCluster> clusters; ///< canonicalised degenerate eigenspaces (build_gcms)
  double cosine_threshold = 0;       ///< c_th used by the cosine strategy (the sweep's choice); 0 otherwise
  GcmsSweep sweep;                   ///< the c_th sweep (empty steps without cosine_sweep)
  /// Removed Φ columns by reason (multiples of 3).
  int removed_columns(const std::string& reason) const;
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

/// Algorithm 1 on an existing basis (steps 1–4 above). @note Collective.
GcmsResult precondition(GcmsBasis basis, const GcmsOptions& opt);

/// The diagnostics of @p g as dense tables for /reduced/diagnostics (docs/hdf5-schema.md):
/// gcms_cosine_threshold and gcms_cond_psi (1 × 1); gcms_stages (one row per stage: columns,
/// flexible columns, cond Φ, cond Φ_t, cond Φ_r, cond Φ_f, deficiency of Φ and of Φ_f);
/// gcms_cosine_sweep (threshold, removed columns, cond_x, cond_xs; only with a sweep);
/// gcms_clusters (cluster, 1-based mode, eigenvalue, axis, share; only with degenerate clusters).
std::map<std::string, Eigen::MatrixXd> diagnostic_tables(const GcmsResult& g);

/// Build and precondition the GCMS basis of a free-free solid component from its elastic modes
/// (component DOF layout, e.g. fe::solve_modes(...).vectors; rigid-body modes must not be passed —
/// if they are, the null-space loop removes them). With opt.canonicalize, degenerate eigenspaces are
/// rotated to their canonical basis first; @p eigenvalues (one per mode) default to the Rayleigh
/// quotients with the component's K and M. @note Collective on @p comm, which must be the
/// component's communicator (or congruent with it).
GcmsResult build_gcms(MPI_Comm comm, const fe::Component& c, const std::vector<VecH>& modes, const GcmsOptions& opt,
                      const std::vector<double>& eigenvalues = {});

} // namespace flexuq::cms
