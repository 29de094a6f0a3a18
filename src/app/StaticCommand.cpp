// SPDX-License-Identifier: MIT
// Sample run (seed 002 N8, the tip force to k = 10):
//   mpirun -n 2 build/bin/flexuq static configs/nff-tip-force.yaml
#include "flexuq/app/StaticCommand.hpp"

#include "flexuq/app/JobOptions.hpp"
#include "flexuq/config/StaticJob.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/nl/Static.hpp"
#include "flexuq/nl/StaticReport.hpp"

namespace flexuq::app {

void run_static(MPI_Comm comm, const io::Config& cfg) {
  io::StaticJob job;
  try {
    job = io::parse_static_job(cfg);
  } catch (const OptionError& e) {
    throw InputError(cfg.source() + ": " + e.message_for([](const std::string& f) { return io::static_job_key(f); }));
  }
  cfg.check_all_used();
  check_job_output(comm, cfg, job.output, "output");
  const nl::StaticResult res = nl::solve_static(comm, job.mesh, job.supports, job.loads, job.options);
  nl::write_static_file(comm, job.output, job.mesh, job.options, res);
  const int node = job.mesh.sets.at(job.report).front();
  log::info(comm, nl::static_report(job.mesh, job.options, res, node, job.report, job.output));
  if (!res.completed) throw Error("flexuq static: " + res.failure + " (results up to the last converged step are in " + job.output + ")");
}

} // namespace flexuq::app
