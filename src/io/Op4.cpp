// SPDX-License-Identifier: MIT
#include "flexuq/io/Op4.hpp"

#include "TextScan.hpp"
#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace flexuq::io {

namespace {

constexpr long kBigmatRows = 65536; // Nastran: matrices with more rows are always bigmat

int auto_form(const Op4Matrix& m) {
  if (m.form != 0) return m.form;
  if (m.rows != m.cols) return 2;
  for (int c = 0; c < m.cols; ++c)
    for (int r = c + 1; r < m.rows; ++r)
      if (m(r, c) != m(c, r)) return 1;
  return 6;
}

/// Runs of consecutive non-zero rows of column @p c: (first row, count).
std::vector<std::pair<int, int>> strings_of(const Op4Matrix& m, int c) {
  std::vector<std::pair<int, int>> s;
  for (int r = 0; r < m.rows; ++r) {
    if (m(r, c) == 0.0) continue;
    if (!s.empty() && s.back().first + s.back().second == r) ++s.back().second;
    else s.emplace_back(r, 1);
  }
  return s;
}

// ---- binary writing --------------------------------------------------------------------------------
class BinOut {
public:
  void i32(std::int32_t v) { put(&v, 4); }
  void f64(double v) { put(&v, 8); }
  void bytes(const char* p, std::size_t n) { put(p, n); }
  void begin() { start_ = buf_.size(); i32(0); }
  void end() {
    const auto len = static_cast<std::int32_t>(buf_.size() - start_ - 4);
    std::memcpy(buf_.data() + start_, &len, 4);
    i32(len);
  }
  const std::string& str() const { return buf_; }

private:
  void put(const void* p, std::size_t n) { buf_.append(static_cast<const char*>(p), n); }
  std::string buf_;
  std::size_t start_ = 0;
};

void write_binary(BinOut& o, const Op4Matrix& m, const std::string& name, Op4Layout layout) {
  static_assert(sizeof(double) == 8, "IEEE double expected");
  const bool big = layout == Op4Layout::bigmat || m.rows >= kBigmatRows;
  o.begin();
  for (std::int32_t v : {m.cols, big && m.rows < kBigmatRows ? -m.rows : m.rows, auto_form(m), 2}) o.i32(v);
  o.bytes(name.data(), 8);
  o.end();
  for (int c = 0; c < m.cols; ++c) {
    const auto s = strings_of(m, c);
    if (s.empty()) continue;
    o.begin();
    if (!big) {
      const int r0 = s.front().first, r1 = s.back().first + s.back().second;
      o.i32(c + 1);
      o.i32(r0 + 1);
      o.i32(2 * (r1 - r0));
      for (int r = r0; r < r1; ++r) o.f64(m(r, c));
    } else {
      std::int32_t nw = 0;
      for (auto [r0, n] : s) nw += 2 + 2 * n;
      o.i32(c + 1);
      o.i32(0);
      o.i32(nw);
      for (auto [r0, n] : s) {
        o.i32(2 * n + 1);
        o.i32(r0 + 1);
        for (int r = r0; r < r0 + n; ++r) o.f64(m(r, c));
      }
    }
    o.end();
  }
  o.begin();
  o.i32(m.cols + 1);
  o.i32(1);
  o.i32(2);
  o.f64(1.0);
  o.end();
}

// ---- ASCII writing ---------------------------------------------------------------------------------
constexpr int kPerLine = 3, kNumLen = 24; // 1P,3E24.16: 17 significant digits, 3-digit exponents fit

void put_values(std::ostringstream& o, const double* v, int n) {
  char buf[64];
  for (int i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%24.16E", v[i]);
    o << buf;
    if (i % kPerLine == kPerLine - 1 || i == n - 1) o << '\n';
  }
}

void write_ascii(std::ostringstream& o, const Op4Matrix& m, const std::string& name, Op4Layout layout) {
  const bool big = layout == Op4Layout::bigmat || m.rows >= kBigmatRows;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%8d%8d%8d%8d%-8s1P,%dE%d.16\n", m.cols, big && m.rows < kBigmatRows ? -m.rows : m.rows,
                auto_form(m), 2, name.c_str(), kPerLine, kNumLen);
  o << buf;
  std::vector<double> col(static_cast<std::size_t>(m.rows));
  for (int c = 0; c < m.cols; ++c) {
    const auto s = strings_of(m, c);
    if (s.empty()) continue;
    const double* x = m.data.data() + std::size_t(c) * std::size_t(m.rows);
    if (!big) {
      const int r0 = s.front().first, r1 = s.back().first + s.back().second;
      std::snprintf(buf, sizeof buf, "%8d%8d%8d\n", c + 1, r0 + 1, r1 - r0);
      o << buf;
      put_values(o, x + r0, r1 - r0);
    } else {
      int nw = 0;
      for (auto [r0, n] : s) nw += 2 + 2 * n;
      std::snprintf(buf, sizeof buf, "%8d%8d%8d\n", c + 1, 0, nw);
      o << buf;
      for (auto [r0, n] : s) {
        std::snprintf(buf, sizeof buf, "%8d%8d\n", 2 * n + 1, r0 + 1);
        o << buf;
        put_values(o, x + r0, n);
      }
    }
  }
  std::snprintf(buf, sizeof buf, "%8d%8d%8d\n", m.cols + 1, 1, 1);
  o << buf;
  const double one = 1.0;
  put_values(o, &one, 1);
}

// ---- reading ---------------------------------------------------------------------------------------
/// Check an OP4 header and size @p m (name already set); @p bad(message) throws at the reader's
/// position.
template <class Fail>
void start_matrix(Op4Matrix& m, long ncol, long nrow, long form, long type, const std::string& what, Fail bad) {
  if (type < 1 || type > 4) bad(what + ": TYPE " + std::to_string(type) + " (1-4 expected): not an OP4 header");
  if (type > 2) bad(what + ": complex matrices (TYPE " + std::to_string(type) + ") are not supported");
  if (ncol < 0 || ncol > 100000000 || std::labs(nrow) > 100000000 || form < 1 || form > 9)
    bad(what + ": bad header (NCOL " + std::to_string(ncol) + ", NROW " + std::to_string(nrow) + ", FORM " +
        std::to_string(form) + ")");
  if (double(ncol) * double(std::labs(nrow)) * 8.0 > 8e9)
    bad(what + ": " + std::to_string(std::labs(nrow)) + " x " + std::to_string(ncol) + " is too large to read densely");
  m.rows = static_cast<int>(std::labs(nrow));
  m.cols = static_cast<int>(ncol);
  m.form = static_cast<int>(form);
  m.type = static_cast<int>(type);
  m.data.assign(std::size_t(m.rows) * std::size_t(m.cols), 0.0);
}

class BinaryReader {
public:
  BinaryReader(const std::string& path, std::string bytes) : path_(path), b_(std::move(bytes)) {}

  std::vector<Op4Matrix> run() {
    std::int32_t raw = 0;
    std::memcpy(&raw, b_.data(), 4);
    swap_ = !(raw == 24 || raw == 48);
    const auto first = swap_ ? static_cast<std::int32_t>(bswap(static_cast<std::uint32_t>(raw))) : raw;
    if (first != 24 && first != 48)
      fail(0, "not an OP4 file: the first record has length " + std::to_string(raw) + " (24 or 48 expected)");
    key_ = first == 24 ? 4 : 8;
    std::vector<Op4Matrix> out;
    while (pos_ < b_.size()) out.push_back(matrix(static_cast<int>(out.size()) + 1));
    return out;
  }

private:
  [[noreturn]] void fail(std::size_t at, const std::string& msg) const {
    throw InputError(path_ + ": byte " + std::to_string(at) + ": " + msg);
  }
  static std::uint32_t bswap(std::uint32_t v) {
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
  }
  static std::uint64_t bswap(std::uint64_t v) {
    return (std::uint64_t(bswap(std::uint32_t(v))) << 32) | bswap(std::uint32_t(v >> 32));
  }
  std::int32_t marker(std::size_t at) const {
    if (at + 4 > b_.size()) fail(at, "truncated file (record length marker missing)");
    std::uint32_t v = 0;
    std::memcpy(&v, b_.data() + at, 4);
    return static_cast<std::int32_t>(swap_ ? bswap(v) : v);
  }
  /// The next Fortran record: [begin, end) of its payload.
  std::pair<std::size_t, std::size_t> record() {
    const std::size_t at = pos_;
    const std::int32_t len = marker(at);
    if (len < 0 || at + 8 + std::size_t(len) > b_.size())
      fail(at, "truncated record (length " + std::to_string(len) + ", " + std::to_string(b_.size() - at) + " bytes left)");
    if (marker(at + 4 + std::size_t(len)) != len) fail(at, "record length markers disagree (corrupt file)");
    pos_ = at + 8 + std::size_t(len);
    return {at + 4, at + 4 + std::size_t(len)};
  }
  long key(std::size_t at) const {
    if (key_ == 4) return marker(at);
    std::uint64_t v = 0;
    std::memcpy(&v, b_.data() + at, 8);
    return static_cast<long>(static_cast<std::int64_t>(swap_ ? bswap(v) : v));
  }
  /// A value of @p size bytes (4: float, 8: double) at @p at, byte-swapped if needed.
  double real(std::size_t at, int size) const {
    return size == 4 ? load<float, std::uint32_t>(at) : load<double, std::uint64_t>(at);
  }
  template <class T, class U> T load(std::size_t at) const {
    U v = 0;
    std::memcpy(&v, b_.data() + at, sizeof(U));
    if (swap_) v = bswap(v);
    T x = 0;
    std::memcpy(&x, &v, sizeof(T));
    return x;
  }

  Op4Matrix matrix(int index) {
    const auto header = record();
    const auto hb = header.first, he = header.second; // plain variables: the lambda below captures hb
    const std::size_t want = 4 * std::size_t(key_) + 2 * std::size_t(key_);
    if (he - hb != want) fail(hb - 4, "matrix " + std::to_string(index) + ": header record of " + std::to_string(he - hb) + " bytes, " + std::to_string(want) + " expected");
    Op4Matrix m;
    const long ncol = key(hb), nrow = key(hb + key_), form = key(hb + 2 * key_), type = key(hb + 3 * key_);
    m.name = std::string(b_.data() + hb + 4 * key_, 2 * std::size_t(key_));
    m.name.erase(m.name.find_last_not_of(" \0", std::string::npos, 2) + 1);
    const std::string what = "matrix " + std::to_string(index) + " '" + m.name + "'";
    start_matrix(m, ncol, nrow, form, type, what, [&](const std::string& msg) { fail(hb, msg); });
    const bool big = nrow < 0 || nrow >= kBigmatRows;
    const int vsize = type == 1 ? (key_ == 8 ? 8 : 4) : 8;
    const int wper = vsize / key_ > 0 ? vsize / key_ : 1; // words per value
    for (;;) {
      const auto [b, e] = record();
      if (e - b < 3 * std::size_t(key_)) fail(b - 4, what + ": column record too short");
      const long icol = key(b), irow = key(b + key_), nw = key(b + 2 * key_);
      if (icol == ncol + 1) break;
      if (icol < 1 || icol > ncol) fail(b, what + ": column " + std::to_string(icol) + " out of range 1.." + std::to_string(ncol));
      std::size_t p = b + 3 * std::size_t(key_);
      if (nw < 0 || p + std::size_t(nw) * std::size_t(key_) > e) fail(b, what + ": column " + std::to_string(icol) + ": word count " + std::to_string(nw) + " exceeds its record");
      auto put = [&](long row0, long nvals, std::size_t at) {
        if (row0 < 1 || row0 - 1 + nvals > m.rows)
          fail(at, what + ": column " + std::to_string(icol) + ": rows " + std::to_string(row0) + ".." +
                       std::to_string(row0 - 1 + nvals) + " out of range 1.." + std::to_string(m.rows));
        for (long k = 0; k < nvals; ++k) m(static_cast<int>(row0 - 1 + k), static_cast<int>(icol - 1)) = real(at + std::size_t(k) * std::size_t(vsize), vsize);
      };
      if (irow > 0) {
        put(irow, nw / wper, p);
        continue;
      }
      for (long left = nw; left > 0;) {
        long L = 0, row = 0;
        if (big) {
          L = key(p) - 1;
          row = key(p + key_);
          p += 2 * std::size_t(key_);
          left -= L + 2;
        } else {
          const long is = key(p);
          L = (is >> 16) - 1;
          row = is - ((L + 1) << 16);
          p += std::size_t(key_);
          left -= L + 1;
        }
        if (L < 0 || left < 0 || p + std::size_t(L) * std::size_t(key_) > e)
          fail(p, what + ": column " + std::to_string(icol) + ": sparse string overruns its record");
        put(row, L / wper, p);
        p += std::size_t(L) * std::size_t(key_);
      }
    }
    return m;
  }

  std::string path_;
  std::string b_;
  std::size_t pos_ = 0;
  bool swap_ = false;
  int key_ = 4;
};

class AsciiReader {
public:
  AsciiReader(const std::string& path, const std::string& text) : path_(path), cur_(text) {}

  std::vector<Op4Matrix> run() {
    std::vector<Op4Matrix> out;
    std::string_view line;
    while (next(line)) {
      if (detail::trim(line).empty()) continue;
      out.push_back(matrix(line, static_cast<int>(out.size()) + 1));
    }
    if (out.empty()) throw InputError(path_ + ": empty OP4 file");
    return out;
  }

private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(path_ + ":" + std::to_string(cur_.line_number()) + ": " + msg);
  }
  bool next(std::string_view& l) { return cur_.next(l); }
  std::string_view need_line(const std::string& what) {
    std::string_view l;
    if (!next(l)) fail("unexpected end of file in " + what);
    return l;
  }
  long field(std::string_view l, std::size_t b, std::size_t w, const std::string& what) const {
    long v = 0;
    const auto s = b < l.size() ? detail::trim(l.substr(b, w)) : std::string_view();
    if (!detail::parse_long(s, v)) fail(what + ": '" + std::string(s) + "' is not an integer");
    return v;
  }
  /// @p n values of @p numlen characters, @p perline a line.
  void values(long n, double* out, const std::string& what) {
    for (long k = 0; k < n;) {
      const std::string_view l = need_line(what);
      for (int j = 0; j < perline_ && k < n; ++j, ++k) {
        const std::size_t b = std::size_t(j) * std::size_t(numlen_);
        std::string s(b < l.size() ? detail::trim(l.substr(b, std::size_t(numlen_))) : std::string_view());
        if (s.empty()) fail(what + ": value " + std::to_string(k + 1) + " of " + std::to_string(n) + " is missing");
        std::replace(s.begin(), s.end(), 'D', 'E');
        double v = 0;
        if (!detail::parse_double(s, v)) fail(what + ": '" + s + "' is not a number");
        if (out) out[k] = v;
      }
    }
  }

  Op4Matrix matrix(std::string_view h, int index) {
    Op4Matrix m;
    const std::string hw = "matrix " + std::to_string(index) + " header";
    if (h.size() < 33) fail(hw + ": line too short for NCOL NROW FORM TYPE NAME (4I8,A8)");
    const long ncol = field(h, 0, 8, hw + " NCOL"), nrow = field(h, 8, 8, hw + " NROW");
    const long form = field(h, 16, 8, hw + " FORM"), type = field(h, 24, 8, hw + " TYPE");
    m.name = std::string(detail::trim(h.substr(32, std::min<std::size_t>(8, h.size() - 32))));
    const std::string what = "matrix " + std::to_string(index) + " '" + m.name + "'";
    start_matrix(m, ncol, nrow, form, type, what, [&](const std::string& msg) { fail(msg); });
    perline_ = 5;
    numlen_ = 16;
    if (h.size() > 40) { // Fortran format such as 1P,3E24.16 or 1P,5E16.9
      std::string f(detail::trim(h.substr(40)));
      if (f.rfind("1P,", 0) == 0) f = f.substr(3);
      const auto e = f.find_first_of("ED");
      long p = 0, w = 0;
      if (e == std::string::npos || !detail::parse_long(std::string_view(f).substr(0, e), p) ||
          !detail::parse_long(std::string_view(f).substr(e + 1, f.find('.') - e - 1), w) || p < 1 || w < 2)
        fail(what + ": cannot read the number format '" + std::string(detail::trim(h.substr(40))) + "'");
      perline_ = static_cast<int>(p);
      numlen_ = static_cast<int>(w);
    }
    const bool big = nrow < 0 || nrow >= kBigmatRows;
    const long wper = type == 1 ? 1 : 2;
    for (;;) {
      const std::string_view l = need_line(what + " (column record)");
      const long icol = field(l, 0, 8, what + " ICOL"), irow = field(l, 8, 8, what + " IROW"), nw = field(l, 16, 8, what + " NW");
      if (icol == ncol + 1) {
        values(1, nullptr, what + " closing record");
        break;
      }
      if (icol < 1 || icol > ncol) fail(what + ": column " + std::to_string(icol) + " out of range 1.." + std::to_string(ncol));
      double* col = m.data.data() + std::size_t(icol - 1) * std::size_t(m.rows);
      auto check = [&](long row0, long n) {
        if (row0 < 1 || n < 0 || row0 - 1 + n > m.rows)
          fail(what + ": column " + std::to_string(icol) + ": rows " + std::to_string(row0) + ".." +
               std::to_string(row0 - 1 + n) + " out of range 1.." + std::to_string(m.rows));
      };
      if (irow > 0) { // dense: NW values
        check(irow, nw);
        values(nw, col + irow - 1, what);
        continue;
      }
      for (long left = nw; left > 0;) {
        const std::string_view s = need_line(what + " (string header)");
        long L = 0, row = 0;
        if (big) {
          L = field(s, 0, 8, what + " string length") - 1;
          row = field(s, 8, 8, what + " string row");
          left -= L + 2;
        } else {
          const long is = field(s, 0, s.size(), what + " string header IS");
          L = (is >> 16) - 1;
          row = is - ((L + 1) << 16);
          left -= L + 1;
        }
        if (L < 0 || left < 0) fail(what + ": column " + std::to_string(icol) + ": sparse string overruns the column");
        check(row, L / wper);
        values(L / wper, col + row - 1, what);
      }
    }
    return m;
  }

  std::string path_;
  detail::LineCursor cur_;
  int perline_ = 5, numlen_ = 16;
};

} // namespace

void write_op4(const std::string& path, const std::vector<Op4Matrix>& mats, Op4Format format, Op4Layout layout) {
  BinOut bin;
  std::ostringstream txt;
  for (const auto& m : mats) {
    FLEXUQ_REQUIRE(!m.name.empty() && m.name.size() <= 8, "OP4 matrix name '" << m.name << "' must have 1 to 8 characters");
    FLEXUQ_REQUIRE(m.data.size() == std::size_t(m.rows) * std::size_t(m.cols), "OP4 matrix " << m.name << ": data size mismatch");
    std::string name = upper(m.name);
    name.resize(8, ' ');
    if (format == Op4Format::binary) write_binary(bin, m, name, layout);
    else write_ascii(txt, m, name, layout);
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error("cannot write OP4 file '" + path + "'");
  if (format == Op4Format::binary) f.write(bin.str().data(), static_cast<std::streamsize>(bin.str().size()));
  else f << txt.str();
  if (!f) throw Error("error writing OP4 file '" + path + "'");
}

std::vector<Op4Matrix> read_op4(const std::string& path) {
  std::string why;
  auto text = detail::load_text(path, &why); // regular files only (io/InputFile.hpp), within memory
  if (!text)
    throw InputError(why == "cannot be opened" ? "cannot open OP4 file '" + path + "'"
                                               : "OP4 file '" + path + "' " + why + ": give the path of a file");
  if (text->size() < 16) throw InputError(path + ": too short for an OP4 file (" + std::to_string(text->size()) + " bytes)");
  // Binary files start with a record length (24 or 48) in either byte order: zero bytes where an
  // ASCII header has blanks or digits.
  const bool binary = (*text)[1] == '\0' || (*text)[2] == '\0' || (*text)[0] == '\0';
  if (binary) return BinaryReader(path, std::move(*text)).run();
  return AsciiReader(path, *text).run();
}

} // namespace flexuq::io
