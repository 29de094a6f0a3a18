// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticCb.hpp
/// @brief A stochastic Craig–Bampton body by stochastic Galerkin (`reduce.stochastic.method:
/// galerkin`, issue #7 / tracker 11): the fixed-interface modes Φ_N(ξ) = Σ_β Φ^(β) Ψ_β(ξ) and their
/// eigenvalues by the SG eigen solver (EigenSolver.hpp) on the interior operators of the working
/// space, and the constraint modes Ψ_C(ξ) = [−K_ii⁻¹K_ib; 1] by the SG linear solve
/// (ConstraintModes.hpp), both with the operator expansion K(ξ) = Σ_a K^(a) Ψ_a(ξ) of the shared
/// material parametrisation (Expansion.hpp) carried into the working space (T̂ᵀK^(a)T̂ for
/// RBE2/RBE3 interfaces).
///
/// The body is then written with the layout of the non-intrusive methods (docs/stochastic-cb.md):
/// at the nodes ξ_q of a Gauss rule the basis T(ξ_q) = [Ψ_C(ξ_q) Φ_N(ξ_q)] is *evaluated* from the
/// Galerkin expansions (no factorisation, no eigensolve per node), K̄ = TᵀK(θ_q)T, M̄ = TᵀM(θ_q)T,
/// the invariants and the reduced free-free frequencies are formed with the exact K(θ_q), M(θ_q),
/// and the mode eigenvalues are the Galerkin PCE λ(ξ_q); cms::fit_stochastic_body projects them.
/// A Gauss rule exact for the degree of λ reproduces the Galerkin eigenvalue coefficients.
///
/// The nodes are spread over the block groups (node q on group q mod n_groups); a node depends on
/// its θ and the Galerkin coefficients only (not on the nodes its group evaluated before).
/// Signs and multiplets need no alignment: the Galerkin modes are one smooth family in ξ, and the
/// body at the parameter means (`/reduced`) is evaluated from the same expansions.

#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/cms/Reduction.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/sg/ConstraintModes.hpp"
#include "flexuq/sg/EigenSolver.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <Eigen/Dense>

#include <map>
#include <string>
#include <vector>

namespace flexuq::sg {

struct GalerkinCbOptions {
  std::vector<cms::InterfaceSpec> interfaces;
  cms::ReducerOptions reducer;   ///< for the check-out of the body at the means (full free-free modes)
  EigenOptions eigen;            ///< n_modes = reduce.modes.count (a multiplet cut by the count is completed)
  ExpansionOptions expansion;
  ConstraintModeOptions constraint;
  int free_free = 10;            ///< reduced free-free frequencies per node (reduce.checkout.free_free)
  std::string free_free_key = "checkout.free_free"; ///< its name in the per-node failures (the job key)
  bool basis = true;             ///< the basis in input node order per node
};

/// One evaluated node: cms::point_outputs (the outputs of cms::StochasticBodyModel but the
/// alignment) or the reason it failed.
struct GalerkinCbNode {
  bool ok = true;
  std::string reason;
  std::map<std::string, std::vector<double>> outputs;
};

struct GalerkinCbResult {
  // World rank 0 only (empty elsewhere):
  cms::ReducedBody nominal;            ///< the body at the parameter means, from the expansions
  std::vector<double> nominal_basis;   ///< its basis, input node order (nodes × dofs per node × columns)
  std::vector<GalerkinCbNode> nodes;   ///< one per requested node, in order
  // Every rank:
  EigenResult eigen;                   ///< the Galerkin eigen solve (its block vectors released after the nodes)
  long long constraint_pcg_iterations = 0;
  double constraint_residual = 0;
  int operator_terms = 0;
  Projection projection = Projection::Exact;
};

/// Solve and evaluate. @p comp lives on layout.group() with its affine terms; @p par its material
/// parametrisation (campaign parameter order); @p germ (N × d) and @p theta (N, physical) the nodes;
/// @p nominal_germ / @p nominal_theta the parameter means. Throws InputError for a method the SG
/// path cannot expand, a singular K_ii^(0) (no interface holds the body), an order beyond the memory.
/// @note Collective on layout.world().
/// The sign rule of the Galerkin body's modes. A mode's sign from the solver depends on its start
/// vectors and the partition: flip each mode (all its blocks; @p modes[s] holds its coefficients on
/// this rank's interior slice, block 0 — the mean — first, @p interior their working indices) so that
/// its mean block has a positive inner product with a partition-independent probe field
/// (cms::probe_field; of four, the one it meets most). ±u give the same result, so 1 and N ranks and
/// any number of groups give the same body. A multiplet keeps the solver's basis: its symmetric
/// components are not canonicalised beyond signs. @note Collective on ws.comm().
void canonical_mode_signs(const cms::WorkSpace& ws, const std::vector<PetscInt>& interior,
                          std::vector<std::vector<double>>& modes);

GalerkinCbResult galerkin_cb(const StochasticLayout& layout, fe::Component& comp, const fe::MaterialParametrisation& par,
                             const uq::StochasticSpace& space, const Eigen::MatrixXd& germ,
                             const std::vector<std::vector<double>>& theta, const std::vector<double>& nominal_germ,
                             const std::vector<double>& nominal_theta, const GalerkinCbOptions& opt);

} // namespace flexuq::sg
