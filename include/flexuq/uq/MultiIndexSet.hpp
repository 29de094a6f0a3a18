// SPDX-License-Identifier: MIT
#pragma once
/// @file MultiIndexSet.hpp
/// @brief Sets of multi-indices α ∈ ℕ^M that define a truncated polynomial chaos basis
/// Ψ_α(ξ) = Π_i ψ_{α_i}(ξ_i).
///
/// Order (all factories): graded lexicographic as in seed 000 Table 5.1 — by total degree |α|, and
/// within one degree lexicographically *decreasing* (larger α_1 first). For M = 2, p = 3:
/// (0,0) | (1,0),(0,1) | (2,0),(1,1),(0,2) | (3,0),(2,1),(1,2),(0,3). The zero index is first.

#include <functional>
#include <unordered_map>
#include <vector>

namespace flexuq::uq {

class MultiIndexSet {
public:
  using Index = std::vector<int>;

  MultiIndexSet() = default;
  /// Total degree |α| ≤ p; size C(M+p, p).
  static MultiIndexSet total_degree(int dim, int p);
  /// Tensor (full grid) α_i ≤ p_i; size Π(p_i + 1).
  static MultiIndexSet tensor(const std::vector<int>& p);
  /// Hyperbolic (q-norm) set (Σ α_i^q)^(1/q) ≤ p, 0 < q ≤ 1; q = 1 is the total-degree set.
  static MultiIndexSet hyperbolic(int dim, int p, double q);
  /// Anisotropic total degree Σ w_i α_i ≤ p with weights w_i > 0 (w_i = 1: total degree).
  static MultiIndexSet anisotropic(const std::vector<double>& weights, double p);
  /// Downward-closed set given by a predicate on full indices (must be downward closed so the
  /// enumeration can prune); @p bound[i] caps α_i. Sorted in the graded lexicographic order.
  static MultiIndexSet from_predicate(int dim, const std::vector<int>& bound,
                                      const std::function<bool(const Index&)>& keep);
  /// Arbitrary indices in the given order (duplicates rejected).
  static MultiIndexSet from_indices(int dim, const std::vector<Index>& indices);

  /// Number of terms of the total-degree set, C(M+p, p) = (M+p)!/(M! p!).
  static long long total_degree_size(int dim, int p);
  /// Graded lexicographic "less than" used by all factories.
  static bool graded_lex_less(const Index& a, const Index& b);

  int dim() const { return dim_; }
  int size() const { return dim_ == 0 ? 0 : static_cast<int>(flat_.size() / dim_); }
  const int* data(int k) const { return flat_.data() + static_cast<size_t>(k) * dim_; }
  int operator()(int k, int i) const { return flat_[static_cast<size_t>(k) * dim_ + i]; }
  Index at(int k) const { return Index(data(k), data(k) + dim_); }
  int degree(int k) const;            ///< |α_k|
  int max_total_degree() const;       ///< max_k |α_k|
  int max_degree(int i) const;        ///< max_k α_{k,i}
  int find(const Index& a) const;     ///< position of a, or −1

private:
  MultiIndexSet(int dim, std::vector<Index> sorted);
  int dim_ = 0;
  std::vector<int> flat_;
  std::unordered_map<unsigned long long, std::vector<int>> lookup_; // hash -> candidates
  unsigned long long hash(const int* a) const;
};

} // namespace flexuq::uq
