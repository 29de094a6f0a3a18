// SPDX-License-Identifier: MIT
// Mesh readers: Abaqus/CalculiX .inp, Gmsh .msh 4.1/2.2 and the dispatcher. Readers are
// rank-local, so every rank reads the same files; gmsh output goes to a per-process folder.
#include "TestUtil.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/io/MeshReader.hpp"
#include "flexuq/io/MshReader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace flexuq;
using namespace flexuq::io;
namespace fs = std::filesystem;

namespace {

// Edges (corner pairs) of the mid-edge nodes in Abaqus/VTK order, written out independently of
// the readers: tet10 nodes 5..10 and hex20 nodes 9..20 (1-based) of the Abaqus manual.
const std::vector<std::array<int, 2>> kTet10Edges = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
const std::vector<std::array<int, 2>> kHex20Edges = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                                     {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};

/// Check that every mid-edge node of every tet10/hex20 is the midpoint of its two corners.
/// Returns the number of elements checked.
int expect_midedge_nodes(const Mesh& m) {
  int checked = 0;
  for (std::size_t e = 0; e < m.num_elements(); ++e) {
    const auto t = m.elem_type[e];
    if (t != ElementType::tet10 && t != ElementType::hex20) continue;
    const auto& edges = t == ElementType::tet10 ? kTet10Edges : kHex20Edges;
    const int corners = t == ElementType::tet10 ? 4 : 8;
    const int* n = m.element(e);
    double h = 0; // element size for the tolerance
    for (int d = 0; d < 3; ++d)
      h = std::max(h, std::abs(m.coords[n[0]][d] - m.coords[n[1]][d]));
    for (std::size_t k = 0; k < edges.size(); ++k) {
      const auto& a = m.coords[n[edges[k][0]]];
      const auto& b = m.coords[n[edges[k][1]]];
      const auto& mid = m.coords[n[corners + static_cast<int>(k)]];
      for (int d = 0; d < 3; ++d)
        EXPECT_NEAR(mid[d], 0.5 * (a[d] + b[d]), 1e-8 * (1 + h))
            << "element " << m.elem_ids[e] << " mid-edge node " << corners + k + 1 << " (1-based), coordinate " << d;
    }
    ++checked;
  }
  return checked;
}

std::vector<long> labels_of(const Mesh& m, const std::vector<int>& nodes) {
  std::vector<long> out;
  for (int v : nodes) out.push_back(m.node_ids[v]);
  std::sort(out.begin(), out.end());
  return out;
}

/// Element → its node labels, keyed by element label.
std::map<long, std::vector<long>> connectivity(const Mesh& m) {
  std::map<long, std::vector<long>> c;
  for (std::size_t e = 0; e < m.num_elements(); ++e)
    for (int k = 0; k < m.element_size(e); ++k) c[m.elem_ids[e]].push_back(m.node_ids[m.element(e)[k]]);
  return c;
}

/// Node labels of each element, in element order (for files that number elements differently).
std::vector<std::vector<long>> element_node_labels(const Mesh& m) {
  std::vector<std::vector<long>> c;
  for (const auto& [id, nodes] : connectivity(m)) c.push_back(nodes);
  return c;
}

/// Same nodes (by label and coordinates), elements, element types and sets (by labels).
void expect_same_mesh(const Mesh& a, const Mesh& b) {
  ASSERT_EQ(a.num_nodes(), b.num_nodes());
  ASSERT_EQ(a.num_elements(), b.num_elements());
  std::map<long, std::array<double, 3>> xa, xb;
  for (std::size_t i = 0; i < a.num_nodes(); ++i) xa[a.node_ids[i]] = a.coords[i];
  for (std::size_t i = 0; i < b.num_nodes(); ++i) xb[b.node_ids[i]] = b.coords[i];
  ASSERT_EQ(xa.size(), xb.size());
  for (const auto& [id, x] : xa) {
    ASSERT_TRUE(xb.count(id)) << "node " << id;
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(x[d], xb[id][d], 1e-12 * (1 + std::abs(x[d])));
  }
  EXPECT_EQ(connectivity(a), connectivity(b));
  EXPECT_EQ(a.elem_type, b.elem_type);
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

bool have_gmsh() { return std::system("gmsh --version > /dev/null 2>&1") == 0; }

/// Folder for gmsh output, one per process (the ranks run side by side); removed at exit.
class Scratch {
public:
  Scratch() : dir_(fs::temp_directory_path() / ("flexuq_io_test_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& dir() const { return dir_; }

private:
  fs::path dir_;
};

fs::path scratch() {
  static const Scratch s;
  return s.dir();
}

/// Mesh data/io/<geo> with gmsh into <out> in the scratch folder; returns its path.
std::string gmsh_to(const std::string& geo, const std::string& args, const std::string& out) {
  const fs::path file = scratch() / out;
  const std::string cmd = "gmsh " + args + " " + test::data_path("io/" + geo) + " -o " + file.string() + " > " +
                          file.string() + ".log 2>&1";
  if (std::system(cmd.c_str()) != 0 || !fs::exists(file))
    throw std::runtime_error("gmsh failed: " + cmd);
  return file.string();
}

#define REQUIRE_GMSH()                                                                              \
  do {                                                                                              \
    if (!have_gmsh()) GTEST_SKIP() << "gmsh not found on PATH";                                     \
  } while (0)

} // namespace

// ---- .inp -------------------------------------------------------------------------------------

TEST(InpReader, TwoHex20DeckCountsLabelsAndConnectivity) {
  const Mesh m = read_inp(test::data_path("io/two_hex20.inp"));
  EXPECT_EQ(m.source, test::data_path("io/two_hex20.inp"));
  ASSERT_EQ(m.num_nodes(), 32u);
  ASSERT_EQ(m.num_elements(), 2u);
  EXPECT_EQ(m.elem_ids, (std::vector<long>{7, 9}));
  EXPECT_EQ(m.elem_type[0], ElementType::hex20);
  EXPECT_EQ(m.elem_type[1], ElementType::hex20);
  EXPECT_EQ(m.node_ids.front(), 1000);
  EXPECT_EQ(m.node_ids.back(), 1422);
  // labels map to coordinates: label 1000 + 100 i + 10 j + k sits at (i, j, k)/2
  for (std::size_t i = 0; i < m.num_nodes(); ++i) {
    const long l = m.node_ids[i] - 1000;
    EXPECT_DOUBLE_EQ(m.coords[i][0], 0.5 * static_cast<double>(l / 100));
    EXPECT_DOUBLE_EQ(m.coords[i][1], 0.5 * static_cast<double>((l / 10) % 10));
    EXPECT_DOUBLE_EQ(m.coords[i][2], 0.5 * static_cast<double>(l % 10));
  }
  EXPECT_EQ(expect_midedge_nodes(m), 2);
  // continuation lines: the last node of each element came from its second line
  EXPECT_EQ(m.node_ids[m.element(0)[19]], 1021);
  EXPECT_EQ(m.node_ids[m.element(1)[15]], 1212);
  EXPECT_EQ(m.node_ids[m.element(1)[19]], 1221);
  EXPECT_EQ(m.dofs_per_node(), 3);
}

TEST(InpReader, SetsWithGenerateNamesAndElset) {
  const Mesh m = read_inp(test::data_path("io/two_hex20.inp"));
  EXPECT_EQ(m.node_set("nall").size(), 32u);
  EXPECT_EQ(labels_of(m, m.node_set("LEFT")), (std::vector<long>{1000, 1001, 1002, 1010, 1012, 1020, 1021, 1022}));
  EXPECT_EQ(labels_of(m, m.node_set("Right")), (std::vector<long>{1400, 1401, 1402, 1410, 1412, 1420, 1421, 1422}));
  EXPECT_EQ(labels_of(m, m.node_set("BOTTOM_EDGE")), (std::vector<long>{1000, 1100, 1200, 1300, 1400}));
  std::vector<long> ends = labels_of(m, m.node_set("LEFT"));
  for (long l : labels_of(m, m.node_set("RIGHT"))) ends.push_back(l);
  ends.push_back(1300);
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(labels_of(m, m.node_set("ENDS")), ends);
  EXPECT_EQ(m.node_set("FIRSTNODES").size(), 20u);
  EXPECT_EQ(m.element_set("EALL"), (std::vector<int>{0, 1}));
  EXPECT_EQ(m.element_set("BOTH"), (std::vector<int>{0, 1}));
  EXPECT_EQ(m.element_set("FIRST"), (std::vector<int>{0}));
  EXPECT_EQ(m.element_set("SECOND"), (std::vector<int>{1}));
  for (const auto& [name, v] : m.node_sets) EXPECT_EQ(name, upper(name));
  EXPECT_THROW(m.node_set("nope"), InputError);
}

TEST(InpReader, MaterialsSectionsAndWarnings) {
  const Mesh m = read_inp(test::data_path("io/two_hex20.inp"));
  ASSERT_EQ(m.materials.size(), 2u);
  const Material& steel = m.materials.at("STEEL");
  EXPECT_DOUBLE_EQ(*steel.E, 210000.0);
  EXPECT_DOUBLE_EQ(*steel.nu, 0.3);
  EXPECT_DOUBLE_EQ(*steel.rho, 7.85e-9);
  EXPECT_NE(steel.where.file.find("two_hex20_materials.inp"), std::string::npos);
  EXPECT_EQ(steel.where.line, 2);
  const Material& alu = m.materials.at("ALU");
  EXPECT_DOUBLE_EQ(*alu.E, 7.0e4); // Fortran exponent 7.0D4
  EXPECT_DOUBLE_EQ(*alu.nu, 0.33);
  EXPECT_DOUBLE_EQ(*alu.rho, 2.7e-9);
  ASSERT_EQ(m.sections.size(), 2u);
  EXPECT_EQ(m.sections[0].elset, "FIRST");
  EXPECT_EQ(m.sections[0].material, "STEEL");
  EXPECT_FALSE(m.sections[0].beam);
  EXPECT_EQ(m.sections[1].elset, "SECOND"); // parameters continued on the next line
  EXPECT_EQ(m.sections[1].material, "ALU");
  EXPECT_EQ(m.sections[1].where.line, 66);

  std::string ignored, c3d20r;
  for (const auto& w : m.warnings) {
    if (w.rfind("ignored keywords: ", 0) == 0) ignored = w;
    if (w.find("C3D20R") != std::string::npos) c3d20r += w;
  }
  EXPECT_NE(ignored.find("*HEADING (line 3)"), std::string::npos) << ignored;
  EXPECT_NE(ignored.find("*STEP (line 71)"), std::string::npos) << ignored;
  EXPECT_NE(ignored.find("*FREQUENCY (line 72)"), std::string::npos) << ignored;
  EXPECT_NE(ignored.find("*NODE FILE (line 76)"), std::string::npos) << ignored;
  EXPECT_NE(ignored.find("*END STEP (line 78)"), std::string::npos) << ignored;
  EXPECT_NE(ignored.find("two_hex20_materials.inp:14"), std::string::npos) << ignored; // *ORIENTATION
  EXPECT_EQ(ignored.find("*NODE,"), std::string::npos) << ignored;
  EXPECT_NE(c3d20r.find("two_hex20.inp:44"), std::string::npos) << c3d20r;
  EXPECT_NE(c3d20r.find("full"), std::string::npos) << c3d20r;
  int count_ignored = 0;
  for (const auto& w : m.warnings) count_ignored += w.rfind("ignored keywords", 0) == 0;
  EXPECT_EQ(count_ignored, 1);
}

TEST(InpReader, BeamSections) {
  const Mesh m = read_inp(test::data_path("io/beams.inp"));
  ASSERT_EQ(m.num_elements(), 3u);
  EXPECT_EQ(m.dofs_per_node(), 6);
  ASSERT_EQ(m.sections.size(), 3u);
  const double a = 0.02, r = 0.01;
  const BeamSection& sq = m.sections[0].beam_section;
  EXPECT_TRUE(m.sections[0].beam);
  EXPECT_EQ(sq.shape, "RECT");
  EXPECT_DOUBLE_EQ(sq.A, a * a);
  EXPECT_DOUBLE_EQ(sq.I11, std::pow(a, 4) / 12);
  EXPECT_DOUBLE_EQ(sq.I22, std::pow(a, 4) / 12);
  EXPECT_NEAR(sq.J / (0.1406 * std::pow(a, 4)), 1.0, 0.005);
  EXPECT_EQ(sq.n1, (std::array<double, 3>{0, 1, 0}));
  const BeamSection& rd = m.sections[1].beam_section;
  EXPECT_EQ(rd.shape, "CIRC");
  EXPECT_DOUBLE_EQ(rd.A, M_PI * r * r);
  EXPECT_DOUBLE_EQ(rd.I11, M_PI * std::pow(r, 4) / 4);
  EXPECT_DOUBLE_EQ(rd.I22, M_PI * std::pow(r, 4) / 4);
  EXPECT_DOUBLE_EQ(rd.J, M_PI * std::pow(r, 4) / 2);
  EXPECT_EQ(rd.n1, (std::array<double, 3>{0, 0, -1})); // Abaqus default
  const Section& gen = m.sections[2];
  EXPECT_EQ(gen.beam_section.shape, "GENERAL");
  EXPECT_DOUBLE_EQ(gen.beam_section.A, 3.0e-4);
  EXPECT_DOUBLE_EQ(gen.beam_section.I11, 2.0e-8);
  EXPECT_DOUBLE_EQ(gen.beam_section.I22, 5.0e-8);
  EXPECT_DOUBLE_EQ(gen.beam_section.J, 4.0e-8);
  // E, G on the section's third line make a material of their own
  ASSERT_TRUE(m.materials.count(gen.material)) << gen.material;
  const Material& gm = m.materials.at(gen.material);
  EXPECT_DOUBLE_EQ(*gm.E, 2.0e11);
  EXPECT_NEAR(*gm.nu, 0.25, 1e-14);
  EXPECT_DOUBLE_EQ(*gm.rho, 7800);
}

TEST(InpReader, ReadMeshDispatchesOnExtension) {
  EXPECT_EQ(read_mesh(test::data_path("io/two_hex20.inp")).num_elements(), 2u);
  const std::string msg = message_of([] { read_mesh("model.stl"); });
  EXPECT_NE(msg.find("model.stl"), std::string::npos) << msg;
  EXPECT_NE(msg.find(".inp"), std::string::npos) << msg;
  EXPECT_NE(msg.find(".msh"), std::string::npos) << msg;
  const std::string missing = message_of([] { read_mesh("no_such_file.inp"); });
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
  EXPECT_NE(missing.find("no_such_file.inp"), std::string::npos) << missing;
  const std::string missing_msh = message_of([] { read_mesh("no_such_file.MSH"); });
  EXPECT_NE(missing_msh.find("no_such_file.MSH"), std::string::npos) << missing_msh;
}

// ---- bad input: every defect names the file and line ------------------------------------------

struct BadCase {
  const char* file;  ///< under tests/data/bad/
  const char* where; ///< "<file>:<line>" expected in the message
  const char* words; ///< a phrase expected in the message
};

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, ThrowsInputErrorWithFileAndLine) {
  const BadCase& c = GetParam();
  const std::string msg = message_of([&] { read_mesh(test::data_path(std::string("bad/") + c.file)); });
  EXPECT_NE(msg.find(c.where), std::string::npos) << "message: " << msg;
  EXPECT_NE(msg.find(c.words), std::string::npos) << "message: " << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, BadInput,
    ::testing::Values(BadCase{"truncated_element.inp", "truncated_element.inp:8", "truncated"},
                      BadCase{"too_many_element_nodes.inp", "too_many_element_nodes.inp:8", "needs 4"},
                      BadCase{"unknown_element_type.inp", "unknown_element_type.inp:7", "S8R"},
                      BadCase{"missing_node.inp", "missing_node.inp:9", "undefined node 99"},
                      BadCase{"duplicate_node.inp", "duplicate_node.inp:5", "duplicate node label 2"},
                      BadCase{"non_numeric_coordinate.inp", "non_numeric_coordinate.inp:4", "'abc'"},
                      BadCase{"short_node_line.inp", "short_node_line.inp:5", "truncated"},
                      BadCase{"undefined_set_in_section.inp", "undefined_set_in_section.inp:12", "NOPE"},
                      BadCase{"undefined_material.inp", "undefined_material.inp:12", "material RUBBER"},
                      BadCase{"missing_include.inp", "missing_include.inp:9", "does_not_exist.inp"},
                      BadCase{"include_cycle.inp", "include_cycle_b.inp:2", "cycle"},
                      BadCase{"elastic_outside_material.inp", "elastic_outside_material.inp:9", "outside"},
                      BadCase{"elastic_orthotropic.inp", "elastic_orthotropic.inp:10", "ISOTROPIC"},
                      BadCase{"elastic_no_data.inp", "elastic_no_data.inp:10", "no data line"},
                      BadCase{"bad_generate.inp", "bad_generate.inp:11", "bad range"},
                      BadCase{"nset_member_not_set.inp", "nset_member_not_set.inp:10", "'CORNERS'"},
                      BadCase{"missing_name.inp", "missing_name.inp:9", "NAME="},
                      BadCase{"missing_elset.inp", "missing_elset.inp:9", "ELSET="},
                      BadCase{"non_numeric_element.inp", "non_numeric_element.inp:8", "'4x'"},
                      BadCase{"binary.msh", "binary.msh:2", "binary"},
                      BadCase{"unknown_version.msh", "unknown_version.msh:2", "version 3.0"},
                      BadCase{"msh_missing_node.msh", "msh_missing_node.msh:13", "undefined node 9"},
                      BadCase{"msh_truncated_element.msh", "msh_truncated_element.msh:13", "needs 4 nodes"},
                      BadCase{"msh_non_numeric.msh", "msh_non_numeric.msh:7", "'x0'"},
                      BadCase{"msh_missing_end.msh", "msh_missing_end.msh:10", "$EndNodes"},
                      BadCase{"msh_prism.msh", "msh_prism.msh:23", "gmsh type 6"},
                      // sizes and counts (issue #11)
                      BadCase{"include_directory.inp", "include_directory.inp:8", "is a directory"},
                      BadCase{"msh_nodes_huge_v2.msh", "msh_nodes_huge_v2.msh:5", "count 1000000000000 is impossible"},
                      BadCase{"msh_nodes_huge_v41.msh", "msh_nodes_huge_v41.msh:5", "count 1000000000000 is impossible"},
                      BadCase{"msh_block_huge_v41.msh", "msh_block_huge_v41.msh:6", "numNodesInBlock"}),
    [](const ::testing::TestParamInfo<BadCase>& i) {
      std::string n = i.param.file;
      std::replace(n.begin(), n.end(), '.', '_');
      return n;
    });

// ---- .msh written by gmsh ---------------------------------------------------------------------

TEST(MshReader, Hex20FromGmsh41And22AgreeAndArePermuted) {
  REQUIRE_GMSH();
  const Mesh m41 = read_msh(gmsh_to("box_hex.geo", "-3 -order 2 -format msh41", "hex20_41.msh"));
  const Mesh m22 = read_msh(gmsh_to("box_hex.geo", "-3 -order 2 -format msh22", "hex20_22.msh"));
  ASSERT_EQ(m41.num_elements(), 2u);
  EXPECT_EQ(m41.num_nodes(), 32u);
  for (auto t : m41.elem_type) EXPECT_EQ(t, ElementType::hex20);
  EXPECT_EQ(expect_midedge_nodes(m41), 2);
  EXPECT_EQ(expect_midedge_nodes(m22), 2);
  expect_same_mesh(m41, m22);

  // physical groups: the volume is an element and node set, the surfaces node sets only
  for (const Mesh* m : {&m41, &m22}) {
    EXPECT_EQ(m->element_set("SOLID"), (std::vector<int>{0, 1}));
    EXPECT_EQ(m->node_set("SOLID").size(), 32u);
    EXPECT_EQ(m->element_sets.count("FIXED"), 0u);
    ASSERT_EQ(m->node_set("FIXED").size(), 13u); // two quad8 faces
    for (int v : m->node_set("FIXED")) EXPECT_NEAR(m->coords[v][2], 0.0, 1e-12);
    ASSERT_EQ(m->node_set("PHYS_7").size(), 13u);
    for (int v : m->node_set("PHYS_7")) EXPECT_NEAR(m->coords[v][2], 1.0, 1e-12);
  }
  EXPECT_EQ(labels_of(m41, m41.node_set("FIXED")), labels_of(m22, m22.node_set("FIXED")));

  // gmsh's own Abaqus export applies gmsh's permutation: it must match ours node for node
  const Mesh inp =
      read_inp(gmsh_to("box_hex.geo", "-3 -order 2 -setnumber volume_only 1 -format inp", "hex20.inp"));
  EXPECT_EQ(element_node_labels(inp), element_node_labels(m41)); // gmsh renumbers the elements
}

TEST(MshReader, Tet10FromGmsh41And22AgreeAndArePermuted) {
  REQUIRE_GMSH();
  const Mesh m41 = read_msh(gmsh_to("box_tet.geo", "-3 -order 2 -format msh41", "tet10_41.msh"));
  const Mesh m22 = read_mesh(gmsh_to("box_tet.geo", "-3 -order 2 -format msh22", "tet10_22.msh"));
  ASSERT_GT(m41.num_elements(), 10u);
  for (auto t : m41.elem_type) EXPECT_EQ(t, ElementType::tet10);
  EXPECT_EQ(expect_midedge_nodes(m41), static_cast<int>(m41.num_elements()));
  EXPECT_EQ(expect_midedge_nodes(m22), static_cast<int>(m22.num_elements()));
  expect_same_mesh(m41, m22);
  for (const Mesh* m : {&m41, &m22}) {
    EXPECT_EQ(m->element_set("BODY").size(), m->num_elements());
    ASSERT_FALSE(m->node_set("X0").empty());
    for (int v : m->node_set("X0")) EXPECT_NEAR(m->coords[v][0], 0.0, 1e-12);
    ASSERT_FALSE(m->node_set("PHYS_12").empty());
    for (int v : m->node_set("PHYS_12")) EXPECT_NEAR(m->coords[v][0], 1.0, 1e-12);
    // every node on the x = 0 face is in the set
    std::size_t on_face = 0;
    for (const auto& x : m->coords) on_face += std::abs(x[0]) < 1e-12;
    EXPECT_EQ(m->node_set("X0").size(), on_face);
  }
  EXPECT_EQ(labels_of(m41, m41.node_set("PHYS_12")), labels_of(m22, m22.node_set("PHYS_12")));
  const Mesh inp = read_inp(gmsh_to("box_tet.geo", "-3 -order 2 -setnumber volume_only 1 -format inp", "tet10.inp"));
  EXPECT_EQ(element_node_labels(inp), element_node_labels(m41));
}

TEST(MshReader, FirstOrderTetAndHex) {
  REQUIRE_GMSH();
  const Mesh hex = read_msh(gmsh_to("box_hex.geo", "-3 -format msh41", "hex8.msh"));
  ASSERT_EQ(hex.num_elements(), 2u);
  EXPECT_EQ(hex.num_nodes(), 12u);
  for (auto t : hex.elem_type) EXPECT_EQ(t, ElementType::hex8);
  const Mesh tet = read_msh(gmsh_to("box_tet.geo", "-3 -format msh22", "tet4.msh"));
  for (auto t : tet.elem_type) EXPECT_EQ(t, ElementType::tet4);
  // positive orientation (Abaqus convention): corner 3 above the plane of 0-1-2 along (1-0)x(2-0)
  for (const Mesh* m : {&hex, &tet}) {
    for (std::size_t e = 0; e < m->num_elements(); ++e) {
      const int* n = m->element(e);
      const int top = m->elem_type[e] == ElementType::tet4 ? 3 : 4;
      std::array<double, 3> a{}, b{}, c{};
      for (int d = 0; d < 3; ++d) {
        a[d] = m->coords[n[1]][d] - m->coords[n[0]][d];
        b[d] = m->coords[n[2]][d] - m->coords[n[0]][d];
        c[d] = m->coords[n[top]][d] - m->coords[n[0]][d];
      }
      const double vol = c[0] * (a[1] * b[2] - a[2] * b[1]) + c[1] * (a[2] * b[0] - a[0] * b[2]) +
                         c[2] * (a[0] * b[1] - a[1] * b[0]);
      EXPECT_GT(vol, 0) << "element " << m->elem_ids[e];
    }
  }
}

TEST(MshReader, LinesBecomeBeamsWithoutSolids) {
  REQUIRE_GMSH();
  for (const char* f : {"msh41", "msh22"}) {
    const Mesh m =
        read_msh(gmsh_to("beam_line.geo", std::string("-1 -format ") + f, std::string("beam_") + f + ".msh"));
    ASSERT_EQ(m.num_elements(), 4u) << f;
    EXPECT_EQ(m.num_nodes(), 5u) << f;
    for (auto t : m.elem_type) EXPECT_EQ(t, ElementType::beam2);
    EXPECT_EQ(m.dofs_per_node(), 6);
    EXPECT_EQ(m.element_set("BEAM").size(), 4u);
    ASSERT_EQ(m.node_set("TIP").size(), 1u) << f;
    const auto& tip = m.coords[m.node_set("TIP")[0]];
    EXPECT_DOUBLE_EQ(tip[0], 2.0);
    EXPECT_DOUBLE_EQ(tip[1], 1.0);
    EXPECT_EQ(m.element_sets.count("TIP"), 0u);
  }
}

TEST(MshReader, HandWritten22WithSparseTagsAndDuplicatedElements) {
  // msh 2.2 repeats an element once per physical group it belongs to; it must stay one element
  const Mesh m = read_msh(test::data_path("io/sparse_tags_22.msh"));
  ASSERT_EQ(m.num_elements(), 1u);
  EXPECT_EQ(m.num_nodes(), 4u);
  EXPECT_EQ(m.node_ids, (std::vector<long>{10, 20, 35, 99}));
  EXPECT_EQ(m.elem_ids, (std::vector<long>{42}));
  EXPECT_EQ(m.element_set("PART"), (std::vector<int>{0}));
  EXPECT_EQ(m.element_set("ALSO_PART"), (std::vector<int>{0}));
  EXPECT_EQ(labels_of(m, m.node_set("BASE")), (std::vector<long>{10, 20, 35}));
  EXPECT_EQ(m.element_sets.count("BASE"), 0u);
}
