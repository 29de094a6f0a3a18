// SPDX-License-Identifier: MIT
#include "flexuq/uq/Kde.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/uq/RunningStats.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace flexuq::uq {

double silverman_bandwidth(const Eigen::VectorXd& s) {
  FLEXUQ_REQUIRE(s.size() >= 2, "KDE: need at least 2 samples");
  RunningStats st;
  for (Eigen::Index i = 0; i < s.size(); ++i) st.add(s[i]);
  const std::vector<double> v(s.data(), s.data() + s.size());
  const auto q = sample_quantiles(v, {0.25, 0.75});
  double spread = st.std();
  const double iqr = (q[1] - q[0]) / 1.34;
  if (iqr > 0.0) spread = std::min(spread, iqr);
  FLEXUQ_REQUIRE(spread > 0.0, "KDE: sample has zero spread");
  return 0.9 * spread * std::pow(static_cast<double>(s.size()), -0.2);
}

Eigen::VectorXd kde_gaussian(const Eigen::VectorXd& samples, const Eigen::VectorXd& grid, double h) {
  if (h <= 0.0) h = silverman_bandwidth(samples);
  std::vector<double> x(samples.data(), samples.data() + samples.size());
  std::sort(x.begin(), x.end());
  const double cut = 8.0 * h, norm = 1.0 / (static_cast<double>(x.size()) * h);
  Eigen::VectorXd f(grid.size());
  for (Eigen::Index g = 0; g < grid.size(); ++g) {
    const double y = grid[g];
    auto lo = std::lower_bound(x.begin(), x.end(), y - cut);
    auto hi = std::upper_bound(lo, x.end(), y + cut);
    double s = 0.0;
    for (auto it = lo; it != hi; ++it) s += special::normal_pdf((y - *it) / h);
    f[g] = s * norm;
  }
  return f;
}

} // namespace flexuq::uq
