// SPDX-License-Identifier: MIT
#pragma once
/// @file MatrixModel.hpp
/// @brief `model.matrices` (docs/config.md): a job whose model is matrices exported by another FE
/// code (fe/MatrixComponent.hpp), for `modes`, `reduce` and `campaign`.

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/FrequencyModel.hpp"
#include "flexuq/fe/MatrixComponent.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/workflow/MatrixFrequencyCampaign.hpp"

#include <functional>
#include <memory>
#include <string>

namespace flexuq::app {

/// True if the job's model is `model.matrices`.
bool has_matrix_model(const io::Config& cfg);

/// `model.matrices` → the spec, paths resolved against the job file. Refuses model.mesh,
/// model.generator, model.material(s) beside it. Throws InputError naming the job file and key.
fe::MatrixModelSpec parse_matrix_model(const io::Config& cfg);

/// The component of a `modes` or `reduce` job, from model.matrices (phase "read+assemble matrices")
/// or from model.mesh / model.generator (phases "read mesh", "partition+assemble"). Runs
/// cfg.check_all_used() after the model keys are read and before the heavy work, logs the reader's
/// warnings and the headline "<headline> <source> on N rank(s)". @p check, if given, sees the mesh
/// (null for model.matrices) before cfg.check_all_used(). @note Collective.
std::unique_ptr<fe::Component> load_component(MPI_Comm comm, const io::Config& cfg, const fe::ComponentOptions& copts,
                                              log::PhaseTimes& times, const std::string& headline,
                                              const std::function<void(const io::Mesh*)>& check = {});

/// For `campaign`: the spec of the frequency model of the matrices (workflow/MatrixFrequencyCampaign.hpp);
/// parameter p sets the coefficient of the term `parameters.<p>.param` (default: the parameter's
/// name), stiffness or mass. Throws InputError for an unknown term, a term set by two parameters, or
/// a `set:` key. Not collective.
workflow::MatrixFrequencySpec parse_matrix_frequency(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params,
                                                    const fe::FrequencyModelOptions& options);

} // namespace flexuq::app
