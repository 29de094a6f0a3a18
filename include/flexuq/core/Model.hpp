// SPDX-License-Identifier: MIT
#pragma once
/// @file Model.hpp
/// @brief The seam between whatever evaluates a sample and whatever schedules samples: a model maps
/// physical parameters θ (in the campaign's parameter order) to named output vectors, on the
/// communicator of one group of ranks. Nothing here knows about meshes, matrices or files, so the
/// campaign (scheduler, journal, statistics) depends on this interface only; each model kind lives
/// in the module that can compute it (analytic test functions in `uq`, FE eigenfrequencies in `fe`,
/// …) and `app` builds the one a job names (see docs/architecture.md, "How to add a model kind").

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flexuq {

/// Named outputs of one evaluation, e.g. {"frequencies": [f1..f10]}.
using Outputs = std::map<std::string, std::vector<double>>;

/// @brief A model evaluated on the sub-communicator of one group of ranks.
///
/// Lifetime, as a campaign drives it: built by a ModelFactory on the group's communicator, then
/// prepare(nominal) once, then evaluate(θ) for every sample the group takes, in an order that
/// depends on scheduling and interruptions. Contract: the outputs of evaluate(θ) depend only on θ
/// (and on the group's size), never on what was evaluated before on the same object — this is what
/// makes resumed and re-scheduled campaigns bit-identical (issue #10).
class Model {
public:
  virtual ~Model() = default;

  /// Output names and sizes (fixed for the campaign).
  virtual std::map<std::string, std::size_t> output_sizes() const = 0;

  /// Outputs that are node fields (e.g. aligned mode shapes): name → dims (nodes, dofs per node,
  /// columns). Their statistics are a mean and a std per entry; they need write_field_support.
  virtual std::map<std::string, std::vector<std::uint64_t>> field_dims() const { return {}; }

  /// Fields the model journals in factored form, name → base (complete on the group's rank 0, which
  /// is world rank 0 for group 0): instead of output `name`, evaluate returns output
  /// column_scale_output(name) with one factor per column (the last dimension of field_dims), and
  /// the field's value is value[k] = base[k] · scale[k mod columns] (expand_column_scaled). The
  /// stochastic body under exact scaling does this: a point's basis is the reference basis with its
  /// mode columns scaled, so journaling 32 numbers instead of 10⁷ per point says the same. The
  /// field keeps its entry in output_sizes (its statistics are written as for any field). The base
  /// must not change after prepare().
  virtual std::map<std::string, const std::vector<double>*> column_scaled_fields() const { return {}; }

  /// Add to the closed HDF5 result file @p result_path what a reader needs to display the field
  /// output @p field whose mean is the dataset @p mean_dataset (for FE models: the mesh under
  /// /mesh and an .xdmf beside the file). Rank-local: called on one rank, after the statistics
  /// are written. Models without field outputs never get this call.
  virtual void write_field_support(const std::string& /*result_path*/, const std::string& /*field*/,
                                   const std::string& /*mean_dataset*/) const {}

  /// Called once before the first evaluate with the nominal parameters (the parameter means):
  /// models that track something across samples (FE modes) solve their reference here.
  /// @note Collective on the model's communicator.
  virtual void prepare(const std::vector<double>& /*nominal*/) {}

  /// Evaluate at physical parameters @p theta. Throws InputError (invalid parameters) or Error
  /// (solver failure) — a campaign records the reason and goes on. Field outputs need only be
  /// complete on the group's rank 0 (the rank that journals). @note Collective on the model's
  /// communicator: every rank of the group gets the same θ and must throw alike.
  virtual Outputs evaluate(const std::vector<double>& theta) = 0;
};

/// The output by which a model journals the column factors of field @p field (Model::column_scaled_fields).
inline std::string column_scale_output(const std::string& field) { return field + ".column_scale"; }

/// value[k] = base[k] · scale[k mod scale.size()]: a column-scaled field (Model::column_scaled_fields)
/// rebuilt from its base and journaled factors (columns fastest, as every field's layout).
inline std::vector<double> expand_column_scaled(const std::vector<double>& base, const std::vector<double>& scale) {
  const std::size_t n = scale.size();
  if (n == 0) return {};
  std::vector<double> v(base.size());
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = base[k] * scale[k % n];
  return v;
}

/// Builds the model of a job on the communicator of one group (called once per group, collectively
/// on @p group_comm). The factory, not the campaign, knows the job's `model:` section.
using ModelFactory = std::function<std::unique_ptr<Model>(MPI_Comm group_comm)>;

} // namespace flexuq
