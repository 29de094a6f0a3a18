// SPDX-License-Identifier: MIT
// Sample runs:
//   mpirun -n 2 build/bin/flexuq modes configs/demo.yaml
//   mpirun -n 2 build/bin/flexuq modes configs/crank-modes.yaml --set modes.count=30
#include "flexuq/app/Commands.hpp"
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/MatrixModel.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/fe/MatrixComponent.hpp"
#include "flexuq/workflow/Modes.hpp"

namespace flexuq::app {

void run_modes(MPI_Comm comm_in, const io::Config& cfg) {
  Comm comm(comm_in);
  MPI_Comm c = comm.get();
  log::PhaseTimes times;
  // Read every key first: an unknown key fails before any heavy work.
  workflow::ModesJob job;
  job.output = cfg.resolve_output(cfg.get<std::string>("output", "modes.h5"));
  job.modes = parse_mode_options(cfg, "modes", ModeKeys{true, false});
  job.modes.fixed_key = cfg.has("modes.fixed") ? "modes.fixed" : "model.fixed";
  auto copts = app::component_options(cfg);
  copts.keep_affine = cfg.get<bool>("model.keep_affine", false);
  job.export_prefix = cfg.resolve_output(cfg.get<std::string>("modes.export_matrices", ""));
  // Outputs checked before any work; written under temporary names and renamed at the end.
  check_job_output(c, cfg, job.output, "output");
  if (!job.export_prefix.empty())
    for (const char* suffix : fe::kExportSuffixes) check_job_output(c, cfg, job.export_prefix + suffix, "modes.export_matrices");
  const std::unique_ptr<fe::Component> comp = load_component(c, cfg, copts, times, "flexuq modes:");
  workflow::run_modes(c, *comp, std::move(job), times);
}

} // namespace flexuq::app
