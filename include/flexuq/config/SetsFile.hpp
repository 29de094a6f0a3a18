// SPDX-License-Identifier: MIT
#pragma once
/// @file SetsFile.hpp
/// @brief The node sets file of `model.matrices.sets` (YAML {NAME: [node ids]}, as
/// `modes.export_matrices` writes it).

#include <map>
#include <string>
#include <vector>

namespace flexuq::io {

/// @throws InputError naming the file and line (YAML syntax, not a mapping, a set that is not a list of ids).
std::map<std::string, std::vector<long>> read_sets_file(const std::string& path);

} // namespace flexuq::io
