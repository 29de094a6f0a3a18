// SPDX-License-Identifier: MIT
// The Nastran reader's fast path for the cards big decks are made of (issue #37 Goals, reading speed):
// 1. parse_nastran_real_fast = parse_nastran_real bit for bit (and the same accept/refuse) on tricky
//    fields and 100 000 generated ones, and both = strtod of the field normalised by this test
//    (an independent oracle: 'E' inserted before an implicit exponent, 'D' → 'E');
// 2. a deck whose GRID/GRID*/CQUAD4/CTRIA3/CTETRA cards take the fast path reads as the same deck in
//    lower case (which the fast path leaves to the general one): coordinates bitwise, ids,
//    connectivity, sets; coordinates = strtod of what was written; cards the fast path must hand on
//    (PS, ZOFFS, continuations, a comment inside a card, 10-node tets) included;
// 3. a bad field on a fast-looking line gives the general path's message and line.
#include "flexuq/io/MeshReader.hpp"
#include "flexuq/io/NastranReal.hpp"
#include "InputErrorOf.hpp"
#include "ScratchFile.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace flexuq;

namespace {

std::uint64_t bits(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// The field as C's strtod reads it: 'D' → 'E', an 'E' inserted before a sign that follows a digit
/// or the point. Written for this test from the Nastran rule, not from the reader.
double oracle(const std::string& s) {
  std::string t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool after_mantissa = i > 0 && (std::isdigit(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '.');
    if ((c == '+' || c == '-') && after_mantissa) t += 'E';
    t += (c == 'D' || c == 'd') ? 'E' : c;
  }
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  EXPECT_EQ(end, t.c_str() + t.size()) << "oracle could not read '" << s << "' as '" << t << "'";
  return v;
}

void expect_same(const std::string& s) {
  double a = 1.25, b = -3.5;
  const bool ga = io::parse_nastran_real(s, a), fa = io::parse_nastran_real_fast(s, b);
  ASSERT_EQ(ga, fa) << "'" << s << "'";
  if (ga) {
    EXPECT_EQ(bits(a), bits(b)) << "'" << s << "': " << a << " vs " << b;
  }
}

std::string write(const std::string& name, const std::string& text) { return test::write_scratch("bdf_fast", name, text); }

/// A small-field line: the name in columns 1-8, then right-justified 8-column fields.
std::string card8(const std::vector<std::string>& f) {
  std::string l = f[0] + std::string(8 - f[0].size(), ' ');
  for (std::size_t i = 1; i < f.size(); ++i) l += std::string(8 - f[i].size(), ' ') + f[i];
  return l + "\n";
}

} // namespace

TEST(NastranRealFast, TrickyFieldsMatchTheGeneralParserBitwise) {
  const char* const valid[] = {"1.-3", "7.+10", "-.5", ".5", "+.5", "1.5D+3", "1.5d-3", "1D3", "+2.5", "-0.0", "0",
                               "5", "5.", "-5-3", "1-3", "+1.5-3", ".5+2", "1.953125000e-03", "-4.882812500E-04",
                               "9.999999999e+22", "1.0E-300", "1.0+308", "2.1+11", "0.000123456789",
                               "1.23456789012345678901", "9007199254740993", "9007199254740992", "123456789012345678",
                               "1234567890123456789", "12345678901234567890", "4.9406564584124654-324",
                               "2.2250738585072011e-308", "1.7976931348623157+308", "0.1", "0.3", "1e22", "1e23",
                               "8.98846567431158e307", "3.14159265358979323846", "0.0000000000000000000000001",
                               "000000000000000000000000012.5", "1.E-3", "1.e+3", "-0.0-5"};
  for (const char* s : valid) {
    expect_same(s);
    double v = 0;
    ASSERT_TRUE(io::parse_nastran_real_fast(s, v)) << s;
    EXPECT_EQ(bits(v), bits(oracle(s))) << s;
  }
  const char* const invalid[] = {"", ".", "-", "+", "1.5+", "1.5E", "1.5E+", "1.5.3", "--1", "abc", "1.5 3",
                                 " 1.5", "1.5 ", "1.5-3-", "1.5E3.", "E5", "-E5", "1.5x", "1.5DD3"};
  for (const char* s : invalid) {
    expect_same(s);
    double v = 0;
    EXPECT_FALSE(io::parse_nastran_real_fast(s, v)) << "'" << s << "'";
  }
  // Overflow, non-numbers and "+-1" (the general parser reads -1): the fast one says the same.
  for (const char* s : {"+-1", "1.0E400", "1.0+400", "1.0-400", "NAN", "INF", "nan", "-inf", "0x1p3", "1e99999999999"})
    expect_same(s);
}

TEST(NastranRealFast, GeneratedFieldsMatchTheGeneralParserAndStrtodBitwise) {
  std::mt19937_64 rng(20261128);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  int fast_range = 0;
  for (int n = 0; n < 100000; ++n) {
    std::string s;
    const int sign = pick(4);
    if (sign == 1) s += '-';
    if (sign == 2) s += '+';
    const int before = pick(8), after = pick(18);
    for (int i = 0; i < before; ++i) s += static_cast<char>('0' + pick(10));
    if (after > 0 || before == 0 || pick(2)) s += '.';
    for (int i = 0; i < after; ++i) s += static_cast<char>('0' + pick(10));
    if (before == 0 && after == 0) s += '7';
    const int style = pick(5);
    const int ex = pick(61) - 30;
    const std::string mag = std::to_string(ex < 0 ? -ex : ex);
    const std::string esign = ex < 0 ? "-" : pick(2) ? "+" : "";
    if (style == 1) s += "E" + esign + mag;
    if (style == 2) s += "D" + esign + mag;
    if (style == 3) s += std::string(ex < 0 ? "-" : "+") + (pick(2) ? "0" : "") + mag; // implicit exponent
    if (style == 4) s += "e" + esign + mag;
    expect_same(s);
    double v = 0;
    ASSERT_TRUE(io::parse_nastran_real_fast(s, v)) << s;
    ASSERT_EQ(bits(v), bits(oracle(s))) << s;
    fast_range += before + after <= 19 && ex - after >= -22 && ex - after <= 22;
  }
  EXPECT_GT(fast_range, 30000); // most of them take the exact product/quotient, not the fallback
}

TEST(BdfFastCards, ReadAsTheSameDeckThroughTheGeneralPath) {
  // Coordinates as a generator writes them (%.9e in 16 columns) and as people do (implicit
  // exponents, '.5', 'D'), in GRID* and GRID; grid 4 carries PS (the general path reads it), grid 6's
  // continuation follows a comment line, the last GRID* ends an included file (the card could go on).
  const std::vector<std::string> x = {"1.953125000e-03", "-4.88281250E-04", "1.-3",  "7.+1",    "-.5",
                                      "1.5D+0",          "0.1",             "2.1+1", "-.333333", "1.234567890123"};
  auto l16 = [](const std::string& s) { return std::string(16 - s.size(), ' ') + s; };
  auto l8 = [](const std::string& s) { return s + std::string(8 - s.size(), ' '); };
  std::string deck = "GRID*   " + l16("1") + l16("") + l16(x[0]) + l16(x[1]) + "\n*       " + l16(x[2]) + "\n";
  deck += "GRID*   " + l16("2") + l16("0") + l16(x[3]) + l16(x[4]) + "\n*       " + l16(x[5]) + l16("0") + "\n";
  deck += "GRID    3               " + l8(x[6]) + l8(x[7]) + l8(x[8]) + "\n";
  deck += "GRID    4               " + l8(x[2]) + l8(x[3]) + l8(x[4]) + "        123\n";
  deck += "GRID    5       0       " + l8("1.") + l8("1.") + l8("0.") + "\n";
  deck += "GRID*   " + l16("6") + l16("") + l16(x[9]) + l16(x[0]) + "\n$ a comment inside the card\n*       " +
          l16(x[1]) + "\n";
  for (int g = 7; g <= 12; ++g) deck += "GRID    " + l8(std::to_string(g)) + "        " + l8(std::to_string(g) + ".5") + "2.      -1.5\n";
  deck += card8({"CQUAD4", "1", "1", "1", "2", "3", "4"}) + card8({"CQUAD4", "2", "", "2", "5", "6", "3"}) + // PID = EID
          card8({"CQUAD4", "3", "1", "4", "3", "6", "5", "0.0", "0."}) +                           // THETA, ZOFFS 0.
          card8({"CTRIA3", "4", "1", "1", "2", "5"}) +
          card8({"CQUAD4", "5", "1", "1", "5", "6", "4", "", "", "+"}) + // TFLAG 1, T1..T4 on a continuation
          card8({"+", "", "1", ".01", ".01", ".01", ".01"}) + "GRID,14,,1.5-1, 2. ,-.5\nGRID, 15 ,0,1.25E+0,,.75,,,\n" +
          "CTRIA3,6,2,14,15,1\n" + card8({"CTETRA", "10", "7", "7", "8", "9", "10"}) +
          card8({"CTETRA", "11", "7", "9", "10", "11", "12", "1", "2"}) + card8({"+", "3", "4", "5", "6"}) + // 10-node
          card8({"PSHELL", "1", "1", ".02", "1", "", "1", ".83333"}) +
          card8({"PSHELL", "2", "1", ".03", "1", "", "1", ".83333"}) + card8({"PSOLID", "7", "1"}) +
          card8({"MAT1", "1", "2.1+11", "", ".3", "7850."}) + card8({"SPC1", "1", "123456", "1", "2"});
  // an included file's last card, a GRID*: its continuation could follow in the including file
  const std::string tail = "GRID*   " + l16("13") + l16("") + l16("3.") + l16("3.") + "\n*       " + l16("3.") + "\n";
  auto lower = [](const std::string& s) {
    std::string l;
    for (char c : s) l += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return l;
  };
  write("fast_tail.bdf", tail);
  write("general_tail.bdf", lower(tail));
  const std::string fast = write("fast.bdf", "BEGIN BULK\n" + deck + "INCLUDE 'fast_tail.bdf'\nENDDATA\n");
  const std::string general = write("general.bdf", "BEGIN BULK\n" + lower(deck) + "INCLUDE 'general_tail.bdf'\nENDDATA\n");
  const io::Mesh a = io::read_mesh(fast), b = io::read_mesh(general);
  ASSERT_EQ(a.num_nodes(), 14u); // grid 13 is used by no element
  ASSERT_EQ(b.num_nodes(), 14u);
  EXPECT_EQ(a.node_ids, b.node_ids);
  for (std::size_t i = 0; i < a.num_nodes(); ++i)
    for (std::size_t d = 0; d < 3; ++d) EXPECT_EQ(bits(a.coords[i][d]), bits(b.coords[i][d])) << "grid " << a.node_ids[i];
  // against strtod of what was written
  const std::string written[6][3] = {{x[0], x[1], x[2]}, {x[3], x[4], x[5]}, {x[6], x[7], x[8]},
                                     {x[2], x[3], x[4]}, {"1.", "1.", "0."}, {x[9], x[0], x[1]}};
  for (std::size_t g = 0; g < 6; ++g) {
    ASSERT_EQ(a.node_ids[g], static_cast<long>(g + 1));
    for (std::size_t d = 0; d < 3; ++d) EXPECT_EQ(bits(a.coords[g][d]), bits(oracle(written[g][d]))) << "grid " << g + 1;
  }
  // free-field grids 14, 15 (mesh nodes 12, 13)
  const std::string written_free[2][3] = {{"1.5-1", "2.", "-.5"}, {"1.25E+0", "0.", ".75"}};
  for (std::size_t g = 0; g < 2; ++g) {
    ASSERT_EQ(a.node_ids[12 + g], static_cast<long>(14 + g));
    for (std::size_t d = 0; d < 3; ++d)
      EXPECT_EQ(bits(a.coords[12 + g][d]), bits(oracle(written_free[g][d]))) << "grid " << 14 + g;
  }
  EXPECT_EQ(a.elem_ids, (std::vector<long>{1, 2, 3, 4, 5, 6, 10, 11}));
  EXPECT_EQ(a.elem_ids, b.elem_ids);
  EXPECT_EQ(a.elem_type, b.elem_type);
  EXPECT_EQ(a.elem_offsets, b.elem_offsets);
  EXPECT_EQ(a.elem_nodes, b.elem_nodes);
  EXPECT_EQ(a.elem_type[6], io::ElementType::tet4);
  EXPECT_EQ(a.elem_type[7], io::ElementType::tet10);
  EXPECT_EQ(a.elem_type[3], io::ElementType::shell3);
  EXPECT_EQ(a.elem_type[5], io::ElementType::shell3);
  EXPECT_EQ(a.element_sets, b.element_sets);
  EXPECT_EQ(a.node_sets, b.node_sets);
  ASSERT_EQ(a.sections.size(), b.sections.size());
  EXPECT_EQ(a.sections.size(), 4u); // PSHELL 1 (T .02), PSHELL 1 with T .01 on element 5, PSHELL 2, PSOLID 7
  EXPECT_EQ(a.set_components, b.set_components);
}

TEST(BdfFastCards, BadFieldsOnFastLookingLinesKeepTheGeneralMessages) {
  const std::string tail = card8({"PSHELL", "1", "1", ".02", "1"}) + card8({"MAT1", "1", "2.1+11", "", ".3", "7850."}) +
                           "ENDDATA\n";
  const std::string quad = card8({"CQUAD4", "1", "1", "1", "2", "3", "4"});
  const std::string grids =
      card8({"GRID", "1", "", "0.", "0.", "0."}) + card8({"GRID", "2", "", "1.", "0.", "0."}) + card8({"GRID", "3", "", "1.", "1.", "0."});
  auto err = [&](const std::string& name, const std::string& text) {
    const std::string path = write(name, text);
    return test::input_error_of([&] { io::read_mesh(path); });
  };
  std::string m = err("x.bdf", "BEGIN BULK\n" + grids + card8({"GRID", "4", "", "0.", "1.2.3", "0."}) + quad + tail);
  EXPECT_NE(m.find("x.bdf:5: GRID: field 5 (X) '1.2.3' is not a number"), std::string::npos) << m;
  m = err("dup.bdf", "BEGIN BULK\n" + grids + card8({"GRID", "4", "", "0.", "1.", "0."}) +
                         card8({"CQUAD4", "1", "1", "1", "2", "3", "3"}) + tail);
  EXPECT_NE(m.find("dup.bdf:6: CQUAD4: element 1 lists grid 3 twice"), std::string::npos) << m;
  m = err("id.bdf", "BEGIN BULK\n" + grids + "GRID*                  0                              0.              1.\n"
                        "*                    0.\n" + quad + tail);
  EXPECT_NE(m.find("id.bdf:5: GRID: grid id must be positive"), std::string::npos) << m;
  m = err("free.bdf", "BEGIN BULK\n" + grids + "GRID,4,,0.,1.,0.,,,,,\n" + quad + tail);
  EXPECT_NE(m.find("free.bdf:5: free-field line has 11 fields, at most 10"), std::string::npos) << m;
  m = err("freex.bdf", "BEGIN BULK\n" + grids + "GRID,4,,0.,1.,0.-\n" + quad + tail);
  EXPECT_NE(m.find("freex.bdf:5: GRID: field 6 (X) '0.-' is not a number"), std::string::npos) << m;
  m = err("cp.bdf", "BEGIN BULK\n" + grids + card8({"GRID", "4", "-1", "0.", "1.", "0."}) + quad + tail);
  EXPECT_NE(m.find("cp.bdf:5: GRID: field 3 (CP) -1 is not a coordinate system id"), std::string::npos) << m;
}
