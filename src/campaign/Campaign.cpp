// SPDX-License-Identifier: MIT
// Sample runs:
//   mpirun -n 4 build/bin/flexuq campaign configs/crank-uq.yaml            # 4 ranks, 2 per sample
//   mpirun -n 4 build/bin/flexuq campaign configs/crank-uq.yaml --resume   # after a kill / time-out
#include "flexuq/campaign/Campaign.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/Signals.hpp"
#include "flexuq/io/InputFile.hpp"
#include "flexuq/io/OutputFile.hpp"

#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/serialization/string.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace flexuq::campaign {

namespace {

/// The journal folder's run state on rank 0: fingerprint check, run counter, the run lock.
struct RunState {
  std::string error;               ///< non-empty: refuse to run (same message on every rank)
  int run_id = 0;
  int lock_fd = -1;                ///< held for the whole run (released by the kernel if the job dies)
  /// Indices of the samples journaled by earlier runs (located one record at a time: the records
  /// themselves, point bases included, are not held while the model is built and the samples run).
  std::vector<std::uint64_t> done;
};

/// Take the folder's run lock (@p create: make the lock file if missing; otherwise a missing lock
/// file means no run is alive). Sets s.error if another run holds it.
void take_lock(const std::string& dir, bool create, RunState& s) {
  s.lock_fd = ::open((dir + "/lock").c_str(), O_RDWR | (create ? O_CREAT : 0), 0644);
  if (s.lock_fd < 0 && !create && errno == ENOENT) return;
  if (s.lock_fd < 0 || ::flock(s.lock_fd, LOCK_EX | LOCK_NB) != 0)
    s.error = "another run of this campaign is still active (" + dir +
              "/lock is held); wait for it to end or kill all of its ranks before --resume";
}

RunState open_run(const Plan& plan, const std::string& dir, bool resume) {
  RunState s;
  const std::string state_path = dir + "/state.txt";
  const io::InputCheck folder = io::inspect_input(dir), state = io::inspect_input(state_path);
  if (folder.problem != io::InputProblem::missing && folder.problem != io::InputProblem::directory) {
    s.error = "the campaign's journal folder '" + dir + "' exists but is not a folder (it " +
              (folder.problem == io::InputProblem::none ? std::string("is a file") : folder.reason) +
              "): remove it, or choose another output name";
    return s;
  }
  if (state.problem != io::InputProblem::none && state.problem != io::InputProblem::missing) {
    s.error = "the journal state '" + state_path + "' " + state.reason + ": remove the folder " + dir +
              " to start afresh";
    return s;
  }
  if (state.problem == io::InputProblem::none) {
    std::string fp;
    int runs = 0;
    try { // Boost's own words ("input stream error") name neither the file nor what to do
      std::ifstream st(state_path);
      boost::archive::text_iarchive ar(st);
      ar >> fp >> runs;
    } catch (const std::exception& e) {
      s.error = "the journal state '" + state_path + "' is damaged (" + e.what() +
                "): restore it, or remove the folder " + dir + " to start afresh (its samples are then lost)";
      return s;
    }
    if (!resume)
      s.error = "results of an earlier run of this campaign exist in " + dir + " (" +
                std::to_string(Journal::locate(dir).size()) +
                " samples): run with --resume to continue it, or remove that folder to start afresh";
    else if (fp != plan.fingerprint)
      s.error = "the job changed since the interrupted run (samples or model differ: fingerprint " + plan.fingerprint +
                " vs " + fp + "); restore the job file or remove " + dir + " to start afresh";
    s.run_id = runs;
    if (s.error.empty())
      for (const auto& where : Journal::locate(dir)) s.done.push_back(where.index);
  } else if (resume) {
    s.error = "--resume: nothing to resume in " + dir + " (no earlier run of this job)";
  }
  // One run at a time per campaign: a lock held by rank 0 for the whole run, so a resume cannot
  // race with ranks of a run that is still alive. An existing folder's lock is taken now (before
  // the model is built); a new folder is made only by commit_run.
  if (s.error.empty()) take_lock(dir, false, s);
  return s;
}

/// Make the folder if needed and record the run (fingerprint, run counter) once the model is
/// built: a job whose model fails to build (bad input) leaves no folder and no run behind, so
/// running it again after the fix needs no --resume. Sets s.error if another run holds the lock.
void commit_run(const Plan& plan, const std::string& dir, RunState& s) {
  ::mkdir(dir.c_str(), 0755);
  if (s.lock_fd < 0) take_lock(dir, true, s);
  if (!s.error.empty()) return;
  std::ofstream out(dir + "/state.txt");
  boost::archive::text_oarchive ar(out);
  const int runs = s.run_id + 1;
  ar << plan.fingerprint << runs;
}

/// Sample indices not journaled yet (the same list on every rank of @p comm; @p done on rank 0).
std::vector<std::uint64_t> pending_samples(MPI_Comm comm, const Plan& plan, const std::vector<std::uint64_t>& done,
                                           long long* n_done) {
  std::vector<std::uint64_t> idx = done;
  long long n = static_cast<long long>(idx.size());
  FLEXUQ_MPI(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm));
  idx.resize(static_cast<std::size_t>(n));
  if (n) FLEXUQ_MPI(MPI_Bcast(idx.data(), static_cast<int>(n), MPI_UINT64_T, 0, comm));
  std::vector<char> is_done(plan.size(), 0);
  for (auto i : idx) is_done[i] = 1;
  std::vector<std::uint64_t> pending;
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (!is_done[i]) pending.push_back(i);
  *n_done = n;
  return pending;
}

/// Evaluate sample @p i; a failure (exception or non-finite output) becomes a failed record.
SampleRecord evaluate_sample(Model& model, const Plan& plan, std::uint64_t i, int group) {
  SampleRecord rec;
  rec.index = i;
  rec.group = group;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    rec.outputs = model.evaluate(plan.sample(i));
    for (const auto& [k, v] : rec.outputs)
      for (double x : v)
        if (!std::isfinite(x)) throw Error("output '" + k + "' is not finite (NaN or Inf)");
  } catch (const std::exception& e) {
    rec.status = 1;
    rec.reason = e.what();
    rec.outputs.clear();
  }
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rec;
}

/// write_results into plan.results_path, or onto plan.output through a temporary name (rank-local).
std::map<std::string, uq::OutputSummary> write_results_file(const Plan& plan, const std::vector<SampleRecord>& records,
                                                            const std::map<std::string, std::size_t>& sizes, bool final,
                                                            const FieldInfo& fields,
                                                            const std::map<std::string, FieldMoments>& moments) {
  if (!plan.results_path.empty()) return write_results(plan.results_path, plan, records, sizes, final, fields, moments);
  io::OutputFile out(MPI_COMM_SELF, plan.output);
  auto summaries = write_results(out.temp(), plan, records, sizes, final, fields, moments);
  out.commit();
  return summaries;
}

} // namespace

void run_campaign(MPI_Comm comm_in, const Plan& plan, const ModelFactory& factory, bool resume) {
  Comm world(comm_in);
  MPI_Comm wc = world.get();
  signals::StopOnSignal stop_guard; // SIGUSR1/SIGTERM: finish the samples in flight, checkpoint, exit 75
  const int rank = world.rank(), size = world.size();
  // More ranks per sample than the run has is refused too, not quietly lowered: results are
  // bit-identical only for the same group size (docs/architecture.md "Reproducibility").
  FLEXUQ_REQUIRE_OPTION(size % plan.ranks_per_sample == 0, "ranks_per_sample",
                        "{} = " << plan.ranks_per_sample
                                << (size < plan.ranks_per_sample ? " is more than the " : " does not divide the ")
                                << size << " rank(s) of this run: run on a multiple of " << plan.ranks_per_sample
                                << " ranks or change {}");
  const int rps = plan.ranks_per_sample;
  int group_index = 0;
  Comm group = world.split_groups(rps, &group_index);
  const bool leader = group.rank() == 0;
  const int n_groups = size / rps;

  // The journal folder first: an earlier run without --resume, a changed job or a live run is refused
  // before the model is built (a stochastic body's model reduces its reference body when built).
  const std::string dir = plan.output + ".journal";
  RunState state;
  if (rank == 0) {
    try { // a damaged journal found on rank 0 alone must not leave the other ranks waiting
      state = open_run(plan, dir, resume);
    } catch (const std::exception& e) {
      state.error = e.what();
    }
  }
  broadcast(wc, state.error);
  FLEXUQ_REQUIRE(state.error.empty(), state.error);
  FLEXUQ_MPI(MPI_Bcast(&state.run_id, 1, MPI_INT, 0, wc));

  // The model on this group's communicator.
  auto model = factory(group.get());
  FLEXUQ_REQUIRE(model != nullptr, "the model factory returned no model");
  if (rank == 0) commit_run(plan, dir, state);
  broadcast(wc, state.error);
  FLEXUQ_REQUIRE(state.error.empty(), state.error);
  const auto sizes = model->output_sizes();
  const Model* field_model = model.get();
  const FieldInfo fields{model->field_dims(),
                         [field_model](const std::string& path, const std::string& field, const std::string& dataset) {
                           field_model->write_field_support(path, field, dataset);
                         },
                         model->column_scaled_fields()};

  long long n_done = 0;
  const auto pending = pending_samples(wc, plan, state.done, &n_done);
  log::info(wc, "flexuq campaign: " + std::to_string(plan.size()) + " samples (" + plan.method + ", " +
                    std::to_string(plan.params.size()) + " parameters), " + std::to_string(n_groups) + " group(s) of " +
                    std::to_string(rps) + " rank(s)" +
                    (n_done ? ", resuming: " + std::to_string(n_done) + " already done" : ""));

  // FE models solve their reference (at the parameter means) here, once per group.
  model->prepare(plan.nominal());

  // --- dynamic scheduling: an atomic counter in an MPI window on rank 0 ---
  long long* counter = nullptr;
  MPI_Win win;
  FLEXUQ_MPI(MPI_Win_allocate(rank == 0 ? sizeof(long long) : 0, sizeof(long long), MPI_INFO_NULL, wc, &counter, &win));
  if (rank == 0) *counter = 0;
  FLEXUQ_MPI(MPI_Barrier(wc));
  std::unique_ptr<Journal> journal;
  if (leader)
    journal = std::make_unique<Journal>(dir + "/run" + std::to_string(state.run_id) + "-group" +
                                        std::to_string(group_index) + ".rec");
  log::Progress progress(wc, "campaign", static_cast<long long>(pending.size()), 2.0);
  const auto t_start = std::chrono::steady_clock::now();
  auto last_checkpoint = t_start;
  long long mine = 0, failed_here = 0;
  while (true) {
    long long pos = 0;
    if (leader) {
      // A stop signal pushes the counter past the end: every group stops after its sample in flight.
      const bool stop = signals::stop_requested() != 0;
      const long long one = stop ? static_cast<long long>(pending.size()) + 1 : 1;
      FLEXUQ_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
      FLEXUQ_MPI(MPI_Fetch_and_op(&one, &pos, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
      FLEXUQ_MPI(MPI_Win_unlock(0, win));
      if (stop) pos = static_cast<long long>(pending.size());
    }
    FLEXUQ_MPI(MPI_Bcast(&pos, 1, MPI_LONG_LONG, 0, group.get()));
    if (pos >= static_cast<long long>(pending.size())) break;
    const std::uint64_t i = pending[static_cast<std::size_t>(pos)];
    const SampleRecord rec = evaluate_sample(*model, plan, i, group_index);
    if (rec.status) ++failed_here;
    if (leader) {
      journal->append(rec);
      if (rec.status) log::warn(group.get(), "flexuq campaign: sample " + std::to_string(i) + " failed: " + rec.reason);
    }
    ++mine;
    if (rank == 0) {
      progress.update(std::max(0LL, pos + 1 - (n_groups - 1)));
      // Checkpoint: a readable partial result file from every journal written so far. Not after
      // the last pending sample: the final results follow (and the journal has everything anyway).
      // At most once per checkpoint_seconds: the journal is what makes a run durable, and each
      // checkpoint reads every record written so far, so with fast samples a count alone would
      // rewrite the file many times a second (and read the journal quadratically often).
      const auto now = std::chrono::steady_clock::now();
      if (mine % plan.checkpoint_every == 0 && pos + 1 < static_cast<long long>(pending.size()) &&
          std::chrono::duration<double>(now - last_checkpoint).count() >= plan.checkpoint_seconds) {
        last_checkpoint = now;
        std::map<std::string, FieldMoments> moments;
        const auto records = read_records(dir, fields, moments);
        write_results_file(plan, records, sizes, false, fields, moments);
      }
    }
  }
  journal.reset();
  FLEXUQ_MPI(MPI_Win_free(&win));
  FLEXUQ_MPI(MPI_Barrier(wc));
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  const long long failed = allreduce_sum(wc, leader ? failed_here : 0LL);
  const long long evaluated = allreduce_sum(wc, leader ? mine : 0LL);
  const bool complete = n_done + evaluated == static_cast<long long>(plan.size());
  if (!complete) signals::mark_stopped_early(); // only a stop signal ends the loop early
  std::string all_failed; // rank 0: why no sample succeeded, when none did
  if (rank == 0) {
    std::map<std::string, FieldMoments> moments; // field outputs folded in as the records are read
    const auto records = read_records(dir, fields, moments);
    const auto summaries = write_results_file(plan, records, sizes, complete, fields, moments);
    long long total_failed = 0;
    for (const auto& r : records) total_failed += r.status != 0;
    std::ostringstream os;
    os << "  evaluated " << evaluated << " sample(s) in " << std::fixed << std::setprecision(2) << elapsed << " s ("
       << (evaluated ? elapsed * n_groups / static_cast<double>(evaluated) : 0.0) << " s per sample per group); "
       << records.size() << "/" << plan.size() << " done, " << total_failed << " failed (" << failed
       << " in this run)\n";
    for (const auto& [name, s] : summaries) os << uq::format_summary(name, s) << "\n";
    os << "  results: " << plan.output << " (journal: " << dir << ")";
    if (!complete)
      os << "\n  stopped on " << signals::signal_name(signals::stop_requested()) << " after the samples in flight: partial "
         << "results; run again with --resume to finish (exit status " << signals::kExitResumable << ")";
    // Failures are the last line: a campaign with failed samples says so where it ends.
    if (total_failed > 0)
      os << "\n  " << total_failed << " of " << records.size() << " sample(s) failed (reasons in " << plan.output
         << ": /samples/failure_reason)";
    if (state.lock_fd >= 0) ::close(state.lock_fd);
    log::info(MPI_COMM_SELF, os.str());
    // A caller that owns the results (plan.results_path) reports this its own way.
    if (plan.results_path.empty() && !records.empty() && total_failed == static_cast<long long>(records.size())) {
      const auto first = std::find_if(records.begin(), records.end(), [](const SampleRecord& r) { return r.status != 0; });
      all_failed = "every one of the " + std::to_string(records.size()) + " sample(s) evaluated failed; the first (sample " +
                   std::to_string(first->index) + "): " + first->reason + " (all reasons in " + plan.output +
                   ": /samples/failure_reason)";
    }
  }
  broadcast(wc, all_failed); // an error on every rank: no result to use, a non-zero exit
  if (!all_failed.empty()) throw InputError(all_failed);
}

} // namespace flexuq::campaign
