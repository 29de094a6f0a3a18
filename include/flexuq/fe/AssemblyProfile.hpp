// SPDX-License-Identifier: MIT
#pragma once
/// @file AssemblyProfile.hpp
/// @brief The parts of fe::Component's "partition+assemble" phase (fe::DofMap and the assembly),
/// each a PETSc log event (visible in -log_view, class "flexuq assembly") and accumulated here per
/// rank: wall and CPU seconds, calls, and the resident set (VmRSS) and its high-water mark (VmHWM)
/// at the end of the part's last call. For benches (bench/assembly.cpp) and docs/performance.md.

#include <petscsys.h>

#include <array>
#include <chrono>
#include <cstddef>

namespace flexuq::fe::assembly_profile {

enum class Part : std::size_t {
  setup,         ///< Component: sections, materials, groups, fixed DOFs (whole mesh, every rank)
  node_graph,    ///< DofMap: node → element incidence and the spring partners
  partition,     ///< DofMap: adjacency, MatPartitioningApply (rank 0 alone for PT-Scotch), broadcast
  numbering,     ///< DofMap: order, fixed masks, node → DOF, owned range
  preallocation, ///< DofMap: exact d_nnz/o_nnz from the node graph
  element_owner, ///< DofMap: the elements this rank assembles
  create,        ///< K and M created and preallocated
  integrate,     ///< element matrices (inside the element loop; wall only, CPU is the loop's)
  set_values,    ///< MatSetValues of the element matrices (inside the element loop; wall only)
  element_loop,  ///< the whole element loop
  assembly,      ///< MatAssemblyBegin/End of K and M
  autospc,       ///< AUTOSPC (decks with PARAM,AUTOSPC)
  count
};

struct Entry {
  double wall = 0, cpu = 0;       ///< seconds, summed over calls
  long calls = 0;
  double rss_mb = 0, hwm_mb = 0;  ///< VmRSS / VmHWM after the last call (0 inside the element loop)
};

const char* name(Part p);
std::array<Entry, static_cast<std::size_t>(Part::count)>& entries();
/// Zero every entry (a bench between repetitions).
void reset();
/// This process's CPU seconds (user + system).
double cpu_seconds();
/// {VmRSS, VmHWM} of this process in MB (Linux /proc/self/status; zeros elsewhere).
std::array<double, 2> rss_mb();
PetscLogEvent event(Part p);

/// Times one part: a PETSc log event, wall, CPU and the memory at its end.
class Scope {
public:
  explicit Scope(Part p);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

private:
  Part p_;
  std::chrono::steady_clock::time_point t0_;
  double c0_;
};

/// Wall time only, for the short calls inside the element loop (no event, no system call).
class Tick {
public:
  explicit Tick(Part p) : p_(p), t0_(std::chrono::steady_clock::now()) {}
  ~Tick() {
    auto& e = entries()[static_cast<std::size_t>(p_)];
    e.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    ++e.calls;
  }
  Tick(const Tick&) = delete;
  Tick& operator=(const Tick&) = delete;

private:
  Part p_;
  std::chrono::steady_clock::time_point t0_;
};

} // namespace flexuq::fe::assembly_profile
