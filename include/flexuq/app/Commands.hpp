// SPDX-License-Identifier: MIT
#pragma once
/// @file Commands.hpp
/// @brief The verbs of the flexuq CLI. Each reads its keys from the job file, runs collectively on
/// @p comm and prints its summary on rank 0.

#include "flexuq/config/Config.hpp"

#include <mpi.h>

namespace flexuq::app {

/// `flexuq modes`: eigenmodes of one component → HDF5 + XDMF. @note Collective.
void run_modes(MPI_Comm comm, const io::Config& cfg);

/// `flexuq campaign`: a sampling / PCE campaign over groups of ranks (issue #4). @note Collective.
void run_campaign(MPI_Comm comm, const io::Config& cfg, bool resume);

/// `flexuq simulate`: a multibody simulation (issue #8) → HDF5. Serial on rank 0. @note Collective.
void run_simulate(MPI_Comm comm, const io::Config& cfg);
/// `flexuq rom`: seed 003's reduced-order model (V, R0, Γ) from simulate snapshots (issue #34) → HDF5.
/// Serial on rank 0. @note Collective.
void run_rom(MPI_Comm comm, const io::Config& cfg);
/// `flexuq identify`: seed 003 ch. 6's parameter identification (adjoint gradient + BFGS, issue #34
/// item 5) → HDF5. Serial on rank 0. @note Collective.
void run_identify(MPI_Comm comm, const io::Config& cfg);

} // namespace flexuq::app
