// SPDX-License-Identifier: MIT
#include "flexuq/workflow/Simulate.hpp"
#include "flexuq/workflow/Rom.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace flexuq::workflow {

void simulate(MPI_Comm comm, const SimulationSpec& spec) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto job = build_simulation(spec);
  if (size > 1)
    log::warn(comm, "simulate runs one serial simulation on rank 0; the other " + std::to_string(size - 1) +
                        " rank(s) idle (a campaign spreads simulations over ranks)");
  if (rank == 0) {
    const auto& sys = job.system;
    std::ostringstream os;
    os << "simulate: " << sys.bodies().size() << " bodies, " << sys.joints().size() << " joints, " << sys.n()
       << " coordinates, " << sys.rows_total() << " constraint rows; " << mbs::scheme_name(job.solver.scheme)
       << " h = " << job.solver.step << " to t = " << job.solver.end;
    log::info(MPI_COMM_SELF, os.str());
    log::Progress progress(MPI_COMM_SELF, "simulate", 1000);
    const double t0 = job.solver.start, span = job.solver.end - job.solver.start;
    auto report = [&](double t) { progress.update(static_cast<long long>(std::floor(1000.0 * (t - t0) / span))); };
    const bool reduced = !spec.rom.empty();
    rom::ReducedStats rstats;
    rom::ReducedBasis basis;
    auto result = reduced ? run_reduced_simulation(job, spec.rom, rstats, basis, report) : mbs::run_simulation(job, report);
    if (reduced) {
      std::ostringstream rs;
      rs << "simulate: reduced-order model " << spec.rom << ": r = " << basis.r() << " coordinates, l = " << basis.l()
         << " constraints (rank of Γ'C_qV checked " << rstats.rank_checks << " times, smallest σ ratio "
         << rstats.min_rank_ratio << ")";
      log::info(MPI_COMM_SELF, rs.str());
      if (rstats.initial_offset > 1e-8 * std::max(1.0, basis.q0.lpNorm<Eigen::Infinity>()))
        log::warn(MPI_COMM_SELF, "simulate: the initial q lies " + std::to_string(rstats.initial_offset) +
                                     " off the ROM's affine space q = V q_r + R0 (initial conditions other than the "
                                     "training run's: the ROM starts from their projection)");
    }
    if (!result.redundant_rows.empty()) {
      std::string rows;
      for (const auto& r : result.redundant_rows) rows += " " + r;
      log::info(MPI_COMM_SELF, std::to_string(result.redundant_rows.size()) +
                                   " redundant constraint row(s) found at t = " + std::to_string(t0) +
                                   " and dropped (rank-revealing QR of C_q):" + rows);
    }
    io::OutputFile out(MPI_COMM_SELF, job.output_path);
    mbs::write_simulation(out.temp(), job, result);
    if (reduced) write_reduced_report(out.temp(), spec.rom, basis, rstats);
    out.commit();
    std::ostringstream done;
    done << "simulate: " << result.stats.steps << " steps (" << result.stats.rejected << " rejected), "
         << result.stats.newton_iterations << " Newton iterations, " << (result.sparse ? "sparse" : "dense")
         << " linear algebra, max constraint drift " << result.stats.max_drift << ", " << result.wall_seconds
         << " s -> " << job.output_path;
    log::info(MPI_COMM_SELF, done.str());
  }
  FLEXUQ_MPI(MPI_Barrier(comm));
}

} // namespace flexuq::workflow
