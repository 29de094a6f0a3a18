// SPDX-License-Identifier: MIT
#pragma once
/// @file Integrator.hpp
/// @brief Time integration of the index-3 DAE  M(q) q̈ + C_qᵀ λ = Q(q, q̇, t),  C(q, t) = 0.
///
/// * hht: index-3 HHT-α exactly as seed 003 §2.6 (Negrut et al.): Newmark formulas with
///   β = (1−α)²/4, γ = (1−2α)/2, α ∈ [−1/3, 0]; residual e1 = M q̈/(1+α) + (C_qᵀλ − Q)_{n+1}
///   − α/(1+α) (C_qᵀλ − Q)_n, constraints scaled by 1/(βh²); Newton on (q̈_{n+1}, λ_{n+1}) with
///   M_ext = M/(1+α) + (M q̈/(1+α) + C_qᵀλ − Q)_q βh² − Q_q̇ γh. `solver.matrix: blocks` (default)
///   builds it from analytic blocks: M(q) from the invariants, K̄ and D̄ of the flexible bodies and
///   the springs' k u uᵀ, C_q from the joints; the small terms (M q̈ + C_qᵀλ − Q_v)_q βh² and
///   (Q_v)_q̇ γh — O(βh²|λ|, γh|ω|m) against M — are left out, which only slows the contraction of
///   the (already modified) Newton iteration. `finite-difference` forms the whole M_ext by forward
///   differences of the residual (2n evaluations). Either matrix and its LU are kept across
///   iterations and steps while Newton contracts by ≥ 4 per iteration (modified Newton); a worse
///   contraction refreshes it at the current iterate (a blocks matrix once, then by differences).
/// * generalized-alpha: Chung–Hulbert parameters from ρ∞, index-3 form of Arnold & Brüls (2007)
///   with the same Newton unknowns and constraint scaling.
/// * rk45: Dormand–Prince 5(4) with error control on (q, q̇) of the λ-eliminated index-1 form
///   [M C_qᵀ; C_q 0][q̈; λ] = [Q; γ], then Newton–Raphson projection of q onto C = 0 and of q̇
///   onto C_q q̇ + C_t = 0 after every step (seed 000 §2.4–2.5, projection minimum-norm).
/// * euler: seed 000's "forward Euler" (semi-implicit: q̇ += h q̈, q += h q̇), with the same
///   projection (switchable) — for reproduction only.
/// Variable steps for hht / generalized-alpha use the Newmark local-error estimate
/// (β − 1/6) h² ‖q̈_{n+1} − q̈_n‖ (Zienkiewicz & Xie) in a weighted RMS norm.

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/mbs/SaddleSolver.hpp"
#include "flexuq/mbs/System.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace flexuq::mbs {

enum class Scheme { hht, generalized_alpha, rk45, euler };
/// The names of `solver.type` (the job file's newmark is hht with alpha 0, mapped by the parser).
inline constexpr EnumNames<Scheme, 4> kSchemeNames{{{{Scheme::hht, "hht"},
                                                     {Scheme::generalized_alpha, "generalized-alpha"},
                                                     {Scheme::rk45, "rk45"},
                                                     {Scheme::euler, "euler"}}}};
/// "hht" for Scheme::hht (messages, the result file's /solver type attribute).
inline const char* scheme_name(Scheme s) { return enum_name(kSchemeNames, s); }

struct SolverOptions {
  Scheme scheme = Scheme::hht;
  double alpha = -0.05;    ///< hht, in [−1/3, 0]
  double rho_inf = 0.8;    ///< generalized-alpha spectral radius at infinity, in [0, 1]
  double start = 0.0, end = 1.0;
  double step = 1e-3;      ///< fixed step, or the initial step when adaptive
  double output_step = 0;  ///< 0 = every step (fixed) / `step` (adaptive)
  double tol = 1e-10;      ///< Newton: max-norm of the position correction; projections: ‖C‖∞
  int max_iter = 25;
  bool adaptive = false;   ///< rk45 is always adaptive
  double rtol = 1e-6, atol = 1e-8;
  double min_step = 1e-12, max_step = 0; ///< 0 = output_step
  bool project = true;     ///< rk45 / euler: Newton–Raphson projection after each step
  bool fd_matrix = false;  ///< hht / generalized-alpha: iteration matrix by finite differences (`solver.matrix`)
  /// hht / generalized-alpha: project q̇ onto C_q q̇ + C_t = 0 after every step (index-3 schemes hold
  /// the positions only; their velocities drift by O(h²)). Off: the textbook schemes.
  bool project_velocities = false;
  /// hht / generalized-alpha: `solver.formulation: stabilized` (default) meets C = 0 and
  /// C_q q̇ + C_t = 0 at every step (a least position correction, see newmark_step); `index-3`
  /// meets C = 0 only.
  bool stabilized = true;
  /// The run stops (InputError naming the row) when any constraint row, the dropped redundant ones
  /// included, is violated by more than this after a step (`solver.drift_limit`).
  double drift_limit = 1e-6;
  /// `solver.linear_algebra`: the saddle LU and the projections dense or sparse (SaddleSolver.hpp);
  /// auto decides at the initial configuration by size and fill.
  LinearAlgebra linear_algebra = LinearAlgebra::automatic;
  void validate() const;   ///< throws InputError naming the key
};

/// Generalized-α coefficients (Chung & Hulbert) of both implicit schemes. HHT-α is the member with
/// α_m = 0, α_f = −α (so γ = ½ − α, β = ¼(1 − α)²): for a linear system with constant mass it is
/// step for step seed 003's (2.50), whose positions, velocities and HHT accelerations are those of
/// this recursion (the algorithmic acceleration a is HHT's q̈); unlike (2.50) the equations of
/// motion hold at t_{n+1} with the true q̈_{n+1}, which keeps second order when M depends on q.
/// Shared by Integrator and the reduced-order integrator (rom/ReducedIntegrator.hpp).
struct NewmarkCoefficients {
  double am = 0, af = 0, beta = 0.25, gamma = 0.5;
  double c() const { return (1 - af) / (1 - am); } ///< ∂a_{n+1}/∂q̈_{n+1}
};
/// The coefficients of @p o's scheme (hht or generalized-alpha).
NewmarkCoefficients newmark_coefficients(const SolverOptions& o);

/// The output times of a run (every output_step, or every step, the last at end) and the steps that
/// land on them: Integrator::run's clock, shared by the reduced integrator (rom/ReducedIntegrator.hpp).
struct OutputClock {
  explicit OutputClock(const SolverOptions& o);
  double dt_out = 0;
  long count = 1; ///< output times after the start
  /// The k-th output time (k = 1 … count).
  double time(long k) const { return k == count ? end_ : start_ + static_cast<double>(k) * dt_out; }
  /// Whether t has not reached @p t_out yet (to round-off).
  static bool before(double t, double t_out) { return t < t_out - 1e-12 * std::max(1.0, std::abs(t_out)); }
  /// The step from @p t toward @p t_out of at most @p h; @p last: it lands on t_out.
  static double step(double t, double h, double t_out, bool& last) {
    double hs = std::min(h, t_out - t);
    last = hs >= t_out - t - 1e-14 * std::max(1.0, std::abs(t_out));
    return last ? t_out - t : hs;
  }
private:
  double start_ = 0, end_ = 0;
};

/// One state on the solution: t, q, q̇, q̈ and the multipliers of the active rows.
struct State {
  double t = 0;
  Vec q, v, a, lambda;
  /// hht / generalized-alpha: the algorithmic acceleration a_n of the generalized-α recursion
  /// (for a linear system with constant mass, HHT's q̈ of seed 003 (2.50)); rk45 / euler: q̈.
  Vec aux;
};

struct RunStats {
  long steps = 0, rejected = 0, newton_iterations = 0, jacobians = 0;
  double max_drift = 0;  ///< max ‖C(q)‖∞ over accepted steps (all rows, redundant ones too)
};

class Integrator {
public:
  Integrator(System& sys, SolverOptions o);
  /// Consistent initial state at o.start: the redundancy check on C_q, position assembly
  /// (minimum-norm Newton), velocity projection, and the (q̈, λ) solve.
  /// @throws InputError naming the joint whose rows cannot be satisfied, or the body on which
  /// the mass matrix is singular.
  /// @return labels of the constraint rows found redundant and dropped.
  std::vector<std::string> initialise(State& s);
  /// initialise()'s first half: @p s.t, q, v at o.start (the redundancy check and row selection,
  /// position assembly by minimum-norm Newton, normalisation, the dropped rows' check, velocity
  /// projection), without the (q̈, λ) solve and its regularity test (@p s.a, lambda untouched). For
  /// a model that solves its own accelerations (the reduced ones of ident/Adjoint.cpp).
  /// @throws InputError as initialise(). @return the labels of the dropped rows.
  std::vector<std::string> assemble(State& s);
  /// Integrate to o.end; @p output gets the initial state and every output time (work of
  /// non-conservative forces so far alongside). @p progress gets t after each step.
  RunStats run(State& s, const std::function<void(const State&, double work)>& output,
               const std::function<void(double)>& progress = {});
  /// [M C_qᵀ; C_q 0][q̈; λ] = [Q; γ] (throws Error naming the body if singular).
  void accelerations(double t, const Vec& q, const Vec& v, Vec& a, Vec& lambda) const;
  /// The saddle matrix [M(q) C_qᵀ; C_q 0] on the active rows.
  Mat saddle(double t, const Vec& q) const;
  /// Newton–Raphson projection onto C(q, t) = 0 (minimum norm); returns iterations used.
  int project_positions(double t, Vec& q) const;
  void project_velocities(double t, const Vec& q, Vec& v) const;
  const SolverOptions& options() const { return o_; }
  /// Whether the saddle solves are sparse (decided by initialise(); before it, by the option only).
  /// Sparse runs also assemble their matrices sparse (no (n + m)² or m × n dense matrix).
  bool sparse() const { return sparse_; }

private:
  bool newmark_step(State& s, double h, State& out, double& err, RunStats& st);
  bool rk_step(const State& s, double h, State& out, double& err, RunStats& st);
  void euler_step(const State& s, double h, State& out);
  std::string worst_row(const Vec& q, double t) const;
  std::string singular_body(const Mat& saddle) const;
  std::string singular_body(const SpMat& saddle) const;
  /// The saddle matrix [M C_qᵀ; C_q 0] assembled sparse.
  SpMat saddle_sparse(double t, const Vec& q) const;
  /// The Newton iteration matrix of the blocks (M + bq K + bv D, C_q) assembled sparse; with
  /// @p stab also kq_ (the stiffness part).
  SpMat iteration_sparse(const Vec& q, double t, double bq, double bv, bool stab);
  /// C_q for a minimum-norm projection: sparse (true, in @p cs) when the run is sparse or C_q is
  /// large and sparse (min_norm_correction's rule), else dense in @p cd.
  bool projection_jacobian(double t, const Vec& q, Mat& cd, SpMat& cs) const;
  /// The memory the chosen path needs, checked against the machine (InputError with the estimate):
  /// dense 16 (n + m)² bytes; sparse kSparseBytesPerNonZero per non-zero (@p nnz) of the saddle matrix.
  void require_memory(bool sparse, double nnz) const;

  System& sys_;
  SolverOptions o_;
  Vec aux_;     ///< generalized-alpha auxiliary acceleration a_n (= q̈_n for hht)
  Vec aux_next_;
  Vec prev_a_, prev_lambda_; ///< q̈ and λ one step before the current state (Newton's predictor)
  double prev_h_ = 0;        ///< that step's length (0: no predictor yet)
  Mat jac_;     ///< Newton iteration matrix (kept between steps when h does not change)
  /// Stabilised: ∂r/∂q (the stiffness part) of the same matrix, for the position correction's force.
  Eigen::SparseMatrix<double> kq_;
  void set_stiffness(const Mat& k);
  SaddleLu lu_;  ///< its factors (kept with it)
  MinNormProjector projector_; ///< stabilised formulation: the step's P̃ P̃ᵀ (newmark_step)
  /// The position correction's metric W⁻¹ = S Sᵀ: per flexible body, its elastic block of S
  /// (first coordinate, L⁻ᵀ of M_ff = L Lᵀ); identity elsewhere.
  std::vector<std::pair<int, Mat>> metric_;
  void correction_metric();
  Mat weighted(Mat cq) const; ///< C_q S
  SpMat weighted(const SpMat& cq) const;
  SpMat metric_sparse_; ///< S as a sparse n × n matrix (set when metric_ is not empty)
  SpMat jac_sparse_;    ///< the sparse run's Newton iteration matrix (jac_ of a dense run)
  Vec scaled(Vec x) const;    ///< S x
  mutable SaddleLu acc_lu_; ///< accelerations() and the velocity projection: its sparse ordering is kept across calls
  bool sparse_ = false;
  double jac_h_ = -1;
};

} // namespace flexuq::mbs
