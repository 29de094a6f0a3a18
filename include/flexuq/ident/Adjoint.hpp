// SPDX-License-Identifier: MIT
#pragma once
/// @file Adjoint.hpp
/// @brief Seed 003 ch. 6 (digest §2.18, V17): the gradient of a trajectory-matching cost with respect to
/// model parameters by the discrete adjoint of the index-3 generalized-α scheme (HHT-α or Chung–Hulbert,
/// mbs::newmark_coefficients), for the full model and for the reduced one of rom/ (q̃ = V x + R0,
/// residual Vᵀ(·), constraints Γᵀ C). docs/rom.md "Parameter identification".
///
/// The discrete problem (fixed step h, t_k = start + k h, k = 0 … N), in the model's coordinates x
/// (x = q for the full model, x = q_r for the reduced one):
///   a_{k+1} = c ẍ_{k+1} + (α_f ẍ_k − α_m a_k)/(1 − α_m),  c = (1 − α_f)/(1 − α_m)
///   x_{k+1} = x_k + h ẋ_k + h²(½ − β) a_k + h²β a_{k+1},  ẋ_{k+1} = ẋ_k + h(1 − γ) a_k + hγ a_{k+1}
///   R(x_{k+1}, ẋ_{k+1}, ẍ_{k+1}, λ_{k+1}, t_{k+1}; p) = M ẍ + G(x)ᵀλ − Q = 0,   g(x_{k+1}, t_{k+1}; p) = 0
/// (the full scheme's index-3 formulation, `solver.formulation: index-3`, without velocity projection),
/// from the consistent initial state of mbs::Integrator::initialise (reduced: x_0 = Vᵀ(q_0 − R0),
/// ẋ_0 = Vᵀq̇_0 from the full model's consistent q_0, q̇_0 — initialise's row selection and position
/// and velocity projections, without its full (q̈, λ) solve, which the reduced model does not use — and
/// (ẍ_0, λ_0) from the reduced saddle system, a_0 = ẍ_0, as rom::ReducedIntegrator::initialise; q_0 is
/// initialise's bit for bit when the job's configuration is assembled, else equal to the projection's
/// tolerance, and the same for every reduced run here, so the gradient is that of this cost). Newton on (ẍ_{k+1}, λ_{k+1}) is
/// iterated to round-off so the stored trajectory satisfies these equations.
/// The cost is the rectangle rule of the seed's integral (6.2–6.3):
///   J(p) = h Σ_{k=1..N} ½ Σ_i w_i (s_i(q̃_k, q̃̇_k) − s̄_i(t_k))².
/// Its gradient is that of the discrete J (not of a discretised adjoint DAE): one backward sweep solves,
/// per step, the transpose of the Newton matrix [M + βh²c R_x + γhc R_ẋ, Gᵀ; G, 0] (with g scaled by
/// 1/(βh²c)) and carries the adjoints of (x, ẋ, a, ẍ) back through the Newmark formulas; the parameter
/// terms are −μᵀ ∂(R, g/(βh²c))/∂p per step and ȳ_0ᵀ ∂y_0/∂p of the initial state, so (M v̇)_u and the
/// gravity of a mass parameter (the seed's missing term, digest §2.18) are in. R_x and R_ẋ are central
/// differences of the residual in the model's coordinates (N columns: r for the reduced model, along
/// V's columns in full space and projected by one product with Vᵀ; n for the full one, by groups of
/// bodies), M, G exact; ∂/∂p are central differences of the residual of the system rebuilt at p ± δ
/// (exact up to round-off for the masses, dampers and stiffnesses, on which R is affine), taken as
/// (V μ_R)ᵀ(f₊ − f₋) on the full-space residual f, one constraint pass per system and step.

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/mbs/Integrator.hpp"
#include "flexuq/rom/Basis.hpp"

#include <functional>
#include <string>
#include <vector>

namespace flexuq::ident {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

/// The system at parameters @p p (e.g. the job file with the parameters' keys set, rebuilt).
using SystemMaker = std::function<mbs::System(const Vec& p)>;

/// What a signal measures on one body: a coordinate of its origin (x, y, z), of its velocity
/// (vx, vy, vz), its rotation angle about a fixed axis (2 atan2(a·e, e0): a body turning about a) or
/// its angular velocity about it (a·ω, ω = 2E(p)ṗ).
enum class SignalKind { x, y, z, vx, vy, vz, angle, rate };
inline constexpr EnumNames<SignalKind, 8> kSignalKindNames{{{{SignalKind::x, "x"},
                                                             {SignalKind::y, "y"},
                                                             {SignalKind::z, "z"},
                                                             {SignalKind::vx, "vx"},
                                                             {SignalKind::vy, "vy"},
                                                             {SignalKind::vz, "vz"},
                                                             {SignalKind::angle, "angle"},
                                                             {SignalKind::rate, "rate"}}}};

struct Signal {
  std::string name;
  int body = 0;
  SignalKind kind = SignalKind::x;
  mbs::Vec3 axis = mbs::Vec3::UnitZ(); ///< angle, rate: the (unit) axis
  double weight = 1.0;
};

/// The signal's value at (q, q̇) and, if @p dq / @p dv are given, its gradients (n-vectors).
double signal_value(const mbs::System& sys, const Signal& s, const Vec& q, const Vec& v, Vec* dq = nullptr,
                    Vec* dv = nullptr);

struct Problem {
  SystemMaker make;
  /// hht or generalized-alpha; start, end, step (fixed, end − start a multiple of it).
  mbs::SolverOptions solver;
  std::vector<Signal> signals;
  /// (N + 1) × signals: s̄_i(t_k) (row 0, the initial state, is not in the cost).
  Mat measured;
  /// The reduced model (rom/) when set: forward run and adjoint in q_r.
  const rom::ReducedBasis* basis = nullptr;
  double fd_step = 1e-6;    ///< relative step of the central differences in p
  double newton_tol = 1e-13; ///< Newton stops when βh²c‖Δẍ‖∞ ≤ tol·max(1, ‖x‖∞)
  int steps() const;        ///< N; @throws OptionError (solver.step) when it does not divide the run
  void validate() const;    ///< sizes, scheme, step; OptionError naming the key
};

/// The discrete trajectory in the model's coordinates, one column per t_k.
struct Trajectory {
  std::vector<double> t;
  Mat x, xd, xdd, acc, lambda; ///< acc: the algorithmic acceleration a_k
};

struct Evaluation {
  double cost = 0;
  Vec gradient;          ///< dJ/dp (empty from cost())
  Trajectory trajectory;
  long newton_iterations = 0, matrices = 0;
  double forward_seconds = 0, adjoint_seconds = 0; ///< processor time
};

/// Forward run at @p p: the cost and the trajectory.
Evaluation cost(const Problem& pr, const Vec& p);
/// Forward run and adjoint sweep: J and dJ/dp.
Evaluation cost_and_gradient(const Problem& pr, const Vec& p);
/// The signals along the forward run at @p p ((N + 1) × signals): synthetic measurements.
Mat simulate_signals(const Problem& pr, const Vec& p);

} // namespace flexuq::ident
