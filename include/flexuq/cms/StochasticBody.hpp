// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticBody.hpp
/// @brief A stochastic reduced body as a value: polynomial-chaos expansions (one shared multi-index
/// set) of the reduced matrices K̄(ξ), M̄(ξ), the mode eigenvalues, the floating-frame invariants,
/// the reduced free-free frequencies and optionally the basis (input node order), with the germ
/// definitions, so that a downstream tool rebuilds the deterministic body at any θ or ξ
/// (`at`, `at_germ` → cms::ReducedBody with the `/reduced` layout of `flexuq reduce`).
///
/// Written under `/stochastic_body` of the file `flexuq reduce` writes for a job with
/// `reduce.stochastic` (docs/hdf5-schema.md, theory in docs/stochastic-cb.md); the deterministic
/// parts (labels, kinds, interface labels, the check-out of the nominal body) come from the body at
/// the parameter means, which the same file holds under `/reduced`. No PETSc, no SLEPc: a multibody
/// code evaluates a stochastic body with Eigen and the uq module only.
///
/// The collocation/regression path (app/StochasticReduce.cpp) fits the expansions from the
/// per-point bodies with fit_stochastic_body; the stochastic Galerkin path can write the same value.

#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/uq/Distribution.hpp"
#include "flexuq/uq/FitOptions.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace flexuq::io {
class H5File;
}

namespace flexuq::cms {

/// The invariants as one vector (the order of `/reduced/invariants`, row-major): mass (1),
/// center_of_mass (3), inertia_origin (9), inertia_com (9), S (3n), Sr (3n), Skl (9n²), Sbar (9n),
/// Ikl (9), Mff (n²). unflatten_invariants is its exact inverse (lumped is carried by @p like).
std::vector<double> flatten_invariants(const Invariants& inv);
Invariants unflatten_invariants(const std::vector<double>& v, Eigen::Index n, bool lumped);
std::size_t invariants_size(Eigen::Index n);
/// The invariants of the same body with the density scaled by @p b and basis column j scaled by
/// @p d(j): every invariant is an integral of ρ times zero, one or two basis columns, so a column
/// index gets d and each integral gets b (the centre of mass, a ratio of two of them, is unchanged).
Invariants scale_invariants(const Invariants& inv, double b, const Eigen::VectorXd& d);

/// One PCE-expanded quantity: coefficients (P terms × entries) and LOO errors per entry.
struct ExpandedQuantity {
  Eigen::MatrixXd coefficients;  ///< P × entries (row t: the coefficient of multi-index t)
  std::vector<std::uint64_t> dims; ///< shape of one value (e.g. {n, n}); product = entries
  Eigen::VectorXd loo;           ///< normalised LOO error per entry (0 for a constant entry); may be empty
  Eigen::VectorXd loo_rms;       ///< RMS leave-one-out residual per entry, in the quantity's unit
  Eigen::VectorXd evaluate(const Eigen::MatrixXd& psi_row) const; ///< Ψ(ξ) (1 × P) → entries
};

/// @brief The stochastic reduced body (replicated, every rank holds all of it).
struct StochasticBody {
  std::vector<std::string> names;          ///< parameter names, campaign order
  std::vector<uq::Distribution> dists;     ///< their laws (germ maps ξ ↔ θ and polynomial families)
  uq::MultiIndexSet multi_indices;         ///< P × d, shared by every expansion
  uq::FitMethod fit = uq::FitMethod::regression; ///< the fit used (attribute "regression" or "projection")
  int order = 0;                           ///< total degree
  std::int64_t points_used = 0, points_total = 0;
  ReducedBody nominal;                     ///< the body at the parameter means (template of `at`)
  /// Expanded quantities: "K", "M", "mode_eigenvalues", "free_free_frequencies", "invariants" and,
  /// when kept, "basis" (nodes × dofs per node × columns, input node order).
  std::map<std::string, ExpandedQuantity> pce;

  std::size_t dim() const { return names.size(); }
  bool has(const std::string& q) const { return pce.count(q) != 0; }
  /// Ψ_t(ξ), t = 0..P−1, at germ point @p xi (d entries).
  Eigen::MatrixXd psi(const std::vector<double>& xi) const;
  /// θ (physical, campaign order) → ξ. Throws InputError for a θ outside a law's support.
  std::vector<double> to_germ(const std::vector<double>& theta) const;
  /// The deterministic body at germ point @p xi: K̄, M̄, mode eigenvalues and invariants from the
  /// expansions; the floating-frame coordinates and the reduced free-free frequencies recomputed
  /// from K̄(ξ), M̄(ξ); labels, kinds and the full-model check-out of the nominal body.
  ReducedBody at_germ(const std::vector<double>& xi) const;
  ReducedBody at(const std::vector<double>& theta) const { return at_germ(to_germ(theta)); }
  /// The basis at @p xi (nodes × dofs per node × columns, row-major), empty without "basis".
  std::vector<double> basis_at_germ(const std::vector<double>& xi) const;

  /// Write `/stochastic_body` (everything but the nominal body, which ReducedBody::write puts under
  /// `/reduced`). Replicated values: every rank of the file's communicator calls it. @note Collective.
  void write(io::H5File& f) const;
  /// Read `/stochastic_body` and `/reduced`. InputError naming the file and the dataset when
  /// something is missing. @note Collective on the file.
  static StochasticBody read(const io::H5File& f);
  static StochasticBody read(MPI_Comm comm, const std::string& path);
};

/// The per-point values the expansions are fitted to, one row per successful point.
struct StochasticSamples {
  Eigen::MatrixXd germ;                              ///< N × d
  std::vector<double> weights;                       ///< quadrature weights (projection) or empty
  std::vector<std::uint64_t> index;                  ///< campaign sample index of each row
  std::map<std::string, Eigen::MatrixXd> values;     ///< quantity → N × entries
  std::map<std::string, std::vector<std::uint64_t>> dims; ///< quantity → shape of one value
};

struct StochasticFitOptions {
  /// fit (projection falls back to regression when a node failed), order (−1: chosen by LOO in
  /// [1, max_order] for regression, max_order for projection), max_order; the seed is not used.
  uq::FitOptions pce;
  std::size_t points_total = 0;   ///< points planned (for the message when too few succeeded)
};

/// Fit every quantity of @p s on one multi-index set. The order (regression, auto) minimises the
/// mean normalised LOO error of the mode eigenvalues and free-free frequencies (the entries with
/// non-zero variance). Throws InputError when no point succeeded or too few for the order.
/// Rank-local (no communication).
StochasticBody fit_stochastic_body(const std::vector<std::string>& names, const std::vector<uq::Distribution>& dists,
                                   const StochasticSamples& s, const ReducedBody& nominal,
                                   const StochasticFitOptions& opt);

/// Reads rows [first, first + count) of a large quantity (its first dimension; e.g. nodes of the
/// basis) at every point of a StochasticSamples, into Y (N × count · entries per row, points in the
/// samples' row order).
using RowBlockReader = std::function<void(std::uint64_t first, std::uint64_t count, Eigen::MatrixXd& Y)>;

/// Expand quantity @p name of shape @p dims (e.g. "basis": nodes × dofs per node × columns) on
/// @p b's multi-indices and fit, like fit_stochastic_body does for the quantities it holds, but a
/// block of rows at a time, and write its coefficients, LOO and RMS LOO errors to @p f under
/// /stochastic_body/pce/<name>/ in the layout of StochasticBody::write. Memory holds N × block
/// values (at most @p block_bytes, at least one row), never the whole quantity: the basis of 30
/// points of a 300 k-DOF body (32 columns) is 2.3 GB, of which a block of 16 MB is read at a time.
/// Every entry's fit is independent of the others, and the blocks depend only on the sizes, so the
/// result does not depend on the ranks. Rank-local; @p f is a file on MPI_COMM_SELF.
void fit_and_write_by_blocks(const StochasticBody& b, const StochasticSamples& s, const std::string& name,
                             const std::vector<std::uint64_t>& dims, const RowBlockReader& read_rows, io::H5File& f,
                             std::size_t block_bytes = std::size_t{16} << 20);

/// The same for a quantity whose value at every point is a fixed @p base with its last index
/// (columns, n = dims.back()) scaled, value_i[k] = base[k] · scales(i, k mod n) (exact scaling:
/// the basis Φ0 D(θ)): only the n column factors are fitted, and entry k's coefficients, LOO and
/// RMS LOO errors are base[k] times (LOO: the same as) its column's, written by row blocks in the
/// layout of fit_and_write_by_blocks, whose result it equals to round-off — without reading or
/// fitting N × 10⁷ values. @p scales: N × n, points in @p s's row order. Rank-local.
void fit_and_write_column_scaled(const StochasticBody& b, const StochasticSamples& s, const std::string& name,
                                 const std::vector<std::uint64_t>& dims, const std::vector<double>& base,
                                 const Eigen::MatrixXd& scales, io::H5File& f,
                                 std::size_t block_bytes = std::size_t{16} << 20);

} // namespace flexuq::cms
