// SPDX-License-Identifier: MIT
// workflow::run_galerkin_campaign without the CLI: a typed GalerkinJob made in C++ for the steel box
// of BoxBody.hpp clamped at XMIN, its Young's modulus lognormal. Every frequency is then
// f(E) = f(Ē) √(E/Ē), so the mean and the standard deviation have closed forms from one
// deterministic modes solve at Ē: E[f] = f(Ē) e^{−s²/8}, sd[f] = f(Ē) √(1 − e^{−s²/4}) with
// s² = ln(1 + cv²). The result on one rank equals the results on two (one group of two ranks, two
// block groups of one).
#include "BoxBody.hpp"

#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/workflow/GalerkinCampaign.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

using namespace flexuq;
using namespace flexuq::test;

namespace {

constexpr double kCv = 0.05; ///< coefficient of variation of E
constexpr int kModes = 3;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

fe::ComponentOptions clamped_steel() {
  auto o = steel();
  o.fixed_sets = {"XMIN"};
  return o;
}

workflow::GalerkinJob job(const std::string& output, int ranks_per_sample) {
  workflow::GalerkinJob j;
  j.options.source = "<test>";
  j.options.params = {{"E", uq::Distribution::lognormal_from_moments(kSteelE, kCv * kSteelE), ""}};
  j.options.seed = 7;
  j.options.ranks_per_sample = ranks_per_sample;
  j.options.output = output;
  j.eigen.order = 3;
  j.eigen.n_modes = kModes;
  j.expansion.order = 2;
  j.component = clamped_steel();
  j.parameters = {{"E", fe::MaterialProperty::E, std::nullopt}};
  j.mesh = box_mesh();
  j.mode_shapes = false;
  return j;
}

std::string output(const std::string& name) { return shared_scratch_dir("workflow-galerkin") + "/" + name; }

std::vector<double> read(MPI_Comm comm, const std::string& path, const std::string& dset) {
  const io::H5File f(comm, path, io::H5File::Mode::read);
  return f.read_all(dset);
}

/// Run @p j on @p comm afresh; the frequency means. @note Collective on @p comm.
std::vector<double> run(MPI_Comm comm, const workflow::GalerkinJob& j) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  if (r == 0) std::filesystem::remove(j.options.output);
  MPI_Barrier(comm);
  workflow::run_galerkin_campaign(comm, j);
  return read(comm, j.options.output, "/statistics/frequencies/mean");
}

} // namespace

TEST(GalerkinCampaignWorkflow, MeanAndStdMatchTheClosedForm) {
  const auto j = job(output("closed-form.h5"), 1);
  const auto mean = run(MPI_COMM_WORLD, j);
  const auto sd = read(MPI_COMM_WORLD, j.options.output, "/statistics/frequencies/std");
  {
    const io::H5File f(MPI_COMM_WORLD, j.options.output, io::H5File::Mode::read);
    EXPECT_EQ(f.read_attribute_int("/galerkin", "converged"), 1);
    EXPECT_EQ(f.read_attribute_int("/galerkin", "order"), 3);
  }
  // The deterministic modes at Ē (fe, no stochastic code).
  fe::Component comp(MPI_COMM_WORLD, box_mesh(), clamped_steel());
  fe::ModeOptions mo;
  mo.count = kModes;
  mo.constrained = true;
  mo.progress = false;
  const auto f0 = fe::ModeSolver(mo).solve(comp.K(), comp.M()).frequencies_hz();
  ASSERT_GE(f0.size(), static_cast<std::size_t>(kModes));
  ASSERT_EQ(mean.size(), static_cast<std::size_t>(kModes));
  ASSERT_EQ(sd.size(), static_cast<std::size_t>(kModes));
  const double s2 = std::log1p(kCv * kCv);
  for (int k = 0; k < kModes; ++k) {
    const double m = f0[k] * std::exp(-s2 / 8), s = f0[k] * std::sqrt(-std::expm1(-s2 / 4));
    EXPECT_NEAR(mean[k], m, 1e-8 * m) << "mode " << k;
    EXPECT_NEAR(sd[k], s, 1e-5 * s) << "mode " << k;
    // The mean differs from f(Ē) by far more than the tolerance.
    EXPECT_GT(std::abs(f0[k] - m), 1e4 * 1e-8 * m);
  }
}

TEST(GalerkinCampaignWorkflow, OneRankEqualsTwoRanks) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) GTEST_SKIP() << "compares one rank with two";
  const std::string self = output("self.h5"); // collective: before rank 0 runs alone
  std::vector<double> one;
  if (world_rank() == 0) one = run(MPI_COMM_SELF, job(self, 1));
  const auto group_of_two = run(MPI_COMM_WORLD, job(output("group-of-two.h5"), 2));
  const auto two_groups = run(MPI_COMM_WORLD, job(output("two-groups.h5"), 1));
  if (world_rank() != 0) return;
  ASSERT_EQ(one.size(), static_cast<std::size_t>(kModes));
  for (int k = 0; k < kModes; ++k) {
    EXPECT_NEAR(group_of_two[k], one[k], 1e-8 * one[k]) << "mode " << k;
    EXPECT_NEAR(two_groups[k], one[k], 1e-8 * one[k]) << "mode " << k;
  }
}
