// SPDX-License-Identifier: MIT
#pragma once
/// @file SimulationModel.hpp
/// @brief `model.simulation` of a campaign job → the factory of mbs::SimulationModel:
///   model:
///     simulation: slider-crank-flexible.yaml        # a simulate job (relative to this file)
///     stiffness:                                     # per parameter: K̄ of these bodies ← θ / reference · K̄
///       E: {reference: 1.99953e11, bodies: [crank, rod]}
///     reduce: {rod: rod-cb.yaml}                     # bodies reduced again per sample (the other parameters)
///   outputs: {simulation: [x_A], times: [0.1]}       # the job's named outputs at these times
/// Every campaign parameter must scale something. Not collective (every rank reads the job); the
/// factory it returns is collective on the group (the model.reduce bodies' reference reductions).

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/io/Config.hpp"

namespace flexuq::app {

ModelFactory simulation_factory(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params);

} // namespace flexuq::app
