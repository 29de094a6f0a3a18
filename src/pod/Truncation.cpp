// SPDX-License-Identifier: MIT
#include "flexuq/pod/Truncation.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flexuq::pod {

Truncation Truncation::of(Rule r, double value) {
  switch (r) {
  case Rule::energy:
    FLEXUQ_REQUIRE(value >= 0.0 && value < 1.0, "energy (lost energy fraction) must be in [0, 1), got " << value);
    return energy(value);
  case Rule::sigma_ratio:
    FLEXUQ_REQUIRE(value >= 0.0 && value < 1.0, "sigma_ratio must be in [0, 1), got " << value);
    return sigma_ratio(value);
  case Rule::log_gap: return log_gap();
  case Rule::rank:
    FLEXUQ_REQUIRE(value >= 1.0 && value == std::floor(value) && value < 1e9, "rank must be a positive integer, got " << value);
    return fixed_rank(static_cast<int>(value));
  case Rule::numerical: break;
  }
  return {};
}

std::string Truncation::describe() const {
  std::string s;
  switch (rule) {
  case Rule::numerical: s = "numerical rank"; break;
  case Rule::energy: s = FLEXUQ_MSG("energy " << value); break;
  case Rule::sigma_ratio: s = FLEXUQ_MSG("sigma_ratio " << value); break;
  case Rule::log_gap: s = "log_gap"; break;
  case Rule::rank: s = FLEXUQ_MSG("rank " << static_cast<int>(value)); break;
  }
  if (max_rank >= 0) s += FLEXUQ_MSG(" (max rank " << max_rank << ")");
  return s;
}

Eigen::VectorXd normalised(const Eigen::VectorXd& sigma) {
  const double n = sigma.norm();
  return n > 0 ? Eigen::VectorXd(sigma / n) : sigma;
}

double lost_energy(const Eigen::VectorXd& sigma, int r) {
  const double total = sigma.squaredNorm();
  if (!(total > 0)) return 0.0;
  const Eigen::Index k = std::clamp<Eigen::Index>(r, 0, sigma.size());
  return sigma.tail(sigma.size() - k).squaredNorm() / total;
}

int truncation_rank(const Eigen::VectorXd& s, const Truncation& t) {
  const Eigen::Index n = s.size();
  int r = 0;
  const double s1 = n > 0 ? s(0) : 0.0;
  const double floor = static_cast<double>(std::max<Eigen::Index>(n, 1)) * std::numeric_limits<double>::epsilon() * s1;
  if (n == 0 || !(s1 > 0)) return 0;
  switch (t.rule) {
  case Truncation::Rule::numerical:
    for (Eigen::Index i = 0; i < n; ++i)
      if (s(i) > floor) r = static_cast<int>(i + 1);
    break;
  case Truncation::Rule::energy: {
    // Accumulate the tail from the smallest value up, so tiny tails are summed accurately.
    const double total = s.squaredNorm();
    double tail = 0.0;
    r = static_cast<int>(n);
    for (Eigen::Index i = n - 1; i >= 0; --i) {
      tail += s(i) * s(i);
      if (tail / total > t.value) break;
      r = static_cast<int>(i);
    }
    break;
  }
  case Truncation::Rule::sigma_ratio:
    for (Eigen::Index i = 0; i < n; ++i)
      if (s(i) > t.value * s1) r = static_cast<int>(i + 1);
    break;
  case Truncation::Rule::log_gap: {
    double best = -1.0;
    r = static_cast<int>(n);
    for (Eigen::Index i = 0; i + 1 < n; ++i) {
      if (s(i) <= floor) break; // everything from here on is zero
      const double gap = std::log(s(i) / std::max(s(i + 1), floor));
      if (gap > best) {
        best = gap;
        r = static_cast<int>(i + 1);
      }
    }
    break;
  }
  case Truncation::Rule::rank: r = static_cast<int>(std::min<double>(t.value, static_cast<double>(n))); break;
  }
  if (t.max_rank >= 0) r = std::min(r, t.max_rank);
  return r;
}

} // namespace flexuq::pod
