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

  /// Where one record lies, for reading large records (e.g. point bases) one at a time.
  struct Location {
    std::uint64_t index = 0;
    int status = 0;
    std::string file;
    std::uint64_t offset = 0; ///< of the record's frame in @p file
  };
  /// The records read_all returns (same choice and order), as locations: each record is decoded
  /// once and dropped, so memory holds one record at a time.
  static std::vector<Location> locate(const std::string& dir);
  /// The record at @p where. Throws Error when it cannot be read back.
  static SampleRecord read_at(const Location& where);

private:
  std::FILE* f_ = nullptr;
  std::string path_;
};

} // namespace flexuq::campaign
