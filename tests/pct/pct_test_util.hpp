// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the PCT tests: the integrated Galerkin state at given times, statistics of a
// deterministic reference over a Gauss rule of one input (collocation), and RK4 for a scalar ODE.
#include "flexuq/pct/Galerkin.hpp"
#include "flexuq/uq/Quadrature.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace flexuq::pct::testing {

/// States of @p sys (from its consistent initial state at @p t0) at @p times (multiples of @p h).
inline std::vector<DaeState> run_at(const GalerkinSystem& sys, const std::vector<double>& times, double h,
                                    double t0 = 0, double rho_inf = 1.0) {
  DaeState s = sys.initial_state(t0);
  std::vector<DaeState> out;
  AlphaOptions o;
  o.step = h;
  o.rho_inf = rho_inf;
  o.end = times.back();
  std::size_t k = 0;
  integrate_alpha(sys, s, o, [&](const DaeState& st) {
    while (k < times.size() && std::abs(st.t - times[k]) < 1e-9) {
      out.push_back(st);
      ++k;
    }
  });
  return out;
}

/// Mean and std over the @p points-point Gauss rule of @p d of f(x) (f returns one value per time).
inline void collocation(const uq::Distribution& d, int points,
                        const std::function<std::vector<double>(double)>& f, std::vector<double>& mean,
                        std::vector<double>& sd) {
  const uq::Quadrature q = uq::tensor_gauss({d.germ_family()}, {points});
  std::vector<double> m2;
  for (int i = 0; i < q.size(); ++i) {
    const std::vector<double> y = f(d.from_germ(q.points(i, 0)));
    if (mean.empty()) mean.assign(y.size(), 0.0), m2.assign(y.size(), 0.0);
    for (std::size_t k = 0; k < y.size(); ++k) {
      mean[k] += q.weights[i] * y[k];
      m2[k] += q.weights[i] * y[k] * y[k];
    }
  }
  sd.resize(mean.size());
  for (std::size_t k = 0; k < mean.size(); ++k) sd[k] = std::sqrt(std::max(0.0, m2[k] - mean[k] * mean[k]));
}

/// RK4 for x'' = acc(t, x, x') from (x0, v0) at t = 0: x at @p times (multiples of @p h).
inline std::vector<double> rk4(const std::function<double(double, double, double)>& acc, double x0, double v0,
                               const std::vector<double>& times, double h) {
  std::vector<double> out;
  double t = 0, x = x0, v = v0;
  for (double te : times) {
    const long n = std::lround((te - t) / h);
    for (long i = 0; i < n; ++i) {
      const double k1x = v, k1v = acc(t, x, v);
      const double k2x = v + 0.5 * h * k1v, k2v = acc(t + 0.5 * h, x + 0.5 * h * k1x, v + 0.5 * h * k1v);
      const double k3x = v + 0.5 * h * k2v, k3v = acc(t + 0.5 * h, x + 0.5 * h * k2x, v + 0.5 * h * k2v);
      const double k4x = v + h * k3v, k4v = acc(t + h, x + h * k3x, v + h * k3v);
      x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
      v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
      t += h;
    }
    out.push_back(x);
  }
  return out;
}

/// Mean and std of coordinate (or row) @p k of a coefficient vector with @p terms terms.
inline double coef_mean(const Vec& c, int k, int terms) { return c[k * terms]; }
inline double coef_std(const Vec& c, int k, int terms) { return c.segment(k * terms + 1, terms - 1).norm(); }

} // namespace flexuq::pct::testing
