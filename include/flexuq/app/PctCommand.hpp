// SPDX-License-Identifier: MIT
#pragma once
/// @file PctCommand.hpp
/// @brief `flexuq simulate` with an `uncertainty: {method: galerkin, …}` section: the intrusive
/// polynomial chaos of a planar mechanism (pct, seed 004) → HDF5 (docs/pct.md, docs/hdf5-schema.md).

#include "flexuq/config/Config.hpp"

#include <mpi.h>

namespace flexuq::app {

/// Parse the job (config/PctJob) and run it (workflow::run_pct), a library option error named by its
/// job key. @note Collective.
void run_pct_simulate(MPI_Comm comm, const io::Config& cfg);

} // namespace flexuq::app
