// SPDX-License-Identifier: MIT
#pragma once
/// @file Identify.hpp
/// @brief `flexuq identify job.yaml` without the YAML (docs/rom.md "Parameter identification"): BFGS
/// (ident/Bfgs.hpp) on the cost and adjoint gradient of ident/Adjoint.hpp from the start values, the
/// signals at the result, and the HDF5 file of the history (docs/hdf5-schema.md "identify").

#include "flexuq/ident/Adjoint.hpp"
#include "flexuq/ident/Bfgs.hpp"

#include <string>
#include <vector>

namespace flexuq::ident {

struct IdentifyJob {
  Problem problem;                 ///< measured set (synthetic: simulate_signals at target)
  std::vector<std::string> names;  ///< the parameters (the job's key paths)
  Vec start;
  Vec target;                      ///< the synthetic measurements' parameters (empty: measured data)
  BfgsOptions bfgs;
  std::string output_path;
  std::string model_path, rom_path; ///< for the file's attributes (rom_path empty: full model)
};

struct IdentifyResult {
  BfgsResult bfgs;
  Mat fitted;              ///< the signals at the last iterate, (N + 1) × signals
  double cpu_seconds = 0;  ///< the whole BFGS run (processor time)
};

/// BFGS from @p job.start; parameters must stay positive (a trial with p_i ≤ 0 is shortened).
IdentifyResult identify(const IdentifyJob& job);

/// Write /identify (docs/hdf5-schema.md) to @p job.output_path on MPI_COMM_SELF.
void write_identification(const IdentifyJob& job, const IdentifyResult& r);

} // namespace flexuq::ident
