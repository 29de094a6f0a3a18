// SPDX-License-Identifier: MIT
#pragma once
/// @file StaticCommand.hpp
/// @brief `flexuq static job.yaml`: seed 002's nonlinear static solver (NFE / NFF / LFF) on a generated
/// cantilever → HDF5 /static (docs/nff.md).

#include "flexuq/config/Config.hpp"

#include <mpi.h>

namespace flexuq::app {

/// Read the `static:` section and `output`, run the load path, write the results and print a table of
/// the report set's displacement per step on rank 0. @note Collective.
void run_static(MPI_Comm comm, const io::Config& cfg);

} // namespace flexuq::app
