// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticBodyModel.hpp
/// @brief The campaign model of a stochastic reduction (`flexuq reduce` with `reduce.stochastic`):
/// θ → material parametrisation → K(θ), M(θ) → a full component-mode reduction on the group's
/// communicator → the body aligned with the body at the parameter means → flattened outputs
/// (reduced matrices, mode eigenvalues, reduced free-free frequencies, invariants, the basis).
///
/// Alignment (docs/stochastic-cb.md): columns that are not normal modes (boundary coordinates,
/// constraint, rigid, inertia-relief and attachment columns) are defined without a sign or order
/// ambiguity and correspond one to one. Normal-mode columns are matched to the reference by their
/// inner products in the point's mass matrix M(θ) (fe::track_modes: MAC per multiplet), each multiplet rotated onto
/// the reference subspace by orthogonal Procrustes (signs included). With the map T (point columns
/// → reference columns), K̄' = Tᵀ K̄ T, M̄' = Tᵀ M̄ T and Φ' = Φ T are again the exact projections.
/// A reference mode whose captured share falls below `min_mac` fails the point (reported with it).
/// The reference itself is put in a partition-independent form first (per multiplet, the basis whose
/// inner products with fixed probe fields are upper triangular with a positive diagonal), so groups
/// of any size align to the same coordinates.
///
/// Per group, once: assembly with the affine terms (those whose coefficients stay proportional
/// merged: fe::MaterialParametrisation::proportional_terms), the interface maps and T̂ of RBE2/RBE3
/// interfaces with the symbolic product T̂ᵀ·T̂, the submatrix structures, the MUMPS analysis of K_ii
/// (and K_ff), the eigensolver set-up (EPS, ST), the reference reduction. Per point: K(θ), M(θ)
/// re-evaluated from the affine terms, the numeric congruence T̂ᵀKT̂, T̂ᵀMT̂, the numeric
/// factorization and the solves (WorkSpace::refresh_operators, Reducer::update_operators).
/// evaluate(θ) depends on θ alone, not on the points its group evaluated before (SPD factorizations
/// analysed from the pattern, eigensolver start vectors from a re-seeded stream, no warm start:
/// tests/cms/stochastic_body_test.cpp, HistoryDoesNotChangeAPoint).
///
/// Exact scaling (StochasticReduceOptions::exact_scaling): when K(θ) = a K(θ0) and M(θ) = b M(θ0)
/// for every θ (each parameter is E or ρ of the whole component), the constraint modes are those of
/// θ0 (K_ii⁻¹K_ib does not see a), the fixed-interface modes are Φ0/√b with eigenvalues (a/b) λ0,
/// so with D = diag(1 on boundary columns, 1/√b on modes): K̄ = a D K̄0 D, M̄ = b D M̄0 D, the basis
/// Φ0 D and the invariants scale_invariants(inv0, b, D). Such a point costs no factorization and
/// no eigensolve, and the affine terms are released after the reference (nothing re-evaluates K).
/// A point is still a function of θ alone; tests/cms/stochastic_body_test.cpp,
/// ExactScalingEqualsAFullReduction, checks it against the full path.

#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/cms/Reduction.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"

#include <memory>
#include <utility>
#include <string>
#include <vector>

namespace flexuq::fe {
class NaturalLayout;
}

namespace flexuq::cms {

struct StochasticReduceOptions {
  std::vector<InterfaceSpec> interfaces;
  ReducerOptions reducer;
  BuildOptions build;
  int free_free = 10;      ///< reduced free-free elastic frequencies per point (reduce.checkout.free_free)
  bool basis = true;       ///< reduce.stochastic.basis: the basis (input node order) per point
  double min_mac = 0.5;    ///< reduce.stochastic.min_mac: lost-match threshold of the alignment
  /// reduce.stochastic.exact_scaling: when the parameters only scale K and M as a whole
  /// (fe::MaterialParametrisation::scales_uniformly) and the basis holds only boundary/constraint
  /// columns and fixed-interface modes (craig-bampton, guyan, no residual vectors), a point's body
  /// is the reference body scaled in closed form; false reduces every point.
  bool exact_scaling = true;
  std::vector<fe::MaterialParameter> parameters; ///< campaign order
  std::vector<double> nominal;                   ///< the parameter means (reference body)
  /// The job file's section of these options ("reduce"), for the messages a run records per point
  /// (failures are journaled, not thrown to the parser); empty (a struct made in code): the fields.
  std::string section;
  /// @p field ("stochastic.min_mac") as the job names it: "<section>.<field>", or the field alone.
  std::string key_of(const std::string& field) const { return section.empty() ? field : section + "." + field; }
};

/// The per-point outputs of a stochastic reduction (campaign Outputs): K, M (row-major),
/// mode_eigenvalues and mode_frequencies (when @p rb has normal modes), free_free_frequencies (the
/// @p free_free lowest elastic frequencies of K̄, M̄; Error unless the body has 6 rigid-body modes),
/// invariants (flatten_invariants of @p inv) and, with @p natural, the basis in input node order
/// (complete on rank 0). Shared by StochasticBodyModel and the Galerkin body (sg/StochasticCb).
/// @p free_free_key: how the failure names the option (the caller's job key). @note Collective.
Outputs point_outputs(const WorkSpace& ws, const ReducedBasis& rb, const Invariants& inv,
                      const fe::NaturalLayout* natural, int free_free,
                      const std::string& free_free_key = "checkout.free_free");

/// Throws OptionError (after "<source>: ") when the stochastic path cannot do @p o (gcms, a scaled
/// basis, a band of modes) or an option is out of range.
void validate_stochastic(const StochasticReduceOptions& o, const std::string& source);

class StochasticBodyModel final : public Model {
public:
  /// Assemble on @p comm and reduce at the nominal parameters (the alignment reference). @note Collective.
  StochasticBodyModel(MPI_Comm comm, io::Mesh mesh, fe::ComponentOptions component, StochasticReduceOptions options);
  ~StochasticBodyModel() override;

  std::map<std::string, std::size_t> output_sizes() const override;
  /// K, M, invariants and basis are "fields" for the campaign (mean and std per entry only; their
  /// expansions are fitted by cms::fit_stochastic_body).
  std::map<std::string, std::vector<std::uint64_t>> field_dims() const override;
  /// Under exact scaling with the basis: {"basis" → the reference basis}; a point journals the
  /// column scales D of its basis Φ0 D (output "basis.column_scale"), not 10⁷ values.
  std::map<std::string, const std::vector<double>*> column_scaled_fields() const override;
  Outputs evaluate(const std::vector<double>& theta) override;

  /// A deterministic body reduced at @p theta on the group's kept solvers (not aligned, no full-model
  /// check-out frequencies): what a multibody campaign re-reduces per sample. Depends on θ alone.
  /// @note Collective on the group; the result is replicated.
  ReducedBody body_at(const std::vector<double>& theta);
  /// The body at the nominal parameters (with the check-out's full free-free frequencies).
  const ReducedBody& nominal_body() const { return nominal_; }
  /// Its basis in input node order (nodes × dofs per node × columns), complete on the group's rank 0.
  const std::vector<double>& nominal_basis() const { return nominal_basis_; }
  /// The same, handed over: moved out when the points do not need it (a reduction per point; the
  /// model's own copy is then empty), copied under exact scaling (every point is built from it).
  /// Spares the group's rank 0 a second copy of a full basis while the points run.
  std::vector<double> release_nominal_basis() {
    if (scaled_) return nominal_basis_;
    return std::exchange(nominal_basis_, {});
  }
  std::size_t n_columns() const { return ref_labels_.size(); }
  /// True when the points are the reference body scaled (see exact scaling above).
  bool exact_scaling() const { return scaled_; }

private:
  struct Point;
  Point reduce_at(const std::vector<double>& theta, bool reference);
  /// The point at @p theta as the reference scaled (exact scaling only).
  Point scaled_point(const std::vector<double>& theta) const;
  /// Fill @p T (point columns × reference columns) and @p lambda for the normal modes of @p rb
  /// matched to the reference; returns the smallest captured share. Throws Error on a lost match.
  double align_modes(const ReducedBasis& rb, const std::vector<std::size_t>& mode_cols, Eigen::MatrixXd& T,
                     std::vector<double>& lambda) const;
  VecH probe_field(int j) const;

  Comm comm_;
  StochasticReduceOptions opt_;
  std::unique_ptr<fe::Component> comp_;
  std::unique_ptr<fe::MaterialParametrisation> params_;
  std::unique_ptr<WorkSpace> ws_;
  std::unique_ptr<Reducer> reducer_; ///< kept per group, re-targeted per point (after ws_: destroyed first)
  std::unique_ptr<fe::NaturalLayout> layout_;
  // The reference (nominal) basis.
  std::vector<VecH> ref_modes_;
  std::vector<int> ref_cluster_;
  std::vector<double> ref_eigenvalues_;
  std::vector<std::size_t> ref_mode_cols_, ref_other_cols_;
  std::vector<std::string> ref_labels_;
  std::vector<ColumnKind> ref_kinds_;
  ReducedBody nominal_;
  std::vector<double> nominal_basis_;
  std::size_t n_inv_ = 0;
  bool scaled_ = false;
  std::unique_ptr<Point> ref_point_; ///< exact scaling: the aligned reference (no columns kept)
};

} // namespace flexuq::cms
