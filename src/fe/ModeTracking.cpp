// SPDX-License-Identifier: MIT
#include "flexuq/fe/ModeTracking.hpp"

#include <algorithm>
#include <numeric>

namespace flexuq::fe {

TrackingResult track_modes(const Eigen::MatrixXd& C, const std::vector<int>& cluster,
                           const std::vector<double>& sample_values) {
  const int nr = static_cast<int>(C.rows()), ns = static_cast<int>(C.cols());
  TrackingResult out;
  out.assignment.assign(nr, -1);
  out.mac.assign(nr, 0.0);
  out.sign.assign(nr, 1);
  std::vector<char> taken(ns, 0);
  int j = 0;
  while (j < nr) {
    int k = j;
    while (k < nr && cluster[k] == cluster[j]) ++k; // reference modes j..k-1 form one multiplet
    // Share of each sample mode inside the multiplet's subspace.
    std::vector<std::pair<double, int>> share;
    for (int s = 0; s < ns; ++s)
      if (!taken[s]) share.emplace_back(C.block(j, s, k - j, 1).squaredNorm(), s);
    std::sort(share.begin(), share.end(), [](auto a, auto b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    std::vector<int> chosen;
    for (int m = 0; m < k - j && m < static_cast<int>(share.size()); ++m) chosen.push_back(share[m].second);
    // Inside the multiplet, order by eigenvalue (a subspace has no preferred basis).
    std::sort(chosen.begin(), chosen.end(), [&](int a, int b) { return sample_values[a] < sample_values[b]; });
    for (int m = 0; m < static_cast<int>(chosen.size()); ++m) {
      const int s = chosen[m];
      taken[s] = 1;
      out.assignment[j + m] = s;
      // Captured share of reference mode j+m by the chosen sample modes (1 for a perfect match).
      double cap = 0;
      for (int t : chosen) cap += C(j + m, t) * C(j + m, t);
      out.mac[j + m] = cap;
      out.sign[j + m] = C(j + m, s) < 0 ? -1 : 1;
      out.min_mac = std::min(out.min_mac, cap);
    }
    j = k;
  }
  return out;
}

} // namespace flexuq::fe
