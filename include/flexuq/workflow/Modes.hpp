// SPDX-License-Identifier: MIT
#pragma once
/// @file Modes.hpp
/// @brief The `flexuq modes` run on a component already built: optional MatrixMarket export, the
/// eigensolve, the HDF5 result (docs/hdf5-schema.md "modes") and the summary on rank 0 (sizes,
/// mode table, per-phase wall time, peak memory). app/ModesCommand parses the job into ModesJob.

#include "flexuq/core/Log.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"

#include <mpi.h>

#include <string>

namespace flexuq::workflow {

struct ModesJob {
  fe::ModeOptions modes;     ///< constrained / constraint_description are set from the component
  std::string output;        ///< the modes result file
  std::string export_prefix; ///< <prefix>_{K,M}.mtx, _dofs.txt, _sets.yaml (fe::export_component); "" none
};

/// The run; each file is written under a temporary name and renamed when complete. @p times: the
/// phases so far (reading, assembly), to which the run adds its own. @note Collective.
fe::ModeSet run_modes(MPI_Comm comm, const fe::Component& comp, ModesJob job, log::PhaseTimes& times);

} // namespace flexuq::workflow
