// SPDX-License-Identifier: MIT
// The Nastran reader keeps card fields as views of the mapped deck text (issue #37, reading speed):
// fields copied where that text does not last or must change — a card that an INCLUDE file ends and
// the including file continues, lower-case fields, tab-expanded lines — read as the same card written
// plainly in one file. Reference: the coordinates as written (exact binary fractions).
#include "flexuq/io/MeshReader.hpp"
#include "ScratchFile.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace flexuq;

namespace {

std::string write(const std::string& name, const std::string& text) { return test::write_scratch("bdf_views", name, text); }

const char* const kTail = "CQUAD4,1,1,1,2,3,4\n"
                          "CQUAD4  2       1       2       5       6       3\n"
                          "PSHELL,1,1,0.01,1,,1\n"
                          "MAT1,1,2.1+11,,0.3,7850.\n"
                          "ENDDATA\n";

} // namespace

TEST(BdfTextViews, CardsSplitAcrossAnIncludeLowerCaseAndTabsReadAsPlainCards) {
  // Grid 5's GRID* card starts in the included file and its continuation (z = 0.5) follows the
  // INCLUDE line in the main file; grid 4 is lower case; grid 6 has tabs.
  write("a.bdf", "GRID*                  1                             0.0             0.0\n"
                 "GRID*                  2                             1.0             0.0\n"
                 "*                    0.0\n"
                 "GRID,3,,1.0,1.0,0.0\n"
                 "grid,4,,0.0,1.0,0.25\n"
                 "GRID*                  5                             2.0             0.0\n");
  const std::string split = write("main.bdf", std::string("BEGIN BULK\nINCLUDE 'a.bdf'\n*                    0.5\n"
                                                          "GRID\t6\t\t2.0\t1.0\t-.125\n") +
                                                  kTail);
  const std::string plain = write("plain.bdf", std::string("BEGIN BULK\n"
                                                           "GRID    1               0.0     0.0     0.0\n"
                                                           "GRID    2               1.0     0.0     0.0\n"
                                                           "GRID    3               1.0     1.0     0.0\n"
                                                           "GRID    4               0.0     1.0     0.25\n"
                                                           "GRID    5               2.0     0.0     0.5\n"
                                                           "GRID    6               2.0     1.0     -.125\n") +
                                                   kTail);
  const io::Mesh a = io::read_mesh(split), b = io::read_mesh(plain);
  const double z[6] = {0, 0, 0, 0.25, 0.5, -0.125};
  ASSERT_EQ(a.num_nodes(), 6u);
  ASSERT_EQ(b.num_nodes(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.node_ids[i], static_cast<long>(i + 1));
    EXPECT_EQ(a.coords[i], b.coords[i]) << "grid " << i + 1;
    EXPECT_EQ(a.coords[i][2], z[i]) << "grid " << i + 1;
  }
  EXPECT_EQ(a.elem_nodes, b.elem_nodes);
  EXPECT_EQ(a.sections.size(), 1u);
}
