// SPDX-License-Identifier: MIT
#pragma once
/// @file TimeFunction.hpp
/// @brief Scalar functions of time with their first two derivatives, for applied loads and
/// kinematic drivers: constant, polynomial (c0 + c1 t + c2 t² + …), harmonic
/// (offset + amplitude·sin(2π f t + phase)) and table. A table [[t0, v0], [t1, v1], …] blends
/// consecutive points with the MSC.Adams STEP cubic v_k + (v_{k+1} − v_k)(3 − 2Δ)Δ² (Ryan 2018
/// Eq. 5.2, starting from x1 as Adams defines it: the thesis prints x2 + …, which jumps at t1): C¹, zero slope at every table point, constant
/// outside the table. Seed 004's ±0.01 s torque smoothing is then the table
/// [[0.99, 1], [1.01, -1], [1.99, -1], [2.01, 0]].

#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace flexuq::mbs {

class TimeFunction {
public:
  enum class Kind { constant, polynomial, harmonic, table };
  TimeFunction() = default;
  static TimeFunction constant(double c);
  static TimeFunction polynomial(std::vector<double> coeffs);
  static TimeFunction harmonic(double amplitude, double frequency_hz, double phase = 0.0, double offset = 0.0);
  /// @throws InputError (naming @p what) unless the times increase strictly.
  static TimeFunction table(std::vector<std::pair<double, double>> points, const std::string& what = "table");

  /// This function inside [@p on, @p off] and 0 outside (a load switched on at @p on and released
  /// after @p off: a step, as seed 003's V17 force released after 10 s). For applied loads only; a
  /// driver's value must not jump. @throws InputError (naming @p what) unless on < off.
  TimeFunction windowed(double on, double off, const std::string& what = "window") const;

  /// {f(t), f'(t), f''(t)}.
  std::array<double, 3> eval(double t) const;
  double operator()(double t) const { return eval(t)[0]; }
  Kind kind() const { return kind_; }

private:
  Kind kind_ = Kind::constant;
  std::vector<double> c_{0.0};                      ///< constant / polynomial coefficients
  double amp_ = 0, freq_ = 0, phase_ = 0, offset_ = 0; ///< harmonic
  std::vector<std::pair<double, double>> table_;
  double on_ = -std::numeric_limits<double>::infinity(), off_ = std::numeric_limits<double>::infinity();
};

} // namespace flexuq::mbs
