// SPDX-License-Identifier: MIT
#pragma once
// FNV-1a, 64 bit: the campaign's fingerprint of a job and the checksum of journal records.
#include <cstddef>
#include <cstdint>

namespace flexuq::campaign::detail {

inline std::uint64_t fnv1a(const char* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

} // namespace flexuq::campaign::detail
