// SPDX-License-Identifier: MIT
#pragma once
/// @file Modes.hpp
/// @brief Generalized symmetric eigenproblem K φ = λ M φ with SLEPc: Krylov–Schur, shift-and-invert
/// with a sparse Cholesky factorization (MUMPS), everything overridable from the options database
/// under the solver's prefix (flexuq's own defaults are scoped to the solver: la/Solvers.hpp). Rigid-body modes are detected and kept apart from the elastic ones.

#include "flexuq/core/Handle.hpp"
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/Solvers.hpp"

#include <mpi.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flexuq::fe {

struct BlockEigenResult;

struct ModeOptions {
  /// Elastic modes wanted (ignored with a band). If mode `count` belongs to a multiplet, the whole
  /// multiplet is returned (so the result may hold a few more modes than asked for): when the
  /// multiplet at the cut has two or more converged members, deflated one-pair re-solves with the
  /// same factorization look for members the Krylov–Schur solve missed (an exactly degenerate
  /// eigenspace is seen through one direction of the start vector), until one finds none.
  int count = 10;
  std::optional<std::pair<double, double>> band_hz;  ///< all modes with f in [f_min, f_max] (spectrum slicing)
  /// Shift σ in rad²/s²; default (NaN): σ = −shift_factor · s, with s = max_i K_ii / M_ii (over the
  /// translations i mod 6 < 3 when K's block size is 6: shells, beams), so
  /// K − σM is positive definite even for a free-free component.
  double shift = std::numeric_limits<double>::quiet_NaN();
  double shift_factor = 1e-8;
  /// Eigenvalues with |λ| ≤ rigid_tol · s are zero-energy (rigid-body or mechanism) modes. Default
  /// (NaN): 1e-9, or 1e-13 when K's block size is 6 (shells, beams: a thin cantilever plate's first
  /// bending eigenvalue is 2.7e-10·s at a/h = 1000; computed rigid eigenvalues sit near 1e-17·s).
  double rigid_tol = std::numeric_limits<double>::quiet_NaN();
  /// The scale s itself, when K is a sub-matrix of a component (a CMS interior, mixed-interface
  /// DOFs) that has lost its node blocks: see with_component_scale. NaN: from K and M.
  double scale = std::numeric_limits<double>::quiet_NaN();
  double tol = 1e-12;     ///< SLEPc relative residual tolerance
  int max_it = 1000;
  /// True when fixed DOFs were eliminated: any zero-energy mode is then a mechanism (an error).
  bool constrained = false;
  std::string constraint_description; ///< e.g. "fixed sets [A, B]", for the mechanism message
  std::string fixed_key = "fixed_sets"; ///< the option listing the fixed sets, for the mechanism message ("modes.fixed")
  std::string prefix = "modes_";      ///< options-database prefix of the EPS
  std::string key = "modes";          ///< the job file's section of these options, for messages ("reduce.modes")
  double cluster_tol = 1e-6;          ///< relative gap below which eigenvalues form one multiplet
  bool progress = true;               ///< progress line on rank 0 during the solve
  /// `reduce.modes.recycle: auto` (true) | `off` (false, the default): a ModeSolver holding a
  /// reference basis (ModeSolver::keep_reference) tries the recycled solve of fe/RecycledModes.hpp
  /// first and falls back to the full Krylov–Schur solve when a wanted pair fails its test. Off by
  /// default: at the default tol (1e-12) it measured no faster than Krylov–Schur (docs/performance.md).
  bool recycle = false;
  /// `reduce.modes.recycle: block` (with recycle = true): the recycled solve is the block
  /// shift-and-invert Krylov method of fe/BlockModes.hpp started from Φ_ref (plus pseudo-random
  /// guard columns), the same test, at most a few block solves, then the full solve.
  bool recycle_block = false;
  /// Block solves at most of that solve before the full solve (not a job key: tests lower it).
  int recycle_block_steps = 10;
  /// `modes.solver` (and `reduce.modes.solver`): the count solve's method. `krylov-schur`: SLEPc's
  /// Krylov–Schur, one triangular solve per iteration. `block`: fe/BlockModes.hpp, block
  /// shift-and-invert Krylov with one multi-right-hand-side solve per block on the same
  /// factorization, the same test and tolerance. A band always uses Krylov–Schur's spectrum slicing.
  enum class Method { krylov_schur, block };
  Method solver = Method::krylov_schur;
  int block_size = 0; ///< `modes.block_size`: columns per block solve of the block method (and the largest multiplet it completes); 0: 8
};

/// What the last block solve of a ModeSolver did (zeros when it used Krylov–Schur).
struct BlockSolveReport {
  int steps = 0;          ///< block solves (KSPMatSolve), the start block included
  long long columns = 0;  ///< right-hand sides solved in all
  int restarts = 0;
  int max_subspace = 0;
  std::string fallback;   ///< why the block method gave up and Krylov–Schur solved (empty: it converged)
};

/// What the last ModeSolver::solve did with its reference basis (tests, logs, benches).
struct RecycleReport {
  bool tried = false;      ///< a reference basis was there and the options allowed it
  bool used = false;       ///< the recycled pairs were accepted (no Krylov–Schur solve)
  int steps = 0;           ///< block solves K⁻¹M·(block) made
  long long columns = 0;   ///< right-hand sides solved in them (recycle_block; 0 otherwise)
  int subspace = 0;        ///< dimension of the Rayleigh–Ritz subspace at the end
  double max_error = 0;    ///< largest ‖K⁻¹(Kφ − λMφ)‖_M (the test against tol) of the wanted pairs at the end
  double max_residual = 0; ///< largest ‖Kφ − λMφ‖/‖Kφ‖ of the wanted Ritz pairs at the end
  std::string reason;      ///< why it fell back (empty when used)
};

/// s = max K_ii/M_ii, over the translations (i mod 6 < 3) when K's block size is 6. Collective.
double spectrum_scale(Mat K, Mat M);

/// @p opt with the scale and the default zero-mode tolerance of the whole component K, M (its node
/// blocks intact), for a solve on a sub-matrix of it; given values are kept. Collective.
ModeOptions with_component_scale(ModeOptions opt, Mat K, Mat M);

/// Cross-option checks, run once per solver (ModeSolver's constructor; the job parser in `app` runs
/// them too, to name the job file): count ≥ 1 unless a band is given, 0 ≤ f_min < f_max, tol > 0,
/// max_it ≥ 1, 0 ≤ cluster_tol < 1. @p prefix names the keys in messages ("modes", "reduce.modes").
/// Throws InputError.
void validate(const ModeOptions& opt, const std::string& prefix = "modes");

struct ModeSet {
  std::vector<double> eigenvalues;  ///< elastic, ascending, ω² in rad²/s²
  std::vector<VecH> vectors;        ///< M-orthonormal, sign fixed: largest-magnitude entry positive
  std::vector<double> residuals;    ///< ‖Kφ − λMφ‖ / ‖Kφ‖
  std::vector<double> rigid_eigenvalues;
  std::vector<VecH> rigid_vectors;
  std::vector<int> multiplicity;    ///< per elastic mode: size of its cluster
  double spectrum_scale = 0;        ///< s = max K_ii/M_ii (translations only for 6-DOF nodes)
  double shift = 0;                 ///< σ used
  int iterations = 0;
  int n_converged = 0;
  std::vector<double> frequencies_hz() const;
};

/// A sparse factorization of K (shift σ = 0) set up by someone else — e.g. the K_ii factor the
/// Craig–Bampton constraint modes are solved with — for the shift-and-invert of a ModeSolver, so
/// that the eigensolver does not factor K a second time.
struct Factorization {
  KSP ksp = nullptr;           ///< operator: the K later passed to ModeSolver::solve; set up (factored)
  la::SolverDefaults defaults; ///< the KSP's option defaults (a scope is opened around the solves)
};

/// @brief An eigen solver kept alive across solves of matrices with one nonzero pattern (a
/// parametric or stochastic sweep): later solves redo only the numeric factorization.
class ModeSolver {
public:
  /// Checks @p opt (validate) once here.
  explicit ModeSolver(ModeOptions opt);
  /// A solver whose shift-and-invert uses @p factor (σ = 0, so K must be positive definite: a
  /// constrained problem) instead of a factorization of its own. Count solves only (a band needs
  /// factorizations at the interval ends). The KSP is referenced, not copied: changing K's values
  /// between solves refactors it for its owner too. Throws InternalError for a band or a shift.
  ModeSolver(ModeOptions opt, Factorization factor);
  /// Hands an existing factorization back untouched (SLEPc would reset the ST's KSP with the EPS).
  ~ModeSolver();
  ModeSolver(ModeSolver&&) = default;
  ModeSolver& operator=(ModeSolver&&) = delete;
  ModeSolver(const ModeSolver&) = delete;
  ModeSolver& operator=(const ModeSolver&) = delete;
  /// @note Collective. @p K and @p M must be the same Mat objects (or at least the same pattern)
  /// on every call for the reuse to apply; their values may change between calls.
  /// @param K_scale, M_scale the matrices whose diagonals set the scale s and the default zero-mode
  ///        tolerance (null: K, M) — the whole component's when K is a sub-matrix of it that lost
  ///        its node blocks (CMS interior, mixed-interface DOFs); taken at every solve, so a result
  ///        does not depend on what this solver solved before.
  ModeSet solve(Mat K, Mat M, Mat K_scale = nullptr, Mat M_scale = nullptr);
  const ModeOptions& options() const { return opt_; }
  ModeOptions& options() { return opt_; }
  /// The next full count solve keeps its converged elastic vectors (the guard pairs included) as
  /// this solver's reference basis Φ_ref; later solves (options().recycle, an existing
  /// factorization) start with the Rayleigh–Ritz on [Φ_ref, K⁻¹MΦ_ref] and fall back to
  /// Krylov–Schur. The reference is fixed (never the previous solve's vectors), so a result
  /// depends on the matrices and the reference only, not on what was solved in between.
  void keep_reference() { keep_reference_ = true; }
  bool has_reference() const { return !reference_.empty(); }
  /// What the last solve did with the reference basis.
  const RecycleReport& last_recycle() const { return recycle_; }
  /// What the last block solve did (options().solver == block).
  const BlockSolveReport& last_block() const { return block_; }

private:
  /// The count solve of `solver: block` (fe/BlockModes.hpp); when it does not converge (its error
  /// stalls above tol, or max_it block solves) block_.fallback says why and the caller solves with Krylov–Schur.
  /// @p start: the start block (recycle_block: Φ_ref), then at most kSeededSteps block solves and
  /// the failure is reported in recycle_, not block_.
  BlockEigenResult solve_block(Mat K, Mat M, double sigma, double zero_tol, int guard, const std::vector<VecH>* start = nullptr);
  ModeOptions opt_;
  std::vector<VecH> reference_; ///< Φ_ref (see keep_reference); empty: none
  bool keep_reference_ = false;
  RecycleReport recycle_;
  BlockSolveReport block_;
  MatH shifted_;   ///< K − σM of the block method (σ ≠ 0 and no existing factorization)
  KspH block_ksp_; ///< its factorization (or of K itself when σ = 0)
  double block_sigma_ = 0;
  EpsH eps_;
  KSP factor_ = nullptr; ///< an existing factorization of K (σ = 0), or nullptr
  la::SolverDefaults defaults_; ///< MUMPS defaults of this solver, in PETSc's database only during its calls
};

/// Solve for the modes. @note Collective on the matrices' communicator.
/// Throws InputError for a mechanism (zero-energy modes with fixed DOFs) and Error if SLEPc fails to
/// converge (naming what converged and what to change).
ModeSet solve_modes(Mat K, Mat M, const ModeOptions& opt);

/// ‖Kφ − λMφ‖/‖Kφ‖. @note Collective.
double eigen_residual(Mat K, Mat M, double lambda, Vec phi);
/// Rayleigh quotient λ = φᵀKφ/φᵀMφ and the residual ‖Kφ − λMφ‖/‖Kφ‖ in one pass. @note Collective.
std::pair<double, double> rayleigh_refine(Mat K, Mat M, Vec phi);

/// Fix the sign of @p v: its entry of largest magnitude becomes positive. @note Collective.
void normalize_sign(Vec v);

/// Multiplicities of sorted eigenvalues: the one definition lives in la/Clusters.hpp (also used
/// by `reduce` and mode tracking); this name stays for the callers in fe.
using la::cluster_multiplicity;

} // namespace flexuq::fe
