// SPDX-License-Identifier: MIT
#pragma once
/// @file SimulationOptions.hpp
/// @brief The `flexuq simulate` job file → mbs::SimulationJob (docs/config.md "simulate"): the
/// bodies (rigid, ground, flexible with their reduced-body files), joints, forces, solver options
/// and outputs, built through mbs's typed API (System::add_body / add_joint / add_force,
/// SolverOptions, OutputSpec). The mbs library never reads YAML; every key is checked here with
/// messages naming file, key and line (InputError → exit 2).

#include "flexuq/io/Config.hpp"
#include "flexuq/mbs/Simulation.hpp"

namespace flexuq::app {

/// Read and check every key of a simulate job. @throws InputError naming file, key and line.
mbs::SimulationJob read_simulation_job(const io::Config& cfg);

} // namespace flexuq::app
