// SPDX-License-Identifier: MIT
#pragma once
/// @file Reduction.hpp
/// @brief Component-mode synthesis bases of seed 002 ch. 2 (Guyan, Craig–Bampton, Hurty, Herting,
/// Craig–Chang, Rubin–Martinez, Hintz attachment-/constraint-mode, MacNeal), built from shared pieces
/// computed once: rigid modes Φ_R (geometry), constraint modes Φ_C = [1; −K_ii⁻¹K_ib], inertia-relief
/// modes H = [0; −K_ii⁻¹(MΦ_R)_i], fixed-, free- and mixed-interface modes, inertia-relief attachment modes
/// G_b = PᵀG_cP E_b and residual ones Gʳ_b. One sparse factorization of K_ii serves the constraint
/// modes (all right-hand sides in one solve) and the fixed-interface shift-and-invert eigensolve.
/// Theory and costs: docs/cms.md.

#include "flexuq/cms/Gcms.hpp"
#include "flexuq/cms/WorkSpace.hpp"
#include "flexuq/core/EnumNames.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/Modes.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flexuq::cms {

enum class Method {
  guyan,
  craig_bampton,
  hurty,
  herting,
  craig_chang,
  rubin_martinez,
  hintz_attachment,
  hintz_constraint,
  macneal,
  gcms
};
/// The names of `reduce.method` (the job-file parser turns them into a Method).
inline constexpr EnumNames<Method, 10> kMethodNames{{{{Method::guyan, "guyan"},
                                                     {Method::craig_bampton, "craig-bampton"},
                                                     {Method::hurty, "hurty"},
                                                     {Method::herting, "herting"},
                                                     {Method::craig_chang, "craig-chang"},
                                                     {Method::rubin_martinez, "rubin-martinez"},
                                                     {Method::hintz_attachment, "hintz-attachment"},
                                                     {Method::hintz_constraint, "hintz-constraint"},
                                                     {Method::macneal, "macneal"},
                                                     {Method::gcms, "gcms"}}}};
/// "craig-bampton" for Method::craig_bampton (messages, logs, the body file's method attribute).
inline const char* method_name(Method m) { return enum_name(kMethodNames, m); }

/// Interface condition of the normal modes: all boundary coordinates fixed, all free, or mixed
/// (the coordinates of BuildOptions::fixed_interfaces fixed, the others free).
enum class ModeInterface { fixed, free, mixed };
/// The names of `reduce.modes.interface`, as the body file's mode_interface attribute writes them.
inline constexpr EnumNames<ModeInterface, 3> kModeInterfaceNames{
    {{{ModeInterface::fixed, "fixed"}, {ModeInterface::free, "free"}, {ModeInterface::mixed, "mixed"}}}};
/// Column scaling of the generalised (non-physical-boundary) columns.
enum class Scaling { none, max, norm };
/// The names of `reduce.scaling`.
inline constexpr EnumNames<Scaling, 3> kScalingNames{
    {{{Scaling::none, "none"}, {Scaling::max, "max"}, {Scaling::norm, "norm"}}}};

enum class ColumnKind {
  boundary_dof,        ///< physical boundary coordinate q_b (row b = unit vector)
  constraint_mode,     ///< η_C of Hintz CMM / Hurty (shape = a constraint mode, coordinate not physical)
  rigid_body,          ///< η_R
  inertia_relief,      ///< η̈_R (H columns)
  fixed_interface_mode,
  free_interface_mode,
  attachment,          ///< G_b column (f_b)
  residual_attachment, ///< Gʳ_b column (f_b)
  residual_vector,     ///< static correction for a load DOF
  gcms_field,          ///< a column of the GCMS basis (seed 001): translation, rotation field or ψ-field
  mixed_interface_mode
};
/// The names of the column kinds in the body file (/reduced/column_kinds) and in messages.
inline constexpr EnumNames<ColumnKind, 11> kColumnKindNames{{{{ColumnKind::boundary_dof, "boundary_dof"},
                                                              {ColumnKind::constraint_mode, "constraint_mode"},
                                                              {ColumnKind::rigid_body, "rigid_body"},
                                                              {ColumnKind::inertia_relief, "inertia_relief"},
                                                              {ColumnKind::fixed_interface_mode, "fixed_interface_mode"},
                                                              {ColumnKind::free_interface_mode, "free_interface_mode"},
                                                              {ColumnKind::attachment, "attachment"},
                                                              {ColumnKind::residual_attachment, "residual_attachment"},
                                                              {ColumnKind::residual_vector, "residual_vector"},
                                                              {ColumnKind::gcms_field, "gcms_field"},
                                                              {ColumnKind::mixed_interface_mode, "mixed_interface_mode"}}}};

struct ReducerOptions {
  fe::ModeOptions modes;                 ///< count or band of normal modes (prefix is overridden)
  std::vector<std::string> residual_loads; ///< node sets whose DOFs get residual vectors
  std::string prefix = "cms_";           ///< options-database prefix of the solvers
  /// Right-hand sides per solve with a kept factorization (reduce.solve_block): the constraint modes,
  /// inertia relief and residual loads with K_ii, the attachment modes with K_ff go through MUMPS's
  /// multi-RHS solve (MatMatSolve) b columns at a time; 1 = one KSPSolve per column; 0 = automatic
  /// (default_solve_block). The dense blocks hold 2b vectors of the factored size, so b bounds the
  /// memory as well. Results do not depend on b beyond round-off (tests/cms/block_solve_test.cpp).
  int solve_block = 0;
};

/// The automatic block size for a factored matrix of @p n rows (global): 128 right-hand sides, fewer
/// where the right-hand sides and solutions (16 b n bytes over all ranks) would pass 1 GiB (n > 524 288),
/// never under 8. Timings per block size: docs/performance.md.
inline int default_solve_block(long long n) {
  const long long fit = (1LL << 30) / (16 * std::max(1LL, n));
  return static_cast<int>(std::min(128LL, std::max(8LL, fit)));
}

struct BuildOptions {
  Method method = Method::craig_bampton;
  std::optional<ModeInterface> mode_interface; ///< Herting / Hintz CMM: free (default), fixed or mixed
  /// mixed only: set names of the interfaces whose boundary coordinates are held fixed for the
  /// eigenproblem (the others are free); empty = none held (the free-interface modes again).
  std::vector<std::string> fixed_interfaces;
  bool residual_vectors = false;
  Scaling scaling = Scaling::none;
  GcmsOptions gcms;   ///< method gcms only (reduce.gcms.*)
};

/// A reduction basis in the working space with its reduced matrices.
struct ReducedBasis {
  Method method = Method::craig_bampton;
  ModeInterface mode_interface = ModeInterface::fixed;
  std::vector<std::string> fixed_interfaces; ///< mixed: the interfaces held fixed
  std::vector<VecH> columns;          ///< working-space vectors
  std::vector<std::string> labels;    ///< one per column
  std::vector<ColumnKind> kinds;      ///< one per column
  std::vector<double> scale;          ///< factor applied to each column (1 = unscaled)
  std::vector<double> mode_eigenvalues; ///< ω² of the kept normal modes
  Eigen::MatrixXd K, M;               ///< ΦᵀKΦ and ΦᵀMΦ (MacNeal: residual inertia dropped from M)
  bool physical_boundary = false;     ///< boundary coordinates retained (rows b = identity)
  double basis_rcond = 0;             ///< λ_min/λ_max of diag-scaled M̄ (rank diagnostic)
  /// Method diagnostics written as /reduced/diagnostics/<name> (GCMS: stage conditions, the c_th
  /// sweep, degenerate clusters), replicated dense tables.
  std::map<std::string, Eigen::MatrixXd> diagnostics;
  std::size_t n_columns() const { return columns.size(); }
};

/// @brief Computes the shared pieces on demand (each at most once) and assembles bases from them.
class Reducer {
public:
  /// @note Collective.
  Reducer(const WorkSpace& ws, ReducerOptions options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  const WorkSpace& space() const { return ws_; }
  /// Φ_R about the origin (6 columns, working space).
  const std::vector<VecH>& rigid();
  /// M̄_RR = Φ_RᵀMΦ_R.
  const Eigen::MatrixXd& rigid_mass();
  /// Φ_C (n_b columns, canonical boundary order). Needs K_ii invertible (checked).
  const std::vector<VecH>& constraint_modes();
  /// H (6 columns): b rows 0, i rows −K_ii⁻¹(MΦ_R)_i.
  const std::vector<VecH>& inertia_relief();
  /// Fixed-interface modes (full length, b rows 0), mass-normalised.
  const fe::ModeSet& fixed_modes();
  /// Free-interface elastic modes (rigid ones apart), mass-normalised.
  const fe::ModeSet& free_modes();
  /// Mixed-interface elastic modes: GHEP on (K, M) without the boundary coordinates of the
  /// interfaces @p held (set names), full length with those rows 0, mass-normalised; the zero
  /// eigenvalues of the rigid motions the held coordinates leave free are skipped. Cached per
  /// selection. Throws InputError for an unknown set name or a mechanism. @note Collective.
  const fe::ModeSet& mixed_modes(const std::vector<std::string>& held);
  /// The rigid motions left free when the interfaces @p held are fixed: Φ_R Z spans the rigid modes
  /// that vanish at their boundary coordinates (n = 6 − rank of those rows of Φ_Rb). Column j has
  /// Z(picks[j], j) = 1 and Z(picks[k], j) = 0 for k ≠ j (picks ascending, rotations preferred).
  struct FreeRigid {
    Eigen::MatrixXd Z;          ///< 6 × n, about the origin like rigid()
    std::vector<int> picks;     ///< rigid-mode index (0..5) each column is normalised on
  };
  FreeRigid free_rigid(const std::vector<std::string>& held) const;
  /// G_b = PᵀG_cP E_b (n_b columns).
  const std::vector<VecH>& attachment();
  /// Gʳ_b = G_b − Φ_N Λ⁻¹ Φ_Nbᵀ with the free-interface modes.
  const std::vector<VecH>& residual_attachment();
  /// Fixed-boundary static responses to unit loads at the residual-load DOFs (not orthogonalised).
  const std::vector<VecH>& residual_loads();
  const std::vector<std::string>& residual_load_labels() const { return res_labels_; }
  /// Rows of @p vs at the boundary coordinates (n_b × n, canonical order), replicated. @note Collective.
  Eigen::MatrixXd boundary_rows(const std::vector<VecH>& vs) const;

  /// Assemble a basis and its reduced matrices. @note Collective.
  ReducedBasis build(const BuildOptions& opt);

  /// Re-target to new values of the working K and M (WorkSpace::refresh_operators after a change
  /// of material values: the same Mat objects with the same nonzero patterns), for a parametric or
  /// stochastic sweep. Every result is dropped; what depends on the patterns alone is kept: the
  /// submatrix structures (K_ii, K_ib, K_ff), the MUMPS analyses of K_ii and K_ff, the eigensolvers
  /// with their set-up (fe::ModeSolver), the rigid-body modes (geometry). The next request redoes
  /// the numeric factorizations and the solves. A result does not depend on the values the Reducer
  /// was targeted at before: K_ii and K_ff are factored as SPD (MUMPS analyses them from the
  /// pattern alone, no pivoting), the eigensolvers restart from a fixed random stream, no previous
  /// vector is reused (tests/cms/stochastic_body_test.cpp checks bit-identity). @note Collective.
  void update_operators();

  /// True if a build() since the Reducer was made asked for the free-interface modes (its basis or
  /// its residual attachment modes use them); a check-out alone does not count.
  bool build_uses_free_modes() const { return build_used_free_; }
  /// Drop the free-interface modes and their eigensolver (its own factorization of the whole K and
  /// its Krylov basis): for a sweep whose bases do not use them after a one-off check-out. A later
  /// free_modes() sets the solver up again. @note Not collective (frees local memory only).
  void release_free_modes();

  /// The next fixed-interface count solve keeps its modes (guard pairs included) as the reference
  /// basis of later solves after update_operators (fe::ModeSolver::keep_reference; with
  /// modes.recycle only): a stochastic-CB point then starts with the Rayleigh–Ritz on
  /// [Φ_ref, K_ii⁻¹M_iiΦ_ref] and falls back to Krylov–Schur. @note Not collective.
  void record_mode_reference() { record_reference_ = opt_.modes.recycle; }
  /// What the last fixed-interface solve did with that reference (null before the first solve).
  const fe::RecycleReport* fixed_mode_recycle() const { return fixed_solver_ ? &fixed_solver_->last_recycle() : nullptr; }
  /// What the last fixed-interface block solve did (reduce.modes.solver: block), or nullptr.
  const fe::BlockSolveReport* fixed_mode_block() const { return fixed_solver_ ? &fixed_solver_->last_block() : nullptr; }

  log::PhaseTimes& times() { return times_; }

private:
  struct Interior;
  struct Attach;
  void statics();
  /// Interface indices of the set names @p held, ascending (InputError: unknown or repeated name).
  std::vector<int> held_interfaces(const std::vector<std::string>& held) const;
  const WorkSpace& ws_;
  ReducerOptions opt_;
  log::PhaseTimes times_;
  std::unique_ptr<Interior> interior_;
  std::unique_ptr<Attach> attach_;
  std::vector<VecH> rigid_, constraint_, relief_, attachment_, residual_attachment_, res_loads_;
  std::vector<std::string> res_labels_;
  std::vector<PetscInt> res_work_;
  Eigen::MatrixXd rigid_mass_;
  std::optional<fe::ModeSet> fixed_, free_;
  std::map<std::vector<int>, fe::ModeSet> mixed_; ///< per selection of held interfaces
  bool statics_done_ = false;
  bool in_build_ = false, build_used_free_ = false;
  bool record_reference_ = false; ///< see record_mode_reference
  /// Eigensolvers kept across update_operators (declared last: destroyed before the factorization
  /// the fixed-interface one borrows). Mixed: per selection, its submatrices and solver.
  struct MixedProblem;
  std::unique_ptr<fe::ModeSolver> fixed_solver_, free_solver_;
  std::map<std::vector<int>, std::unique_ptr<MixedProblem>> mixed_problems_;
};

} // namespace flexuq::cms
