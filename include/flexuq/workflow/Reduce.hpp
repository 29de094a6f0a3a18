// SPDX-License-Identifier: MIT
#pragma once
/// @file Reduce.hpp
/// @brief The deterministic `flexuq reduce` run on a component already built: the interface work
/// space, cms::reduce, the body file (with stress modes when asked), MatrixMarket and OP4 exports,
/// the summary on rank 0. app/ReduceCommand parses the `reduce:` section into ReduceJob (the same
/// struct serves the stochastic and simulation-campaign paths, which take its reduction options).

#include "flexuq/cms/Op4Export.hpp"
#include "flexuq/cms/Reduce.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/Component.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::workflow {

struct ReduceJob {
  std::vector<cms::InterfaceSpec> interfaces;
  cms::ReducerOptions reducer;
  cms::BuildOptions build;
  int free_free = 10;           ///< checkout.free_free: free-free modes compared in the check-out
  bool stress_modes = false;    ///< /reduced/stress_modes (nodal stresses of every column)
  std::string matrix_market;    ///< prefix of <prefix>_{K,M}.mtx, "" = none
  std::string op4;              ///< OP4 file, "" = none
  cms::Op4ExportOptions op4_options;
  std::string source;           ///< the job file, for messages ("" for a job made in code)
  std::string output;           ///< the body file
};

/// The run; every file is written under a temporary name and renamed when all are complete.
/// @throws InputError (an OptionError naming the field: method, interfaces, stress_modes, op4) for a
/// job the component cannot serve. @note Collective.
cms::ReduceResult run_reduce(MPI_Comm comm, const fe::Component& comp, const ReduceJob& job, log::PhaseTimes& times);

} // namespace flexuq::workflow
