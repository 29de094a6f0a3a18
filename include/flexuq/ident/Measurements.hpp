// SPDX-License-Identifier: MIT
#pragma once
/// @file Measurements.hpp
/// @brief Measured signals from a file for `flexuq identify` (key `measurements`, docs/config.md
/// "identify"): times and one column per signal, read from a CSV file (a header line of column names,
/// then one row of numbers per time; `,` or `;` or whitespace between values; `#` lines are comments)
/// or from an HDF5 file (1-D datasets named like the columns, each of the times' length), and
/// interpolated linearly onto the identification run's steps t_k. Errors name the file, and for a
/// CSV the line and column.
#include "flexuq/ident/Adjoint.hpp"

#include <string>
#include <vector>

namespace flexuq::ident {

/// The columns @p wanted of a measurement file (@p time_column first): values(k, j) is column
/// wanted[j] at times[k]. @throws InputError "<file>:<line>: column '<name>' (<j>): '<text>' is not a number",
/// a missing column naming those present, times not strictly increasing (naming the line).
struct MeasuredTable {
  std::vector<double> times;
  Mat values;
};
MeasuredTable read_measurements(const std::string& path, const std::string& time_column,
                                const std::vector<std::string>& wanted);

/// values interpolated linearly at @p t (rows: t, columns: as the table's). @throws InputError naming
/// @p path when a t lies outside [times.front(), times.back()] (beyond 1e-9 of the span).
Mat interpolate(const MeasuredTable& table, const std::vector<double>& t, const std::string& path);

} // namespace flexuq::ident
