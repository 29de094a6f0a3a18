// SPDX-License-Identifier: MIT
// 2-D elements and bars from the readers: one cantilever strip written as an Abaqus/CalculiX .inp
// (CPS3/CPS4/CPS6/CPS8 and CPE*, *SOLID SECTION with the thickness, nodes without z) and as a gmsh
// .msh (types 2, 3, 9, 16, read as 2-D by the job's model.plane) gives the same clamped frequencies
// to 1e-10; T2D2/T3D2 bars with their area; the reduced-integration warning; and the messages for
// bad 2-D input (zero thickness, CPS and CPE in one section, 2-D beside solid elements, a node off
// the plane, a bad model.plane, unsupported gmsh 2-D types).
#include "FeTestUtil.hpp"
#include "InputErrorOf.hpp"
#include "MpiTestUtil.hpp"
#include "ScratchFile.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

using namespace flexuq;
using io::ElementType;

namespace {

constexpr int kNx = 8, kNy = 2;
constexpr double kL = 0.4, kH = 0.05;

std::string write(const std::string& name, const std::string& text) {
  const std::string path = test::scratch_file("plane_readers", name);
  std::ofstream(path) << text;
  return path;
}

/// The strip's elements on the fine grid (2 kNx + 1) × (2 kNy + 1) as (i, j) pairs in Abaqus order;
/// node (i, j) has label 1 + i + 100 j and coordinates (kL i / (2 kNx), kH j / (2 kNy)).
std::vector<std::vector<std::pair<int, int>>> strip(ElementType t) {
  std::vector<std::vector<std::pair<int, int>>> out;
  for (int i = 0; i < kNx; ++i)
    for (int j = 0; j < kNy; ++j) {
      const int I = 2 * i, J = 2 * j;
      const std::pair<int, int> a{I, J}, b{I + 2, J}, c{I + 2, J + 2}, d{I, J + 2};
      if (t == ElementType::quad4) out.push_back({a, b, c, d});
      if (t == ElementType::quad8) out.push_back({a, b, c, d, {I + 1, J}, {I + 2, J + 1}, {I + 1, J + 2}, {I, J + 1}});
      if (t == ElementType::tri3) {
        out.push_back({a, b, c});
        out.push_back({a, c, d});
      }
      if (t == ElementType::tri6) {
        out.push_back({a, b, c, {I + 1, J}, {I + 2, J + 1}, {I + 1, J + 1}});
        out.push_back({a, c, d, {I + 1, J + 1}, {I + 1, J + 2}, {I, J + 1}});
      }
    }
  return out;
}
long label(std::pair<int, int> p) { return 1 + p.first + 100L * p.second; }
std::map<long, std::pair<double, double>> used_nodes(ElementType t) {
  std::map<long, std::pair<double, double>> n;
  for (const auto& e : strip(t))
    for (auto p : e) n[label(p)] = {kL * p.first / (2 * kNx), kH * p.second / (2 * kNy)};
  return n;
}

/// The .inp deck: element type @p abaqus, 2-D nodes (x, y only), set ROOT at x = 0.
std::string inp_text(ElementType t, const std::string& abaqus, const std::string& thickness = "0.01") {
  std::ostringstream os;
  os << "*NODE, NSET=ALLN\n";
  for (const auto& [l, x] : used_nodes(t)) os << l << ", " << x.first << ", " << x.second << "\n";
  os << "*ELEMENT, TYPE=" << abaqus << ", ELSET=STRIP\n";
  long id = 1;
  for (const auto& e : strip(t)) {
    os << id++;
    for (auto p : e) os << ", " << label(p);
    os << "\n";
  }
  os << "*NSET, NSET=ROOT\n";
  for (int j = 0; j <= 2 * kNy; ++j)
    if (used_nodes(t).count(label({0, j}))) os << label({0, j}) << "\n";
  os << "*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1E11, 0.3\n*DENSITY\n7850.\n";
  os << "*SOLID SECTION, ELSET=STRIP, MATERIAL=STEEL\n" << thickness << "\n";
  return os.str();
}

/// The same strip as gmsh 2.2: the elements in physical surface STRIP, the root line in ROOT.
std::string msh_text(ElementType t) {
  const int gmsh = t == ElementType::quad4 ? 3 : t == ElementType::quad8 ? 16 : t == ElementType::tri3 ? 2 : 9;
  std::ostringstream os;
  os << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"ROOT\"\n2 2 \"STRIP\"\n$EndPhysicalNames\n";
  const auto nodes = used_nodes(t);
  os << "$Nodes\n" << nodes.size() << "\n";
  for (const auto& [l, x] : nodes) os << l << " " << x.first << " " << x.second << " 0\n";
  os << "$EndNodes\n";
  std::vector<std::string> lines;
  long id = 1;
  const bool quadratic = t == ElementType::quad8 || t == ElementType::tri6;
  for (int j = 0; j < 2 * kNy; j += 2) // the root edge as 2-node (type 1) or 3-node (type 8) lines
    lines.push_back(std::to_string(id++) + (quadratic ? " 8" : " 1") + " 2 1 1 " + std::to_string(label({0, j})) + " " +
                    std::to_string(label({0, j + 2})) + (quadratic ? " " + std::to_string(label({0, j + 1})) : ""));
  for (const auto& e : strip(t)) {
    std::string l = std::to_string(id++) + " " + std::to_string(gmsh) + " 2 2 2";
    for (auto p : e) l += " " + std::to_string(label(p));
    lines.push_back(l);
  }
  os << "$Elements\n" << lines.size() << "\n";
  for (const auto& l : lines) os << l << "\n";
  os << "$EndElements\n";
  return os.str();
}

std::vector<double> clamped(const fe::Component& c) {
  fe::ModeOptions mo;
  mo.count = 4;
  mo.constrained = true;
  mo.progress = false;
  return fe::solve_modes(c.K(), c.M(), mo).frequencies_hz();
}

} // namespace

TEST(PlaneReaders, InpAndGmshGiveTheSameCantilever) {
  struct Case {
    ElementType type;
    const char* stress;
    const char* strain;
  };
  for (const Case& cs : {Case{ElementType::quad4, "CPS4", "CPE4"}, Case{ElementType::quad8, "CPS8", "CPE8"},
                         Case{ElementType::tri3, "CPS3", "CPE3"}, Case{ElementType::tri6, "CPS6", "CPE6"}})
    for (bool strain : {false, true}) {
      const std::string abaqus = strain ? cs.strain : cs.stress;
      const io::Mesh inp = io::read_inp(write(abaqus + ".inp", inp_text(cs.type, abaqus)));
      ASSERT_EQ(inp.elem_type[0], cs.type) << abaqus;
      ASSERT_EQ(inp.sections.size(), 1u);
      EXPECT_TRUE(inp.sections[0].plane);
      EXPECT_EQ(inp.sections[0].plane_section.strain, strain);
      EXPECT_DOUBLE_EQ(inp.sections[0].plane_section.thickness, 0.01);
      EXPECT_EQ(inp.dofs_per_node(), 2);
      fe::ComponentOptions o;
      o.fixed_sets = {"ROOT"};
      const fe::Component ci(MPI_COMM_WORLD, inp, o);
      const auto fi = clamped(ci);
      const std::string msh = write(abaqus + ".msh", msh_text(cs.type));
      const auto cm = test::component_from_yaml(MPI_COMM_WORLD, "model:\n  mesh: " + msh +
                                                                     "\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n"
                                                                     "  plane: {state: " + (strain ? "strain" : "stress") +
                                                                     ", thickness: 0.01}\n  fixed: [ROOT]\n");
      EXPECT_EQ(cm->mesh().elem_type[0], cs.type);
      EXPECT_EQ(cm->dofs().dofs_per_node(), 2);
      EXPECT_EQ(cm->dofs().global_size(), ci.dofs().global_size());
      const auto fm = clamped(*cm);
      ASSERT_GE(fi.size(), 4u);
      ASSERT_GE(fm.size(), 4u);
      for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(fm[k] / fi[k], 1.0, 1e-10) << abaqus << " mode " << k + 1;
      if (test::world_rank() == 0) std::printf("[PlaneReaders] %s: f1 %.4f Hz (.inp), %.4f Hz (.msh)\n", abaqus.c_str(), fi[0], fm[0]);
    }
}

TEST(PlaneReaders, BarsAndReducedIntegrationTypes) {
  // T2D2: a 2-D mesh (2 DOFs per node); T3D2: 3-D (3); the *SOLID SECTION line is the area
  // (Abaqus' default 1 for an empty line). CPS4R is read as the fully integrated quad4, with a warning.
  const std::string bars = "*NODE\n1, 0, 0\n2, 1, 0\n3, 1, 1\n*ELEMENT, TYPE=T2D2, ELSET=TRUSS\n1, 1, 2\n2, 2, 3\n3, 1, 3\n"
                           "*MATERIAL, NAME=AL\n*ELASTIC\n7E10, 0.33\n*DENSITY\n2700.\n"
                           "*SOLID SECTION, ELSET=TRUSS, MATERIAL=AL\n2.5E-4\n";
  const io::Mesh m2 = io::read_inp(write("t2d2.inp", bars));
  EXPECT_TRUE(m2.planar);
  EXPECT_EQ(m2.dofs_per_node(), 2);
  EXPECT_EQ(m2.elem_type[2], ElementType::bar2);
  ASSERT_EQ(m2.sections.size(), 1u);
  EXPECT_TRUE(m2.sections[0].bar);
  EXPECT_DOUBLE_EQ(m2.sections[0].bar_area, 2.5e-4);
  std::string b3 = bars;
  b3.replace(b3.find("T2D2"), 4, "T3D2");
  b3.replace(0, b3.find("*ELEMENT"), "*NODE\n1, 0, 0, 0\n2, 1, 0, 0.5\n3, 1, 1, 0\n"); // 3-D nodes
  b3.replace(b3.find("2.5E-4\n"), 7, "\n");
  const io::Mesh m3 = io::read_inp(write("t3d2.inp", b3));
  EXPECT_FALSE(m3.planar);
  EXPECT_EQ(m3.dofs_per_node(), 3);
  EXPECT_DOUBLE_EQ(m3.sections[0].bar_area, 1.0);
  // The free triangle truss: 3 rigid modes (a triangle of bars is rigid, so no mechanism), the
  // other 3 of its 6 DOFs elastic.
  const fe::Component c(MPI_COMM_SELF, m2, {});
  fe::ModeOptions mo;
  mo.count = 2;
  mo.progress = false;
  const auto modes = fe::solve_modes(c.K(), c.M(), mo);
  EXPECT_EQ(modes.rigid_eigenvalues.size(), 3u);
  EXPECT_GE(modes.eigenvalues.size(), 2u);
  const io::Mesh r = io::read_inp(write("cps4r.inp", inp_text(ElementType::quad4, "CPS4R")));
  EXPECT_EQ(r.elem_type[0], ElementType::quad4);
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.find("reduced-integration 2-D elements") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(PlaneReaders, BadTwoDInputIsRefusedWithFileAndLine) {
  // Zero thickness: the *SOLID SECTION's data line named.
  std::string msg = test::input_error_of([&] { io::read_inp(write("t0.inp", inp_text(ElementType::quad4, "CPS4", "0.0"))); });
  EXPECT_NE(msg.find("t0.inp:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thickness must be positive"), std::string::npos) << msg;
  EXPECT_NE(msg.find("quad4"), std::string::npos) << msg;
  // CPS and CPE elements in one section.
  std::string mixed = inp_text(ElementType::quad4, "CPS4");
  mixed.insert(mixed.find("*NSET, NSET=ROOT"), "*ELEMENT, TYPE=CPE4, ELSET=STRIP\n99, 1, 3, 203, 201\n");
  msg = test::input_error_of([&] { io::read_inp(write("mixed.inp", mixed)); });
  EXPECT_NE(msg.find("plane stress and plane strain"), std::string::npos) << msg;
  // A 2-D element beside a solid one (the component refuses the mix).
  const std::string with_solid = "*NODE\n1,0,0,0\n2,1,0,0\n3,1,1,0\n4,0,1,0\n5,0,0,1\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
                                 "*ELEMENT, TYPE=C3D8, ELSET=S\n1, 1,2,3,4,5,6,7,8\n*ELEMENT, TYPE=CPS4, ELSET=P\n2, 1,2,3,4\n"
                                 "*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1E11, 0.3\n*DENSITY\n7850.\n"
                                 "*SOLID SECTION, ELSET=S, MATERIAL=STEEL\n*SOLID SECTION, ELSET=P, MATERIAL=STEEL\n0.1\n";
  msg = test::input_error_of([&] { io::read_inp(write("solid.inp", with_solid)); });
  EXPECT_NE(msg.find("node 5 has z = 1"), std::string::npos) << msg;
  io::Mesh mix;
  mix.source = "mix";
  mix.elem_type = {ElementType::hex8, ElementType::quad4};
  msg = test::input_error_of([&] { (void)mix.dofs_per_node(); });
  EXPECT_NE(msg.find("mix: a 2-D mesh"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot hold solid elements"), std::string::npos) << msg;
  // A node without z in a 3-D mesh is still a truncated line.
  // (readers_test's corpus: short_node_line.inp)
  // model.plane with a bad state, a bad thickness, and a gmsh 9-node quadrangle.
  const std::string msh = write("p.msh", msh_text(ElementType::quad4));
  msg = test::input_error_of([&] {
    (void)test::component_from_yaml(MPI_COMM_SELF, "model:\n  mesh: " + msh +
                                                       "\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n  plane: {state: membrane}\n");
  });
  EXPECT_NE(msg.find("model.plane.state is 'membrane'"), std::string::npos) << msg;
  msg = test::input_error_of([&] {
    (void)test::component_from_yaml(MPI_COMM_SELF, "model:\n  mesh: " + msh +
                                                       "\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n  plane: {state: stress, thickness: -1}\n");
  });
  EXPECT_NE(msg.find("model.plane.thickness"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be positive"), std::string::npos) << msg;
  std::string q9 = msh_text(ElementType::quad8); // one more element: a 9-node quadrangle on existing nodes
  q9.insert(q9.find("$EndElements"), "999 10 2 2 2 1 3 203 201 2 103 202 101 2\n");
  const auto count_at = q9.find("$Elements\n") + 10, count_end = q9.find('\n', count_at);
  q9.replace(count_at, count_end - count_at, std::to_string(std::stol(q9.substr(count_at, count_end - count_at)) + 1));
  const std::string q9path = write("q9.msh", q9);
  msg = test::input_error_of([&] { io::read_mesh(q9path, true); });
  EXPECT_NE(msg.find("gmsh type 10"), std::string::npos) << msg;
  // 2-D elements without a section, and without model.plane: the job key named.
  const std::string bare = "*NODE\n1,0,0\n2,1,0\n3,1,1\n*ELEMENT, TYPE=CPS3, ELSET=P\n1, 1,2,3\n";
  const io::Mesh nb = io::read_inp(write("bare.inp", bare));
  fe::ComponentOptions o;
  o.default_material = test::material("M", 2.1e11, 0.3, 7850);
  msg = test::input_error_of([&] { fe::Component(MPI_COMM_SELF, nb, o); });
  EXPECT_NE(msg.find("element 1 (tri3) has no plane stress or plane strain section"), std::string::npos) << msg;
}
