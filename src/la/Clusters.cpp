// SPDX-License-Identifier: MIT
#include "flexuq/la/Clusters.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::la {

bool same_cluster(double a, double b, double cluster_tol) {
  return std::abs(b - a) <= cluster_tol * std::max(std::abs(a), std::abs(b));
}

std::vector<int> cluster_ids(const std::vector<double>& v, double cluster_tol) {
  std::vector<int> id(v.size(), 0);
  for (std::size_t i = 1; i < v.size(); ++i) id[i] = id[i - 1] + (same_cluster(v[i - 1], v[i], cluster_tol) ? 0 : 1);
  return id;
}

std::vector<int> cluster_multiplicity(const std::vector<double>& v, double cluster_tol) {
  const std::vector<int> id = cluster_ids(v, cluster_tol);
  std::vector<int> mult(v.size(), 1);
  std::size_t i = 0;
  while (i < v.size()) {
    std::size_t j = i + 1;
    while (j < v.size() && id[j] == id[i]) ++j;
    for (std::size_t k = i; k < j; ++k) mult[k] = static_cast<int>(j - i);
    i = j;
  }
  return mult;
}

std::size_t complete_multiplets(const std::vector<double>& v, std::size_t count, double cluster_tol) {
  std::size_t n = std::min(count, v.size());
  while (n > 0 && n < v.size() && same_cluster(v[n - 1], v[n], cluster_tol)) ++n;
  return n;
}

} // namespace flexuq::la
