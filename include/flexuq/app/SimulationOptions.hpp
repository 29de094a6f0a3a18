// SPDX-License-Identifier: MIT
#pragma once
/// @file SimulationOptions.hpp
/// @brief The `flexuq simulate` job file → workflow::SimulationSpec (docs/config.md "simulate"): the
/// bodies (rigid, ground, flexible by their body files), joints, forces, solver options and outputs.
/// One parse pass with strict keys: every check that needs only the job file is made here, with
/// messages naming file, key and line (InputError → exit 2); no body file is read (the checks on
/// them are workflow::build_simulation's, naming the keys this pass records).

#include "flexuq/config/Config.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

namespace flexuq::app {

/// Read and check every key of a simulate job. @throws InputError naming file, key and line.
workflow::SimulationSpec parse_simulation_job(const io::Config& cfg);
/// The job's `rom:` file resolved against the job's folder (docs/rom.md), or "" without the key.
std::string simulation_rom(const io::Config& cfg);

} // namespace flexuq::app
