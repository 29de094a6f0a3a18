// SPDX-License-Identifier: MIT
#pragma once
/// @file GcmsOptions.hpp
/// @brief The options of the GCMS preconditioning (strategy and every tolerance) and their
/// cross-option check (part of cms/Gcms.hpp).

#include "flexuq/core/EnumNames.hpp"

#include <array>
#include <optional>
#include <string>

namespace flexuq::cms {

enum class GcmsStrategy { none, cosine, gram_schmidt };
/// The names of `gcms.strategy` (messages use the first name of a value); "gram_schmidt" and "gs"
/// are other names of gram-schmidt.
inline constexpr EnumNames<GcmsStrategy, 5> kGcmsStrategyNames{{{{GcmsStrategy::none, "none"},
                                                                 {GcmsStrategy::cosine, "cosine"},
                                                                 {GcmsStrategy::gram_schmidt, "gram-schmidt"},
                                                                 {GcmsStrategy::gram_schmidt, "gram_schmidt"},
                                                                 {GcmsStrategy::gram_schmidt, "gs"}}}};

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

} // namespace flexuq::cms
