// SPDX-License-Identifier: MIT
#pragma once
/// @file Simulate.hpp
/// @brief The run of `flexuq simulate`: one serial simulation of a SimulationSpec, its HDF5 result
/// (docs/hdf5-schema.md "simulate") and its log (headline, progress, redundant rows, summary).

#include "flexuq/workflow/SimulationSpec.hpp"

#include <mpi.h>

namespace flexuq::workflow {

/// Build @p spec on every rank (bad body files fail the same way everywhere), simulate it on rank 0
/// and write spec.output_path there (under a temporary name, renamed at the end); the other ranks
/// idle. @note Collective.
void simulate(MPI_Comm comm, const SimulationSpec& spec);

} // namespace flexuq::workflow
