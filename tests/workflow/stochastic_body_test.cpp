// SPDX-License-Identifier: MIT
// workflow::run_stochastic_body and workflow::run_body_at without the CLI: typed jobs made in C++ on
// the two-set steel box (StochasticBox.hpp), checked against deterministic Craig–Bampton bodies of
// the box built at the same parameters by the cms chain — at the means (the file's /reduced, to
// 1e-8) and at a point off the design (the expansion) — for collocation and regression; body-at
// writes the expansion's body and refuses a germ outside its law's support.
#include "../io/InputErrorOf.hpp"
#include "StochasticBox.hpp"

#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/workflow/BodyAt.hpp"

#include <gtest/gtest.h>

using namespace flexuq;
using namespace flexuq::test;

namespace {

const std::vector<double> kPoint{2.1e11, 7700}; ///< θ off every design point

std::string output(const std::string& name) { return shared_scratch_dir("workflow-stochastic") + "/" + name; }

/// Run @p job afresh and read its body. @note Collective.
cms::StochasticBody run(const workflow::StochasticBodyJob& job) {
  remove_body_file(job.plan.output);
  workflow::run_stochastic_body(MPI_COMM_WORLD, job);
  MPI_Barrier(MPI_COMM_WORLD);
  return cms::StochasticBody::read(MPI_COMM_WORLD, job.plan.output);
}

/// The body at the means is the deterministic reduction there; the expansion at kPoint is within
/// @p tol of the reduction at kPoint.
void expect_matches_craig_bampton(const cms::StochasticBody& sb, double tol) {
  const auto at_mean = craig_bampton_at({kSteelE, kSteelRho});
  EXPECT_LT(max_relative_difference(sb.nominal.checkout.reduced_hz, at_mean.reduced_hz, kFreeFree), 1e-8);
  EXPECT_LT((sb.nominal.K - sb.at({kSteelE, kSteelRho}).K).norm() / sb.nominal.K.norm(), tol);
  const auto at_point = craig_bampton_at(kPoint);
  const double d = max_relative_difference(sb.at(kPoint).checkout.reduced_hz, at_point.reduced_hz, kFreeFree);
  EXPECT_LT(d, tol);
  // The parameters move the frequencies far more than the tolerance: the comparison can fail.
  EXPECT_GT(max_relative_difference(at_mean.reduced_hz, at_point.reduced_hz, kFreeFree), 100 * tol);
}

/// The expansion's degree and points, and the parameters in plan order.
void expect_fit(const cms::StochasticBody& sb, int order, std::int64_t points) {
  EXPECT_EQ(sb.order, order);
  EXPECT_EQ(sb.points_used, points);
  EXPECT_EQ(sb.points_total, points);
  EXPECT_EQ(sb.names, (std::vector<std::string>{"E_left", "rho_right"}));
}

} // namespace

TEST(StochasticBodyWorkflow, CollocationMatchesCraigBamptonAtTheMeansAndOffTheGrid) {
  // 4 Gauss–Legendre points per input: 16 reductions.
  const auto job = two_set_job(workflow::StochasticMethod::collocation, tensor_collocation(output("collocation.h5"), 3));
  ASSERT_EQ(job.plan.size(), 16u);
  const auto sb = run(job);
  EXPECT_EQ(job.plan.weights.size(), 16u); // quadrature weights: a projection
  expect_fit(sb, 3, 16);
  ASSERT_TRUE(sb.has("basis"));
  expect_matches_craig_bampton(sb, 1e-5);
}

TEST(StochasticBodyWorkflow, RegressionMatchesCraigBamptonOffTheDesign) {
  auto job = two_set_job(workflow::StochasticMethod::regression, regression_design(output("regression.h5"), 2, 14));
  job.body.basis = false; // the small outputs only
  const auto sb = run(job);
  EXPECT_TRUE(job.plan.weights.empty()); // a drawn design: a regression
  expect_fit(sb, 2, 14);
  EXPECT_FALSE(sb.has("basis"));
  expect_matches_craig_bampton(sb, 1e-4);
}

TEST(StochasticBodyWorkflow, BodyAtWritesTheExpansionAtTheGivenParameters) {
  const auto o = tensor_collocation(output("body-at-source.h5"), 2);
  const auto sb = run(two_set_job(workflow::StochasticMethod::collocation, o));
  const std::string at = output("body-at.h5");
  // ρ given by its germ: ξ = 0.5 on U(7600, 8000) is 7900.
  workflow::run_body_at(MPI_COMM_WORLD, {o.output, {{"E_left", 2.1e11, false, ""}, {"rho_right", 0.5, true, ""}}, at});
  const auto body = cms::ReducedBody::read(MPI_COMM_WORLD, at);
  const auto expected = sb.at({2.1e11, 7900});
  EXPECT_LT((body.K - expected.K).norm() / expected.K.norm(), 1e-12);
  EXPECT_LT((body.M - expected.M).norm() / expected.M.norm(), 1e-12);
  EXPECT_LT(max_relative_difference(body.checkout.reduced_hz, expected.checkout.reduced_hz, kFreeFree), 1e-10);
  {
    const io::H5File f(MPI_COMM_WORLD, at, io::H5File::Mode::read);
    EXPECT_TRUE(f.exists("/mesh"));
    EXPECT_TRUE(f.exists("/reduced/basis"));
  }
  const std::string msg = input_error_of([&] {
    workflow::run_body_at(MPI_COMM_WORLD, {o.output, {{"rho_right", 3, true, ""}}, output("body-at-outside.h5")});
  });
  EXPECT_NE(msg.find("outside the support"), std::string::npos) << msg;
  const std::string unknown =
      input_error_of([&] { workflow::run_body_at(MPI_COMM_WORLD, {o.output, {{"nu", 0.3, false, ""}}, output("body-at-nu.h5")}); });
  EXPECT_NE(unknown.find("has no parameter 'nu' (parameters: E_left, rho_right)"), std::string::npos) << unknown;
}
