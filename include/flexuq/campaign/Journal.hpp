// SPDX-License-Identifier: MIT
#pragma once
/// @file Journal.hpp
/// @brief The record of finished samples: one append-only file per group leader and run (framed
/// Boost.Serialization records: magic, size, payload, FNV-1a checksum; flushed and fsync'ed), so a
/// killed campaign resumes without redoing or losing a sample.

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace flexuq::campaign {

/// One finished sample, as persisted in the journal.
struct SampleRecord {
  std::uint64_t index = 0;
  int status = 0;             ///< 0 ok, 1 failed
  std::string reason;         ///< why it failed
  std::map<std::string, std::vector<double>> outputs;
  double seconds = 0;
  int group = 0;
};

/// Append-only journal of one group leader (framed records: magic, size, payload, checksum).
class Journal {
public:
  Journal(const std::string& path);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  void append(const SampleRecord& r); ///< written, flushed and fsync'ed before it returns
  /// Every complete record of every journal in @p dir (a torn last record is ignored), one per
  /// sample, in sample order.
  static std::vector<SampleRecord> read_all(const std::string& dir);

private:
  std::FILE* f_ = nullptr;
  std::string path_;
};

} // namespace flexuq::campaign
