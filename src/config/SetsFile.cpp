// SPDX-License-Identifier: MIT
#include "flexuq/config/SetsFile.hpp"

#include "flexuq/core/Error.hpp"

#include <yaml-cpp/yaml.h>

namespace flexuq::io {

std::map<std::string, std::vector<long>> read_sets_file(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  FLEXUQ_REQUIRE(root.IsMap(), path << ": expected a mapping {NAME: [node ids]}");
  std::map<std::string, std::vector<long>> sets;
  for (const auto& kv : root) {
    const auto name = kv.first.as<std::string>();
    try {
      sets[name] = kv.second.as<std::vector<long>>();
    } catch (const YAML::Exception& e) {
      throw InputError(path + ":" + std::to_string(kv.second.Mark().line + 1) + ": set " + name +
                       ": expected a list of node ids");
    }
  }
  return sets;
}

} // namespace flexuq::io
