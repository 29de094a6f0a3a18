// SPDX-License-Identifier: MIT
// The campaign without any FE or job file: typed options and their checks, the plan and its
// fingerprint, journal framing, and the scheduler driving a model defined here (a new model kind
// needs nothing from campaign but core/Model.hpp), including a node-field output.
#include "flexuq/campaign/Campaign.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include "MpiTestUtil.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace flexuq;

namespace {

using test::world_rank;

/// stem_units_np<size>
std::string unique_name(const std::string& stem) { return test::unique_name(stem + "_units"); }

void clean(const std::string& out) { test::remove_campaign_output(out); }

campaign::CampaignOptions options() {
  campaign::CampaignOptions o;
  o.source = "<units>";
  o.params.push_back({"a", uq::Distribution::normal(1.0, 0.5), ""});
  o.params.push_back({"b", uq::Distribution::uniform(-1.0, 2.0), ""});
  o.method.type = campaign::MethodType::sobol;
  o.method.samples = 16;
  o.seed = 5;
  o.model_description = "model:{function: test}";
  return o;
}

/// What the scheduler did to the model of this rank's group.
struct Probe {
  int built = 0, prepared = 0, evaluated = 0;
  std::vector<double> nominal;
  std::string watch;       ///< if set: a file whose existence evaluate() records
  int saw_file = 0;        ///< evaluations that found it
};

/// y = a² + b and a node field (2 nodes × 1 × 2) = [a, b, 2a, 2b].
class TestModel final : public Model {
public:
  explicit TestModel(Probe& p) : probe_(p) { ++probe_.built; }
  std::map<std::string, std::size_t> output_sizes() const override { return {{"y", 1}, {"field", 4}}; }
  std::map<std::string, std::vector<std::uint64_t>> field_dims() const override { return {{"field", {2, 1, 2}}}; }
  void write_field_support(const std::string& path, const std::string& field, const std::string& dataset) const override {
    io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::append);
    f.write_strings("/support/" + field, {dataset});
  }
  void prepare(const std::vector<double>& nominal) override {
    probe_.nominal = nominal;
    ++probe_.prepared;
  }
  Outputs evaluate(const std::vector<double>& t) override {
    FLEXUQ_REQUIRE(probe_.prepared == 1, "evaluate before prepare");
    ++probe_.evaluated;
    if (!probe_.watch.empty() && std::filesystem::exists(probe_.watch)) ++probe_.saw_file;
    return {{"y", {t[0] * t[0] + t[1]}}, {"field", {t[0], t[1], 2 * t[0], 2 * t[1]}}};
  }

private:
  Probe& probe_;
};

/// The same outputs, but the field journaled in factored form (Model::column_scaled_fields): base
/// [1, 1, 2, 2] (2 nodes × 1 × 2 columns) and column scales [a, b] per sample.
class ColumnScaledModel final : public Model {
public:
  std::map<std::string, std::size_t> output_sizes() const override { return {{"y", 1}, {"field", 4}}; }
  std::map<std::string, std::vector<std::uint64_t>> field_dims() const override { return {{"field", {2, 1, 2}}}; }
  std::map<std::string, const std::vector<double>*> column_scaled_fields() const override { return {{"field", &base_}}; }
  Outputs evaluate(const std::vector<double>& t) override {
    return {{"y", {t[0] * t[0] + t[1]}}, {column_scale_output("field"), {t[0], t[1]}}};
  }

private:
  std::vector<double> base_{1.0, 1.0, 2.0, 2.0};
};

} // namespace

TEST(CampaignPlan, ChecksRunOnceOnTypedOptions) {
  auto bad = [](auto change) {
    auto o = options();
    change(o);
    return o;
  };
  EXPECT_NO_THROW(options().check());
  EXPECT_THROW(make_plan(bad([](auto& o) { o.params.clear(); })), InputError);
  EXPECT_THROW(make_plan(bad([](auto& o) { o.ranks_per_sample = 0; })), InputError);
  EXPECT_THROW(make_plan(bad([](auto& o) { o.checkpoint_every = 0; })), InputError);
  EXPECT_THROW(make_plan(bad([](auto& o) { o.method.samples = 1; })), InputError);
  EXPECT_THROW(make_plan(bad([](auto& o) { o.method.max_order = 13; })), InputError);
  // An unknown method.type, method.pce.fit, sampling or grid is refused where the job is parsed
  // (tests/app/job_options_test.cpp, enum_options_test.cpp): the typed options cannot hold one.
}

TEST(CampaignPlan, SamplesDefaultsAndFingerprint) {
  const auto p = make_plan(options());
  EXPECT_EQ(p.size(), 16u);
  EXPECT_EQ(p.pce.fit, uq::FitMethod::regression);
  EXPECT_EQ(p.pce.max_order, 3);
  EXPECT_EQ(p.nominal(), (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(p.sample(3)[1], p.theta(3, 1));
  EXPECT_EQ(make_plan(options()).fingerprint, p.fingerprint) << "deterministic";
  auto o = options();
  o.model_description = "model:{function: other}";
  EXPECT_NE(make_plan(o).fingerprint, p.fingerprint) << "a changed model must change the fingerprint";
  // Regression PCE without method.samples: 2P + 1 samples for the (default) max order 3 in 2-D.
  o = options();
  o.method.type = campaign::MethodType::pce;
  o.method.samples.reset();
  EXPECT_EQ(make_plan(o).size(), 21u);
  // Collocation: a projection on the sparse grid, with weights.
  o.method.type = campaign::MethodType::collocation;
  const auto q = make_plan(o);
  EXPECT_EQ(q.pce.fit, uq::FitMethod::projection);
  EXPECT_EQ(q.weights.size(), q.size());
}

TEST(CampaignJournal, TornRecordIsIgnoredAndDuplicatesKeptOnce) {
  const std::string dir = unique_name("journal") + "_dir";
  if (world_rank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    {
      campaign::Journal j(dir + "/a.rec");
      for (std::uint64_t i : {3u, 1u, 2u}) {
        campaign::SampleRecord r;
        r.index = i;
        r.outputs["y"] = {static_cast<double>(i)};
        j.append(r);
      }
    }
    {
      campaign::Journal j(dir + "/b.rec");
      campaign::SampleRecord r;
      r.index = 1;
      r.status = 1;
      r.reason = "late duplicate";
      j.append(r);
    }
    auto all = campaign::Journal::read_all(dir);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].index, 1u);
    EXPECT_EQ(all[0].status, 0) << "the first record of a sample is kept";
    EXPECT_EQ(all[2].outputs.at("y")[0], 3.0);
    // Cut the last record of a.rec in half (a kill during write): it is dropped, the rest kept.
    std::ifstream in(dir + "/a.rec", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    in.close();
    std::ofstream(dir + "/a.rec", std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size() - 5);
    all = campaign::Journal::read_all(dir);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].index, 1u);
    EXPECT_EQ(all[0].status, 0) << "still the first record of sample 1 (a.rec comes before b.rec)";
    EXPECT_EQ(all[1].index, 3u);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(CampaignScheduler, DrivesAModelItDoesNotKnow) {
  const std::string out = unique_name("testmodel") + ".h5";
  clean(out);
  auto o = options();
  o.output = out;
  o.checkpoint_every = 3;
  const auto plan = make_plan(o);
  Probe probe;
  campaign::run_campaign(
      MPI_COMM_WORLD, plan, [&](MPI_Comm) { return std::make_unique<TestModel>(probe); }, false);
  EXPECT_EQ(probe.built, 1) << "one model per group, built once";
  EXPECT_EQ(probe.prepared, 1);
  EXPECT_EQ(probe.nominal, plan.nominal());
  long long evaluated = probe.evaluated, total = 0;
  MPI_Allreduce(&evaluated, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, static_cast<long long>(plan.size())) << "each sample evaluated once (one rank per group)";
  if (world_rank() == 0) {
    io::H5File f(MPI_COMM_SELF, out, io::H5File::Mode::read);
    const auto y = f.read_all("/outputs/y");
    ASSERT_EQ(y.size(), plan.size());
    for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(y[i], plan.theta(i, 0) * plan.theta(i, 0) + plan.theta(i, 1));
    EXPECT_EQ(f.read_attribute_int("/samples", "completed"), static_cast<long long>(plan.size()));
    // The node field: mean per entry over the samples, and its support written by the model.
    const auto mean = f.read_all("/statistics/field/mean");
    EXPECT_EQ(f.shape("/statistics/field/mean"), (std::vector<std::uint64_t>{2, 1, 2}));
    EXPECT_NEAR(mean[2], 2 * plan.theta.col(0).mean(), 1e-12);
    EXPECT_EQ(f.read_strings("/support/field"), (std::vector<std::string>{"/statistics/field/mean"}));
    EXPECT_FALSE(f.exists("/outputs/field")) << "per-sample fields stay in the journal";
  }
}

// Periodic checkpoints: after checkpoint_every of rank 0's samples, and only once checkpoint_seconds
// have passed since the loop began or the last one. Rank 0's model sees the partial result file
// appear during the loop with no minimum time, and never with an hour's.
TEST(CampaignScheduler, CheckpointsWaitForTheirInterval) {
  for (const double seconds : {0.0, 3600.0}) {
    const std::string out = unique_name(seconds > 0 ? "ckpt_hour" : "ckpt_now") + ".h5";
    clean(out);
    auto o = options();
    o.output = out;
    o.method.samples = 60;
    o.checkpoint_every = 2;
    o.checkpoint_seconds = seconds;
    const auto plan = make_plan(o);
    Probe probe;
    probe.watch = out;
    campaign::run_campaign(
        MPI_COMM_WORLD, plan, [&](MPI_Comm) { return std::make_unique<TestModel>(probe); }, false);
    if (world_rank() == 0) {
      if (seconds > 0) {
        EXPECT_EQ(probe.saw_file, 0) << "a checkpoint within the hour";
      } else if (probe.evaluated > 3) { // rank 0 ran past its second sample with another one pending
        EXPECT_GT(probe.saw_file, 0) << "no checkpoint after " << probe.evaluated << " samples of rank 0";
      }
      io::H5File f(MPI_COMM_SELF, out, io::H5File::Mode::read);
      EXPECT_EQ(f.read_attribute_int("/samples", "completed"), 60) << "the final results";
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  auto bad = options();
  bad.checkpoint_seconds = -1;
  EXPECT_THROW(make_plan(bad), InputError);
}

TEST(CampaignScheduler, ColumnScaledFieldHasTheStatisticsOfTheWholeField) {
  // A field journaled as column factors of a base: its statistics come from the factors' moments
  // (mean base[k]·mean(s_j), std |base[k]|·std(s_j)) and must be those of the same field journaled
  // whole to round-off, and the factors must not appear as an output of their own.
  const std::string whole = unique_name("field_whole") + ".h5", scaled = unique_name("field_scaled") + ".h5";
  clean(whole);
  clean(scaled);
  auto o = options();
  o.output = whole;
  Probe probe;
  campaign::run_campaign(MPI_COMM_WORLD, make_plan(o), [&](MPI_Comm) { return std::make_unique<TestModel>(probe); }, false);
  o.output = scaled;
  campaign::run_campaign(MPI_COMM_WORLD, make_plan(o), [&](MPI_Comm) { return std::make_unique<ColumnScaledModel>(); }, false);
  if (world_rank() == 0) {
    io::H5File a(MPI_COMM_SELF, whole, io::H5File::Mode::read), b(MPI_COMM_SELF, scaled, io::H5File::Mode::read);
    for (const char* d : {"/statistics/field/mean", "/statistics/field/std", "/outputs/y"}) {
      ASSERT_TRUE(b.exists(d)) << d;
      const auto x = a.read_all(d), y = b.read_all(d);
      ASSERT_EQ(x.size(), y.size()) << d;
      for (std::size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(x[k], y[k], 1e-14 * std::abs(x[k])) << d << "[" << k << "]";
    }
    EXPECT_EQ(b.read_all("/statistics/field/mean").size(), 4u);
    EXPECT_GT(b.read_all("/statistics/field/std")[3], 0.1);
    EXPECT_FALSE(b.exists("/outputs/field.column_scale"));
    EXPECT_FALSE(b.exists("/statistics/field.column_scale"));
  }
  clean(whole);
  clean(scaled);
}
