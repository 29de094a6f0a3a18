// SPDX-License-Identifier: MIT
// Distributions: closed-form moments (seed 000 T2), cdf/quantile consistency, germ maps, germ
// families, and a 1e6-sample Monte Carlo check of the moment-matched log-normal.
#include "flexuq/core/Error.hpp"
#include "flexuq/uq/Distribution.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace flexuq::uq;

namespace {
std::vector<Distribution> all_kinds() {
  return {Distribution::normal(2.0, 0.5),
          Distribution::lognormal(0.3, 0.4),
          Distribution::uniform(-1.0, 3.0),
          Distribution::beta(2.5, 1.5, 1.0, 4.0),
          Distribution::gamma(3.0, 0.5, 1.0),
          Distribution::truncated_normal(1.0, 2.0, 0.0, 3.0),
          Distribution::truncated_normal(0.0, 1.0, -std::numeric_limits<double>::infinity(), 0.5)};
}

// E[g(x)] by a Gauss rule in the germ space (independent of the closed-form mean()/variance()).
template <class G>
double germ_expectation(const Distribution& d, int n, G g) {
  const Quadrature q = d.germ_family().gauss(n);
  double s = 0.0;
  for (int k = 0; k < q.size(); ++k) s += q.weights[k] * g(d.from_germ(q.points(k, 0)));
  return s;
}
} // namespace

TEST(Distribution, LognormalMomentMatchT2) {
  // seed 000 §7.2 T2: μ = 76.9e9, σ = 1e9 → μ_ln = 25.06568717, σ_ln = 0.01300335; C: 166.7e9.
  const auto G = Distribution::lognormal_from_moments(76.9e9, 1e9);
  EXPECT_NEAR(G.parameter(0), 25.06568717, 1e-8);
  EXPECT_NEAR(G.parameter(1), 0.01300335, 1e-8);
  const auto C = Distribution::lognormal_from_moments(166.7e9, 1e9);
  EXPECT_NEAR(C.parameter(0), 25.83944363, 1e-8);
  EXPECT_NEAR(C.parameter(1), 0.00599875, 1e-8);
  EXPECT_NEAR(G.mean() / 76.9e9, 1.0, 1e-14);
  EXPECT_NEAR(G.std() / 1e9, 1.0, 1e-12);
}

TEST(Distribution, LognormalMonteCarloT2) {
  // T2: 1e6 MC samples reproduce mean within 0.1 % and std within 1 %.
  const auto G = Distribution::lognormal_from_moments(76.9e9, 1e9);
  const Sampler s(SamplingMethod::MonteCarlo, 1, 20240601);
  const int n = 1000000;
  double sum = 0.0, sum2 = 0.0;
  for (int i = 0; i < n; ++i) {
    const double x = G.quantile(s.sample(i)[0]);
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n, var = (sum2 - n * mean * mean) / (n - 1);
  EXPECT_NEAR(mean / 76.9e9, 1.0, 1e-3);
  EXPECT_NEAR(std::sqrt(var) / 1e9, 1.0, 1e-2);
}

TEST(Distribution, MomentsAgreeWithGermQuadrature) {
  for (const auto& d : all_kinds()) {
    SCOPED_TRACE(d.describe());
    const double m = germ_expectation(d, 30, [](double x) { return x; });
    const double m2 = germ_expectation(d, 30, [](double x) { return x * x; });
    EXPECT_NEAR(m, d.mean(), 1e-12 * (1.0 + std::abs(d.mean())));
    EXPECT_NEAR(m2 - m * m, d.variance(), 1e-10 * d.variance());
  }
}

TEST(Distribution, QuantileInvertsCdfAndGermMapsRoundTrip) {
  for (const auto& d : all_kinds()) {
    SCOPED_TRACE(d.describe());
    for (double u : {1e-10, 1e-4, 0.02, 0.3, 0.5, 0.77, 0.999, 1.0 - 1e-9}) {
      const double x = d.quantile(u);
      EXPECT_NEAR(d.cdf(x), u, 1e-11 * std::min(u, 1.0 - u) + 1e-15);
      EXPECT_NEAR(d.from_germ(d.to_germ(x)), x, 1e-13 * (1.0 + std::abs(x)));
      EXPECT_NEAR(d.from_germ(d.germ_quantile(u)), x, 1e-15 * (1.0 + std::abs(x)));
    }
  }
}

TEST(Distribution, PdfIsDerivativeOfCdf) {
  for (const auto& d : all_kinds()) {
    SCOPED_TRACE(d.describe());
    for (double u : {0.1, 0.4, 0.6, 0.9}) {
      const double x = d.quantile(u), h = 1e-5 * d.std();
      const double fd = (d.cdf(x + h) - d.cdf(x - h)) / (2 * h);
      EXPECT_NEAR(d.pdf(x), fd, 1e-6 * d.pdf(x));
    }
  }
}

TEST(Distribution, KnownValues) {
  using special::normal_cdf;
  using special::normal_quantile;
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(normal_quantile(1e-20), -9.262340089798153, 1e-12);
  EXPECT_NEAR(normal_cdf(-10.0) / 7.619853024160527e-24, 1.0, 1e-12);
  // Gamma(1, θ) is exponential: cdf = 1 − e^{−x/θ}; Beta(1,1) is uniform.
  const auto e = Distribution::gamma(1.0, 2.0);
  EXPECT_NEAR(e.cdf(3.0), 1.0 - std::exp(-1.5), 1e-15);
  const auto b = Distribution::beta(1.0, 1.0, 2.0, 6.0);
  EXPECT_NEAR(b.cdf(3.0), 0.25, 1e-15);
  // Beta(2, 3) on [0,1]: cdf = 6x² − 8x³ + 3x⁴.
  const auto b23 = Distribution::beta(2.0, 3.0);
  EXPECT_NEAR(b23.cdf(0.3), 6 * 0.09 - 8 * 0.027 + 3 * 0.0081, 1e-15);
  // Gamma(2, 1): cdf = 1 − (1 + x) e^{−x}, at a point that uses the continued fraction.
  EXPECT_NEAR(Distribution::gamma(2.0, 1.0).cdf(7.0), 1.0 - 8.0 * std::exp(-7.0), 1e-15);
}

TEST(Distribution, GermFamiliesAreOrthonormalForTheGermLaw) {
  // E[ψ_m ψ_n] over the germ law computed with the distribution's own pdf in physical space
  // (composite Gauss–Legendre), independent of the recurrence used to build the family.
  for (const auto& d : all_kinds()) {
    SCOPED_TRACE(d.describe());
    const auto fam = d.germ_family();
    const int p = 4;
    double lo = d.lower(), hi = d.upper();
    if (!std::isfinite(lo)) lo = d.quantile(1e-30);
    if (!std::isfinite(hi)) hi = d.from_germ(d.germ_quantile(1e-30) < 0 ? -d.germ_quantile(1e-30) : 60.0);
    const Quadrature gl = PolynomialFamily::legendre().gauss(40);
    const int panels = 400;
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(p + 1, p + 1);
    for (int c = 0; c < panels; ++c)
      for (int k = 0; k < gl.size(); ++k) {
        const double h = (hi - lo) / panels, x = lo + h * (c + 0.5 * (gl.points(k, 0) + 1.0));
        const double w = gl.weights[k] * h * d.pdf(x);
        const Eigen::VectorXd v = fam.evaluate(d.to_germ(x), p);
        G += w * v * v.transpose();
      }
    EXPECT_LT((G - Eigen::MatrixXd::Identity(p + 1, p + 1)).cwiseAbs().maxCoeff(), 1e-7); // limited by the (b−x)^½ endpoint of the beta pdf
  }
}

TEST(Distribution, RejectsBadParameters) {
  EXPECT_THROW(Distribution::normal(0.0, -1.0), flexuq::InputError);
  EXPECT_THROW(Distribution::lognormal_from_moments(-1.0, 1.0), flexuq::InputError);
  EXPECT_THROW(Distribution::uniform(1.0, 1.0), flexuq::InputError);
  EXPECT_THROW(Distribution::beta(0.0, 1.0), flexuq::InputError);
  EXPECT_THROW(Distribution::gamma(1.0, 0.0), flexuq::InputError);
  EXPECT_THROW(Distribution::truncated_normal(0.0, 1.0, 2.0, 1.0), flexuq::InputError);
  EXPECT_THROW(Distribution::normal(0.0, 1.0).quantile(1.0), flexuq::InputError);
}
