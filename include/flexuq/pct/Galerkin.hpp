// SPDX-License-Identifier: MIT
#pragma once
/// @file Galerkin.hpp
/// @brief Intrusive polynomial chaos (PCT, seed 004 §2.6 and §2.12): every coordinate and multiplier
/// of a LagrangianModel expanded on an orthonormal chaos basis Ψ_a(ξ) (total degree ≤ order, one Askey
/// family per uncertain input: Hermite for normal, Legendre for uniform, Jacobi for beta, Laguerre for
/// gamma inputs), the equations Galerkin-projected, and the enlarged index-3 DAE of n(P+1) coordinates
/// and m(P+1) rows returned as an Index3Dae.
///
/// Layout (seed 004 Algorithm 1): coefficient-minor, entry k·(P+1) + a is coefficient a of coordinate k
/// (likewise for λ and the rows). Equations are the un-normalised projections E[(·) Ψ_a], which with
/// an orthonormal basis are the coefficients themselves; mean = c₀, variance = Σ_{a≥1} c_a².
///
/// Two assembly routes give the same residual (seed 004 V5):
///  * traditional: Lagrange's equations of the deterministic model at each quadrature node
///    (automatic differentiation), then projected: r̊_{k,a} = E[(d/dt ∂T/∂q̇ − ∂T/∂q + ∂V/∂q − Q − Φ_qᵀλ)_k Ψ_a];
///  * variational work: the energies projected first, T̊ = E[T], V̊ = E[V], δW̊ = E[δW] with δq = Σ δq̊_a Ψ_a
///    (seed 004 Form B, which stays consistently scaled at any order), Φ̊_{c,b} = E[Φ_c Ψ_b], then Lagrange's
///    operations on them with respect to the coefficients q̊.
/// Both need exact expectations of products of more than three expansions (the quaternion kinetic energy
/// has four, a link length times e0·e3 three), so the projection uses the tensor Gauss rule of the inputs'
/// families with ⌈(D+1)/2⌉ points per dimension, D the polynomial degree in ξ of the integrand computed
/// from the model's declared degrees: exact, i.e. the same numbers as the triple-product (and higher
/// moment) tensors (tests/pct check it against uq::triple_product_tensor). A model with non-polynomial
/// terms, or an input whose map from its germ is not affine (log-normal), is refused unless
/// GalerkinOptions::quadrature_points asks for a pseudo-spectral projection with that many points,
/// which exact() and points() then report.

#include "flexuq/pct/Dae.hpp"
#include "flexuq/pct/Model.hpp"
#include "flexuq/uq/Distribution.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/Quadrature.hpp"

#include <string>
#include <utility>
#include <vector>

namespace flexuq::pct {

/// One uncertain input X: its distribution and the model data it moves, p_j = p̄_j + factor·(X − E[X])
/// for each (j, factor) target (a link length moves the two joint points on the link).
struct UncertainInput {
  std::string name;
  uq::Distribution distribution = uq::Distribution::normal(0, 1);
  std::vector<std::pair<int, double>> targets;
};

enum class Route { traditional, variational };

struct GalerkinOptions {
  int order = 1;               ///< total degree of the chaos basis
  int quadrature_points = 0;   ///< 0: the exact rule; > 0: pseudo-spectral with this many points per input
  Route route = Route::traditional; ///< which route force() uses
  /// Use the model's closed-form residual and constraint Jacobian where it has them
  /// (LagrangianModel::lagrange_analytic); false: automatic differentiation throughout (the check).
  bool analytic = true;
  void validate() const;       ///< throws OptionError naming the field
};

/// Lagrange's residual e = d/dt ∂T/∂q̇ − ∂T/∂q + ∂V/∂q − Q of @p model at (q, q̇, q̈, t; p) by automatic
/// differentiation of its energies and virtual work (n values): the reference of the analytic forms.
void lagrange_ad(const LagrangianModel& model, const double* q, const double* v, const double* a, double t,
                 const double* p, double* out);
/// Φ (null: not wanted) and Φ_q (m × n column-major; null: not wanted) by automatic differentiation.
void constraints_ad(const LagrangianModel& model, const double* q, const double* p, double* phi, double* jac);

class GalerkinSystem : public Index3Dae {
public:
  /// @throws InputError when the model has non-polynomial terms (or an input a non-affine map) and no
  /// quadrature_points were given, naming the terms; when a target is out of the data range.
  GalerkinSystem(const LagrangianModel& model, std::vector<UncertainInput> inputs, const GalerkinOptions& o);

  int terms() const { return basis_.size(); } ///< P + 1
  int n() const override { return model_.coordinates() * terms(); }
  int m() const override { return model_.constraint_rows() * terms(); }
  const uq::MultiIndexSet& basis() const { return basis_; }
  const std::vector<uq::PolynomialFamily>& families() const { return families_; }
  const std::vector<UncertainInput>& inputs() const { return inputs_; }
  const LagrangianModel& model() const { return model_; }
  bool exact() const { return exact_; }        ///< false: pseudo-spectral projection
  int points() const { return points_; }       ///< quadrature points per input dimension
  int quadrature_size() const { return quad_.size(); }
  /// Polynomial degree in ξ of the projected integrands (what the exact rule integrates).
  int integrand_degree() const { return degree_; }

  /// The projected residual r̊(q̊, q̊̇, q̊̈, λ̊, t) (n(P+1)) by either route.
  Vec residual(Route route, const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t) const;
  /// Projected energies E[T], E[V].
  double kinetic_energy(const Vec& q, const Vec& v) const;
  double potential_energy(const Vec& q) const;

  // Index3Dae (coefficients): M̊_{(k,a),(l,b)} = E[M_kl Ψ_a Ψ_b], f̊ = −r̊(q̊, q̊̇, 0, 0), Φ̊_{c,b} = E[Φ_c Ψ_b],
  // Φ̊_q, γ̊_{c,b} = E[γ_c Ψ_b].
  Mat mass(const Vec& q) const override;
  Vec force(const Vec& q, const Vec& v, double t) const override;
  Vec phi(const Vec& q) const override;
  Mat phi_q(const Vec& q) const override;
  Vec gamma(const Vec& q, const Vec& v) const override;
  /// Drivers (LagrangianModel::driver_values): g(t) is deterministic, so only the mean coefficient of a
  /// driven row moves: Φ̊_{c,0} − g_c(t), Φ̊_t = −ġ, γ̊ gains + g̈ on the mean coefficients.
  Vec phi_at(const Vec& q, double t) const override;
  Vec phi_t(const Vec& q, double t) const override;
  Vec gamma_at(const Vec& q, const Vec& v, double t) const override;
  /// r̊ = M̊ q̊̈ − f̊ − Φ̊_qᵀλ̊ by the route of the options (one pass, no M̊ formed).
  Vec residual(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t) const override {
    return residual(opt_.route, q, v, a, lambda, t);
  }

  /// One pass over the nodes for both (the traditional route): the nodes' Φ values come with the Φ_q
  /// the residual needs; the same numbers as residual() and phi_at().
  void residual_and_phi(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t, Vec& r,
                        Vec& ph) const override;

  /// Coefficient vector whose mean coefficients are @p x (n values) and the others 0.
  Vec lift(const std::vector<double>& x) const;
  /// Indices (coefficient layout) of the coordinates the model specifies, all coefficients.
  std::vector<int> lifted(const std::vector<int>& coordinates) const;
  /// Values of a coefficient vector of @p count quantities at germ point @p xi.
  Vec expand(const Vec& coeffs, int count, const double* xi) const;
  /// Model data at germ point @p xi.
  std::vector<double> data_at(const double* xi) const;
  /// Consistent initial state (assemble() with the model's specified coordinates). Initial positions and
  /// velocities that depend on an uncertain input (the model's initial_positions_at / _velocities_at vary
  /// over the nodes) are projected on the basis by the Galerkin rule (exact for an affine map, as for a
  /// normal, uniform, beta or gamma input) and held by the assembly like the specified ones.
  DaeState initial_state(double t0 = 0) const;
  /// The coordinates whose initial position (velocity) varies with the inputs.
  std::vector<int> uncertain_initial_positions() const;
  std::vector<int> uncertain_initial_velocities() const;

  /// Mean and standard deviation of every quantity of a coefficient vector (count quantities).
  static void moments(const Vec& coeffs, int count, int terms, Vec& mean, Vec& std);
  /// Mean, standard deviation and chaos coefficients (count × (P+1), by a tensor Gauss rule of
  /// @p points per dimension on the surrogate) of the model's outputs at state @p q.
  void output_moments(const Vec& q, int points, Vec& mean, Vec& std, Mat& coeffs) const;

private:
  struct Node {
    double weight;
    std::vector<double> xi, psi, data;
  };
  void lagrange_at(const Node& nd, const double* q, const double* v, const double* a, double t, double* out) const;
  void constraint_jacobian_at(const Node& nd, const double* q, double* phi, Mat* jac) const;
  /// @p phi_out (null: not wanted) gets the projected Φ̊ (scleronomic part) from the same pass.
  Vec residual_traditional(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t,
                           Vec* phi_out = nullptr) const;
  Vec residual_variational(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t) const;
  std::vector<HyperDual> expand_dual(const std::vector<HyperDual>& coeffs, int count, const Node& nd) const;
  /// Projection of the model's initial positions (@p velocities false) or velocities on the basis, and the
  /// coordinates that vary over the nodes.
  Vec initial_projection(bool velocities, std::vector<int>& varying) const;
  Vec driver_rows(double t, int derivative) const; ///< g^(derivative)(t) on the mean coefficients (m(P+1))

  const LagrangianModel& model_;
  std::vector<UncertainInput> inputs_;
  GalerkinOptions opt_;
  std::vector<uq::PolynomialFamily> families_;
  uq::MultiIndexSet basis_;
  uq::Quadrature quad_;
  std::vector<Node> nodes_;
  mutable std::vector<Node> output_nodes_; ///< output_moments' rule (its weights, ξ, Ψ(ξ), data), kept
  mutable int output_points_ = -1;         ///< the points per dimension output_nodes_ holds
  bool exact_ = true;
  int points_ = 1, degree_ = 0;
};

} // namespace flexuq::pct
