// SPDX-License-Identifier: MIT
// Supports of single components from the readers (issue #37 item 3): Abaqus *BOUNDARY (first, last
// and the named types in Abaqus's meaning) and Nastran SPC/SPC1/GRID PS components become
// Mesh::set_components; a Nastran plate with SPC1 123 edges and the same plate as an .inp with
// *BOUNDARY EDGE, 1, 3 give the same frequencies; bad input is refused naming file and line.
#include "FeTestUtil.hpp"
#include "TestUtil.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace flexuq;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string path = "/tmp/flexuq_sup_" + std::to_string(getpid()) + "_" + std::to_string(rank) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

/// Node label → fixed-component mask of set @p name (bits 0-5 = components 1-6).
std::map<long, unsigned> masks(const io::Mesh& m, const std::string& name) {
  std::map<long, unsigned> out;
  for (const auto& [v, mask] : m.set_components.at(name)) out[m.node_ids[static_cast<std::size_t>(v)]] |= mask;
  return out;
}

void expect_error(const std::string& path, std::initializer_list<const char*> parts) {
  try {
    io::read_mesh(path);
    ADD_FAILURE() << path << ": no error";
  } catch (const InputError& e) {
    for (const char* p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

/// A 1 × 0.6 plate of nx × ny S4 quads (nodes numbered row by row from 1), steel, thickness 0.01.
std::string plate_nodes_inp(int nx, int ny) {
  std::ostringstream os;
  os << "*NODE\n";
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) os << j * (nx + 1) + i + 1 << ", " << 1.0 * i / nx << ", " << 0.6 * j / ny << ", 0\n";
  os << "*ELEMENT, TYPE=S4, ELSET=PLATE\n";
  int e = 1;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = j * (nx + 1) + i + 1;
      os << e++ << ", " << a << ", " << a + 1 << ", " << a + nx + 2 << ", " << a + nx + 1 << "\n";
    }
  os << "*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1e11, 0.3\n*DENSITY\n7850\n*SHELL SECTION, ELSET=PLATE, MATERIAL=STEEL\n0.01\n";
  return os.str();
}

std::vector<int> edge_labels(int nx, int ny) {
  std::vector<int> out;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i)
      if (i == 0 || j == 0 || i == nx || j == ny) out.push_back(j * (nx + 1) + i + 1);
  return out;
}

std::vector<double> frequencies(const io::Mesh& m, const std::string& fixed) {
  fe::ComponentOptions o;
  o.fixed_sets = {fixed};
  return test::constrained_frequencies(fe::Component(MPI_COMM_WORLD, m, o), 4);
}

} // namespace

TEST(SupportReaders, AbaqusBoundaryFirstLastAndNamedTypes) {
  // Shell nodes (6 DOFs): first/last ranges and every named type; a node listed twice fixes the union.
  std::string deck = plate_nodes_inp(2, 1) + "*NSET, NSET=LEFT\n1, 4\n*BOUNDARY\nLEFT, 1, 3\n1, 6\n2, XSYMM\n3, YSYMM\n"
                                             "5, ZSYMM\n6, XASYMM\n*Boundary, op=NEW\n4, YASYMM\n2, ZASYMM\n5, PINNED\n3, ENCASTRE\n";
  const std::string path = write_file("named.inp", deck);
  const io::Mesh m = io::read_inp(path);
  std::remove(path.c_str());
  auto bits = [](std::initializer_list<int> cs) {
    unsigned b = 0;
    for (int c : cs) b |= 1u << (c - 1);
    return b;
  };
  const auto got = masks(m, "BOUNDARY");
  EXPECT_EQ(got.at(1), bits({1, 2, 3, 6}));
  EXPECT_EQ(got.at(2), bits({1, 5, 6}) | bits({1, 2, 6}));      // XSYMM + ZASYMM
  EXPECT_EQ(got.at(3), bits({1, 2, 3, 4, 5, 6}));                // YSYMM + ENCASTRE
  EXPECT_EQ(got.at(4), bits({1, 2, 3}) | bits({1, 3, 5}));      // LEFT + YASYMM
  EXPECT_EQ(got.at(5), bits({3, 4, 5}) | bits({1, 2, 3}));      // ZSYMM + PINNED
  EXPECT_EQ(got.at(6), bits({2, 3, 4}));                         // XASYMM
  EXPECT_EQ(m.node_set("BOUNDARY").size(), 6u);

  // Solid nodes (3 DOFs): a named type keeps the translations it names (XSYMM: u1 only).
  const std::string solid = "*NODE\n1,0,0,0\n2,1,0,0\n3,0,1,0\n4,0,0,1\n*ELEMENT, TYPE=C3D4, ELSET=E\n1,1,2,3,4\n"
                            "*MATERIAL, NAME=S\n*ELASTIC\n1e5, 0.3\n*DENSITY\n1\n*SOLID SECTION, ELSET=E, MATERIAL=S\n";
  const std::string p2 = write_file("solid.inp", solid + "*BOUNDARY\n1, XSYMM\n2, ZASYMM\n3, ENCASTRE\n");
  const io::Mesh s = io::read_inp(p2);
  std::remove(p2.c_str());
  const auto sg = masks(s, "BOUNDARY");
  EXPECT_EQ(sg.at(1), 1u);
  EXPECT_EQ(sg.at(2), 3u);
  EXPECT_EQ(sg.at(3), 7u);

  // Bad lines, named by file and line.
  expect_error(write_file("b1.inp", solid + "*BOUNDARY\n1, 1, 6\n"), {"b1.inp:15:", "*BOUNDARY", "above 3"});
  expect_error(write_file("b2.inp", solid + "*BOUNDARY\n1, 7\n"), {"b2.inp:15:", "outside 1-6"});
  expect_error(write_file("b3.inp", solid + "*BOUNDARY\n1, YSYM\n"), {"b3.inp:15:", "unknown type 'YSYM'"});
  expect_error(write_file("b4.inp", solid + "*BOUNDARY\n1, 1, 1, 0.5\n"), {"b4.inp:15:", "nonzero displacement"});
  expect_error(write_file("b5.inp", solid + "*BOUNDARY\nNOSET, 1, 3\n"), {"b5.inp:15:", "node set NOSET is not defined"});
  expect_error(write_file("b6.inp", solid + "*BOUNDARY\n9, 1\n"), {"b6.inp:15:", "node 9 is not defined"});
  expect_error(write_file("b7.inp", solid + "*BOUNDARY\n1, 3, 2\n"), {"b7.inp:15:", "below the first"});
  expect_error(write_file("b8.inp", solid + "*BOUNDARY, AMPLITUDE=A\n1, 1\n"), {"b8.inp:14:", "AMPLITUDE"});
}

TEST(SupportReaders, NastranSpcComponentsGiveTheAbaqusBoundaryFrequencies) {
  const int nx = 10, ny = 6;
  const auto edge = edge_labels(nx, ny);
  // The plate as an .inp with *BOUNDARY EDGE, 1, 3 ...
  std::ostringstream inp;
  inp << plate_nodes_inp(nx, ny) << "*NSET, NSET=EDGE\n";
  for (std::size_t k = 0; k < edge.size(); ++k) inp << edge[k] << (k % 8 == 7 || k + 1 == edge.size() ? "\n" : ", ");
  inp << "*BOUNDARY\nEDGE, 1, 3\n";
  const std::string pi = write_file("plate.inp", inp.str());
  const auto f_inp = frequencies(io::read_inp(pi), "BOUNDARY");
  std::remove(pi.c_str());
  // ... and as a Nastran deck, SPC1 123 on the edges (THRU ranges and single grids mixed with SPC).
  std::ostringstream bdf;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i)
      bdf << "GRID," << j * (nx + 1) + i + 1 << ",," << 1.0 * i / nx << "," << 0.6 * j / ny << ",0.\n";
  int e = 1;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = j * (nx + 1) + i + 1;
      bdf << "CQUAD4," << e++ << ",1," << a << "," << a + 1 << "," << a + nx + 2 << "," << a + nx + 1 << "\n";
    }
  bdf << "PSHELL,1,1,0.01,1,,1\nMAT1,1,2.1E11,,0.3,7850.\n";
  bdf << "SPC1,7,123," << 1 << ",THRU," << nx + 1 << "\n";
  for (int g : edge)
    if (g > nx + 1) bdf << (g % 2 ? "SPC1,7,123," : "SPC,7,") << g << (g % 2 ? "\n" : ",123\n");
  bdf << "SPC1,7,3,1\n"; // a repeated grid: the union
  const std::string pb = write_file("plate.bdf", bdf.str());
  const io::Mesh mb = io::read_bdf(pb);
  std::remove(pb.c_str());
  const auto got = masks(mb, "SPC7");
  EXPECT_EQ(got.size(), edge.size());
  for (const auto& [g, mask] : got) EXPECT_EQ(mask, 7u) << "grid " << g;
  const auto f_bdf = frequencies(mb, "SPC7");
  ASSERT_EQ(f_bdf.size(), f_inp.size());
  for (std::size_t k = 0; k < f_inp.size(); ++k) EXPECT_NEAR(f_bdf[k] / f_inp[k], 1.0, 1e-10) << k;
}

TEST(SupportReaders, NastranComponentsOnSolidsAndInCoordinateSystems) {
  const std::string tet = "CTETRA,1,1,1,2,3,4\nPSOLID,1,1\nMAT1,1,1.E5,,0.3,1.\n";
  // Solid grids: 456 dropped, 123456 is the whole node; GRID PS components; a CD whose axes are the
  // basic ones (a translated CORD2R) takes single components.
  const std::string deck = "CORD2R,5,,1.,2.,3.,1.,2.,4.\n,2.,2.,3.\nGRID,1,,0.,0.,0.,5\nGRID,2,,1.,0.,0.\n"
                           "GRID,3,,0.,1.,0.,,12\nGRID,4,,0.,0.,1.\n" + tet + "SPC1,2,123456,2\nSPC1,2,2,1\nSPC,2,4,456\n";
  const std::string p = write_file("solid.bdf", deck);
  const io::Mesh m = io::read_bdf(p);
  std::remove(p.c_str());
  const auto spc = masks(m, "SPC2");
  EXPECT_EQ(spc.size(), 2u); // grid 4's 456 fixes nothing on a solid
  EXPECT_EQ(spc.at(2), 7u);
  EXPECT_EQ(spc.at(1), 2u);
  EXPECT_EQ(masks(m, "PS").at(3), 3u);
  // A rotated CD: only whole triples.
  const std::string rot = "CORD2R,5,,0.,0.,0.,0.,0.,1.\n,0.,1.,0.\nGRID,1,,0.,0.,0.,5\nGRID,2,,1.,0.,0.\nGRID,3,,0.,1.,0.\nGRID,4,,0.,0.,1.\n";
  const std::string p2 = write_file("rot.bdf", rot + tet + "SPC1,1,123,1\n");
  EXPECT_EQ(masks(io::read_bdf(p2), "SPC1").at(1), 7u);
  std::remove(p2.c_str());
  expect_error(write_file("rot1.bdf", rot + tet + "SPC,1,1,3\n"), {"rot1.bdf:10:", "components 3", "CD = 5"});
}
