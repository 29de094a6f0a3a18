// SPDX-License-Identifier: MIT
#pragma once
/// @file PctCommand.hpp
/// @brief `flexuq simulate` with an `uncertainty: {method: galerkin, …}` section: the intrusive
/// polynomial chaos of a planar mechanism (pct, seed 004) → HDF5 (docs/pct.md, docs/hdf5-schema.md).

#include "flexuq/config/Config.hpp"
#include "flexuq/pct/Models.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::app {

/// The job's parsed content (every key checked before any work).
struct PctJob {
  pct::PlanarMechanism mechanism;
  std::vector<pct::UncertainInput> inputs;
  std::vector<std::string> distributions; ///< each input's distribution as written ("normal(1, 0.05)")
  pct::GalerkinOptions galerkin;
  pct::AlphaOptions solver;
  double start = 0;
  int output_points = 8;
  std::vector<int> outputs; ///< indices into mechanism.output_names()
  std::string output_path;
};

/// Parse a PCT simulate job. @throws InputError naming the file, key and line.
PctJob parse_pct_job(const io::Config& cfg);

/// Run it (every rank integrates the same small system; rank 0 writes). @note Collective.
void run_pct_simulate(MPI_Comm comm, const io::Config& cfg);

} // namespace flexuq::app
