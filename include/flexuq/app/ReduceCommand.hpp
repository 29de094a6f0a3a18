// SPDX-License-Identifier: MIT
#pragma once
/// @file ReduceCommand.hpp
/// @brief `flexuq reduce`: component-mode synthesis of one component → a reduced flexible body
/// (HDF5 `/reduced`, XDMF, optional MatrixMarket). Keys: docs/config.md, theory: docs/cms.md.

#include "flexuq/config/Config.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/workflow/Reduce.hpp"

#include <mpi.h>

namespace flexuq::app {

/// The `reduce:` section (everything but model.* and output; source and output are run_reduce's).
/// Throws InputError naming the key.
using ReduceJob = workflow::ReduceJob;
ReduceJob parse_reduce_job(const io::Config& cfg);

/// Refuses the whole-node supports of model.fixed / modes.fixed in a reduce job (interfaces replace
/// them): a listed set is accepted only if the mesh's reader gave it components
/// (io::Mesh::set_components: Abaqus *BOUNDARY, Nastran SPC/SPC1), like the {set, dofs} form.
/// @p mesh null (model.matrices): every listed set is whole-node. Throws InputError naming the key.
void check_reduce_supports(const io::Config& cfg, const io::Mesh* mesh);

/// @note Collective.
void run_reduce(MPI_Comm comm, const io::Config& cfg);

} // namespace flexuq::app
