// SPDX-License-Identifier: MIT
#pragma once
/// @file Model.hpp
/// @brief A deterministic multibody model as seed 004 writes it (Constrained Lagrangian, §2.9):
/// kinetic energy T(q, q̇; p), potential V(q; p), the virtual work δW(q, q̇, δq, t; p) of the applied
/// non-conservative forces (linear in δq) and constraints Φ(q; p) − g(t) = 0 (g: prescribed motions of
/// time alone, zero on the scleronomic rows), every one a
/// polynomial in the coordinates q, q̇ and the data p (planar quaternions keep rotations polynomial).
/// The equations of motion follow by Lagrange:
///   d/dt ∂T/∂q̇ − ∂T/∂q + ∂V/∂q − Q − Φ_qᵀ λ = 0,  Φ = 0,   Q_k = ∂δW/∂δq_k,
/// i.e. M q̈ = f + Φ_qᵀ λ with f = Q − (Ṁ q̇ − ∂T/∂q) − ∂V/∂q. pct/Galerkin.hpp projects them on a
/// polynomial-chaos basis (either after differentiation, "traditional", or before, "variational work").
///
/// A model is evaluated on hyper-dual numbers (pct/HyperDual.hpp) so that every derivative is exact.
/// It declares the polynomial degree of each function in the states (q, q̇, δq together) and in the data,
/// which fixes the quadrature that makes the Galerkin projection exact, and names its non-polynomial
/// terms (a square root of a spring length, a rational function, a contact switch) so that the
/// projection is refused or made pseudo-spectral on purpose, never silently inexact.

#include "flexuq/pct/HyperDual.hpp"

#include <string>
#include <vector>

namespace flexuq::pct {

/// Polynomial degree of one model function: in the states (q, q̇, δq counted together; for Φ in q)
/// and in the data p.
struct Degree {
  int states = 0;
  int data = 0;
};

struct ModelDegrees {
  Degree kinetic, potential, virtual_work, constraints;
};

class LagrangianModel {
public:
  virtual ~LagrangianModel() = default;
  virtual int coordinates() const = 0;         ///< n
  virtual int constraint_rows() const = 0;     ///< m (scleronomic rows, norm rows included)
  virtual std::string coordinate_name(int k) const = 0;
  /// The data vector p at its nominal values, and the name of each entry ("crank.length", "k").
  virtual std::vector<double> nominal_data() const = 0;
  virtual std::string data_name(int j) const = 0;
  virtual HyperDual kinetic_energy(const HyperDual* q, const HyperDual* v, const double* p) const = 0;
  virtual HyperDual potential_energy(const HyperDual* q, const double* p) const = 0;
  /// δW = Σ F·δr + Σ M δθ of the applied non-conservative forces at time t.
  virtual HyperDual virtual_work(const HyperDual* q, const HyperDual* v, const HyperDual* dq, double t,
                                 const double* p) const = 0;
  virtual void constraints(const HyperDual* q, const double* p, HyperDual* phi) const = 0;
  virtual ModelDegrees degrees() const = 0;
  /// The terms that are not polynomials in the states or data (empty for a polynomial model).
  virtual std::vector<std::string> non_polynomial_terms() const { return {}; }

  /// Nominal initial state (a guess the assembly makes consistent) and the coordinates whose
  /// position / velocity the user specifies (kept fixed by the assembly: their mean coefficient is
  /// the nominal value and their higher coefficients are 0, seed 004 §5.1.3).
  virtual std::vector<double> initial_positions() const = 0;
  virtual std::vector<double> initial_velocities() const = 0;
  virtual std::vector<int> specified_positions() const = 0;
  virtual std::vector<int> specified_velocities() const = 0;
  /// The initial state at data @p p, for models whose data hold initial conditions (uncertain initial
  /// positions or velocities: an input moving them makes them vary over ξ; GalerkinSystem projects them
  /// and holds the coordinates that vary, as it holds the specified ones). Default: the nominal state.
  virtual std::vector<double> initial_positions_at(const double* /*p*/) const { return initial_positions(); }
  virtual std::vector<double> initial_velocities_at(const double* /*p*/) const { return initial_velocities(); }

  /// Rheonomic rows: row c reads Φ_c(q; p) − g_c(t) = 0 with a prescribed motion g_c of time alone (a
  /// driver); @p derivative 0, 1, 2 gives g, ġ, g̈ (Φ_t = −ġ, γ gains + g̈). Empty: all rows scleronomic.
  virtual std::vector<double> driver_values(double /*t*/, int /*derivative*/) const { return {}; }

  /// Optional analytic fast path (false: not provided; the caller differentiates the energies, the
  /// virtual work and the constraints by automatic differentiation, which stays the reference):
  /// Lagrange's residual e = d/dt ∂T/∂q̇ − ∂T/∂q + ∂V/∂q − Q at (q, q̇, q̈, t; p), n values.
  virtual bool lagrange_analytic(const double* /*q*/, const double* /*v*/, const double* /*a*/, double /*t*/,
                                 const double* /*p*/, double* /*out*/) const {
    return false;
  }
  /// Φ (m values; null: not wanted) and Φ_q (m × n, column-major; null: not wanted) analytically.
  virtual bool constraints_analytic(const double* /*q*/, const double* /*p*/, double* /*phi*/,
                                    double* /*jac*/) const {
    return false;
  }

  /// Outputs y(q; p): derived quantities (angles from quaternions, point coordinates).
  virtual std::vector<std::string> output_names() const { return {}; }
  virtual std::vector<double> outputs(const double* /*q*/, const double* /*p*/) const { return {}; }
};

} // namespace flexuq::pct
