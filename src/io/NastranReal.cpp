// SPDX-License-Identifier: MIT
#include "flexuq/io/NastranReal.hpp"

#include "TextScan.hpp"

#include <cctype>
#include <cstdint>

namespace flexuq::io {

bool parse_nastran_real(std::string_view s, double& v) {
  if (detail::parse_double(s, v)) return true;
  for (std::size_t i = s.size(); i-- > 1;) {
    if ((s[i] == '+' || s[i] == '-') && std::isdigit(static_cast<unsigned char>(s[i - 1])) == 0 && s[i - 1] != '.')
      return false;
    if (s[i] == '+' || s[i] == '-') {
      char t[64]; // an 'E' inserted, without a heap string (large fields are 16 characters)
      if (s.size() + 1 > sizeof t) return false;
      s.copy(t, i);
      t[i] = 'E';
      s.substr(i).copy(t + i + 1, s.size() - i);
      return detail::parse_double(std::string_view(t, s.size() + 1), v);
    }
  }
  return false;
}

bool parse_nastran_real_fast(std::string_view s, double& v) {
  // Exactly representable powers of ten (10^22 < 2^53 · 2^22 is the last one that is exact).
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = s.data();
  const char* const end = p + s.size();
  bool neg = false;
  if (p != end && (*p == '+' || *p == '-')) neg = *p++ == '-';
  std::uint64_t m = 0; // the significant digits
  int sig = 0;         // how many (leading zeros not counted)
  int frac = 0;        // digits after the point
  bool digits = false, point = false;
  for (; p != end; ++p) {
    const char ch = *p;
    if (ch >= '0' && ch <= '9') {
      digits = true;
      frac += point ? 1 : 0;
      if (m == 0 && ch == '0') continue;
      if (++sig > 19) return parse_nastran_real(s, v);
      m = m * 10 + static_cast<std::uint64_t>(ch - '0');
    } else if (ch == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!digits) return parse_nastran_real(s, v);
  int e = 0;
  if (p != end) {
    // "E-3", "D+3", "E3" or the implicit "-3" (it follows a digit or the point here)
    if (*p == 'E' || *p == 'e' || *p == 'D' || *p == 'd') ++p;
    else if (*p != '+' && *p != '-') return parse_nastran_real(s, v);
    bool eneg = false;
    if (p != end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
    if (p == end) return parse_nastran_real(s, v);
    for (; p != end; ++p) {
      if (*p < '0' || *p > '9') return parse_nastran_real(s, v);
      if (e < 10000) e = e * 10 + (*p - '0');
    }
    e = eneg ? -e : e;
  }
  const int e10 = e - frac;
  if (m > (std::uint64_t(1) << 53) || e10 < -22 || e10 > 22) return parse_nastran_real(s, v);
  const double d = static_cast<double>(m);
  const double r = e10 < 0 ? d / kPow10[-e10] : d * kPow10[e10];
  v = neg ? -r : r;
  return true;
}

} // namespace flexuq::io
