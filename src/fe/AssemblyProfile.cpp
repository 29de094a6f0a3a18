// SPDX-License-Identifier: MIT
#include "flexuq/fe/AssemblyProfile.hpp"

#include "flexuq/core/Error.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace flexuq::fe::assembly_profile {

namespace {
constexpr std::size_t kParts = static_cast<std::size_t>(Part::count);
constexpr const char* kNames[kParts] = {"FeSetup",    "FeNodeGraph", "FePartition", "FeNumbering",
                                        "FePrealloc", "FeElemOwner", "FeCreateMat", "FeIntegrate",
                                        "FeSetValues", "FeElemLoop", "FeMatAssembly", "FeAutospc"};
} // namespace

const char* name(Part p) { return kNames[static_cast<std::size_t>(p)]; }

std::array<Entry, kParts>& entries() {
  static std::array<Entry, kParts> e{};
  return e;
}

void reset() { entries() = {}; }

double cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

std::array<double, 2> rss_mb() {
  std::array<double, 2> out{0, 0};
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return out;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    long kb = 0;
    if (std::sscanf(line, "VmRSS: %ld", &kb) == 1) out[0] = static_cast<double>(kb) / 1024.0;
    if (std::sscanf(line, "VmHWM: %ld", &kb) == 1) out[1] = static_cast<double>(kb) / 1024.0;
  }
  std::fclose(f);
  return out;
}

PetscLogEvent event(Part p) {
  static const std::vector<PetscLogEvent> ids = [] {
    PetscClassId cid = 0;
    FLEXUQ_PETSC(PetscClassIdRegister("flexuq assembly", &cid));
    std::vector<PetscLogEvent> v(kParts);
    for (std::size_t i = 0; i < kParts; ++i) FLEXUQ_PETSC(PetscLogEventRegister(kNames[i], cid, &v[i]));
    return v;
  }();
  return ids[static_cast<std::size_t>(p)];
}

Scope::Scope(Part p) : p_(p), t0_(std::chrono::steady_clock::now()), c0_(cpu_seconds()) {
  PetscLogEventBegin(event(p_), 0, 0, 0, 0);
}

Scope::~Scope() {
  PetscLogEventEnd(event(p_), 0, 0, 0, 0);
  auto& e = entries()[static_cast<std::size_t>(p_)];
  e.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  e.cpu += cpu_seconds() - c0_;
  ++e.calls;
  const auto m = rss_mb();
  e.rss_mb = m[0];
  e.hwm_mb = m[1];
}

} // namespace flexuq::fe::assembly_profile
