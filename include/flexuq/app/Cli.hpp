// SPDX-License-Identifier: MIT
#pragma once
/// @file Cli.hpp
/// @brief The `flexuq` command line: verb, job file, flexuq flags; the rest goes to PETSc/SLEPc.

#include <string>
#include <vector>

namespace flexuq::app {

struct CliArgs {
  std::string verb;                    ///< modes | help | version
  std::string config;                  ///< job file
  std::vector<std::string> overrides;  ///< --set a.b=value
  std::string log_level;               ///< --log-level
  bool resume = false;                 ///< --resume
  std::string output;                  ///< -o / --output (body-at)
  std::vector<std::string> petsc_args; ///< everything else, for PETSc's options database
};

/// Split argv. Throws InputError on a malformed flexuq flag. Not collective.
CliArgs parse_cli(int argc, char** argv);
std::string usage();

} // namespace flexuq::app
