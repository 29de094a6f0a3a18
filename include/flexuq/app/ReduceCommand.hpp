// SPDX-License-Identifier: MIT
#pragma once
/// @file ReduceCommand.hpp
/// @brief `flexuq reduce`: component-mode synthesis of one component → a reduced flexible body
/// (HDF5 `/reduced`, XDMF, optional MatrixMarket). Keys: docs/config.md, theory: docs/cms.md.

#include "flexuq/cms/Op4Export.hpp"
#include "flexuq/cms/Reduction.hpp"
#include "flexuq/config/Config.hpp"

#include <mpi.h>

#include <vector>

namespace flexuq::app {

/// Parsed `reduce:` section (everything but model.* and output). Throws InputError naming the key.
struct ReduceJob {
  std::vector<cms::InterfaceSpec> interfaces;
  cms::ReducerOptions reducer;
  cms::BuildOptions build;
  int free_free = 10;           ///< reduce.checkout.free_free
  bool stress_modes = false;    ///< reduce.stress_modes: /reduced/stress_modes (nodal stresses of every column)
  std::string matrix_market;    ///< prefix, "" = none
  std::string op4;              ///< reduce.op4 file, "" = none
  cms::Op4ExportOptions op4_options;
};
ReduceJob parse_reduce_job(const io::Config& cfg);

/// @note Collective.
void run_reduce(MPI_Comm comm, const io::Config& cfg);

} // namespace flexuq::app
