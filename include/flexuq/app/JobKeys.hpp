// SPDX-License-Identifier: MIT
#pragma once
/// @file JobKeys.hpp
/// @brief The one place where a verb maps a library's option fields to its job-file keys (issue #33
/// item 2). The libraries name a bad option by its field in an OptionError ("checkout.free_free",
/// "solver.step", "interfaces"); the parse pass knows which section each options struct came from, and
/// each verb renders the message with the key of its job ("reduce.checkout.free_free").

#include "flexuq/core/Error.hpp"

#include <string>
#include <utility>
#include <vector>

namespace flexuq::app {

/// Field prefixes of library options → the job-file keys they were read from.
class JobKeys {
 public:
  explicit JobKeys(std::vector<std::pair<std::string, std::string>> prefixes) : prefixes_(std::move(prefixes)) {}
  /// The job key of @p field: its longest listed prefix (whole dotted parts: "modes" covers "modes.count",
  /// not "modes_x") replaced by that prefix's key; a field no prefix covers is its own key.
  std::string key_of(const std::string& field) const;
  /// @p e's message for the user: an OptionError with every option named by its job key, anything
  /// else as it is.
  std::string message(const std::exception& e) const;

 private:
  std::vector<std::pair<std::string, std::string>> prefixes_;
};

/// `flexuq modes`: fe and io options of the job's model and modes sections.
const JobKeys& modes_keys();
/// `flexuq reduce` (deterministic and stochastic): cms options of the reduce section, the campaign
/// options of a stochastic reduce, fe and io options of the model section.
const JobKeys& reduce_keys();
/// `flexuq campaign`: campaign options, the model's options (fe, io, uq, the solver of a simulate job)
/// and the cms options of the reduce jobs a simulation campaign re-runs (model.reduce.<body>: their
/// reduce sections).
const JobKeys& campaign_keys();
/// `flexuq simulate`: the solver section and the model section of the bodies' meshes.
const JobKeys& simulate_keys();

/// Run @p run (a verb); an OptionError escaping it becomes the InputError the user reads, naming the
/// job key by @p keys (the CLI's main handler prints it as before).
template <class Run> void with_job_keys(const JobKeys& keys, Run&& run) {
  try {
    run();
  } catch (const OptionError& e) {
    throw InputError(keys.message(e));
  }
}

} // namespace flexuq::app
