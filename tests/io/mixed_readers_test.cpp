// SPDX-License-Identifier: MIT
// Mixed meshes through the readers (issue #37 item 1): the plate embedded in a hex8 block of
// tests/support/MixedMeshUtil.hpp written as an Abaqus .inp (S4 + C3D8, *SHELL SECTION, *SOLID SECTION,
// *BOUNDARY ROOT, 1, 3) and as a Nastran deck (CQUAD4 + CHEXA, PSHELL, PSOLID, SPC1 123): both read
// as the generated mesh with model.fixed {set: ROOT, dofs: [1, 2, 3]}, the same first 6 frequencies to
// 1e-10, on 1 and 2 ranks.
#include "FeTestUtil.hpp"
#include "MixedMeshUtil.hpp"
#include "ScratchFile.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace flexuq;

namespace {

constexpr int kNx = 8, kNs = 2;

io::Mesh generated() { return test::plate_on_block(kNx, kNs, 1.0, 0.01, 0.05, true); }

std::string write(const std::string& name, const std::string& text) {
  const std::string p = test::scratch_file("mixed", name);
  std::ofstream(p) << text;
  return p;
}

/// The generated mesh as .inp (@p nastran false) or a deck: nodes, S4/CQUAD4 and C3D8/CHEXA (the same
/// corner order for 8-node bricks), steel for both, the block face ROOT held in 1-3.
std::string text(const io::Mesh& m, bool nastran) {
  std::ostringstream os;
  os.precision(17);
  os << (nastran ? "BEGIN BULK\n" : "*NODE\n");
  for (std::size_t v = 0; v < m.num_nodes(); ++v)
    os << (nastran ? "GRID," : "") << m.node_ids[v] << (nastran ? ",," : ", ") << m.coords[v][0] << ", " << m.coords[v][1]
       << ", " << m.coords[v][2] << "\n";
  for (bool shell : {true, false}) {
    if (!nastran) os << (shell ? "*ELEMENT, TYPE=S4, ELSET=PLATE\n" : "*ELEMENT, TYPE=C3D8, ELSET=BLOCK\n");
    for (std::size_t e = 0; e < m.num_elements(); ++e) {
      if ((m.elem_type[e] == io::ElementType::shell4) != shell) continue;
      os << (nastran ? (shell ? "CQUAD4," : "CHEXA,") : "") << m.elem_ids[e] << (nastran ? (shell ? ",1" : ",2") : "");
      for (int k = 0; k < m.element_size(e); ++k) {
        if (nastran && k == 6) os << ",+\n+";
        os << ", " << m.node_ids[static_cast<std::size_t>(m.element(e)[k])];
      }
      os << "\n";
    }
  }
  if (nastran) {
    os << "PSHELL,1,1,0.01,1,,1\nPSOLID,2,1\nMAT1,1," << test::kE << ",," << test::kNu << "," << test::kRho << "\n";
    for (int v : m.node_set("ROOT")) os << "SPC1,1,123," << m.node_ids[static_cast<std::size_t>(v)] << "\n";
    os << "ENDDATA\n";
  } else {
    os << "*NSET, NSET=ROOT\n";
    for (int v : m.node_set("ROOT")) os << m.node_ids[static_cast<std::size_t>(v)] << "\n";
    os << "*MATERIAL, NAME=STEEL\n*ELASTIC\n" << test::kE << ", " << test::kNu << "\n*DENSITY\n" << test::kRho
       << "\n*SHELL SECTION, ELSET=PLATE, MATERIAL=STEEL\n0.01\n*SOLID SECTION, ELSET=BLOCK, MATERIAL=STEEL\n\n"
       << "*BOUNDARY\nROOT, 1, 3\n";
  }
  return os.str();
}

std::vector<double> frequencies(io::Mesh m, const fe::ComponentOptions& o) {
  fe::Component c(MPI_COMM_WORLD, std::move(m), o);
  return test::constrained_frequencies(c, 6);
}

} // namespace

TEST(MixedReaders, InpAndDeckReadAsTheGeneratedMesh) {
  const io::Mesh m = generated();
  fe::ComponentOptions gen;
  gen.default_material = test::material("STEEL", test::kE, test::kNu, test::kRho);
  gen.fixed_components.push_back({"ROOT", {1, 2, 3}, "test"});
  const auto ref = frequencies(m, gen);
  fe::ComponentOptions inp;
  inp.fixed_sets = {"BOUNDARY"};
  const auto fi = frequencies(io::read_mesh(write("block.inp", text(m, false))), inp);
  fe::ComponentOptions bdf;
  bdf.fixed_sets = {"SPC1"};
  const auto fb = frequencies(io::read_mesh(write("block.bdf", text(m, true))), bdf);
  ASSERT_EQ(ref.size(), 6u);
  double ei = 0, eb = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    ei = std::max(ei, std::abs(fi.at(k) / ref[k] - 1));
    eb = std::max(eb, std::abs(fb.at(k) / ref[k] - 1));
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("[MixedReaders] f1 %.6f Hz; .inp vs generated %.1e, deck vs generated %.1e\n", ref[0], ei, eb);
  EXPECT_LT(ei, 1e-10);
  EXPECT_LT(eb, 1e-10);
}
