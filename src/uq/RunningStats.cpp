// SPDX-License-Identifier: MIT
#include "flexuq/uq/RunningStats.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::uq {

void RunningStats::add(double x) {
  RunningStats one;
  one.n_ = 1;
  one.mean_ = one.min_ = one.max_ = x;
  merge(one);
}

void RunningStats::merge(const RunningStats& o) {
  if (o.n_ == 0) return;
  if (n_ == 0) {
    *this = o;
    return;
  }
  // Pébay (2008), pairwise update of the central sums.
  const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_), n = na + nb;
  const double d = o.mean_ - mean_, d2 = d * d;
  const double mean = mean_ + d * nb / n;
  const double m2 = m2_ + o.m2_ + d2 * na * nb / n;
  const double m3 = m3_ + o.m3_ + d2 * d * na * nb * (na - nb) / (n * n) + 3.0 * d * (na * o.m2_ - nb * m2_) / n;
  const double m4 = m4_ + o.m4_ + d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
                    6.0 * d2 * (na * na * o.m2_ + nb * nb * m2_) / (n * n) + 4.0 * d * (na * o.m3_ - nb * m3_) / n;
  n_ += o.n_;
  mean_ = mean;
  m2_ = m2;
  m3_ = m3;
  m4_ = m4;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

double RunningStats::variance() const { return n_ < 2 ? 0.0 : m2_ / static_cast<double>(n_ - 1); }
double RunningStats::population_variance() const { return n_ < 1 ? 0.0 : m2_ / static_cast<double>(n_); }
double RunningStats::std() const { return std::sqrt(variance()); }

double RunningStats::skewness() const {
  if (n_ < 2 || m2_ <= 0.0) return 0.0;
  return std::sqrt(static_cast<double>(n_)) * m3_ / std::pow(m2_, 1.5);
}

double RunningStats::kurtosis() const {
  if (n_ < 2 || m2_ <= 0.0) return 0.0;
  return static_cast<double>(n_) * m4_ / (m2_ * m2_);
}

std::array<double, 7> RunningStats::pack() const {
  return {static_cast<double>(n_), mean_, m2_, m3_, m4_, min_, max_};
}

RunningStats RunningStats::unpack(const double* p) {
  RunningStats s;
  s.n_ = static_cast<std::uint64_t>(std::llround(p[0]));
  s.mean_ = p[1];
  s.m2_ = p[2];
  s.m3_ = p[3];
  s.m4_ = p[4];
  s.min_ = p[5];
  s.max_ = p[6];
  return s;
}

std::vector<double> sample_quantiles(std::vector<double> x, const std::vector<double>& p) {
  FLEXUQ_REQUIRE(!x.empty(), "sample_quantile: empty sample");
  // The order statistics x_(lo), x_(lo+1) each level needs, by selection instead of a sort: the
  // levels in ascending order, each nth_element on the part right of the previous one (the left
  // part holds only smaller values), then the next order statistic as the minimum beyond. The
  // values are those of the sorted sample, exactly; the cost is O(n) per level, not O(n log n).
  const double n = static_cast<double>(x.size());
  std::vector<std::size_t> order(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    FLEXUQ_REQUIRE(p[i] >= 0.0 && p[i] <= 1.0, "sample_quantile: probability " << p[i] << " not in [0,1]");
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> q(p.size());
  std::size_t from = 0; // x[0, from) are the from smallest values, in place
  for (std::size_t i : order) {
    const double h = (n - 1.0) * p[i];
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, x.size() - 1);
    if (lo >= from) {
      std::nth_element(x.begin() + static_cast<std::ptrdiff_t>(from), x.begin() + static_cast<std::ptrdiff_t>(lo), x.end());
      from = lo + 1;
    }
    const double xl = x[lo];
    // hi = lo + 1 = from here: x_(lo+1) is the smallest value right of the last selected one.
    const double xh = hi == lo ? xl : *std::min_element(x.begin() + static_cast<std::ptrdiff_t>(hi), x.end());
    q[i] = xl + (h - static_cast<double>(lo)) * (xh - xl);
  }
  return q;
}

double sample_quantile(std::vector<double> x, double p) { return sample_quantiles(std::move(x), {p})[0]; }

} // namespace flexuq::uq
