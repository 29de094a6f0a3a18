// SPDX-License-Identifier: MIT
#pragma once
/// @file HyperDual.hpp
/// @brief Hyper-dual numbers a + b ε₁ + c ε₂ + d ε₁ε₂ (ε₁² = ε₂² = 0): forward automatic
/// differentiation to second order. For f evaluated at x + ε₁ u + ε₂ w, d1 = f'(x)·u, d2 = f'(x)·w and
/// d12 = uᵀ f''(x) w, exactly (no truncation). The intrusive PCT (pct/Galerkin.hpp) differentiates the
/// models' energies, virtual work and constraints with them: Lagrange's equations need ∂T/∂q̇, ∂T/∂q,
/// d/dt ∂T/∂q̇ (a directional second derivative along (q̇, q̈)), M = ∂²T/∂q̇² and γ = −q̇ᵀΦ_qq q̇.
/// The operations polynomial models need (+, −, ×, division by a constant) and √ (for the terms a model
/// declares non-polynomial, LagrangianModel::non_polynomial_terms, projected pseudo-spectrally).

#include <cmath>

namespace flexuq::pct {

struct HyperDual {
  double v = 0, d1 = 0, d2 = 0, d12 = 0;
  HyperDual() = default;
  HyperDual(double x) : v(x) {} // NOLINT(google-explicit-constructor): constants mix freely
  HyperDual(double x, double a, double b, double c) : v(x), d1(a), d2(b), d12(c) {}

  HyperDual& operator+=(const HyperDual& o) { v += o.v; d1 += o.d1; d2 += o.d2; d12 += o.d12; return *this; }
  HyperDual& operator-=(const HyperDual& o) { v -= o.v; d1 -= o.d1; d2 -= o.d2; d12 -= o.d12; return *this; }
  HyperDual& operator*=(const HyperDual& o) {
    const HyperDual r(v * o.v, v * o.d1 + d1 * o.v, v * o.d2 + d2 * o.v, v * o.d12 + d1 * o.d2 + d2 * o.d1 + d12 * o.v);
    return *this = r;
  }
  HyperDual& operator*=(double s) { v *= s; d1 *= s; d2 *= s; d12 *= s; return *this; }
};

inline HyperDual operator+(HyperDual a, const HyperDual& b) { return a += b; }
inline HyperDual operator-(HyperDual a, const HyperDual& b) { return a -= b; }
inline HyperDual operator*(HyperDual a, const HyperDual& b) { return a *= b; }
inline HyperDual operator+(HyperDual a, double b) { a.v += b; return a; }
inline HyperDual operator+(double b, HyperDual a) { a.v += b; return a; }
inline HyperDual operator-(HyperDual a, double b) { a.v -= b; return a; }
inline HyperDual operator-(double b, const HyperDual& a) { return HyperDual(b - a.v, -a.d1, -a.d2, -a.d12); }
inline HyperDual operator-(const HyperDual& a) { return HyperDual(-a.v, -a.d1, -a.d2, -a.d12); }
inline HyperDual operator*(HyperDual a, double s) { return a *= s; }
inline HyperDual operator*(double s, HyperDual a) { return a *= s; }
/// Division by a constant (a parameter value), which keeps a term polynomial in the states.
inline HyperDual operator/(HyperDual a, double s) { return a *= 1.0 / s; }
inline HyperDual square(const HyperDual& a) { return a * a; }
/// √a (a > 0): not polynomial — only for the terms a model lists as non-polynomial (a spring's length),
/// projected pseudo-spectrally.
inline HyperDual sqrt(const HyperDual& a) {
  const double r = std::sqrt(a.v), h = 0.5 / r;
  return HyperDual(r, h * a.d1, h * a.d2, h * a.d12 - 0.25 * a.d1 * a.d2 / (a.v * r));
}

} // namespace flexuq::pct
