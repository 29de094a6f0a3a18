// SPDX-License-Identifier: MIT
#include "flexuq/core/Log.hpp"

#include "flexuq/core/Error.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace flexuq::log {

namespace {
Level g_level = Level::info;

std::string format_seconds(double s) {
  std::ostringstream os;
  if (s < 120)
    os << std::fixed << std::setprecision(1) << s << " s";
  else if (s < 7200)
    os << std::fixed << std::setprecision(1) << s / 60 << " min";
  else
    os << std::fixed << std::setprecision(2) << s / 3600 << " h";
  return os.str();
}
} // namespace

void set_level(Level l) { g_level = l; }
Level level() { return g_level; }

void direct(Stream s, const std::string& text) {
  std::FILE* f = s == Stream::err ? stderr : stdout;
  std::fwrite(text.data(), 1, text.size(), f);
  std::fflush(f);
}

void print(MPI_Comm comm, Level l, const std::string& msg) {
  if (static_cast<int>(l) > static_cast<int>(g_level)) return;
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  if (rank != 0) return;
  const char* prefix = l == Level::warn ? "warning: " : (l == Level::error ? "error: " : "");
  if (l <= Level::warn) std::fflush(stdout); // keep the order of interleaved info and warning lines
  direct(l <= Level::warn ? Stream::err : Stream::out, prefix + msg + "\n");
}

Progress::Progress(MPI_Comm comm, std::string phase, long long total, double min_interval)
    : comm_(comm), phase_(std::move(phase)), total_(total), min_interval_(min_interval),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::update(long long done) {
  using namespace std::chrono;
  const auto now = steady_clock::now();
  const bool final = done >= total_;
  if (final && printed_final_) return;
  if (!final && duration<double>(now - last_).count() < min_interval_) return;
  last_ = now;
  printed_final_ = final;
  const double elapsed = duration<double>(now - start_).count();
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  std::ostringstream os;
  os << "  [" << phase_ << "] " << std::setw(3) << static_cast<int>(100 * frac) << "% (" << done << "/" << total_
     << ")  elapsed " << format_seconds(elapsed);
  if (!final && frac > 0) os << "  ETA " << format_seconds(elapsed * (1 - frac) / frac);
  print(comm_, Level::info, os.str());
}

void PhaseTimes::add(const std::string& phase, double seconds) { add(phase, seconds, peak_rss_bytes(), 0.0); }

void PhaseTimes::add(const std::string& phase, double seconds, double peak_bytes, double grown_bytes) {
  for (std::size_t k = 0; k < entries_.size(); ++k)
    if (entries_[k].first == phase) {
      entries_[k].second += seconds;
      memory_[k].first = std::max(memory_[k].first, peak_bytes);
      memory_[k].second += grown_bytes;
      return;
    }
  entries_.emplace_back(phase, seconds);
  memory_.emplace_back(peak_bytes, grown_bytes);
}

std::string PhaseTimes::summary(MPI_Comm comm) const {
  std::ostringstream os;
  os << "  " << std::left << std::setw(28) << "phase" << std::right << std::setw(12) << "min [s]" << std::setw(12)
     << "max [s]" << std::setw(16) << "peak RSS [MB]" << std::setw(14) << "rise [MB]" << "\n";
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    const double t = entries_[k].second;
    double tmin = t, tmax = t, mem[2] = {memory_[k].first, memory_[k].second};
    FLEXUQ_MPI(MPI_Allreduce(&t, &tmin, 1, MPI_DOUBLE, MPI_MIN, comm));
    FLEXUQ_MPI(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm));
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, mem, 2, MPI_DOUBLE, MPI_SUM, comm)); // summed over ranks
    os << "  " << std::left << std::setw(28) << entries_[k].first << std::right << std::fixed << std::setprecision(3)
       << std::setw(12) << tmin << std::setw(12) << tmax << std::setprecision(0) << std::setw(16) << mem[0] / 1048576.0
       << std::setw(14) << mem[1] / 1048576.0 << "\n";
  }
  return os.str();
}

namespace {
PetscLogStage stage_for(const std::string& name) {
  static std::map<std::string, PetscLogStage> stages;
  auto it = stages.find(name);
  if (it != stages.end()) return it->second;
  PetscLogStage s = 0;
  FLEXUQ_PETSC(PetscLogStageRegister(name.c_str(), &s));
  stages.emplace(name, s);
  return s;
}
} // namespace

Phase::Phase(MPI_Comm comm, const std::string& name, PhaseTimes* times)
    : comm_(comm), name_(name), times_(times), start_(std::chrono::steady_clock::now()), peak_at_start_(peak_rss_bytes()) {
  FLEXUQ_PETSC(PetscLogStagePush(stage_for(name)));
  debug(comm_, "phase: " + name_);
}

Phase::~Phase() {
  (void)PetscLogStagePop();
  if (times_) {
    const double peak = peak_rss_bytes();
    times_->add(name_, elapsed(), peak, peak - peak_at_start_);
  }
}

double Phase::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double peak_rss_bytes() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) * 1024.0;
}

} // namespace flexuq::log
