// SPDX-License-Identifier: MIT
#pragma once
/// @file Dae.hpp
/// @brief The index-3 DAE  M(q) q̈ = f(q, q̇, t) + Φ_q(q)ᵀ λ,  Φ(q) = 0  of a (possibly
/// Galerkin-enlarged) multibody model, its consistent initial state by the three-stage assembly of
/// seed 004 §2.10, and the index-3 generalized-α scheme that integrates it.
///
/// Generalized-α in the index-3 form of Arnold & Brüls (2007), the parameters of Chung & Hulbert from
/// ρ∞ (as mbs/Integrator.hpp's generalized-alpha): α_m = (2ρ∞−1)/(ρ∞+1), α_f = ρ∞/(ρ∞+1),
/// γ = ½ + α_f − α_m, β = ¼(γ + ½)²; q_{n+1} = q_n + h q̇_n + h²(½−β) a_n + h²β a_{n+1},
/// q̇_{n+1} = q̇_n + h(1−γ) a_n + hγ a_{n+1}, (1−α_m) a_{n+1} + α_m a_n = (1−α_f) q̈_{n+1} + α_f q̈_n;
/// Newton on (q̈_{n+1}, λ_{n+1}) for  r = M q̈ − f − Φ_qᵀλ = 0 and Φ(q_{n+1}) scaled by 1/(β'h²),
/// β' = β(1−α_f)/(1−α_m), with the analytic iteration matrix [M, −Φ_qᵀ; Φ_q, 0] (M and Φ_q exact, from
/// automatic differentiation; the O(β'h²·∂r/∂q, γ'h·∂r/∂q̇) terms are left out: modified Newton,
/// whose contraction is checked). Its LU is kept across steps while Newton contracts by ≥ 50 per
/// iteration and refreshed otherwise. ρ∞ = 1 is the trapezoidal rule (no numerical damping).

#include <Eigen/Dense>

#include <functional>
#include <vector>

namespace flexuq::pct {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

class Index3Dae {
public:
  virtual ~Index3Dae() = default;
  virtual int n() const = 0;
  virtual int m() const = 0;
  virtual Mat mass(const Vec& q) const = 0;
  virtual Vec force(const Vec& q, const Vec& v, double t) const = 0;
  virtual Vec phi(const Vec& q) const = 0;
  virtual Mat phi_q(const Vec& q) const = 0;
  /// γ with Φ_q q̈ = γ (scleronomic: γ = −(Φ_q q̇)_q q̇).
  virtual Vec gamma(const Vec& q, const Vec& v) const = 0;
  /// Rheonomic rows Φ(q, t) = φ(q) − g(t) (drivers): Φ at time t, Φ_t (Φ_q q̇ = −Φ_t) and
  /// γ(q, q̇, t) = −(Φ_q q̇)_q q̇ − Φ_tt. Defaults: scleronomic (phi(q), 0, gamma(q, q̇)).
  virtual Vec phi_at(const Vec& q, double /*t*/) const { return phi(q); }
  virtual Vec phi_t(const Vec& /*q*/, double /*t*/) const { return Vec::Zero(m()); }
  virtual Vec gamma_at(const Vec& q, const Vec& v, double /*t*/) const { return gamma(q, v); }
  /// r = M q̈ − f − Φ_qᵀλ (what Newton drives to zero); by default from mass(), force(), phi_q().
  virtual Vec residual(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t) const {
    return mass(q) * a - force(q, v, t) - phi_q(q).transpose() * lambda;
  }
  /// residual() and phi_at() at the same state, what each Newton iteration needs; an implementation may
  /// share the work of the two (one pass over its quadrature nodes).
  virtual void residual_and_phi(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t, Vec& r,
                                Vec& ph) const {
    r = residual(q, v, a, lambda, t);
    ph = phi_at(q, t);
  }
};

struct DaeState {
  double t = 0;
  Vec q, v, a, lambda;
};

/// Three-stage assembly at s.t: Newton (least squares, minimum norm) on Φ(q, t) = 0 with the coordinates
/// @p fixed_q held; Φ_q q̇ = −Φ_t with the velocities @p fixed_v held (the free ones corrected least from
/// their guesses s.v); then [M −Φ_qᵀ; Φ_q 0][q̈; λ] = [f; γ].
/// @throws Error when the positions do not converge (‖Φ‖∞ > @p tol after 50 iterations).
/// @return the Newton iterations of the position stage.
int assemble(const Index3Dae& dae, DaeState& s, const std::vector<int>& fixed_q, const std::vector<int>& fixed_v,
             double tol = 1e-12);

struct AlphaOptions {
  double rho_inf = 1.0;     ///< spectral radius at infinity, in [0, 1]; 1: trapezoidal
  double step = 1e-3;
  double end = 1.0;
  double output_step = 0;   ///< 0: every step
  double tol = 1e-12;       ///< Newton: max-norm of the position correction βh²Δq̈ (relative to 1 + ‖q‖∞)
  int max_iter = 30;
  void validate() const;    ///< throws InputError naming the field
};

struct AlphaStats {
  long steps = 0, newton_iterations = 0, factorizations = 0;
  double max_drift = 0;     ///< max ‖Φ‖∞ over the steps
};

/// Integrate from s.t to o.end; @p output gets the initial state and every output time.
/// @throws Error naming the time when Newton fails even with a fresh matrix.
AlphaStats integrate_alpha(const Index3Dae& dae, DaeState& s, const AlphaOptions& o,
                       const std::function<void(const DaeState&)>& output);

} // namespace flexuq::pct
