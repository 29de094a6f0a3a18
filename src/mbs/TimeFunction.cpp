// SPDX-License-Identifier: MIT
#include "flexuq/mbs/TimeFunction.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>

namespace flexuq::mbs {

TimeFunction TimeFunction::constant(double c) {
  TimeFunction f;
  f.c_ = {c};
  return f;
}

TimeFunction TimeFunction::polynomial(std::vector<double> coeffs) {
  TimeFunction f;
  f.kind_ = Kind::polynomial;
  f.c_ = coeffs.empty() ? std::vector<double>{0.0} : std::move(coeffs);
  return f;
}

TimeFunction TimeFunction::harmonic(double amplitude, double frequency_hz, double phase, double offset) {
  TimeFunction f;
  f.kind_ = Kind::harmonic;
  f.amp_ = amplitude;
  f.freq_ = frequency_hz;
  f.phase_ = phase;
  f.offset_ = offset;
  return f;
}

TimeFunction TimeFunction::table(std::vector<std::pair<double, double>> points, const std::string& what) {
  FLEXUQ_REQUIRE(!points.empty(), what << ": a table needs at least one [t, value] row");
  for (std::size_t k = 1; k < points.size(); ++k)
    FLEXUQ_REQUIRE(points[k].first > points[k - 1].first,
                   what << ": table times must increase strictly (row " << k << ": t = " << points[k].first
                        << " after t = " << points[k - 1].first << ")");
  TimeFunction f;
  f.kind_ = Kind::table;
  f.table_ = std::move(points);
  return f;
}

TimeFunction TimeFunction::windowed(double on, double off, const std::string& what) const {
  FLEXUQ_REQUIRE(std::isfinite(on) && std::isfinite(off) && on < off,
                 what << ": needs [start, end] with start < end, got [" << on << ", " << off << "]");
  TimeFunction f = *this;
  f.on_ = on;
  f.off_ = off;
  return f;
}

std::array<double, 3> TimeFunction::eval(double t) const {
  if (t < on_ || t > off_) return {0.0, 0.0, 0.0};
  switch (kind_) {
  case Kind::constant:
    return {c_[0], 0.0, 0.0};
  case Kind::polynomial: {
    double v = 0, d = 0, dd = 0;
    for (std::size_t k = c_.size(); k-- > 0;) { // Horner for value and both derivatives
      dd = dd * t + 2.0 * d;
      d = d * t + v;
      v = v * t + c_[k];
    }
    return {v, d, dd};
  }
  case Kind::harmonic: {
    const double w = 2.0 * M_PI * freq_;
    const double s = std::sin(w * t + phase_), c = std::cos(w * t + phase_);
    return {offset_ + amp_ * s, amp_ * w * c, -amp_ * w * w * s};
  }
  case Kind::table: {
    if (t <= table_.front().first) return {table_.front().second, 0.0, 0.0};
    if (t >= table_.back().first) return {table_.back().second, 0.0, 0.0};
    std::size_t k = 0;
    while (t > table_[k + 1].first) ++k;
    const double t1 = table_[k].first, t2 = table_[k + 1].first;
    const double x1 = table_[k].second, x2 = table_[k + 1].second;
    const double h = t2 - t1, d = (t - t1) / h, dx = x2 - x1;
    return {x1 + dx * (3.0 - 2.0 * d) * d * d, dx * 6.0 * d * (1.0 - d) / h, dx * 6.0 * (1.0 - 2.0 * d) / (h * h)};
  }
  }
  return {0.0, 0.0, 0.0};
}

} // namespace flexuq::mbs
