// SPDX-License-Identifier: MIT
#include "flexuq/io/Limits.hpp"

#include "flexuq/core/Error.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace flexuq::io::limits {

std::optional<std::int64_t> mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

namespace {
constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

/// "MemAvailable:   22712340 kB" → bytes.
std::uint64_t mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;
  }
  // No /proc (or an old kernel): the free physical pages.
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : kUnknown;
}

std::uint64_t read_number(const char* path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  return (in >> v) ? v : kUnknown; // "max" (no limit) fails to parse
}

/// What the cgroup v2 memory limit leaves (SLURM's ConstrainRAMSpace puts a job in one).
std::uint64_t cgroup_left() {
  const std::uint64_t max = read_number("/sys/fs/cgroup/memory.max");
  if (max == kUnknown) return kUnknown;
  const std::uint64_t cur = read_number("/sys/fs/cgroup/memory.current");
  return cur == kUnknown ? max : (cur < max ? max - cur : 0);
}
} // namespace

std::uint64_t available_memory() {
  std::uint64_t avail = std::min(mem_available(), cgroup_left());
  if (const char* cap = std::getenv("FLEXUQ_MAX_MEMORY")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(cap, &end, 10);
    if (end != cap && *end == '\0') avail = std::min<std::uint64_t>(avail, v);
  }
  return avail;
}

std::string human_bytes(double b) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  if (b >= 1e9)
    os << b / 1e9 << " GB";
  else if (b >= 1e6)
    os << b / 1e6 << " MB";
  else
    os << std::setprecision(0) << b << " bytes";
  return os.str();
}

void require_memory(double bytes, const std::string& what) {
  const std::uint64_t avail = available_memory();
  if (avail == kUnknown || bytes <= static_cast<double>(avail)) return;
  const bool capped = std::getenv("FLEXUQ_MAX_MEMORY") != nullptr;
  throw InputError(what + " needs an estimated " + human_bytes(bytes) + " of memory, more than the " +
                   human_bytes(static_cast<double>(avail)) + " available (" +
                   (capped ? "FLEXUQ_MAX_MEMORY" : "MemAvailable of /proc/meminfo and the cgroup limit") + ")");
}

void require_fits(long long n, std::size_t bytes_left, std::size_t min_record_bytes, const std::string& what) {
  const std::size_t most = bytes_left / (min_record_bytes ? min_record_bytes : 1);
  if (n >= 0 && static_cast<unsigned long long>(n) <= most) return;
  std::ostringstream os;
  os << what << ": count " << n << " is impossible: ";
  if (n < 0)
    os << "a count cannot be negative";
  else
    os << "the " << bytes_left << " bytes left in the file hold at most " << most << " records of at least "
       << min_record_bytes << " bytes";
  throw InputError(os.str());
}

} // namespace flexuq::io::limits
