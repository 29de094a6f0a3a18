// SPDX-License-Identifier: MIT
#pragma once
/// @file SimulationCampaign.hpp
/// @brief A campaign whose model is a multibody simulation (`model.simulation`, docs/config.md):
/// the factory of mbs::SimulationModel from a typed spec. Per sample the simulate job is run with
///  - the stiffness of flexible bodies scaled by a parameter (θ / reference, `model.stiffness`),
///  - stochastic bodies evaluated at the parameters of their names,
///  - bodies reduced again at the parameters left (`model.reduce`: the group's solvers kept,
///    cms::StochasticBodyModel::body_at),
///  - the simulate job's own numbers set from the sample (`at_sample`: masses, inertias, joint points,
///    spring data, loads, initial conditions; app: a parameter named by a key path of the job and
///    `model.set`), the simulation built again per sample, so that changed geometry re-assembles,
/// and the named outputs are sampled at given times (seed 000 T19: x_A(0.1 s)). app/ModelFactory.cpp
/// makes the spec of a campaign job; every campaign parameter must change something.

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/cms/StochasticBodyModel.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/mbs/SimulationModel.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::workflow {

/// `model.reduce.<body>`: the deterministic reduce job of a flexible body of the simulation, run
/// again per sample at the campaign parameters that act on materials.
struct ReduceBodySpec {
  std::string body; ///< the flexible body it replaces
  std::string path; ///< its reduce job, for messages
  std::shared_ptr<const io::Mesh> mesh;
  fe::ComponentOptions component;
  /// interfaces, reducer and build of the job (free_free 0, no basis), checked by the parser against
  /// the stochastic path (cms::validate_stochastic); `parameters` and `nominal` are set by the
  /// factory from the campaign parameters left to the re-reduced bodies.
  cms::StochasticReduceOptions options;
};

struct SimulationCampaignSpec {
  std::string source;          ///< the campaign job, for messages
  std::string simulation_path; ///< the simulate job (`model.simulation`), for messages
  SimulationSpec simulation;
  std::vector<campaign::ParameterSpec> params; ///< the campaign's parameters, in order
  /// Per parameter: the material property it sets when it acts on the model.reduce bodies
  /// (`parameters.<p>.param`: E | nu | rho | G | C, default its name); checked only for those.
  std::vector<std::string> material;
  std::vector<mbs::StiffnessParameter> stiffness; ///< `model.stiffness`
  std::vector<std::string> outputs;               ///< `outputs.simulation`: names of the job's outputs
  std::vector<double> times;                      ///< `outputs.times`
  std::vector<ReduceBodySpec> reduce;             ///< `model.reduce`
  /// The simulate job at a sample θ (campaign order), when parameters set numbers of the job itself
  /// (`simulation` is then the job at the parameter means); empty: `simulation` for every sample.
  /// Called per sample on every rank of a group: it must depend on θ only. A bad sample (a number
  /// the job refuses) throws InputError: that sample fails, the campaign goes on.
  std::function<SimulationSpec(const std::vector<double>& theta)> at_sample;
  /// The parameters (indices) that at_sample reads: each of them changes the simulation.
  std::vector<std::size_t> job_parameters;
  /// What sets numbers of the simulate job, named in the message on a parameter that changes
  /// nothing (app: "a parameter named by a key path of the simulate job, or model.set").
  std::string job_key = "at_sample";
  /// The job keys of `simulation`, `reduce` and `stiffness`, named in messages (app: model.simulation,
  /// model.reduce, model.stiffness); a spec made in code names the fields.
  std::string simulation_key = "simulation", reduce_key = "reduce", stiffness_key = "stiffness";
};

/// Checks the spec now — the simulation built once (body files read), outputs, times and bodies
/// known, every parameter changing something, the re-reduced bodies' parameters — so bad input
/// fails before the campaign. Not collective; the factory it returns is collective on the group
/// (the model.reduce bodies' reference reductions). @throws InputError naming spec.source and the
/// key (spec.simulation_key, spec.reduce_key.<body>, the parameter); an error of a library option
/// (cms, mbs::SimulationModel's arguments) stays an OptionError, for the caller to name its key.
ModelFactory simulation_campaign_factory(const SimulationCampaignSpec& spec);

} // namespace flexuq::workflow
