// SPDX-License-Identifier: MIT
// The FE-free statistics summary (uq::summarize) and the analytic test models, without files:
// exact PCE moments and Sobol' indices of polynomials, sample moments against direct formulas,
// the regression fallback of a projection with missing nodes, and the printed summary.
#include "flexuq/core/Error.hpp"
#include "flexuq/uq/AnalyticModels.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/Summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;

namespace {

uq::StochasticSpace normal_space() {
  uq::StochasticSpace s;
  s.add("a", uq::Distribution::normal(0, 1));
  s.add("b", uq::Distribution::normal(0, 1));
  return s;
}

/// y1 = 2 + 3ξ1 + ξ2 (linear), y2 = ξ1² (Hermite He2 + 1): mean 1, variance 2, only ξ1.
Eigen::MatrixXd outputs(const Eigen::MatrixXd& X) {
  Eigen::MatrixXd Y(X.rows(), 2);
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    Y(r, 0) = 2 + 3 * X(r, 0) + X(r, 1);
    Y(r, 1) = X(r, 0) * X(r, 0);
  }
  return Y;
}

} // namespace

TEST(Summary, PceMethodGivesExactMomentsAndSobolIndices) {
  const auto space = normal_space();
  uq::Sampler lhs(uq::SamplingMethod::LatinHypercube, 2, 5, 40);
  const Eigen::MatrixXd X = space.germ_from_uniform(lhs.samples(0, 40));
  uq::SummaryOptions o;
  o.method = "pce";
  o.pce.max_order = 3;
  const auto s = uq::summarize(space, X, outputs(X), o);
  ASSERT_TRUE(s.has_statistics);
  ASSERT_TRUE(s.has_pce);
  EXPECT_EQ(s.pce_note, "regression");
  EXPECT_EQ(s.samples_used, 40u);
  EXPECT_EQ(s.moments_from, "pce surrogate (1e5 points; mean/std exact)");
  EXPECT_NEAR(s.mean[0], 2.0, 1e-12);
  EXPECT_NEAR(s.std[0], std::sqrt(10.0), 1e-12);
  EXPECT_NEAR(s.mean[1], 1.0, 1e-12);
  EXPECT_NEAR(s.std[1], std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(s.sobol_first(0, 0), 0.9, 1e-12);
  EXPECT_NEAR(s.sobol_first(1, 0), 0.1, 1e-12);
  EXPECT_NEAR(s.sobol_total(0, 1), 1.0, 1e-12);
  EXPECT_NEAR(s.sobol_total(1, 1), 0.0, 1e-12);
  // LOO chose among 1..3 and kept an order that represents ξ1² exactly.
  EXPECT_EQ(s.loo_orders, (std::vector<double>{1, 2, 3}));
  EXPECT_GE(s.pce_order(), 2);
  // Quantiles from 1e5 surrogate points: the median of 2 + 3ξ1 + ξ2 is 2.
  EXPECT_NEAR(s.quantiles(3, 0), 2.0, 0.05);
  EXPECT_EQ(s.quantile_levels[3], 0.5);
}

TEST(Summary, SamplingMethodsUseSampleMoments) {
  const auto space = normal_space();
  uq::Sampler mc(uq::SamplingMethod::MonteCarlo, 2, 11, 0);
  const Eigen::MatrixXd X = space.germ_from_uniform(mc.samples(0, 300));
  const Eigen::MatrixXd Y = outputs(X);
  uq::SummaryOptions o;
  o.method = "monte-carlo";
  const auto s = uq::summarize(space, X, Y, o);
  EXPECT_EQ(s.moments_from, "samples");
  for (int k = 0; k < 2; ++k) {
    const double mean = Y.col(k).mean();
    const double var = (Y.col(k).array() - mean).square().sum() / (Y.rows() - 1);
    EXPECT_NEAR(s.mean[k], mean, 1e-13 * std::abs(mean));
    EXPECT_NEAR(s.std[k], std::sqrt(var), 1e-13 * std::sqrt(var));
    // The KDE is a density on its grid: trapezoid integral ≈ 1 (the grid pads 10 % each side).
    double integral = 0;
    for (int i = 1; i < s.pdf.rows(); ++i)
      integral += 0.5 * (s.pdf(i, k) + s.pdf(i - 1, k)) * (s.pdf_grid(i, k) - s.pdf_grid(i - 1, k));
    EXPECT_NEAR(integral, 1.0, 0.02);
    EXPECT_LE(s.pdf_grid(0, k), Y.col(k).minCoeff());
    EXPECT_GE(s.pdf_grid(s.pdf_grid.rows() - 1, k), Y.col(k).maxCoeff());
  }
  // The summary prints from memory.
  const std::string line = uq::format_summary("y", s);
  EXPECT_EQ(line.rfind("  y: ", 0), 0u) << line;
  EXPECT_NE(line.find(" ± "), std::string::npos) << line;
}

TEST(Summary, ProjectionOnGaussNodesAndRegressionFallback) {
  const auto space = normal_space();
  const auto q = space.gauss_rule(4);
  const Eigen::MatrixXd Y = outputs(q.points);
  uq::SummaryOptions o;
  o.method = "collocation";
  o.pce.fit = uq::FitMethod::projection;
  o.pce.max_order = 3;
  o.weights.assign(q.weights.data(), q.weights.data() + q.weights.size());
  const auto s = uq::summarize(space, q.points, Y, o);
  EXPECT_EQ(s.pce_note, "projection");
  EXPECT_NEAR(s.mean[0], 2.0, 1e-12);
  EXPECT_NEAR(s.std[1], std::sqrt(2.0), 1e-12);
  EXPECT_TRUE(s.loo_orders.empty());
  // A failed node: no weights for the remaining rows, so the PCE is a regression.
  o.weights.clear();
  const Eigen::MatrixXd Xm = q.points.topRows(q.points.rows() - 1), Ym = Y.topRows(Y.rows() - 1);
  const auto r = uq::summarize(space, Xm, Ym, o);
  EXPECT_EQ(r.pce_note, "regression");
  EXPECT_NEAR(r.mean[0], 2.0, 1e-10);
}

TEST(Summary, FewerThanTwoSamplesHaveNoStatistics) {
  const auto space = normal_space();
  const Eigen::MatrixXd X = Eigen::MatrixXd::Zero(1, 2);
  const auto s = uq::summarize(space, X, outputs(X), {});
  EXPECT_FALSE(s.has_statistics);
  EXPECT_EQ(s.samples_used, 1u);
  EXPECT_TRUE(s.mean.empty());
}

TEST(AnalyticModels, ClosedFormsAndFailures) {
  auto ishigami = uq::make_analytic_model("ishigami", 3);
  const double x1 = 0.3, x2 = -1.2, x3 = 2.0;
  EXPECT_DOUBLE_EQ(ishigami->evaluate({x1, x2, x3}).at("y")[0],
                   std::sin(x1) + 7 * std::pow(std::sin(x2), 2) + 0.1 * std::pow(x3, 4) * std::sin(x1));
  auto osc = uq::make_analytic_model("oscillator", 2);
  const auto o = osc->evaluate({400.0, 4.0});
  EXPECT_EQ(o.at("omega2")[0], 100.0);
  EXPECT_EQ(o.at("omega")[0], 10.0);
  EXPECT_EQ(osc->output_sizes(), (std::map<std::string, std::size_t>{{"omega2", 1}, {"omega", 1}}));
  EXPECT_THROW(osc->evaluate({1.0, 0.0}), InputError);
  auto poly = uq::make_analytic_model("polynomial", 2);
  EXPECT_EQ(poly->evaluate({1.0, 2.0}).at("y")[0], 1 + 0.5 + 4 + 2.0);
  auto failing = uq::make_analytic_model("failing", 1, 1.0);
  EXPECT_THROW(failing->evaluate({1.5}), InputError);
  EXPECT_TRUE(std::isnan(failing->evaluate({-1.5}).at("y")[0]));
  EXPECT_THROW(uq::make_analytic_model("ishigami", 2), InputError);
  EXPECT_THROW(uq::make_analytic_model("rosenbrock", 2), InputError);
}
