// SPDX-License-Identifier: MIT
#pragma once
/// @file StaticJob.hpp
/// @brief The `flexuq static` job file (docs/nff.md, docs/config.md "static") as nl's typed problem:
/// the mesh (a file or the structured cantilever), material, supports, loads, solver options, the
/// node set the log reports and the result file. One parse pass with strict keys; messages name
/// file, key and line (InputError).

#include "flexuq/config/Config.hpp"
#include "flexuq/nl/Static.hpp"

#include <string>
#include <vector>

namespace flexuq::io {

struct StaticJob {
  nl::StaticMesh mesh;
  std::vector<nl::StaticSupport> supports;
  std::vector<nl::StaticLoad> loads;
  nl::StaticOptions options;
  std::string report = "tip_mid";
  std::string output;
};

/// Read and check every key of a static job (nl::validate included). @throws InputError naming file,
/// key and line; OptionError naming nl's field (static_job_key() renders it).
StaticJob parse_static_job(const Config& cfg);

/// The job key of an nl option field: the mesh generator's under static.mesh, the solver's under
/// static.solver, a load's force and follower as its value and type, the rest under static.
std::string static_job_key(const std::string& field);

} // namespace flexuq::io
