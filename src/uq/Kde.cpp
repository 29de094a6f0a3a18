// SPDX-License-Identifier: MIT
#include "flexuq/uq/Kde.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/uq/RunningStats.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace flexuq::uq {

double silverman_bandwidth(double std, double q25, double q75, std::size_t n) {
  FLEXUQ_REQUIRE(n >= 2, "KDE: need at least 2 samples");
  double spread = std;
  const double iqr = (q75 - q25) / 1.34;
  if (iqr > 0.0) spread = std::min(spread, iqr);
  FLEXUQ_REQUIRE(spread > 0.0, "KDE: sample has zero spread");
  return 0.9 * spread * std::pow(static_cast<double>(n), -0.2);
}

double silverman_bandwidth(const Eigen::VectorXd& s) {
  FLEXUQ_REQUIRE(s.size() >= 2, "KDE: need at least 2 samples");
  RunningStats st;
  for (Eigen::Index i = 0; i < s.size(); ++i) st.add(s[i]);
  const std::vector<double> v(s.data(), s.data() + s.size());
  const auto q = sample_quantiles(v, {0.25, 0.75});
  return silverman_bandwidth(st.std(), q[0], q[1], static_cast<std::size_t>(s.size()));
}

namespace {

/// True when @p grid is y_g = y_0 + gΔ (Δ > 0) to 1e-12 of its span (Eigen's LinSpaced).
bool uniform_grid(const Eigen::VectorXd& grid) {
  const Eigen::Index G = grid.size();
  if (G < 3 || !(grid[G - 1] > grid[0])) return false;
  const double d = (grid[G - 1] - grid[0]) / static_cast<double>(G - 1), tol = 1e-12 * (grid[G - 1] - grid[0]);
  for (Eigen::Index g = 0; g < G; ++g)
    if (std::abs(grid[g] - (grid[0] + static_cast<double>(g) * d)) > tol) return false;
  return true;
}

} // namespace

Eigen::VectorXd kde_gaussian(const Eigen::VectorXd& samples, const Eigen::VectorXd& grid, double h) {
  if (h <= 0.0) h = silverman_bandwidth(samples);
  if (uniform_grid(grid)) {
    // Uniform grid: per sample, the kernel at consecutive grid points by a recurrence instead of an
    // exp each. With u the scaled distance of a grid point and δ = Δ/h,
    //   e^{-(u+δ)²/2} = e^{-u²/2} · r,   r = e^{-uδ - δ²/2},   and r itself advances by e^{-δ²};
    // so two exp per sample (vectorised) instead of one per sample and grid point in its ±8h window (10⁵
    // surrogate points on 200 grid points: ~40× fewer). The products drift by one rounding per step
    // (≤ 200 steps: relative 1e-13 at worst, against the direct sum).
    const Eigen::Index G = grid.size();
    const double y0 = grid[0], D = (grid[G - 1] - y0) / static_cast<double>(G - 1), delta = D / h,
                 q = std::exp(-delta * delta), cut = 8.0 * h;
    Eigen::VectorXd f = Eigen::VectorXd::Zero(G);
    // Blocks of samples: the two exp of each start point as one vectorised array exp per block.
    constexpr Eigen::Index B = 1024;
    Eigen::ArrayXd u(B), w0(B), r0(B);
    Eigen::Array<Eigen::Index, Eigen::Dynamic, 1> lo(B), hi(B);
    for (Eigen::Index b = 0; b < samples.size(); b += B) {
      const Eigen::Index nb = std::min(B, samples.size() - b);
      for (Eigen::Index j = 0; j < nb; ++j) {
        const double x = samples[b + j];
        lo(j) = static_cast<Eigen::Index>(std::max(0.0, std::ceil((x - cut - y0) / D)));
        hi(j) = static_cast<Eigen::Index>(std::min(static_cast<double>(G - 1), std::floor((x + cut - y0) / D)));
        u(j) = lo(j) <= hi(j) ? (y0 + static_cast<double>(lo(j)) * D - x) / h : 0.0;
      }
      w0.head(nb) = (-0.5 * u.head(nb).square()).exp();
      r0.head(nb) = (-delta * u.head(nb) - 0.5 * delta * delta).exp();
      for (Eigen::Index j = 0; j < nb; ++j) {
        double w = w0(j), r = r0(j);
        for (Eigen::Index g = lo(j); g <= hi(j); ++g) {
          f[g] += w;
          w *= r;
          r *= q;
        }
      }
    }
    return f * (1.0 / (std::sqrt(2.0 * M_PI) * static_cast<double>(samples.size()) * h));
  }
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
