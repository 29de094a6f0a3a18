// SPDX-License-Identifier: MIT
#pragma once
/// @file ModelFactory.hpp
/// @brief The job file → typed campaign options, and the factory of the model its `model:` section
/// names. This is the only place that knows every model kind: adding one means a branch here and
/// a class implementing core/Model.hpp in its own module; `campaign` does not change.

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/config/Config.hpp"

namespace flexuq::app {

/// `parameters`, `method`, `campaign.*`, `output` of a job, parsed (no cross-option checks: those
/// are CampaignOptions::check, run by campaign::make_plan). Not collective.
campaign::CampaignOptions campaign_options(const io::Config& cfg);

/// `parameters.<name>.param` (E | nu | rho | G | C, default: the name) and `.set` (default: every
/// element) → the material parameters of an FE model, in campaign order. Not collective. Throws
/// InputError naming the job and the parameter.
std::vector<fe::MaterialParameter> material_parameters(const io::Config& cfg,
                                                       const std::vector<campaign::ParameterSpec>& params);

/// The factory of the job's model, for the campaign's parameters @p params (in campaign order).
/// Reads and checks every `model.*`/`outputs.*` key now (so Config::check_all_used can run before
/// the campaign starts); the returned factory builds the model on a group's communicator.
///  - `model.function: ishigami | oscillator | polynomial | failing` → uq::make_analytic_model;
///  - otherwise the FE frequency model (fe::FrequencyModel) of `model.mesh`/`model.generator`,
///    `outputs.frequencies`, `outputs.mode_shapes`, `modes.tol`, and per parameter
///    `parameters.<name>.param` (E | nu | rho | G | C, default: the name) and `.set`;
///  - `model.delay_seconds` (test knob, any model): each evaluation first sleeps that long.
/// Not collective (every rank reads the mesh).
ModelFactory make_model_factory(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params);

/// @p f, each evaluation first sleeping `model.delay_seconds` (a test knob for kill-and-resume
/// tests; @p f itself when the key is absent or 0).
ModelFactory with_delay(const io::Config& cfg, ModelFactory f);

} // namespace flexuq::app
