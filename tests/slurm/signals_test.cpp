// SPDX-License-Identifier: MIT
// The program side of a clean time-out (jobs/slurm): SIGUSR1/SIGTERM become a flag while a campaign
// runs; the campaign finishes the samples in flight, writes partial results and marks the run for
// exit status 75; `--resume` then finishes it with results bit-identical to an uninterrupted run.
// A signal that reaches only one group (here rank 0) stops every group.
#include "flexuq/app/Commands.hpp"
#include "flexuq/campaign/Journal.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Signals.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include "MpiTestUtil.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

using namespace flexuq;

namespace {

volatile std::sig_atomic_t g_custom_calls = 0;
extern "C" void custom_handler(int) { g_custom_calls = g_custom_calls + 1; }

using test::world_rank;

/// stem_np<size>.h5
std::string unique_name(const std::string& stem) { return test::unique_name(stem, ".h5"); }

void clean(const std::string& out) { test::remove_campaign_output(out); }

void run(const std::string& yaml, const std::string& out, bool resume) {
  auto cfg = io::Config::from_string(yaml + "output: " + out + "\n", "<test>");
  app::run_campaign(MPI_COMM_WORLD, cfg, resume);
  MPI_Barrier(MPI_COMM_WORLD);
}

long long journal_bytes(const std::string& dir) {
  long long n = 0;
  for (int g = 0; g < 4; ++g) {
    struct stat st {};
    if (::stat((dir + "/run0-group" + std::to_string(g) + ".rec").c_str(), &st) == 0) n += st.st_size;
  }
  return n;
}

const char* kJob = R"(
model: {function: polynomial, delay_seconds: 0.02}
parameters:
  a: {dist: normal, mean: 1, std: 0.5}
  b: {dist: uniform, low: -1, high: 2}
method: {type: sobol, samples: 96, pce: {max_order: 2}}
campaign: {ranks_per_sample: 1, seed: 3, checkpoint_every: 4}
)";

} // namespace

TEST(Signals, GuardTurnsUsr1AndTermIntoAFlagAndRestoresTheHandlersBefore) {
  struct sigaction mine {}, saved_usr1 {}, saved_term {};
  mine.sa_handler = custom_handler;
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(::sigaction(SIGUSR1, &mine, &saved_usr1), 0);
  ASSERT_EQ(::sigaction(SIGTERM, &mine, &saved_term), 0);
  g_custom_calls = 0;
  signals::clear_stop();
  {
    signals::StopOnSignal guard;
    EXPECT_THROW(signals::StopOnSignal second, Error);
    EXPECT_EQ(signals::stop_requested(), 0);
    ASSERT_EQ(::raise(SIGUSR1), 0); // would run custom_handler (or PETSc's abort) without the guard
    EXPECT_EQ(signals::stop_requested(), SIGUSR1);
    ASSERT_EQ(::raise(SIGTERM), 0);
    EXPECT_EQ(signals::stop_requested(), SIGUSR1) << "the first signal names the cause";
    EXPECT_EQ(g_custom_calls, 0);
  }
  signals::clear_stop();
  ASSERT_EQ(::raise(SIGUSR1), 0);
  ASSERT_EQ(::raise(SIGTERM), 0);
  EXPECT_EQ(g_custom_calls, 2) << "the guard did not restore the handlers it replaced";
  EXPECT_EQ(signals::stop_requested(), 0);
  EXPECT_STREQ(signals::signal_name(SIGTERM), "SIGTERM");
  ::sigaction(SIGUSR1, &saved_usr1, nullptr);
  ::sigaction(SIGTERM, &saved_term, nullptr);
}

TEST(Signals, CampaignStopsCleanlyOnUsr1AndResumesBitIdentical) {
  const std::string ref = unique_name("sig_ref"), cut = unique_name("sig_cut");
  clean(ref);
  clean(cut);
  signals::clear_stop();
  run(kJob, ref, false);
  EXPECT_FALSE(signals::stopped_early());

  // Rank 0 signals itself once a few samples are journaled; the other groups hear of it only
  // through the shared sample counter.
  std::atomic<bool> sent{false};
  std::thread killer;
  if (world_rank() == 0)
    killer = std::thread([&] {
      const auto t0 = std::chrono::steady_clock::now();
      while (journal_bytes(cut + ".journal") < 400 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ::kill(::getpid(), SIGUSR1);
      sent = true;
    });
  run(kJob, cut, false);
  if (killer.joinable()) killer.join();
  EXPECT_TRUE(signals::stopped_early()) << "the run finished before the signal: make the job longer";
  long long done = 0, total = 0, final_flag = -1;
  if (world_rank() == 0) {
    EXPECT_TRUE(sent.load());
    io::H5File f(MPI_COMM_SELF, cut, io::H5File::Mode::read);
    final_flag = f.read_attribute_int("/samples", "final");
    total = f.read_attribute_int("/samples", "total");
    EXPECT_EQ(total, 96);
    for (auto s : f.read_all_int("/samples/status")) done += s != 2;
    // Every sample the partial file counts is in the journal, and nothing else.
    EXPECT_EQ(done, static_cast<long long>(campaign::Journal::read_all(cut + ".journal").size()));
  }
  MPI_Bcast(&done, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Bcast(&final_flag, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  EXPECT_EQ(final_flag, 0);
  EXPECT_GT(done, 0);
  EXPECT_LT(done, 96) << "the stop did not land mid-run";

  signals::clear_stop();
  run(kJob, cut, /*resume=*/true);
  EXPECT_FALSE(signals::stopped_early());
  if (world_rank() == 0) {
    io::H5File a(MPI_COMM_SELF, ref, io::H5File::Mode::read), b(MPI_COMM_SELF, cut, io::H5File::Mode::read);
    EXPECT_EQ(b.read_attribute_int("/samples", "final"), 1);
    for (const char* d : {"/outputs/y", "/statistics/y/mean", "/statistics/y/std", "/statistics/y/skewness",
                          "/statistics/y/quantiles", "/statistics/y/sobol_first", "/statistics/y/sobol_total",
                          "/pce/y/coefficients"}) {
      const auto x = a.read_all(d), y = b.read_all(d);
      ASSERT_EQ(x.size(), y.size()) << d;
      for (std::size_t k = 0; k < x.size(); ++k) EXPECT_EQ(x[k], y[k]) << d << "[" << k << "] differs";
    }
    EXPECT_EQ(a.read_all_int("/samples/status"), b.read_all_int("/samples/status"));
  }
}
