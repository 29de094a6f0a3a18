// SPDX-License-Identifier: MIT
#include "flexuq/uq/Summary.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/uq/Kde.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/Quadrature.hpp"
#include "flexuq/uq/RunningStats.hpp"
#include "flexuq/uq/Sampler.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace flexuq::uq {

int OutputSummary::pce_order() const {
  int order = 0;
  for (int t = 0; t < pce.basis().size(); ++t) order = std::max(order, pce.basis().degree(t));
  return order;
}

namespace {

/// Moments, quantiles and density of the rows of @p S (samples or surrogate points) into @p s, and
/// the Sobol' indices when @p s has a PCE. @p surrogate: mean and std are the PCE's exact moments.
void describe(OutputSummary& s, const Eigen::MatrixXd& S, bool surrogate, const SummaryOptions& opt) {
  const auto n_out = static_cast<std::size_t>(S.cols());
  s.has_statistics = true;
  const auto L = opt.quantile_levels.size();
  const int np = opt.pdf_points;
  s.quantile_levels = opt.quantile_levels;
  s.mean.resize(n_out);
  s.std.resize(n_out);
  s.skewness.resize(n_out);
  s.kurtosis.resize(n_out);
  s.quantiles.resize(static_cast<Eigen::Index>(L), static_cast<Eigen::Index>(n_out));
  s.pdf_grid.resize(np, static_cast<Eigen::Index>(n_out));
  s.pdf.resize(np, static_cast<Eigen::Index>(n_out));
  for (std::size_t k = 0; k < n_out; ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    // Stable one-pass moments merged block by block in sample order (Pébay), so the result does
    // not depend on how samples were spread over ranks.
    RunningStats total;
    for (Eigen::Index b = 0; b < S.rows(); b += 64) {
      RunningStats blk;
      for (Eigen::Index r = b; r < std::min<Eigen::Index>(S.rows(), b + 64); ++r) blk.add(S(r, kk));
      total.merge(blk);
    }
    s.mean[k] = total.mean();
    s.std[k] = total.std();
    s.skewness[k] = total.skewness();
    s.kurtosis[k] = total.kurtosis();
    if (surrogate) { // exact moments of the expansion for mean and std
      s.mean[k] = s.pce.mean()(kk);
      s.std[k] = std::sqrt(s.pce.variance()(kk));
    }
    std::vector<double> col(S.col(kk).data(), S.col(kk).data() + S.rows());
    const auto q = sample_quantiles(col, opt.quantile_levels);
    for (std::size_t l = 0; l < L; ++l) s.quantiles(static_cast<Eigen::Index>(l), kk) = q[l];
    const double lo = total.min(), hi = total.max(), pad = 0.1 * (hi - lo + 1e-300);
    const Eigen::VectorXd gr = Eigen::VectorXd::LinSpaced(np, lo - pad, hi + pad);
    s.pdf_grid.col(kk) = gr;
    // Silverman's bandwidth from the sample std and quartiles computed above (when the levels hold them).
    double h = 0.0;
    const auto l25 = std::find(opt.quantile_levels.begin(), opt.quantile_levels.end(), 0.25);
    const auto l75 = std::find(opt.quantile_levels.begin(), opt.quantile_levels.end(), 0.75);
    if (s.std[k] > 0 && l25 != opt.quantile_levels.end() && l75 != opt.quantile_levels.end())
      h = silverman_bandwidth(total.std(), q[static_cast<std::size_t>(l25 - opt.quantile_levels.begin())],
                              q[static_cast<std::size_t>(l75 - opt.quantile_levels.begin())], col.size());
    s.pdf.col(kk) = s.std[k] > 0 ? kde_gaussian(S.col(kk), gr, h) : Eigen::VectorXd::Zero(np);
  }
  s.moments_from = surrogate ? "pce surrogate (1e5 points; mean/std exact)" : "samples";
  if (s.has_pce) {
    s.sobol_first = s.pce.sobol_first();
    s.sobol_total = s.pce.sobol_total();
  }
}

/// 1e5 Monte Carlo points of the surrogate (fixed seed: reproducible).
Eigen::MatrixXd surrogate_points(const StochasticSpace& space, const Pce& pce, std::uint64_t seed) {
  Sampler mc(SamplingMethod::MonteCarlo, space.dim(), seed + 7777, 0);
  return pce.evaluate(space.germ_from_uniform(mc.samples(0, 100000)));
}

} // namespace

OutputSummary summarize(const StochasticSpace& space, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
                        const SummaryOptions& opt) {
  OutputSummary s;
  const auto n = static_cast<std::size_t>(Y.rows());
  const int d = static_cast<int>(X.cols());
  s.samples_used = n;
  if (n < 2) return s;
  s.has_statistics = true;
  // --- PCE ---
  try {
    const FitOptions& fo = opt.pce;
    if (fo.fit == FitMethod::projection && opt.weights.size() == n) {
      const int p = fo.order > 0 ? fo.order : fo.max_order;
      Quadrature q;
      q.points = X;
      q.weights = Eigen::Map<const Eigen::VectorXd>(opt.weights.data(), static_cast<Eigen::Index>(n));
      s.pce = Pce::fit_projection(space.families(), MultiIndexSet::total_degree(d, p), q, Y);
      s.has_pce = true;
      s.pce_note = "projection";
    } else {
      // Regression (also the fallback when quadrature nodes failed): order by LOO.
      OrderSelection sel;
      const int pmin = fo.order > 0 ? fo.order : 1, pmax = fo.order > 0 ? fo.order : fo.max_order;
      if (MultiIndexSet::total_degree_size(d, pmin) < static_cast<int>(n)) {
        s.pce = Pce::fit_regression_select_order(space.families(), X, Y, pmin, pmax, &sel);
        s.has_pce = true;
        s.pce_note = "regression";
        s.loo_orders.assign(sel.orders.begin(), sel.orders.end());
        s.loo = sel.loo;
      }
    }
  } catch (const Error& e) {
    s.pce_note = std::string("no PCE: ") + e.what();
  }
  // --- moments, quantiles, pdf: from the PCE surrogate for pce/collocation, else from samples ---
  const bool surrogate = s.has_pce && (opt.method == "pce" || opt.method == "collocation");
  describe(s, surrogate ? surrogate_points(space, s.pce, opt.pce.seed) : Eigen::MatrixXd(Y), surrogate, opt);
  return s;
}

OutputSummary summarize_pce(const StochasticSpace& space, const Pce& pce, const std::string& note,
                            const SummaryOptions& opt) {
  FLEXUQ_REQUIRE(pce.dim() == space.dim(), "summarize_pce: the expansion has " << pce.dim()
                                               << " variables, the stochastic space " << space.dim());
  OutputSummary s;
  s.has_pce = true;
  s.pce = pce;
  s.pce_note = note;
  describe(s, surrogate_points(space, pce, opt.pce.seed), true, opt);
  return s;
}

std::string format_summary(const std::string& name, const OutputSummary& s, std::size_t max_entries) {
  std::ostringstream os;
  os << "  " << name << ":";
  const std::size_t n = std::min(s.mean.size(), max_entries);
  for (std::size_t k = 0; k < n; ++k)
    os << " " << std::setprecision(6) << std::defaultfloat << s.mean[k] << " ± " << std::setprecision(3) << s.std[k]
       << (k + 1 < n ? "," : "");
  return os.str();
}

} // namespace flexuq::uq
