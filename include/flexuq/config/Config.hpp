// SPDX-License-Identifier: MIT
#pragma once
/// @file Config.hpp
/// @brief YAML job files with `--set a.b=value` overrides and strict key checking: every key a
/// command reads is marked used; keys left unread at the end are errors that name them.
///
/// Module `config` (flexuq_config: io + yaml-cpp), which only `app` links: YAML stays out of the
/// libraries (issue #33). The namespace stays flexuq::io, the reading of input files, so that the
/// parsers' `io::Config` reads as before.

#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"

#include <mpi.h>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace flexuq::io {

class Config {
public:
  Config() = default;
  /// Read @p path on rank 0 of @p comm, broadcast it, parse everywhere and apply @p overrides
  /// ("a.b=value", value parsed as YAML so lists work: `modes.fixed=[A,B]`).
  /// @note Collective. Throws InputError naming the file (and line for YAML syntax errors).
  static Config load(MPI_Comm comm, const std::string& path, const std::vector<std::string>& overrides = {});
  /// Parse YAML text directly (tests, generated jobs). Not collective.
  static Config from_string(const std::string& yaml, const std::string& source = "<string>",
                            const std::vector<std::string>& overrides = {});

  /// A deep copy of the tree (YAML::Clone) with no key marked used yet: the same job as parsed,
  /// without parsing its text again (a job evaluated at many samples). The copy keeps every node's
  /// file line (set again after the Clone, which drops them), so its messages name lines as the
  /// parse's do. Not collective.
  Config copy() const;

  const std::string& source() const { return source_; }
  /// Folder of the job file, for resolving relative paths (mesh files, outputs).
  std::string directory() const;
  /// Resolve @p p relative to the job file's folder unless absolute.
  std::string resolve_path(const std::string& p) const;
  /// Output paths are relative to the working directory (where the job is run), as users expect
  /// from `output: crank-modes.h5`; returned unchanged (kept as a hook for a future run folder).
  std::string resolve_output(const std::string& p) const { return p; }

  bool has(const std::string& key) const;
  /// The node at a dotted key; marks the whole subtree used. Throws InputError if absent.
  YAML::Node node(const std::string& key) const;
  /// Typed read; throws InputError naming key and file on absence or wrong type.
  template <class T> T get(const std::string& key) const;
  template <class T> T get(const std::string& key, const T& fallback) const {
    return has(key) ? get<T>(key) : fallback;
  }
  /// The first of @p keys that is present (aliases such as `modes.fixed` / `model.fixed`).
  std::optional<std::string> first_present(const std::vector<std::string>& keys) const;
  /// Mark a key (and its subtree) used without reading it.
  void mark_used(const std::string& key) const;
  /// Throws InputError listing every key present in the file but never read.
  void check_all_used() const;

  const YAML::Node& root() const { return root_; }

private:
  YAML::Node lookup(const std::string& key) const;
  std::string source_;
  YAML::Node root_;
  mutable std::set<std::string> used_;
  std::set<std::string> overridden_; ///< keys given with --set (no file line to point at)
};

template <class T> T Config::get(const std::string& key) const {
  YAML::Node n = node(key);
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    throw InputError(source_ + ": key '" + key + "' has a value of the wrong type" +
                     (n.IsScalar() ? " ('" + shorten(n.Scalar()) + "')" : n.IsSequence() ? " (a list)" : n.IsMap() ? " (a mapping)" : "") +
                     (n.Mark().line >= 0 ? " (line " + std::to_string(n.Mark().line + 1) + ")" : std::string()));
  }
}

} // namespace flexuq::io
