// SPDX-License-Identifier: MIT
#pragma once
/// @file Limits.hpp
/// @brief Bounds on sizes and counts read from input (docs/config.md, "Limits"): overflow-checked
/// 64-bit arithmetic for user counts, and a memory estimate checked against the machine before a
/// reader or generator allocates.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace flexuq::io::limits {

/// Nodes and elements a Mesh can hold: they are indexed with `int` (Mesh::elem_nodes, node sets).
constexpr std::int64_t max_mesh_entities = std::numeric_limits<int>::max();
/// Largest `modes.count` / `reduce.modes.count`: far beyond any modal basis (a Krylov–Schur solve
/// for k modes holds about 2k vectors of every DOF and a dense 2k × 2k projected problem), small
/// enough that `count + extra` and `2 * count` never overflow an int.
constexpr std::int64_t max_mode_count = 1'000'000;

/// a·b and a + b, or nullopt on 64-bit overflow.
std::optional<std::int64_t> mul(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> add(std::int64_t a, std::int64_t b);

/// Bytes this process may still allocate: MemAvailable of /proc/meminfo, lowered to what the cgroup
/// (a SLURM job's memory limit) has left; the environment variable FLEXUQ_MAX_MEMORY (bytes) caps it
/// (tests, fuzzers, shared nodes). The maximum of uint64 if nothing can be read.
std::uint64_t available_memory();

/// "12.3 GB" / "45.6 MB" / "789 bytes".
std::string human_bytes(double bytes);

/// Throw InputError "<what> needs an estimated <bytes> of memory, more than the <available> available
/// (<source>)" if @p bytes exceeds available_memory(). @p what names the key or file:line.
void require_memory(double bytes, const std::string& what);

/// A count @p n read at @p what, where every record takes at least @p min_record_bytes of the
/// @p bytes_left bytes the file still holds: throws InputError unless 0 <= n <= bytes_left / min.
void require_fits(long long n, std::size_t bytes_left, std::size_t min_record_bytes, const std::string& what);

} // namespace flexuq::io::limits
