// SPDX-License-Identifier: MIT
#pragma once
/// @file Model.hpp
/// @brief What a campaign evaluates: θ (physical parameters, in the campaign's parameter order) →
/// named output vectors. Implementations: analytic test functions and the FE eigenproblem.

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::io {
class Config;
struct Mesh;
}

namespace flexuq::campaign {

/// Named outputs of one evaluation, e.g. {"frequencies": [f1..f10]}.
using Outputs = std::map<std::string, std::vector<double>>;

/// @brief A model evaluated on the sub-communicator of one group of ranks.
class Model {
public:
  virtual ~Model() = default;
  /// Output names and sizes (fixed for the campaign).
  virtual std::map<std::string, std::size_t> output_sizes() const = 0;
  /// Outputs that are node fields (e.g. mode shapes): name → dims (nodes, dofs per node, modes).
  /// Their statistics are mean and std per entry only; the mesh comes with them.
  virtual std::map<std::string, std::vector<std::uint64_t>> field_dims() const { return {}; }
  /// The mesh of field outputs (nullptr if none).
  virtual const io::Mesh* mesh() const { return nullptr; }
  /// Evaluate at physical parameters @p theta. Throws InputError (invalid parameters) or Error
  /// (solver failure) — the campaign records the reason and goes on. @note Collective on the
  /// model's communicator: every rank of the group gets the same θ and must throw alike.
  virtual Outputs evaluate(const std::vector<double>& theta) = 0;
};

/// Build the model named by the job's `model:` section on @p group_comm, for the parameter names
/// @p names (in campaign order). Analytic: `model.function: ishigami | oscillator | polynomial |
/// failing`. FE: `model.mesh` / `model.generator` with `outputs.frequencies: n`. Collective.
std::unique_ptr<Model> make_model(MPI_Comm group_comm, const io::Config& cfg, const std::vector<std::string>& names,
                                  const std::map<std::string, std::string>& parameter_sets);

/// For FE models: solve at @p theta (the parameter means) and keep those modes as the reference the
/// samples' modes are tracked against. No-op for other models. @note Collective.
void set_fe_reference(Model& m, const std::vector<double>& theta);

} // namespace flexuq::campaign
