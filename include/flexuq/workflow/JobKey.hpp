// SPDX-License-Identifier: MIT
#pragma once
/// @file JobKey.hpp
/// @brief Where a value was given in a job file, kept in a typed job struct so that a check made
/// after parsing (one that needs a body file, say) names the key as the parser would:
/// "<file>: <key> (line N): <message>". A struct made in code may leave it empty.

#include "flexuq/core/Error.hpp"

#include <string>

namespace flexuq::workflow {

struct JobKey {
  std::string file; ///< the job file; empty for a struct made in code
  std::string key;  ///< e.g. "outputs[3].node"
  int line = 0;     ///< 1-based line of the value; 0: unknown

  /// "<key> (line N)" (the key alone when the line is unknown).
  std::string where() const { return line > 0 ? key + " (line " + std::to_string(line) + ")" : key; }
  /// "<file>: <key> (line N)", each part only when known.
  std::string prefix() const {
    const std::string w = where();
    if (file.empty()) return w;
    return w.empty() ? file : file + ": " + w;
  }
  /// @throws InputError "<prefix>: @p message".
  [[noreturn]] void fail(const std::string& message) const {
    const std::string p = prefix();
    throw InputError(p.empty() ? message : p + ": " + message);
  }
  /// @p e after "<prefix>: "; an OptionError stays one, so that the CLI still names its option.
  [[noreturn]] void fail(const InputError& e) const {
    const std::string p = prefix();
    rethrow_input_error(e, p.empty() ? p : p + ": ");
  }
  /// "<prefix>: @p before<option>@p after" as an OptionError: a hint naming an option by its field
  /// (the CLI renders the job key, app/JobKeys), e.g. the reduce option that makes what a body file lacks.
  [[noreturn]] void fail_option(const std::string& before, const std::string& option, const std::string& after) const {
    const std::string p = prefix();
    throw OptionError(option, "{}").wrapped((p.empty() ? p : p + ": ") + before, after);
  }
};

} // namespace flexuq::workflow
