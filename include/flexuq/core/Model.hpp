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

/// Builds the model of a job on the communicator of one group (called once per group, collectively
/// on @p group_comm). The factory, not the campaign, knows the job's `model:` section.
using ModelFactory = std::function<std::unique_ptr<Model>(MPI_Comm group_comm)>;

} // namespace flexuq
