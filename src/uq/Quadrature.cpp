// SPDX-License-Identifier: MIT
#include "flexuq/uq/Quadrature.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace flexuq::uq {

Quadrature clenshaw_curtis(int n) {
  FLEXUQ_REQUIRE(n >= 1, "clenshaw_curtis: n = " << n << " must be >= 1");
  Quadrature q;
  q.points.resize(n, 1);
  q.weights.resize(n);
  if (n == 1) {
    q.points(0, 0) = 0.0;
    q.weights[0] = 1.0;
    return q;
  }
  const int N = n - 1;
  const double pi = std::acos(-1.0);
  for (int j = 0; j < n; ++j) {
    const double theta = pi * j / N;
    double s = 0.0;
    for (int k = 1; k <= N / 2; ++k) {
      const double bk = (2 * k == N) ? 1.0 : 2.0;
      s += bk / (4.0 * k * k - 1.0) * std::cos(2.0 * k * theta);
    }
    const double c = (j == 0 || j == N) ? 1.0 : 2.0;
    q.weights[j] = 0.5 * c / N * (1.0 - s); // 0.5: probability measure dx/2
  }
  // Nodes ascending, exactly antisymmetric, centre exactly zero.
  for (int j = 0; j < n; ++j) q.points(j, 0) = -std::cos(pi * j / N);
  for (int j = 0; j < n / 2; ++j) {
    const double x = 0.5 * (q.points(n - 1 - j, 0) - q.points(j, 0));
    q.points(j, 0) = -x;
    q.points(n - 1 - j, 0) = x;
  }
  if (n % 2 == 1) q.points(n / 2, 0) = 0.0;
  return q;
}

Quadrature tensor_product(const std::vector<Quadrature>& rules) {
  FLEXUQ_REQUIRE(!rules.empty(), "tensor_product: no rules");
  const int d = static_cast<int>(rules.size());
  long long n = 1;
  for (const auto& r : rules) {
    FLEXUQ_REQUIRE(r.dim() == 1 && r.size() >= 1, "tensor_product: every factor must be a non-empty 1-D rule");
    n *= r.size();
  }
  FLEXUQ_REQUIRE(n < (1LL << 31), "tensor_product: " << n << " points is too many");
  Quadrature q;
  q.points.resize(n, d);
  q.weights.resize(n);
  std::vector<int> idx(d, 0);
  for (long long k = 0; k < n; ++k) {
    double w = 1.0;
    for (int j = 0; j < d; ++j) {
      q.points(k, j) = rules[j].points(idx[j], 0);
      w *= rules[j].weights[idx[j]];
    }
    q.weights[k] = w;
    for (int j = 0; j < d; ++j) { // first dimension fastest
      if (++idx[j] < rules[j].size()) break;
      idx[j] = 0;
    }
  }
  return q;
}

Quadrature tensor_gauss(const std::vector<PolynomialFamily>& families, const std::vector<int>& n) {
  FLEXUQ_REQUIRE(families.size() == n.size(), "tensor_gauss: " << families.size() << " families but " << n.size() << " point counts");
  std::vector<Quadrature> rules;
  for (size_t j = 0; j < n.size(); ++j) rules.push_back(families[j].gauss(n[j]));
  return tensor_product(rules);
}

LevelRule clenshaw_curtis_levels() {
  return [](int l) {
    FLEXUQ_REQUIRE(l >= 1 && l <= 30, "clenshaw_curtis level " << l << " out of range");
    return clenshaw_curtis(l == 1 ? 1 : (1 << (l - 1)) + 1);
  };
}

LevelRule gauss_levels(const PolynomialFamily& family) {
  return [family](int l) {
    FLEXUQ_REQUIRE(l >= 1, "gauss level " << l << " must be >= 1");
    return family.gauss(2 * l - 1);
  };
}

Quadrature smolyak(const std::vector<LevelRule>& rules, int level) {
  const int d = static_cast<int>(rules.size());
  FLEXUQ_REQUIRE(d >= 1, "smolyak: no dimensions");
  FLEXUQ_REQUIRE(level >= 0, "smolyak: level " << level << " must be >= 0");
  // Cache the 1-D rules per level.
  std::vector<std::vector<Quadrature>> cache(d);
  for (int j = 0; j < d; ++j)
    for (int l = 1; l <= level + 1; ++l) cache[j].push_back(rules[j](l));

  std::map<std::vector<long long>, int> where; // rounded point -> row
  std::vector<std::vector<double>> pts;
  std::vector<double> wts;
  const double key_scale = 1e12;

  std::vector<int> k(d, 0);
  // Enumerate all k with |k| <= level (odometer with pruning).
  std::function<void(int, int)> rec = [&](int j, int used) {
    if (j == d) {
      const int s = used;
      if (s < level - d + 1) return;
      const int m = level - s;
      const double coef = ((m % 2) ? -1.0 : 1.0) * special::binomial(d - 1, m);
      if (coef == 0.0) return;
      std::vector<Quadrature> f(d);
      for (int i = 0; i < d; ++i) f[i] = cache[i][k[i]];
      const Quadrature t = tensor_product(f);
      std::vector<long long> key(d);
      std::vector<double> p(d);
      for (int r = 0; r < t.size(); ++r) {
        for (int i = 0; i < d; ++i) {
          p[i] = t.points(r, i);
          key[i] = std::llround(p[i] * key_scale);
        }
        auto it = where.find(key);
        if (it == where.end()) {
          where.emplace(key, static_cast<int>(wts.size()));
          pts.push_back(p);
          wts.push_back(coef * t.weights[r]);
        } else {
          wts[it->second] += coef * t.weights[r];
        }
      }
      return;
    }
    for (int l = 0; used + l <= level; ++l) {
      k[j] = l;
      rec(j + 1, used + l);
    }
    k[j] = 0;
  };
  rec(0, 0);

  Quadrature q;
  q.points.resize(static_cast<Eigen::Index>(pts.size()), d);
  q.weights.resize(static_cast<Eigen::Index>(wts.size()));
  for (size_t r = 0; r < pts.size(); ++r) {
    for (int i = 0; i < d; ++i) q.points(r, i) = pts[r][i];
    q.weights[r] = wts[r];
  }
  return q;
}

Quadrature smolyak(const std::vector<PolynomialFamily>& families, int level) {
  std::vector<LevelRule> rules;
  for (const auto& f : families)
    rules.push_back(f.kind() == PolynomialFamily::Kind::Legendre ? clenshaw_curtis_levels() : gauss_levels(f));
  return smolyak(rules, level);
}

double smolyak_size_bound(const std::vector<PolynomialFamily>& families, int level) {
  const int d = static_cast<int>(families.size());
  if (d < 1 || level < 0) return 0;
  // The rule smolyak() takes at index k of a dimension: Clenshaw-Curtis level k+1 (1 or 2^k + 1
  // points) for Legendre, else Gauss with 2k + 1 points.
  auto points = [](const PolynomialFamily& f, int k) {
    if (f.kind() == PolynomialFamily::Kind::Legendre) return k == 0 ? 1.0 : std::ldexp(1.0, k) + 1.0;
    return 2.0 * k + 1.0;
  };
  // f[s]: the summed tensor sizes Π n(k_i) over the indices of the dimensions so far with |k| = s.
  std::vector<double> f(static_cast<std::size_t>(level) + 1, 0.0), g(f.size());
  f[0] = 1.0;
  for (const auto& fam : families) {
    std::fill(g.begin(), g.end(), 0.0);
    for (int s = 0; s <= level; ++s)
      if (f[static_cast<std::size_t>(s)] != 0.0)
        for (int k = 0; s + k <= level; ++k) g[static_cast<std::size_t>(s + k)] += f[static_cast<std::size_t>(s)] * points(fam, k);
    f.swap(g);
  }
  double n = 0;
  for (int s = std::max(0, level - d + 1); s <= level; ++s) n += f[static_cast<std::size_t>(s)];
  return n;
}

} // namespace flexuq::uq
