// SPDX-License-Identifier: MIT
#pragma once
/// @file Job.hpp
/// @brief A planar PCT simulate job as typed data (issue #35): the mechanism, its uncertain inputs,
/// the Galerkin and generalized-α options, the outputs and the result file. Built from the job file
/// by config/PctJob, run by workflow::run_pct.

#include "flexuq/pct/Models.hpp"

#include <string>
#include <vector>

namespace flexuq::pct {

/// A PCT simulate job (every key checked by the parse pass before any work).
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
  std::string source; ///< the job file, which the message about an unassemblable mechanism names
};

} // namespace flexuq::pct
