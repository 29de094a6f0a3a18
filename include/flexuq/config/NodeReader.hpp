// SPDX-License-Identifier: MIT
#pragma once
/// @file NodeReader.hpp
/// @brief Strict reading of a job file's nested maps and lists (the simulate job's bodies, joints,
/// forces, outputs): unknown keys refused with the list of known ones, typed values with messages
/// "<file>: <key> (line N): <message>" (InputError). For keys below one io::Config::node().

#include "flexuq/core/Error.hpp"

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace flexuq::io {

class NodeReader {
public:
  /// @p source: the job file the messages name.
  explicit NodeReader(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  /// 1-based line of @p n in the job file; 0 when unknown (a value given by --set).
  static int line(const YAML::Node& n) { return n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }
  /// " (line N)", or nothing when unknown.
  std::string at(const YAML::Node& n) const;
  /// @throws InputError "<file>: <key> (line N): <msg>".
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& msg) const;
  void require_map(const YAML::Node& n, const std::string& key) const;
  /// A map whose keys are all in @p allowed; "unknown key '<key>.<k>' (line N) (a, b, ...)" otherwise.
  void keys(const YAML::Node& n, const std::string& key, const std::set<std::string>& allowed) const;
  /// A finite number.
  double number(const YAML::Node& n, const std::string& key) const;
  /// @p map[@p k] as a number, @p fallback when absent.
  double number(const YAML::Node& map, const std::string& key, const char* k, double fallback) const;
  /// @p map[@p k] as a number; "'k' is missing" when absent.
  double required(const YAML::Node& map, const std::string& key, const char* k) const;
  /// @p map[@p k] as a string; @p fallback when absent, or "'k' is missing" when @p fallback is empty.
  std::string text(const YAML::Node& map, const std::string& key, const char* k, const std::string& fallback = {}) const;
  bool flag(const YAML::Node& map, const std::string& key, const char* k, bool fallback) const;
  /// A list of finite numbers.
  std::vector<double> list(const YAML::Node& n, const std::string& key) const;
  /// @p map[@p k] as a list of exactly @p n numbers ("needs <n> numbers <what>, got m"); @p fallback when absent.
  std::vector<double> fixed_list(const YAML::Node& map, const std::string& key, const char* k, std::size_t n,
                                 const std::string& what, std::vector<double> fallback) const;

private:
  std::string source_;
};

} // namespace flexuq::io
