// SPDX-License-Identifier: MIT
#pragma once
/// @file SimulateAdapter.hpp
/// @brief The fuzz entry point of `flexuq simulate` jobs (issue #40 item 8): the bytes as a job
/// file, through the CLI's own parse pass (app::parse_simulation_job: strict keys, every range and
/// physical check that needs only the job file, the unknown-key walk), then — for a job of rigid and
/// planar bodies only (a flexible body's file is the body target's) and at most kMaxBodies of them —
/// the system built (workflow::build_simulation) and integrated by its own scheme for at most
/// kMaxSteps steps. Kept apart from FuzzAdapters.hpp: it links the whole stack (flexuq_app).
#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Simulation.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

#include <yaml-cpp/exceptions.h>

#include <mpi.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace flexuq::fuzz {

inline int simulate(const std::string& path) {
  constexpr std::size_t kMaxBodies = 12;
  constexpr double kMaxSteps = 20;
  int up = 0;
  MPI_Initialized(&up);
  if (!up) MPI_Init(nullptr, nullptr);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  try {
    const io::Config c = io::Config::from_string(text.str(), path, {});
    if (c.get<std::string>("command", "") != "simulate") return 0; // app/main.cpp dispatches on it
    workflow::SimulationSpec spec = app::parse_simulation_job(c);
    spec.snapshots = c.get<bool>("snapshots", false); // the keys SimulateCommand reads beside the parse
    if (c.has("rom")) return 0;                       // a ROM file: not fuzzed here
    c.check_all_used();
    if (spec.bodies.size() > kMaxBodies) return 0;
    for (const auto& b : spec.bodies)
      if (b.flexible) return 0;
    // A bounded run: at most kMaxSteps fixed steps (an adaptive one no smaller than step/1000),
    // an output every step, a few Newton iterations.
    mbs::SolverOptions& o = spec.solver;
    o.end = std::min(o.end, o.start + kMaxSteps * o.step);
    o.output_step = 0;
    o.min_step = std::min(o.step, std::max(o.min_step, 1e-3 * o.step));
    o.max_iter = std::min(o.max_iter, 30);
    if (!(o.end > o.start)) return 0; // a start at which start + step rounds to start: refused by the parse
    mbs::SimulationJob job = workflow::build_simulation(spec);
    (void)mbs::run_simulation(job);
  } catch (const YAML::Exception&) {
    // The CLI's answer too (app/main.cpp): a read no parse pass checked, exit 2 with its position.
  }
  return 0;
}

} // namespace flexuq::fuzz
