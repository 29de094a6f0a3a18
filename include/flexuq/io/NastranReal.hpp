// SPDX-License-Identifier: MIT
#pragma once
/// @file NastranReal.hpp
/// @brief Nastran bulk-data reals ("7.-3", "2.1+11", "1.0D+5", "-.5", "5"): the general parser and a
/// fast one that gives bit for bit the same result (issue #37, reading a 1 M-DOF deck).

#include <string_view>

namespace flexuq::io {

/// A trimmed field as a Nastran real: a decimal number with an optional leading '+' or '-', an
/// exponent written "E-3", "D+3" or implicitly "-3" (after a digit or the point). false if @p s is
/// not such a number (@p v is then unspecified). Correctly rounded (std::from_chars).
bool parse_nastran_real(std::string_view s, double& v);

/// parse_nastran_real, the same result bit for bit (and the same true/false) for every @p s, faster
/// for the fields a large deck is made of: at most 19 significant digits and a decimal exponent,
/// after the point is accounted for, within ±22 are converted exactly as one product or quotient of
/// two exactly representable doubles (m·10^e, m < 2^53: correctly rounded by IEEE arithmetic, as
/// std::from_chars is); anything else goes to parse_nastran_real.
bool parse_nastran_real_fast(std::string_view s, double& v);

} // namespace flexuq::io
