// SPDX-License-Identifier: MIT
// OP4 files: write → read round trips bit-exact (binary and ASCII, dense and bigmat), a hand-written
// ASCII file in the non-bigmat sparse layout of Nastran's OUTPUT4, big-endian binary, and bad files.
#include "ScratchFile.hpp"
#include "TestUtil.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Op4.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <algorithm>
#include <iterator>
#include <random>

using namespace flexuq;
using namespace flexuq::io;

namespace {

std::string tmp(const std::string& name) { return test::scratch_file("op4", name); }

/// Matrices with awkward values: full-precision randoms, subnormals, huge/tiny exponents (3-digit
/// exponents in ASCII), negative zero, sparse columns with gaps and all-zero columns.
std::vector<Op4Matrix> sample() {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  Op4Matrix k("KAA", 5, 5), phi("PHI", 7, 3), z("ZERO", 2, 4);
  for (int c = 0; c < 5; ++c)
    for (int r = c; r < 5; ++r) k(r, c) = k(c, r) = u(g) * std::pow(10.0, 3 * r - 2 * c);
  phi(0, 0) = 1.0 / 3.0;
  phi(3, 0) = -std::numeric_limits<double>::denorm_min();
  phi(6, 0) = 1e-300;
  phi(1, 2) = 1.7976931348623157e308;
  phi(2, 2) = -2.5e-123;
  phi(3, 2) = u(g);
  return {k, phi, z};
}

void expect_same(const std::vector<Op4Matrix>& a, const std::vector<Op4Matrix>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].name, a[i].name);
    ASSERT_EQ(b[i].rows, a[i].rows);
    ASSERT_EQ(b[i].cols, a[i].cols);
    EXPECT_EQ(b[i].type, 2);
    ASSERT_EQ(b[i].data.size(), a[i].data.size());
    EXPECT_EQ(std::memcmp(b[i].data.data(), a[i].data.data(), a[i].data.size() * sizeof(double)), 0)
        << "matrix " << a[i].name << " not bit-identical";
  }
}

} // namespace

TEST(Op4, RoundTripBitExact) {
  const auto mats = sample();
  for (auto fmt : {Op4Format::binary, Op4Format::ascii})
    for (auto lay : {Op4Layout::dense, Op4Layout::bigmat}) {
      const std::string p = tmp("rt.op4");
      write_op4(p, mats, fmt, lay);
      const auto back = read_op4(p);
      expect_same(mats, back);
      EXPECT_EQ(back[0].form, 6) << "symmetric KAA";
      EXPECT_EQ(back[1].form, 2) << "rectangular PHI";
    }
}

TEST(Op4, AsciiLayoutAsNastranWritesIt) {
  // Header (4I8,A8,A), column records (3I8) with 3 values of E24.16 per line, closing record.
  const std::string p = tmp("layout.op4");
  Op4Matrix m("MAA", 2, 2);
  m(0, 0) = 2.0;
  m(1, 1) = 0.5;
  write_op4(p, {m}, Op4Format::ascii);
  std::ifstream f(p);
  std::string l1, l2, l3;
  std::getline(f, l1);
  std::getline(f, l2);
  std::getline(f, l3);
  EXPECT_EQ(l1, "       2       2       6       2MAA     1P,3E24.16");
  EXPECT_EQ(l2, "       1       1       1");
  EXPECT_EQ(l3, "  2.0000000000000000E+00");
}

TEST(Op4, ReadsNonBigmatSparseAndDFormat) {
  // Non-bigmat sparse: IROW = 0, strings introduced by IS = IROW + 65536 (L + 1), L words (2 per
  // double): column 1 has rows 2-3 (L = 4) and row 5 (L = 2); 5 E16.9 per line with D exponents.
  const std::string p = tmp("sparse.op4");
  std::ofstream(p) << "       2       5       2       2SPARSE  1P,5E16.9\n"
                      "       1       0       8\n"
                   << 2 + 65536 * 5 << "\n"
                   << " 1.000000000D+00-2.500000000D-01\n"
                   << 5 + 65536 * 3 << "\n"
                   << " 3.000000000D+02\n"
                      "       3       1       1\n"
                      " 1.000000000D+00\n";
  const auto m = read_op4(p);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "SPARSE");
  EXPECT_EQ(m[0](1, 0), 1.0);
  EXPECT_EQ(m[0](2, 0), -0.25);
  EXPECT_EQ(m[0](4, 0), 300.0);
  EXPECT_EQ(m[0](0, 0), 0.0);
  EXPECT_EQ(m[0](3, 1), 0.0);
}

TEST(Op4, ReadsBigEndianBinary) {
  const std::string le = tmp("le.op4"), be = tmp("be.op4");
  const auto mats = sample();
  write_op4(le, mats, Op4Format::binary);
  // Byte-swap every 4-byte key and 8-byte value, walking the records: a header (4 keys + name),
  // then column records (3 keys + doubles) until ICOL = NCOL + 1.
  std::ifstream in(le, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto key = [&](std::size_t at) {
    std::int32_t v = 0;
    std::memcpy(&v, b.data() + at, 4);
    return v;
  };
  auto swap = [&](std::size_t at, int n) {
    std::reverse(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(at) + n);
  };
  std::size_t pos = 0;
  std::int32_t ncol = -1; // -1: the next record is a header
  while (pos < b.size()) {
    const std::int32_t len = key(pos);
    if (ncol < 0) {
      ncol = key(pos + 4);
      for (int k = 0; k < 4; ++k) swap(pos + 4 + 4 * std::size_t(k), 4);
    } else {
      const std::int32_t icol = key(pos + 4), nw = key(pos + 12);
      for (int k = 0; k < 3; ++k) swap(pos + 4 + 4 * std::size_t(k), 4);
      for (int k = 0; k < nw / 2; ++k) swap(pos + 16 + 8 * std::size_t(k), 8);
      if (icol == ncol + 1) ncol = -1;
    }
    swap(pos, 4);
    swap(pos + 4 + std::size_t(len), 4);
    pos += 8 + std::size_t(len);
  }
  std::ofstream(be, std::ios::binary) << b;
  expect_same(mats, read_op4(be));
}

TEST(Op4, BadFiles) {
  const std::string p = tmp("bad.op4");
  auto expect_error = [&](const std::string& text, const std::string& part) {
    std::ofstream(p, std::ios::trunc) << text;
    try {
      (void)read_op4(p);
      ADD_FAILURE() << "no error for: " << part;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.op4"), std::string::npos) << e.what();
    }
  };
  expect_error("       2       2       6       9KAA     1P,3E24.16\n", ":1: matrix 1 'KAA': TYPE 9");
  expect_error("       2       2       6       3KAA     1P,3E24.16\n", "complex");
  expect_error("       2       2      99       2KAA     1P,3E24.16\n", "bad header");
  expect_error("       X       2       6       2KAA     1P,3E24.16\n", "NCOL: 'X' is not an integer");
  expect_error("       2       2       6       2KAA     1P,3E24.16\n       1       1       2\n  1.0000000000000000E+00\n",
               "value 2 of 2 is missing");
  expect_error("       2       2       6       2KAA     1P,3E24.16\n       4       1       1\n", "column 4 out of range 1..2");
  expect_error("       2       2       6       2KAA     1P,3E24.16\n       1       2       2\n 1. 2.\n", "rows 2..3 out of range 1..2");
  // binary: a record whose trailing length marker disagrees
  std::string bin(32, '\0');
  const std::int32_t len = 24, bad = 20;
  std::memcpy(&bin[0], &len, 4);
  std::memcpy(&bin[28], &bad, 4);
  expect_error(bin, "record length markers disagree");
  std::string wrong(32, '\0');
  const std::int32_t seven = 7;
  std::memcpy(&wrong[0], &seven, 4);
  expect_error(wrong, "first record has length 7");
  expect_error("       2       2       6       2KAA     1P,3E24.16\n", "unexpected end of file");
}
