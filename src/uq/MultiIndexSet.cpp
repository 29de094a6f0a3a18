// SPDX-License-Identifier: MIT
#include "flexuq/uq/MultiIndexSet.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace flexuq::uq {

bool MultiIndexSet::graded_lex_less(const Index& a, const Index& b) {
  const int da = std::accumulate(a.begin(), a.end(), 0), db = std::accumulate(b.begin(), b.end(), 0);
  if (da != db) return da < db;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return a[i] > b[i];
  return false;
}

MultiIndexSet::MultiIndexSet(int dim, std::vector<Index> idx) : dim_(dim) {
  flat_.reserve(idx.size() * dim);
  for (const auto& a : idx) flat_.insert(flat_.end(), a.begin(), a.end());
  for (int k = 0; k < size(); ++k) {
    auto& bucket = lookup_[hash(data(k))];
    for (int j : bucket)
      FLEXUQ_REQUIRE(!std::equal(data(j), data(j) + dim_, data(k)), "MultiIndexSet: duplicate multi-index at " << k);
    bucket.push_back(k);
  }
}

unsigned long long MultiIndexSet::hash(const int* a) const {
  unsigned long long h = 1469598103934665603ULL;
  for (int i = 0; i < dim_; ++i) h = (h ^ static_cast<unsigned long long>(a[i] + 1)) * 1099511628211ULL;
  return h;
}

MultiIndexSet MultiIndexSet::from_predicate(int dim, const std::vector<int>& bound,
                                            const std::function<bool(const Index&)>& keep) {
  FLEXUQ_REQUIRE(dim >= 1, "MultiIndexSet: dimension " << dim << " must be >= 1");
  FLEXUQ_REQUIRE(static_cast<int>(bound.size()) == dim, "MultiIndexSet: need one bound per dimension");
  std::vector<Index> out;
  Index a(dim, 0);
  if (!keep(a)) return MultiIndexSet(dim, {});
  // Depth-first: raise component i while the (downward-closed) predicate holds.
  std::function<void(int)> rec = [&](int i) {
    if (i == dim) {
      out.push_back(a);
      return;
    }
    for (int v = 0; v <= bound[i]; ++v) {
      a[i] = v;
      if (v > 0 && !keep(a)) break;
      rec(i + 1);
    }
    a[i] = 0;
  };
  rec(0);
  std::sort(out.begin(), out.end(), graded_lex_less);
  return MultiIndexSet(dim, std::move(out));
}

MultiIndexSet MultiIndexSet::total_degree(int dim, int p) {
  FLEXUQ_REQUIRE(p >= 0, "total_degree: order " << p << " must be >= 0");
  return from_predicate(dim, std::vector<int>(std::max(dim, 0), p), [p](const Index& a) {
    return std::accumulate(a.begin(), a.end(), 0) <= p;
  });
}

MultiIndexSet MultiIndexSet::tensor(const std::vector<int>& p) {
  for (int v : p) FLEXUQ_REQUIRE(v >= 0, "tensor: orders must be >= 0");
  return from_predicate(static_cast<int>(p.size()), p, [](const Index&) { return true; });
}

MultiIndexSet MultiIndexSet::hyperbolic(int dim, int p, double q) {
  FLEXUQ_REQUIRE(q > 0.0 && q <= 1.0, "hyperbolic: q = " << q << " must be in (0, 1]");
  FLEXUQ_REQUIRE(p >= 0, "hyperbolic: order " << p << " must be >= 0");
  const double lim = std::pow(static_cast<double>(p), q) * (1.0 + 1e-12);
  return from_predicate(dim, std::vector<int>(std::max(dim, 0), p), [q, lim](const Index& a) {
    double s = 0.0;
    for (int v : a) s += std::pow(static_cast<double>(v), q);
    return s <= lim;
  });
}

MultiIndexSet MultiIndexSet::anisotropic(const std::vector<double>& w, double p) {
  FLEXUQ_REQUIRE(p >= 0.0, "anisotropic: order " << p << " must be >= 0");
  std::vector<int> bound;
  for (double wi : w) {
    FLEXUQ_REQUIRE(wi > 0.0, "anisotropic: weights must be > 0");
    bound.push_back(static_cast<int>(std::floor(p / wi + 1e-12)));
  }
  const double lim = p * (1.0 + 1e-12) + 1e-12;
  return from_predicate(static_cast<int>(w.size()), bound, [w, lim](const Index& a) {
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i) s += w[i] * a[i];
    return s <= lim;
  });
}

MultiIndexSet MultiIndexSet::from_indices(int dim, const std::vector<Index>& indices) {
  for (const auto& a : indices) {
    FLEXUQ_REQUIRE(static_cast<int>(a.size()) == dim, "from_indices: index of length " << a.size() << " in dimension " << dim);
    for (int v : a) FLEXUQ_REQUIRE(v >= 0, "from_indices: negative entry");
  }
  return MultiIndexSet(dim, indices);
}

long long MultiIndexSet::total_degree_size(int dim, int p) {
  // C(M+p, p) by the multiplicative formula (exact in 64 bit for the sizes used in practice).
  long long r = 1;
  for (int j = 1; j <= p; ++j) r = r * (dim + j) / j;
  return r;
}

int MultiIndexSet::degree(int k) const { return std::accumulate(data(k), data(k) + dim_, 0); }

int MultiIndexSet::max_total_degree() const {
  int m = 0;
  for (int k = 0; k < size(); ++k) m = std::max(m, degree(k));
  return m;
}

int MultiIndexSet::max_degree(int i) const {
  int m = 0;
  for (int k = 0; k < size(); ++k) m = std::max(m, (*this)(k, i));
  return m;
}

int MultiIndexSet::find(const Index& a) const {
  if (static_cast<int>(a.size()) != dim_) return -1;
  auto it = lookup_.find(hash(a.data()));
  if (it == lookup_.end()) return -1;
  for (int k : it->second)
    if (std::equal(a.begin(), a.end(), data(k))) return k;
  return -1;
}

} // namespace flexuq::uq
