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
///
/// The umbrella of the GCMS basis: it includes the basis (GcmsBasis.hpp), its diagnostics
/// (GcmsDiagnostics.hpp), the options (GcmsOptions.hpp) and the steps (GcmsSteps.hpp).

#include "flexuq/cms/GcmsBasis.hpp"
#include "flexuq/cms/GcmsDiagnostics.hpp"
#include "flexuq/cms/GcmsOptions.hpp"
#include "flexuq/cms/GcmsSteps.hpp"
#include "flexuq/core/Handle.hpp"

#include <map>
#include <string>
#include <vector>

namespace flexuq::io {
class Config;
}
namespace flexuq::fe {
class Component;
}

namespace flexuq::cms {

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
