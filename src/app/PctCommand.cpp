// SPDX-License-Identifier: MIT
// `flexuq simulate` with `uncertainty: {method: galerkin}`: intrusive PCT of a planar mechanism.
//   build/bin/flexuq simulate configs/slider-crank-seed004-pct.yaml
#include "flexuq/app/PctCommand.hpp"

#include "flexuq/app/JobOptions.hpp"
#include "flexuq/config/PctJob.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/workflow/Pct.hpp"

namespace flexuq::app {

void run_pct_simulate(MPI_Comm comm, const io::Config& cfg) {
  const pct::PctJob job = io::parse_pct_job(cfg);
  cfg.check_all_used();
  check_job_output(comm, cfg, job.output_path, "output");
  try {
    workflow::run_pct(comm, job);
  } catch (const OptionError& e) {
    const bool g = e.option() == "order" || e.option() == "quadrature_points";
    throw InputError(cfg.source() + ": " + e.message_for((g ? "uncertainty." : "solver.") + e.option()));
  }
}

} // namespace flexuq::app
