// SPDX-License-Identifier: MIT
#pragma once
/// @file Mechanics.hpp
/// @brief Pure formulas of continuum mechanics that the finite elements (fe) and the multibody
/// outputs (mbs) share, header-only and below both: stresses in Voigt order σxx, σyy, σzz, σxy, σyz,
/// σzx (fe::kStressComponents, the order of `/reduced/stress_modes`).

#include <cmath>

namespace flexuq::la {

/// von Mises equivalent stress of one Voigt stress (σxx, σyy, σzz, σxy, σyz, σzx):
/// √(½[(σxx − σyy)² + (σyy − σzz)² + (σzz − σxx)²] + 3 (σxy² + σyz² + σzx²)).
inline double von_mises(const double* s) {
  const double a = s[0] - s[1], b = s[1] - s[2], c = s[2] - s[0];
  return std::sqrt(0.5 * (a * a + b * b + c * c) + 3.0 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
}

} // namespace flexuq::la
