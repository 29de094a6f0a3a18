// SPDX-License-Identifier: MIT
#pragma once
/// @file IntegratorReference.hpp
/// @brief Independent references for the integrator verification suite (integrator_order_test.cpp):
/// minimal-coordinate equations of motion derived here by hand (never from flexuq's System), a
/// classical RK4 to integrate them with a tiny step, and the textbook generalized-α / HHT schemes
/// applied to the same minimal-coordinate ODE (the "same scheme on the minimal equations" each flexuq
/// scheme is compared with).
///
/// Every mechanism here is written as  M(y) ÿ = f(y, ẏ, t)  in its own minimal coordinates y;
/// `Ode::accel` returns ÿ.

#include <Eigen/Dense>

#include <cmath>
#include <functional>

namespace flexuq::mbs::test {

using RVec = Eigen::VectorXd;

/// A truncated Taylor jet f(θ₀ + ε) ≈ v + d1 ε + ½ d2 ε²: value, first and second derivative with
/// respect to one scalar coordinate. Enough to write a 1-DOF mechanism's positions once and get the
/// velocities' Jacobians (d1) and convective terms (d2) of Lagrange's equations exactly.
struct Jet {
  double v = 0, d1 = 0, d2 = 0;
  static Jet variable(double x) { return {x, 1, 0}; }
  static Jet constant(double x) { return {x, 0, 0}; }
  /// Coordinate x seen along a direction: x + d s (jets of several coordinates along one direction
  /// give directional derivatives: d1 = J·dir, d2 = dirᵀ (∂²f) dir).
  static Jet along(double x, double d) { return {x, d, 0}; }
};
inline Jet operator+(Jet a, Jet b) { return {a.v + b.v, a.d1 + b.d1, a.d2 + b.d2}; }
inline Jet operator-(Jet a, Jet b) { return {a.v - b.v, a.d1 - b.d1, a.d2 - b.d2}; }
inline Jet operator*(double s, Jet a) { return {s * a.v, s * a.d1, s * a.d2}; }
inline Jet operator*(Jet a, Jet b) { return {a.v * b.v, a.d1 * b.v + a.v * b.d1, a.d2 * b.v + 2 * a.d1 * b.d1 + a.v * b.d2}; }
/// g(f) with g, g', g'' at f.v.
inline Jet chain(Jet f, double g, double g1, double g2) { return {g, g1 * f.d1, g2 * f.d1 * f.d1 + g1 * f.d2}; }
inline Jet sin(Jet a) { return chain(a, std::sin(a.v), std::cos(a.v), -std::sin(a.v)); }
inline Jet cos(Jet a) { return chain(a, std::cos(a.v), -std::sin(a.v), -std::cos(a.v)); }
inline Jet sqrt(Jet a) {
  const double r = std::sqrt(a.v);
  return chain(a, r, 0.5 / r, -0.25 / (r * a.v));
}
inline Jet inverse(Jet a) { return chain(a, 1 / a.v, -1 / (a.v * a.v), 2 / (a.v * a.v * a.v)); }
inline Jet operator/(Jet a, Jet b) { return a * inverse(b); }
inline Jet asin(Jet a) {
  const double s = 1 - a.v * a.v;
  return chain(a, std::asin(a.v), 1 / std::sqrt(s), a.v / (s * std::sqrt(s)));
}

/// A second-order ODE ÿ = accel(t, y, ẏ) in minimal coordinates.
struct Ode {
  std::function<RVec(double, const RVec&, const RVec&)> accel;
};

/// Classical RK4 on (y, ẏ) with @p steps equal steps from t0 to t1.
inline void rk4(const Ode& ode, double t0, double t1, int steps, RVec& y, RVec& yd) {
  const double h = (t1 - t0) / steps;
  for (int i = 0; i < steps; ++i) {
    const double t = t0 + i * h;
    const RVec k1y = yd, k1v = ode.accel(t, y, yd);
    const RVec k2y = yd + 0.5 * h * k1v, k2v = ode.accel(t + 0.5 * h, y + 0.5 * h * k1y, k2y);
    const RVec k3y = yd + 0.5 * h * k2v, k3v = ode.accel(t + 0.5 * h, y + 0.5 * h * k2y, k3y);
    const RVec k4y = yd + h * k3v, k4v = ode.accel(t + h, y + h * k3y, k4y);
    y += h / 6 * (k1y + 2 * k2y + 2 * k3y + k4y);
    yd += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
  }
}

/// The reference at t1: RK4 with @p steps and with twice as many; @p accuracy gets their
/// difference (the reference's own error bound, asserted small by the tests).
inline RVec reference(const Ode& ode, const RVec& y0, const RVec& yd0, double t0, double t1, int steps, double* accuracy,
                      RVec* yd_end = nullptr) {
  RVec ya = y0, va = yd0, yb = y0, vb = yd0;
  rk4(ode, t0, t1, steps, ya, va);
  rk4(ode, t0, t1, 2 * steps, yb, vb);
  if (accuracy) *accuracy = (ya - yb).lpNorm<Eigen::Infinity>();
  if (yd_end) *yd_end = vb;
  return yb;
}

/// The textbook generalized-α scheme of Chung & Hulbert in the form of Arnold & Brüls (2007) on the
/// minimal ODE: ÿ_{n+1} = accel(t_{n+1}, y_{n+1}, ẏ_{n+1}) exactly, the algorithmic acceleration
/// (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) ÿ_{n+1} + α_f ÿ_n, Newmark's y and ẏ updates with a.
/// HHT-α (α ∈ [−1/3, 0]) is α_m = 0, α_f = −α, γ = ½ − α, β = ¼(1 − α)². Solved by Newton on ÿ_{n+1}
/// with a finite-difference Jacobian to round-off. Returns y at t1.
inline RVec generalized_alpha(const Ode& ode, RVec y, RVec yd, double t0, double t1, double h, double am, double af,
                              double beta, double gamma) {
  const int n = static_cast<int>(y.size());
  const long steps = std::lround((t1 - t0) / h);
  RVec acc = ode.accel(t0, y, yd), aux = acc;
  for (long k = 0; k < steps; ++k) {
    const double t = t0 + (k + 1) * h;
    const RVec ya = y + h * yd + h * h * (0.5 - beta) * aux, va = yd + h * (1 - gamma) * aux;
    auto state = [&](const RVec& x, RVec& y1, RVec& v1) {
      const RVec a1 = ((1 - af) * x + af * acc - am * aux) / (1 - am);
      y1 = ya + beta * h * h * a1;
      v1 = va + gamma * h * a1;
    };
    auto residual = [&](const RVec& x) {
      RVec y1, v1;
      state(x, y1, v1);
      return RVec(x - ode.accel(t, y1, v1));
    };
    RVec x = acc;
    for (int it = 0; it < 50; ++it) {
      const RVec r = residual(x);
      Eigen::MatrixXd j(n, n);
      for (int c = 0; c < n; ++c) {
        RVec xp = x;
        const double e = 1e-7 * std::max(1.0, std::abs(x(c)));
        xp(c) += e;
        j.col(c) = (residual(xp) - r) / e;
      }
      const RVec dx = j.lu().solve(-r);
      x += dx;
      if (dx.lpNorm<Eigen::Infinity>() <= 1e-14 * std::max(1.0, x.lpNorm<Eigen::Infinity>())) break;
    }
    RVec y1, v1;
    state(x, y1, v1);
    aux = ((1 - af) * x + af * acc - am * aux) / (1 - am);
    acc = x;
    y = y1;
    yd = v1;
  }
  return y;
}

} // namespace flexuq::mbs::test
