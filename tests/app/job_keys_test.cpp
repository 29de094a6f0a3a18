// SPDX-License-Identifier: MIT
// app/JobKeys: a library names a bad option by its field, each verb renders the job key (issue #33 item 2).
#include "flexuq/app/JobKeys.hpp"
#include "flexuq/mbs/Integrator.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

namespace {

/// The OptionError @p f throws; fails the test when it throws none.
template <class F> OptionError option_error_of(F&& f) {
  try {
    f();
  } catch (const OptionError& e) {
    return e;
  }
  ADD_FAILURE() << "no OptionError thrown";
  return OptionError("", "");
}

TEST(JobKeys, LongestPrefixByWholeParts) {
  const app::JobKeys k({{"modes", "reduce.modes"}, {"modes.band", "reduce.band"}, {"stochastic", "reduce.stochastic"}});
  EXPECT_EQ(k.key_of("modes.count"), "reduce.modes.count");
  EXPECT_EQ(k.key_of("modes"), "reduce.modes");
  EXPECT_EQ(k.key_of("modes.band"), "reduce.band");
  EXPECT_EQ(k.key_of("modes.band.low"), "reduce.band.low");
  EXPECT_EQ(k.key_of("modes_x"), "modes_x");                          // a whole part, not a text prefix
  EXPECT_EQ(k.key_of("solver.step"), "solver.step");                  // not listed: the field itself
  EXPECT_EQ(k.message(InputError("plain {modes}")), "plain {modes}"); // not an OptionError: as it is
}

TEST(JobKeys, EachVerbNamesItsKeys) {
  EXPECT_EQ(app::reduce_keys().key_of("checkout.free_free"), "reduce.checkout.free_free");
  EXPECT_EQ(app::reduce_keys().key_of("interfaces"), "reduce.interfaces");
  EXPECT_EQ(app::reduce_keys().key_of("ranks_per_group"), "campaign.ranks_per_sample");
  EXPECT_EQ(app::campaign_keys().key_of("ranks_per_sample"), "campaign.ranks_per_sample");
  EXPECT_EQ(app::campaign_keys().key_of("modes.interface"), "reduce.modes.interface"); // model.reduce jobs
  EXPECT_EQ(app::campaign_keys().key_of("outputs"), "outputs.simulation");
  EXPECT_EQ(app::simulate_keys().key_of("solver.alpha"), "solver.alpha");
}

TEST(JobKeys, ALibraryErrorReadsAsBefore) {
  // mbs: two options of one struct in one message, the run's context kept around it.
  mbs::SolverOptions o;
  o.start = 2;
  o.end = 1;
  const auto e = option_error_of([&] { o.validate(); });
  EXPECT_EQ(e.option(), "solver.end");
  EXPECT_EQ(app::simulate_keys().message(e.wrapped("job.yaml: ")),
            "job.yaml: solver.end (1) must be after solver.start (2)");
  // A verb turns it into the InputError main prints.
  try {
    app::with_job_keys(app::reduce_keys(),
                       [] { FLEXUQ_REQUIRE_OPTION(false, "checkout.free_free", "{} must be >= 0"); });
    ADD_FAILURE() << "nothing thrown";
  } catch (const OptionError&) {
    ADD_FAILURE() << "still an OptionError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "reduce.checkout.free_free must be >= 0");
  }
}

} // namespace
