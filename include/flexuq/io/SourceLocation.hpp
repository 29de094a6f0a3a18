// SPDX-License-Identifier: MIT
#pragma once
/// @file SourceLocation.hpp
/// @brief Where an input item came from, for error messages (part of io/Mesh.hpp).

#include <string>

namespace flexuq::io {

/// Where something came from, for error messages: "crank.inp:123".
struct SourceLocation {
  std::string file;
  int line = 0;
  std::string str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

} // namespace flexuq::io
