// SPDX-License-Identifier: MIT
#pragma once
/// @file BodyAt.hpp
/// @brief `flexuq body-at file.h5 --set E=2.05e11 [--set xi.rho=0.5] -o at.h5`: the deterministic
/// body of a stochastic body file (or a POD body file, workflow/PodBody.hpp) at given parameters,
/// with the `/reduced` layout of `flexuq reduce` (and /mesh copied).

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace flexuq::workflow {

struct BodyAtJob {
  std::string body;                  ///< the stochastic (or POD) body file read
  std::vector<std::string> settings; ///< NAME=value (physical) or xi.NAME=value (germ); unset: the mean
  std::string output;                ///< the deterministic body file written (never @p body itself)
};

/// Write the body at job.settings to job.output (under a temporary name, renamed at the end).
/// @note Collective.
void run_body_at(MPI_Comm comm, const BodyAtJob& job);

/// One `body-at --set` value: NAME=value (physical) or xi.NAME=value (germ, @p germ true); InputError
/// naming @p path and the known names for an unknown parameter or a value that is not a number.
struct BodySetting {
  std::size_t index = 0;
  double value = 0;
  bool germ = false;
};
BodySetting parse_body_setting(const std::string& s, const std::vector<std::string>& names, const std::string& path);

} // namespace flexuq::workflow
