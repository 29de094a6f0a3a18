// SPDX-License-Identifier: MIT
#pragma once
/// @file Log.hpp
/// @brief Rank-0 logging with levels, progress lines with ETA, and per-phase timing with one PETSc
/// log stage per phase (so `-log_view` breaks the run down the same way the summary does).

#include "flexuq/core/EnumNames.hpp"

#include <mpi.h>
#include <petscsys.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace flexuq::log {

enum class Level { error = 0, warn = 1, info = 2, debug = 3 };
/// The names of `--log-level` and `log.level`; "warning" is another name of warn.
inline constexpr EnumNames<Level, 5> kLevelNames{{{{Level::error, "error"},
                                                   {Level::warn, "warn"},
                                                   {Level::info, "info"},
                                                   {Level::debug, "debug"},
                                                   {Level::warn, "warning"}}}};

/// Set the global level (from `--log-level` / config `log.level`). Not collective.
void set_level(Level l);
Level level();

/// Print on rank 0 of @p comm if @p l is enabled. Not collective (other ranks do nothing).
void print(MPI_Comm comm, Level l, const std::string& msg);
inline void info(MPI_Comm c, const std::string& m) { print(c, Level::info, m); }
inline void warn(MPI_Comm c, const std::string& m) { print(c, Level::warn, m); }
inline void debug(MPI_Comm c, const std::string& m) { print(c, Level::debug, m); }

enum class Stream { out, err };
/// The one way to the terminal outside print(): @p text verbatim (no prefix, no newline added) to
/// stdout or stderr, flushed. For what has no logger behind it — before MPI/PETSc are up (command
/// line errors, `help`, `version`), a failed initialisation, and the fatal-error path of a rank that
/// is about to abort. Not collective; no level applies.
void direct(Stream s, const std::string& text);

/// @brief Progress of a long phase on rank 0: "phase  45% (9/20)  elapsed 3.1 s  ETA 3.8 s".
/// Prints at most every @p min_interval seconds and always at 100 %.
class Progress {
public:
  Progress(MPI_Comm comm, std::string phase, long long total, double min_interval = 2.0);
  /// Report @p done items finished (monotone). Not collective.
  void update(long long done);

private:
  MPI_Comm comm_;
  std::string phase_;
  long long total_;
  double min_interval_;
  std::chrono::steady_clock::time_point start_, last_;
  bool printed_final_ = false;
};

/// @brief Wall-clock times per named phase, summarised across ranks (min/max), with the memory
/// each phase reached: this rank's peak resident set (high-water mark) at the end of the phase and
/// how much the phase raised it.
class PhaseTimes {
public:
  void add(const std::string& phase, double seconds);
  /// @param peak_bytes high-water mark at the end of the phase, @p grown_bytes its rise during it.
  void add(const std::string& phase, double seconds, double peak_bytes, double grown_bytes);
  /// Table: min/max wall time over ranks, peak RSS summed over ranks and its rise in the phase.
  /// @note Collective on @p comm: every rank must have the same phases in the same order.
  std::string summary(MPI_Comm comm) const;
  const std::vector<std::pair<std::string, double>>& entries() const { return entries_; }
  /// Per entry (same order): {peak RSS at the end, rise of the peak during the phase}, bytes, this rank.
  const std::vector<std::pair<double, double>>& memory() const { return memory_; }

private:
  std::vector<std::pair<std::string, double>> entries_;
  std::vector<std::pair<double, double>> memory_;
};

/// @brief RAII phase: pushes a PETSc log stage named @p name (registered once), logs the start at
/// debug level, and on exit records the wall time into @p times (if given).
/// @note Not collective itself, but every rank should open the same phases.
class Phase {
public:
  Phase(MPI_Comm comm, const std::string& name, PhaseTimes* times = nullptr);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;
  double elapsed() const;

private:
  MPI_Comm comm_;
  std::string name_;
  PhaseTimes* times_;
  std::chrono::steady_clock::time_point start_;
  double peak_at_start_ = 0;
};

/// Peak resident memory of this process in bytes (from getrusage). Not collective.
double peak_rss_bytes();

} // namespace flexuq::log
