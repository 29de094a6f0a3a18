// SPDX-License-Identifier: MIT
#pragma once
/// @file Gcms.hpp
/// @brief Preconditioning of the GCMS basis (seed-001 §2.7–2.9, Algorithm 1 as rebuilt there) and
/// the entry point for `flexuq reduce` with `method: gcms`:
///   1. drop zero fields (e.g. the y, z fields of a rigid x-translation put in by mistake);
///   2a. cosine-similarity removal of flexible fields (|cos| ≥ c_th, greedy, keep the earlier field), or
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

/// Read the keys under @p prefix (e.g. "reduce.gcms"): strategy (cosine | gram-schmidt | none),
/// cosine_threshold, cosine_floor, gs_tolerance, zero_tolerance, scaling, svd_loop, svd_tolerance,
/// gap_ratio, svd_max_iterations, unit_norm_modes, origin [x, y, z], csv, csv_final.
/// Throws InputError for unknown strategies and out-of-range values.
void parse_gcms_options(const io::Config& cfg, const std::string& prefix, GcmsOptions& opt);
/// Throws InputError naming the offending option.
void validate(const GcmsOptions& opt);

/// One flexible field taken out of the basis, and why.
struct GcmsRemoval {
  std::string field;   ///< e.g. "f3_z"
  std::string reason;  ///< "zero", "cosine", "gram-schmidt", "svd"
  double measure = 0;  ///< |cos|, ‖φ'‖/mean, or null-space weight
  std::string detail;  ///< e.g. "|cos| with f1_y"
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
  /// Removed Φ columns by reason (multiples of 3).
  int removed_columns(const std::string& reason) const;
};

/// @name Steps of the strategy, usable one by one. Each logs its tolerance and outcome on rank 0.
/// @{
/// Remove flexible fields with norm ≤ tol · mean flexible field norm. @note Collective.
std::vector<GcmsRemoval> remove_zero_fields(GcmsBasis& b, double tol);
/// Greedy cosine-similarity removal in basis order (keep the earlier field). @note Collective.
std::vector<GcmsRemoval> cosine_removal(GcmsBasis& b, double threshold);
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

/// Build and precondition the GCMS basis of a free-free solid component from its elastic modes
/// (component DOF layout, e.g. fe::solve_modes(...).vectors; rigid-body modes must not be passed —
/// if they are, the null-space loop removes them). @note Collective on @p comm, which must be the
/// component's communicator (or congruent with it).
GcmsResult build_gcms(MPI_Comm comm, const fe::Component& c, const std::vector<VecH>& modes, const GcmsOptions& opt);

} // namespace flexuq::cms
