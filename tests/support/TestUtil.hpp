// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the tests.
#include <cstdlib>
#include <string>

namespace flexuq::test {

/// Source tree root (set by ctest through FLEXUQ_SOURCE_DIR; falls back to the compile-time path).
inline std::string source_dir() {
  const char* s = std::getenv("FLEXUQ_SOURCE_DIR");
  return s ? s : FLEXUQ_SOURCE_DIR_DEFAULT;
}
inline std::string data_path(const std::string& rel) { return source_dir() + "/tests/data/" + rel; }

} // namespace flexuq::test
