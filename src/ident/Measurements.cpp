// SPDX-License-Identifier: MIT
// Measured signals from a CSV or HDF5 file for the identification (ident/Measurements.hpp).
#include "flexuq/ident/Measurements.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mpi.h>

namespace flexuq::ident {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && std::equal(tail.rbegin(), tail.rend(), s.rbegin(),
                                               [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\"");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\"");
  return s.substr(b, e - b + 1);
}

/// Fields of one CSV line: split at ',' or ';' when the line has one, else at whitespace.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  const bool delimited = line.find_first_of(",;") != std::string::npos;
  std::string cur;
  for (const char c : line) {
    const bool sep = delimited ? (c == ',' || c == ';') : (c == ' ' || c == '\t');
    if (sep) {
      if (delimited || !cur.empty()) out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (delimited || !trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

std::string known(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::vector<std::vector<double>> read_csv(const std::string& path, const std::vector<std::string>& wanted,
                                          std::vector<int>& lines) {
  std::ifstream in(path);
  FLEXUQ_REQUIRE(in, path << ": cannot open the measurement file");
  std::string line;
  int ln = 0;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    ++ln;
    const auto t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    header = fields(line);
    break;
  }
  FLEXUQ_REQUIRE(!header.empty(), path << ": no header line (the column names: the time and the signals)");
  const int header_line = ln;
  std::vector<int> col;
  for (const auto& w : wanted) {
    const auto it = std::find(header.begin(), header.end(), w);
    FLEXUQ_REQUIRE(it != header.end(), path << ":" << header_line << ": no column '" << w
                                            << "' in the header (columns: " << known(header) << ")");
    col.push_back(static_cast<int>(it - header.begin()));
  }
  std::vector<std::vector<double>> cols(wanted.size());
  while (std::getline(in, line)) {
    ++ln;
    const auto t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto f = fields(line);
    FLEXUQ_REQUIRE(f.size() == header.size(), path << ":" << ln << ": " << f.size() << " values, the header (line "
                                                   << header_line << ") has " << header.size() << " columns");
    for (std::size_t j = 0; j < wanted.size(); ++j) {
      const std::string& s = f[static_cast<std::size_t>(col[j])];
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(s.c_str(), &end);
      FLEXUQ_REQUIRE(!s.empty() && end == s.c_str() + s.size() && errno != ERANGE && std::isfinite(v),
                     path << ":" << ln << ": column '" << wanted[j] << "' (" << col[j] + 1 << "): '" << s
                          << "' is not a finite number");
      cols[j].push_back(v);
    }
    lines.push_back(ln);
  }
  return cols;
}

std::vector<std::vector<double>> read_h5(const std::string& path, const std::vector<std::string>& wanted,
                                         std::vector<int>& lines) {
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::read);
  std::vector<std::vector<double>> cols;
  for (const auto& w : wanted) {
    FLEXUQ_REQUIRE(f.exists("/" + w), path << ": no dataset '/" << w << "' (the time and each signal: 1-D datasets)");
    const auto shape = f.shape("/" + w);
    FLEXUQ_REQUIRE(shape.size() == 1, path << ": dataset '/" << w << "' must be 1-D, it has " << shape.size()
                                           << " dimensions");
    cols.push_back(f.read_all("/" + w));
    FLEXUQ_REQUIRE(cols.back().size() == cols.front().size(),
                   path << ": dataset '/" << w << "' has " << cols.back().size() << " values, '/" << wanted.front()
                        << "' " << cols.front().size());
    for (std::size_t k = 0; k < cols.back().size(); ++k)
      FLEXUQ_REQUIRE(std::isfinite(cols.back()[k]), path << ": dataset '/" << w << "', entry " << k << " is not finite");
  }
  for (std::size_t k = 0; k < cols.front().size(); ++k) lines.push_back(static_cast<int>(k));
  return cols;
}

} // namespace

MeasuredTable read_measurements(const std::string& path, const std::string& time_column,
                                const std::vector<std::string>& wanted) {
  std::vector<std::string> all{time_column};
  all.insert(all.end(), wanted.begin(), wanted.end());
  const bool h5 = ends_with(path, ".h5") || ends_with(path, ".hdf5");
  std::vector<int> where; // CSV line (or HDF5 entry) of each row
  const auto cols = h5 ? read_h5(path, all, where) : read_csv(path, all, where);
  const std::size_t n = cols.front().size();
  FLEXUQ_REQUIRE(n >= 2, path << ": " << n << " measured times; at least 2 are needed");
  MeasuredTable t;
  t.times = cols.front();
  for (std::size_t k = 1; k < n; ++k)
    FLEXUQ_REQUIRE(t.times[k] > t.times[k - 1],
                   path << (h5 ? ": entry " : ":") << where[k] << ": time " << t.times[k] << " does not follow "
                        << t.times[k - 1] << " (the times must increase strictly)");
  t.values.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(wanted.size()));
  for (std::size_t j = 0; j < wanted.size(); ++j)
    for (std::size_t k = 0; k < n; ++k) t.values(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j)) = cols[j + 1][k];
  return t;
}

Mat interpolate(const MeasuredTable& table, const std::vector<double>& t, const std::string& path) {
  const auto& ts = table.times;
  const double slack = 1e-9 * std::max(1.0, ts.back() - ts.front());
  Mat out(static_cast<Eigen::Index>(t.size()), table.values.cols());
  for (std::size_t i = 0; i < t.size(); ++i) {
    FLEXUQ_REQUIRE(t[i] >= ts.front() - slack && t[i] <= ts.back() + slack,
                   path << ": the run needs the signals at t = " << t[i] << ", the measurements cover ["
                        << ts.front() << ", " << ts.back() << "]");
    const auto it = std::upper_bound(ts.begin(), ts.end(), t[i]);
    const std::size_t k = std::clamp<std::size_t>(static_cast<std::size_t>(it - ts.begin()), 1, ts.size() - 1);
    const double w = std::clamp((t[i] - ts[k - 1]) / (ts[k] - ts[k - 1]), 0.0, 1.0);
    out.row(static_cast<Eigen::Index>(i)) = (1 - w) * table.values.row(static_cast<Eigen::Index>(k - 1)) +
                                            w * table.values.row(static_cast<Eigen::Index>(k));
  }
  return out;
}

} // namespace flexuq::ident
