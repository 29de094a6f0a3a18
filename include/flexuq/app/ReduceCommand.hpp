// SPDX-License-Identifier: MIT
#pragma once
/// @file ReduceCommand.hpp
/// @brief `flexuq reduce`: component-mode synthesis of one component → a reduced flexible body
/// (HDF5 `/reduced`, XDMF, optional MatrixMarket). Keys: docs/config.md, theory: docs/cms.md.

#include "flexuq/config/Config.hpp"
#include "flexuq/workflow/Reduce.hpp"

#include <mpi.h>

namespace flexuq::app {

/// The `reduce:` section (everything but model.* and output; source and output are run_reduce's).
/// Throws InputError naming the key.
using ReduceJob = workflow::ReduceJob;
ReduceJob parse_reduce_job(const io::Config& cfg);

/// @note Collective.
void run_reduce(MPI_Comm comm, const io::Config& cfg);

} // namespace flexuq::app
