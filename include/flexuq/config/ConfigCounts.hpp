// SPDX-License-Identifier: MIT
#pragma once
/// @file ConfigCounts.hpp
/// @brief Range-checked integer keys of a job file (counts and sizes; docs/config.md "Limits").

#include "flexuq/config/Config.hpp"

#include <optional>
#include <string>
#include <vector>

namespace flexuq::io {

/// The integer at @p key, in [@p lo, @p hi]: throws InputError naming the file, the key, the range,
/// the value as written and its line ("j.yaml: modes.count must be an integer in [1, 1000000], got
/// 2147483647 (line 6)"). Floats (`2.5`, `1e3`), values beyond 64 bits and lists are refused.
long long get_count(const Config& c, const std::string& key, long long lo, long long hi);
/// As above; @p fallback if the key is absent.
long long get_count(const Config& c, const std::string& key, long long lo, long long hi, long long fallback);
/// The integer at @p key in [@p lo, @p hi], or nullopt when the value is the word @p word (`auto`):
/// "j.yaml: method.pce.order must be auto or an integer in [1, 12], got 2.7 (line 9)". A float is
/// refused, never truncated.
std::optional<long long> get_count_or(const Config& c, const std::string& key, const std::string& word, long long lo,
                                      long long hi);
/// A list of exactly @p n integers, each in [@p lo, @p hi] (`cells: [4, 2, 2]`).
std::vector<long long> get_counts(const Config& c, const std::string& key, std::size_t n, long long lo, long long hi);

} // namespace flexuq::io
