// SPDX-License-Identifier: MIT
#include "flexuq/config/NodeReader.hpp"

#include <cmath>

namespace flexuq::io {

std::string NodeReader::at(const YAML::Node& n) const {
  return n.Mark().line >= 0 ? " (line " + std::to_string(n.Mark().line + 1) + ")" : std::string();
}

void NodeReader::fail(const YAML::Node& n, const std::string& key, const std::string& msg) const {
  throw InputError(source_ + ": " + key + at(n) + ": " + msg);
}

void NodeReader::require_map(const YAML::Node& n, const std::string& key) const {
  if (!n.IsMap()) fail(n, key, "must be a mapping {key: value, ...}");
}

void NodeReader::keys(const YAML::Node& n, const std::string& key, const std::set<std::string>& allowed) const {
  require_map(n, key);
  for (const auto& kv : n) {
    const auto k = kv.first.as<std::string>();
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(source_ + ": unknown key '" + key + "." + k + "'" + at(kv.first) + " (" + list + ")");
    }
  }
}

double NodeReader::number(const YAML::Node& n, const std::string& key) const {
  try {
    const double v = n.as<double>();
    if (!std::isfinite(v)) fail(n, key, "must be a finite number");
    return v;
  } catch (const YAML::Exception&) {
    fail(n, key, "must be a number");
  }
}

double NodeReader::number(const YAML::Node& map, const std::string& key, const char* k, double fallback) const {
  return map[k] ? number(map[k], key + "." + k) : fallback;
}

double NodeReader::required(const YAML::Node& map, const std::string& key, const char* k) const {
  if (!map[k]) fail(map, key, std::string("'") + k + "' is missing");
  return number(map[k], key + "." + k);
}

std::string NodeReader::text(const YAML::Node& map, const std::string& key, const char* k, const std::string& fallback) const {
  if (!map[k]) {
    if (fallback.empty()) fail(map, key, std::string("'") + k + "' is missing");
    return fallback;
  }
  try {
    return map[k].as<std::string>();
  } catch (const YAML::Exception&) {
    fail(map[k], key + "." + k, "must be a string");
  }
}

bool NodeReader::flag(const YAML::Node& map, const std::string& key, const char* k, bool fallback) const {
  if (!map[k]) return fallback;
  try {
    return map[k].as<bool>();
  } catch (const YAML::Exception&) {
    fail(map[k], key + "." + k, "must be true or false");
  }
}

std::vector<double> NodeReader::list(const YAML::Node& n, const std::string& key) const {
  if (!n.IsSequence()) fail(n, key, "must be a list of numbers");
  std::vector<double> v;
  for (std::size_t i = 0; i < n.size(); ++i) v.push_back(number(n[i], key + "[" + std::to_string(i) + "]"));
  return v;
}

std::vector<double> NodeReader::fixed_list(const YAML::Node& map, const std::string& key, const char* k, std::size_t n,
                                           const std::string& what, std::vector<double> fallback) const {
  if (!map[k]) return fallback;
  auto v = list(map[k], key + "." + k);
  if (v.size() != n)
    fail(map[k], key + "." + k, "needs " + std::to_string(n) + " numbers " + what + ", got " + std::to_string(v.size()));
  return v;
}

} // namespace flexuq::io
