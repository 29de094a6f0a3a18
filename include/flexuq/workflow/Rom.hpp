// SPDX-License-Identifier: MIT
#pragma once
/// @file Rom.hpp
/// @brief Seed 003's reduced-order multibody models as runs (docs/rom.md): `flexuq rom` (the offline
/// basis from the snapshots of one or several `flexuq simulate` runs) and the online run that
/// `flexuq simulate` makes when its job names a `rom:` file.

#include "flexuq/mbs/Simulation.hpp"
#include "flexuq/rom/Basis.hpp"
#include "flexuq/rom/ReducedIntegrator.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace flexuq::workflow {

/// A `flexuq rom` job: the full model (a simulate job), its training runs, the options, the result.
struct RomJobSpec {
  SimulationSpec model;
  std::vector<std::string> training; ///< result files of `flexuq simulate` with `snapshots: true`
  rom::RomOptions options;
  std::string output_path = "rom.h5";
};

/// Build the model, read the training snapshots, compute V, R0 and Γ and write them (rank 0 works,
/// the others wait). Returns the basis (on rank 0; empty elsewhere). @note Collective.
rom::ReducedBasis build_rom(MPI_Comm comm, const RomJobSpec& spec);

/// The online run of @p job with the ROM in @p rom_path: the full model's consistent initial state,
/// reduced (rom::ReducedIntegrator), integrated and recorded back-projected. Not collective.
mbs::SimulationResult run_reduced_simulation(mbs::SimulationJob& job, const std::string& rom_path,
                                             rom::ReducedStats& stats, rom::ReducedBasis& basis,
                                             const std::function<void(double)>& progress = {});
/// The same with the basis already read (a campaign reads it once): @p on_start sees the full
/// model's consistent initial state before it is reduced (a campaign refuses a sample there).
mbs::SimulationResult run_reduced_simulation(mbs::SimulationJob& job, const rom::ReducedBasis& basis,
                                             rom::ReducedStats& stats, const std::function<void(double)>& progress = {},
                                             const std::function<void(const mbs::State&)>& on_start = {});
/// Add the /rom report of a reduced run (the ROM file, r, l, the rank check) to the result @p path.
void write_reduced_report(const std::string& path, const std::string& rom_path, const rom::ReducedBasis& basis,
                          const rom::ReducedStats& stats);

} // namespace flexuq::workflow
