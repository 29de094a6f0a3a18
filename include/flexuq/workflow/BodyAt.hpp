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

/// One `body-at --set` value, parsed by app: NAME=value (physical) or xi.NAME=value (germ).
struct BodySetting {
  std::string name;  ///< the parameter, without "xi."
  double value = 0;  ///< finite
  bool germ = false; ///< a germ value (xi.NAME)
  std::string text;  ///< as given, for messages ("" in a job made in code: name=value)
  std::string shown() const { return !text.empty() ? text : (germ ? "xi." : "") + name + "=" + std::to_string(value); }
};

struct BodyAtJob {
  std::string body;                  ///< the stochastic (or POD) body file read
  std::vector<BodySetting> settings; ///< unset parameters: their means
  std::string output;                ///< the deterministic body file written (never @p body itself)
};

/// Write the body at job.settings to job.output (under a temporary name, renamed at the end).
/// @note Collective.
void run_body_at(MPI_Comm comm, const BodyAtJob& job);

/// The index of @p s's parameter in @p names (the body file's); InputError naming @p path and the
/// known names for an unknown parameter.
std::size_t parameter_index(const BodySetting& s, const std::vector<std::string>& names, const std::string& path);

} // namespace flexuq::workflow
