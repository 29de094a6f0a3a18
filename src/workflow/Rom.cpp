// SPDX-License-Identifier: MIT
#include "flexuq/workflow/Rom.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <chrono>
#include <sstream>

namespace flexuq::workflow {

rom::ReducedBasis build_rom(MPI_Comm comm, const RomJobSpec& spec) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  rom::ReducedBasis basis;
  if (rank == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    auto job = build_simulation(spec.model);
    mbs::System& sys = job.system;
    std::vector<rom::Training> runs;
    std::vector<std::string> rows0;
    for (const auto& path : spec.training) {
      std::vector<std::string> rows;
      runs.push_back(rom::read_training(path, &rows));
      if (runs.size() == 1) rows0 = rows;
      else if (rows != rows0)
        throw InputError(path + ": its active constraint rows differ from those of " + spec.training.front() +
                         " (training runs of one model with the same redundant rows are needed)");
      if (runs.back().q.rows() != sys.n())
        throw InputError(FLEXUQ_MSG(path << ": " << runs.back().q.rows() << " coordinates, the model has " << sys.n()
                                         << " (the training runs must be of this model)"));
    }
    // The active rows the training runs had: the system's redundancy check at their first snapshot.
    sys.select_independent_rows(runs.front().q.col(0), runs.front().t.front());
    std::vector<std::string> rows;
    for (const int r : sys.active_rows()) rows.push_back(sys.row_label(r));
    if (rows != rows0)
      throw InputError(spec.training.front() + ": its active constraint rows (" + std::to_string(rows0.size()) +
                       ") are not those the model finds at its first snapshot (" + std::to_string(rows.size()) + ")");
    basis = rom::build_basis(sys, runs, spec.options);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    io::OutputFile out(MPI_COMM_SELF, spec.output_path);
    rom::write_basis(out.temp(), basis, spec.training, secs);
    out.commit();
    std::ostringstream os;
    os << "rom: " << basis.snapshots << " snapshots of " << sys.n() << " coordinates, " << enum_name(rom::kPodKindNames, spec.options.pod)
       << " POD:";
    for (const auto& b : basis.blocks) os << " " << b.name << " " << b.rank << "/" << b.rows.size();
    os << "; r = " << basis.r() << ", constraints " << enum_name(rom::kConstraintMethodNames, spec.options.constraints)
       << ": l = " << basis.l() << " of " << basis.rows.size() << " rows, r - l = " << basis.r() - basis.l()
       << "; |V'V - I| = " << basis.orthonormality << ", " << secs << " s -> " << spec.output_path;
    log::info(MPI_COMM_SELF, os.str());
  }
  FLEXUQ_MPI(MPI_Barrier(comm));
  return basis;
}

mbs::SimulationResult run_reduced_simulation(mbs::SimulationJob& job, const std::string& rom_path,
                                             rom::ReducedStats& stats, rom::ReducedBasis& basis,
                                             const std::function<void(double)>& progress) {
  basis = rom::read_basis(rom_path);
  return run_reduced_simulation(job, basis, stats, progress);
}

mbs::SimulationResult run_reduced_simulation(mbs::SimulationJob& job, const rom::ReducedBasis& basis,
                                             rom::ReducedStats& stats, const std::function<void(double)>& progress,
                                             const std::function<void(const mbs::State&)>& on_start) {
  const auto t_start = std::chrono::steady_clock::now();
  mbs::SimulationResult r;
  mbs::Integrator full(job.system, job.solver);
  mbs::State s;
  r.redundant_rows = full.initialise(s); // the full model's consistent start and its active rows
  if (on_start) on_start(s);
  rom::ReducedIntegrator reduced(job.system, job.solver, basis);
  reduced.initialise(s);
  stats = reduced.run(mbs::make_recorder(job, r), progress);
  r.stats = stats.run;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return r;
}

void write_reduced_report(const std::string& path, const std::string& rom_path, const rom::ReducedBasis& basis,
                          const rom::ReducedStats& stats) {
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::append);
  f.ensure_group("/rom");
  f.write_attribute("/rom", "file", rom_path);
  f.write_attribute("/rom", "r", static_cast<std::int64_t>(basis.r()));
  f.write_attribute("/rom", "l", static_cast<std::int64_t>(basis.l()));
  f.write_attribute("/rom", "rank_checks", static_cast<std::int64_t>(stats.rank_checks));
  f.write_attribute("/rom", "min_rank_ratio", stats.min_rank_ratio);
  f.write_attribute("/rom", "initial_offset", stats.initial_offset);
}

} // namespace flexuq::workflow
