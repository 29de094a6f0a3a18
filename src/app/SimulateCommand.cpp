// SPDX-License-Identifier: MIT
// Sample run:
//   build/bin/flexuq simulate configs/slider-crank.yaml
//   python3 postproc/plot_simulation.py slider-crank.h5
#include "flexuq/app/Commands.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/workflow/Simulate.hpp"

namespace flexuq::app {

void run_simulate(MPI_Comm comm, const io::Config& cfg) {
  // Every rank parses (and checks) the job, so bad input fails the same way everywhere.
  auto spec = parse_simulation_job(cfg);
  spec.snapshots = cfg.get<bool>("snapshots", false);
  spec.rom = simulation_rom(cfg);
  cfg.check_all_used();
  check_job_output(comm, cfg, spec.output_path, "output"); // before the run; renamed onto at the end
  workflow::simulate(comm, spec);
}

} // namespace flexuq::app
