// SPDX-License-Identifier: MIT
// Nastran bulk data reader: every field format and card on small decks (tests/data/io/bdf), compared
// with the same model written as .inp, hand-computed coordinates in CP/CD systems, Nastran → Abaqus
// node order of quadratic solids, beam property conventions, and the bad-input messages.
#include "ScratchFile.hpp"
#include "TestUtil.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Element.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace flexuq;
using namespace flexuq::io;

namespace {


std::map<long, int> index_of(const Mesh& m) {
  std::map<long, int> idx;
  for (std::size_t i = 0; i < m.num_nodes(); ++i) idx[m.node_ids[i]] = static_cast<int>(i);
  return idx;
}

std::set<long> labels(const Mesh& m, const std::vector<int>& nodes) {
  std::set<long> s;
  for (int v : nodes) s.insert(m.node_ids[static_cast<std::size_t>(v)]);
  return s;
}

/// Write @p text to a fresh scratch file and return its path.
std::string write_deck(const std::string& name, const std::string& text) {
  const std::string p = test::scratch_file("bdf", name);
  std::ofstream(p) << text;
  return p;
}

/// read_bdf must throw InputError whose message contains every one of @p parts.
void expect_error(const std::string& path, std::initializer_list<std::string> parts) {
  try {
    (void)read_bdf(path);
    ADD_FAILURE() << path << ": no error";
  } catch (const InputError& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
  }
}

} // namespace

TEST(Bdf, FormatsEqualTheInpModel) {
  BdfDeck deck;
  const Mesh b = read_bdf(test::data_path("io/bdf/formats.bdf"), &deck);
  const Mesh a = read_inp(test::data_path("io/bdf/formats.inp"));
  ASSERT_EQ(b.num_nodes(), a.num_nodes());
  const auto ia = index_of(a), ib = index_of(b);
  ASSERT_EQ(ia.size(), ib.size());
  for (const auto& [label, i] : ia) {
    ASSERT_TRUE(ib.count(label)) << "node " << label;
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(b.coords[static_cast<std::size_t>(ib.at(label))][d], a.coords[static_cast<std::size_t>(i)][d], 1e-12)
          << "node " << label << " coordinate " << d;
  }
  ASSERT_EQ(b.num_elements(), a.num_elements());
  for (std::size_t e = 0; e < a.num_elements(); ++e) {
    EXPECT_EQ(b.elem_ids[e], a.elem_ids[e]);
    EXPECT_EQ(b.elem_type[e], a.elem_type[e]) << "element " << a.elem_ids[e];
    ASSERT_EQ(b.element_size(e), a.element_size(e));
    for (int k = 0; k < a.element_size(e); ++k)
      EXPECT_EQ(b.node_ids[static_cast<std::size_t>(b.element(e)[k])], a.node_ids[static_cast<std::size_t>(a.element(e)[k])])
          << "element " << a.elem_ids[e] << " node " << k;
  }
  for (const auto& [name, nodes] : a.node_sets) {
    ASSERT_TRUE(b.node_sets.count(name)) << "node set " << name;
    EXPECT_EQ(labels(b, b.node_sets.at(name)), labels(a, nodes)) << "node set " << name;
  }
  EXPECT_FALSE(b.node_sets.count("QSET")) << "the q-set holds scalar points only";
  for (const auto& [name, m] : a.materials) {
    ASSERT_TRUE(b.materials.count(name)) << name;
    const Material& n = b.materials.at(name);
    EXPECT_NEAR(*n.E, *m.E, 1e-14 * *m.E) << name;
    EXPECT_NEAR(*n.nu, *m.nu, 1e-14) << name;
    EXPECT_NEAR(*n.rho, *m.rho, 1e-12 * *m.rho) << name << " (WTMASS 0.5 applied)";
  }
  ASSERT_EQ(b.sections.size(), a.sections.size());
  for (std::size_t s = 0; s < a.sections.size(); ++s) {
    EXPECT_EQ(b.sections[s].elset, a.sections[s].elset);
    EXPECT_EQ(b.sections[s].material, a.sections[s].material);
  }
  for (const auto& [name, elems] : a.element_sets) EXPECT_EQ(b.element_sets.at(name).size(), elems.size()) << name;

  // Solution control and reduction sets.
  ASSERT_TRUE(deck.spc && deck.method);
  EXPECT_EQ(*deck.spc, 1);
  EXPECT_EQ(*deck.method, 7);
  const auto* eig = deck.method_eigrl();
  ASSERT_NE(eig, nullptr);
  EXPECT_EQ(eig->sid, 7);
  EXPECT_DOUBLE_EQ(*eig->v2, 500.0);
  EXPECT_FALSE(eig->nd.has_value());
  EXPECT_EQ(deck.spoints.size(), 10u);
  EXPECT_EQ(deck.qset_spoints, 10);
  EXPECT_EQ(deck.bset.size(), 3u);
  EXPECT_EQ(deck.bset[0].components, 123456);
  EXPECT_DOUBLE_EQ(deck.wtmass, 0.5);
  EXPECT_EQ(deck.coupmass, 1);
  ASSERT_EQ(deck.dropped_grids.size(), 2u);
  EXPECT_TRUE(deck.dropped_grids.count(1000) && deck.dropped_grids.count(1001));
  ASSERT_EQ(deck.rigids.size(), 2u);
  EXPECT_TRUE(deck.rigids[0].rbe2);
  EXPECT_EQ(deck.rigids[0].ref_grid, 1000);
  EXPECT_EQ(deck.rigids[0].ref_xyz, (std::array<double, 3>{2.0, 0.5, 0.5}));
  EXPECT_FALSE(deck.rigids[1].rbe2);
  EXPECT_EQ(deck.rigids[1].weights, (std::vector<double>{1.0, 1.0, 1.0, 2.0})); // nodes 1, 4, 5, 8 in mesh order

  // One warning each for the skipped harmless card and the PARAM flexuq does not use.
  bool force = false, post = false;
  for (const auto& w : b.warnings) {
    force = force || (w.find("FORCE") != std::string::npos && w.find("formats.bdf:") != std::string::npos);
    post = post || w.find("POST") != std::string::npos;
  }
  EXPECT_TRUE(force && post);

  // CD frames: grid 11 in system 1 (x = basic y, y = −basic x); grid 13 in the cylindrical system 2
  // (axes of 1, origin (1,2,3)) at local angle −135°: radial direction (√½, −√½, 0) in basic.
  ASSERT_EQ(b.node_frames.size(), b.num_nodes());
  const auto& f11 = b.node_frames[static_cast<std::size_t>(ib.at(11))];
  EXPECT_EQ(f11.system, 1);
  const double r11[3][3] = {{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}};
  for (int k = 0; k < 3; ++k)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(f11.axes[k][d], r11[k][d], 1e-15);
  const auto& f13 = b.node_frames[static_cast<std::size_t>(ib.at(13))];
  EXPECT_EQ(f13.system, 2);
  const double h = std::sqrt(0.5);
  const double r13[3][3] = {{h, -h, 0}, {h, h, 0}, {0, 0, 1}};
  for (int k = 0; k < 3; ++k)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(f13.axes[k][d], r13[k][d], 1e-14) << "row " << k;
  EXPECT_EQ(b.node_frames[static_cast<std::size_t>(ib.at(1))].system, 0);
}

TEST(Bdf, ReadMeshDispatchesByExtension) {
  const Mesh m = read_mesh(test::data_path("io/bdf/formats.bdf"));
  EXPECT_EQ(m.num_elements(), 4u);
  EXPECT_TRUE(is_bdf_path("a/WING.DAT") && is_bdf_path("x.nas") && is_bdf_path("x.bdf") && !is_bdf_path("x.inp"));
}

TEST(Bdf, QuadraticSolidsInAbaqusOrder) {
  const Mesh m = read_bdf(test::data_path("io/bdf/quadratic.bdf"));
  ASSERT_EQ(m.num_elements(), 3u);
  EXPECT_EQ(m.elem_type[0], ElementType::hex20);
  EXPECT_EQ(m.elem_type[1], ElementType::penta15);
  EXPECT_EQ(m.elem_type[2], ElementType::tet10);
  // After reordering every mid-edge node is the midpoint of its edge in flexuq's (Abaqus) order,
  // i.e. of the edges of fe::reference_nodes, and the consistent mass integrates to the volume.
  const double volume[3] = {1.0, 0.5, 1.0 / 6.0};
  for (std::size_t e = 0; e < 3; ++e) {
    const auto ref = fe::reference_nodes(m.elem_type[e]);
    const int n = m.element_size(e);
    std::vector<double> X(3 * static_cast<std::size_t>(n)), N(static_cast<std::size_t>(n)), dN(3 * static_cast<std::size_t>(n));
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < 3; ++d) X[3 * a + d] = m.coords[static_cast<std::size_t>(m.element(e)[a])][d];
    // Isoparametric map of every reference node must land on that node (exact for straight edges).
    for (int a = 0; a < n; ++a) {
      fe::shape_functions(m.elem_type[e], ref[static_cast<std::size_t>(a)], N.data(), dN.data());
      for (int d = 0; d < 3; ++d) {
        double x = 0;
        for (int b = 0; b < n; ++b) x += N[b] * X[3 * b + d];
        EXPECT_NEAR(x, X[3 * a + d], 1e-14) << "element " << m.elem_ids[e] << " node " << a + 1;
        EXPECT_NEAR(N[a], 1.0, 1e-14);
      }
    }
    const auto t = fe::solid_terms(m.elem_type[e], X.data(), m.elem_ids[e]);
    EXPECT_NEAR(t.M1.sum() / 3.0, volume[e], 1e-13) << "element " << m.elem_ids[e];
  }
}

TEST(Bdf, PentaPatchTest) {
  // Uniform strain ε = sym(G) from u = G x: strain energy uᵀ(λK_λ + μK_μ)u = V (λ (tr ε)² + 2μ ε:ε)
  // exactly, for a distorted wedge (linear) and a straight-sided quadratic wedge.
  const double G[3][3] = {{1e-3, 2e-4, -3e-4}, {5e-4, -2e-3, 1e-4}, {-4e-4, 3e-4, 1.5e-3}};
  double eps[3][3], tr = 0, ee = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) eps[i][j] = 0.5 * (G[i][j] + G[j][i]);
  for (int i = 0; i < 3; ++i) tr += eps[i][i];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) ee += eps[i][j] * eps[i][j];
  for (auto type : {ElementType::penta6, ElementType::penta15}) {
    auto X3 = fe::reference_nodes(type);
    // Affine map (volume 0.5·det A = 0.5·2.2·1.1·0.9 up to the shear terms) plus, for penta6, a
    // non-affine perturbation of a corner (the patch test must still pass).
    for (auto& x : X3) x = {2.2 * x[0] + 0.3 * x[1], 1.1 * x[1] + 0.2 * x[2], 0.45 * (x[2] + 1)};
    if (type == ElementType::penta6) X3[4][2] += 0.1;
    std::vector<double> X;
    for (auto& x : X3) X.insert(X.end(), x.begin(), x.end());
    const auto t = fe::solid_terms(type, X.data(), 1);
    Eigen::VectorXd u(static_cast<Eigen::Index>(X.size()));
    for (std::size_t a = 0; a < X3.size(); ++a)
      for (int i = 0; i < 3; ++i) u[static_cast<Eigen::Index>(3 * a + i)] = G[i][0] * X3[a][0] + G[i][1] * X3[a][1] + G[i][2] * X3[a][2];
    const double V = t.M1.sum() / 3.0, lambda = 1.7, mu = 0.8;
    const double energy = u.dot((lambda * t.K_lambda + mu * t.K_mu) * u);
    EXPECT_NEAR(energy, V * (lambda * tr * tr + 2 * mu * ee), 1e-12 * V * (lambda * tr * tr + 2 * mu * ee))
        << io::element_name(type);
    if (type == ElementType::penta15) {
      EXPECT_NEAR(V, 0.5 * 2.2 * 1.1 * 0.9, 1e-13);
    }
  }
}

TEST(Bdf, BeamPropertiesAndOrientation) {
  const Mesh m = read_bdf(test::data_path("io/bdf/beams.bdf"));
  ASSERT_EQ(m.num_elements(), 7u);
  EXPECT_EQ(m.dofs_per_node(), 6);
  auto section_of = [&](std::size_t e) -> const Section& {
    for (const auto& s : m.sections) {
      const auto& set = m.element_sets.at(s.elset);
      if (std::find(set.begin(), set.end(), static_cast<int>(e)) != set.end()) return s;
    }
    throw std::runtime_error("no section");
  };
  struct Want {
    double A, I1, I2, J;
    std::array<double, 3> v;
  };
  const double pi = M_PI;
  const double ro = 0.02, ri = 0.015;
  // I section (DIM1 depth 0.3 along y, flanges 0.1 × 0.02 bottom, 0.15 × 0.025 top, web 0.01).
  const double hw = 0.3 - 0.02 - 0.025, Ab = 0.1 * 0.02, At = 0.15 * 0.025, Aw = hw * 0.01, AI = Ab + At + Aw;
  const double yc = (Ab * 0.01 + Aw * (0.02 + hw / 2) + At * (0.3 - 0.0125)) / AI;
  const double I1I = 0.1 * std::pow(0.02, 3) / 12 + Ab * std::pow(0.01 - yc, 2) + 0.01 * std::pow(hw, 3) / 12 +
                     Aw * std::pow(0.02 + hw / 2 - yc, 2) + 0.15 * std::pow(0.025, 3) / 12 + At * std::pow(0.2875 - yc, 2);
  const double I2I = 0.02 * std::pow(0.1, 3) / 12 + hw * std::pow(0.01, 3) / 12 + 0.025 * std::pow(0.15, 3) / 12;
  const Want want[7] = {
      {1e-3, 2e-7, 1e-7, 3e-7, {0, 1, 0}},
      {pi * 1e-4, pi * 1e-8 / 4, pi * 1e-8 / 4, pi * 1e-8 / 2, {0, 0, 1}}, // G0 − GA = (0.5, 0, 1) ⟂ x
      {pi * (ro * ro - ri * ri), pi * (std::pow(ro, 4) - std::pow(ri, 4)) / 4, pi * (std::pow(ro, 4) - std::pow(ri, 4)) / 4,
       pi * (std::pow(ro, 4) - std::pow(ri, 4)) / 2, {0, 0, 1}},
      {0.02 * 0.04, 0.04 * std::pow(0.02, 3) / 12, 0.02 * std::pow(0.04, 3) / 12, 0, {0, 1, 0}},
      {0.1 * 0.2 - 0.06 * 0.18, (0.2 * std::pow(0.1, 3) - 0.18 * std::pow(0.06, 3)) / 12,
       (0.1 * std::pow(0.2, 3) - 0.06 * std::pow(0.18, 3)) / 12, 0, {0, 1, 0}},
      {AI, I1I, I2I, 0, {0, 1, 0}},
      {2e-3, 3e-7, 4e-7, 5e-7, {0, 1, 0}}};
  for (std::size_t e = 0; e < 7; ++e) {
    const Section& s = section_of(e);
    ASSERT_TRUE(s.beam);
    const BeamSection& b = s.beam_section;
    const Want& w = want[e];
    EXPECT_NEAR(b.A, w.A, 1e-12 * w.A) << "element " << e + 1;
    EXPECT_NEAR(b.I22, w.I1, 1e-12 * w.I1) << "element " << e + 1 << ": flexuq I22 = Nastran I1";
    EXPECT_NEAR(b.I11, w.I2, 1e-12 * w.I2) << "element " << e + 1 << ": flexuq I11 = Nastran I2";
    if (w.J > 0) {
      EXPECT_NEAR(b.J, w.J, 1e-12 * w.J) << "element " << e + 1;
    }
    EXPECT_GT(b.J, 0);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(b.n1[d], w.v[d], 1e-15) << "element " << e + 1;
    EXPECT_TRUE(b.lumped_mass) << "PARAM,COUPMASS absent: Nastran's lumped beam mass";
    EXPECT_EQ(s.material, "MAT1_1");
  }
  // Plane 1 = (x, v): bending in it (displacement along v = y) uses I1 — 12 E I1 / L³ for E = 1.
  const auto t = fe::beam_terms({0, 0, 0}, {1, 0, 0}, section_of(0).beam_section, 1);
  EXPECT_NEAR(t.K_E(1, 1), 12 * 2e-7, 1e-20);
  EXPECT_NEAR(t.K_E(2, 2), 12 * 1e-7, 1e-20);
  // Lumped mass: A L / 2 on each translation, nothing on rotations.
  EXPECT_NEAR(t.M1.sum(), 3 * 1e-3, 1e-18);
  EXPECT_EQ(t.M1(3, 3), 0.0);
  EXPECT_EQ(t.M1(0, 1), 0.0);
  EXPECT_TRUE(m.element_sets.count("PBAR_1") && m.element_sets.count("PBARL_6") && m.element_sets.count("PBEAM_7"));
}

TEST(Bdf, FieldFormatsAgree) {
  // The same GRID and CHEXA in small, large and free field, with continuations; Nastran reals.
  const std::string small = "BEGIN BULK\n"
                            "GRID           1            1.-1   2.5+1  -3.E-2\n"
                            "GRID,2,,1.,0.,0.\nGRID,3,,1.,1.,0.\nGRID,4,,0.,1.,0.\nGRID,5,,0.,0.,1.\n"
                            "GRID,6,,1.,0.,1.\nGRID,7,,1.,1.,1.\nGRID,8,,0.,1.,1.\n"
                            "CHEXA          1       1       1       2       3       4       5       6+A\n"
                            "+A             7       8\n"
                            "PSOLID,1,1\nMAT1,1,1.0D+5,,0.25,1.\nENDDATA\n";
  const std::string large = "BEGIN BULK\n"
                            "GRID*                  1                          0.1            25.0\n"
                            "*                 -0.03\n"
                            "GRID,2,,1.,0.,0.\nGRID,3,,1.,1.,0.\nGRID,4,,0.,1.,0.\nGRID,5,,0.,0.,1.\n"
                            "GRID,6,,1.,0.,1.\nGRID,7,,1.,1.,1.\nGRID,8,,0.,1.,1.\n"
                            "CHEXA*                 1               1               1               2\n"
                            "*                      3               4               5               6\n"
                            "*                      7               8\n"
                            "PSOLID,1,1\nMAT1*,1,100000.,,0.25\n*,1.0\nENDDATA\n";
  const Mesh a = read_bdf(write_deck("small.bdf", small)), b = read_bdf(write_deck("large.bdf", large));
  ASSERT_EQ(a.num_nodes(), 8u);
  ASSERT_EQ(b.num_nodes(), 8u);
  EXPECT_NEAR(a.coords[0][0], 0.1, 1e-16);
  EXPECT_NEAR(a.coords[0][1], 25.0, 1e-14);
  EXPECT_NEAR(a.coords[0][2], -0.03, 1e-16);
  EXPECT_EQ(a.coords, b.coords);
  EXPECT_EQ(a.elem_nodes, b.elem_nodes);
  EXPECT_EQ(*a.materials.at("MAT1_1").E, 1e5);
  EXPECT_EQ(*b.materials.at("MAT1_1").E, 1e5);
  EXPECT_EQ(*b.materials.at("MAT1_1").rho, 1.0);
}

TEST(Bdf, BadInput) {
  const std::string grids = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,0.,1.,0.\nGRID,4,,0.,0.,1.\n";
  const std::string tet = "CTETRA,1,1,1,2,3,4\n";
  const std::string prop = "PSOLID,1,1\nMAT1,1,1.E5,,0.3,1.\n";
  expect_error(write_deck("unknown.bdf", grids + tet + prop + "CFOO,1,2\n"), {"unknown.bdf:8:", "CFOO"});
  expect_error(write_deck("noprop.bdf", grids + tet + "MAT1,1,1.E5,,0.3,1.\n"),
               {"noprop.bdf:5:", "CTETRA 1 references property 1, which is not defined"});
  expect_error(write_deck("nomat.bdf", grids + tet + "PSOLID,1,7\n"),
               {"nomat.bdf:6:", "PSOLID 1 references material 7, which is not defined"});
  expect_error(write_deck("nocord.bdf", "GRID,1,5,0.,0.,0.\n" + grids.substr(grids.find('\n') + 1) + tet + prop),
               {"nocord.bdf:1:", "GRID 1 references coordinate system 5, which is not defined"});
  expect_error(write_deck("dupgrid.bdf", grids + "GRID,2,,3.,0.,0.\n" + tet + prop),
               {"dupgrid.bdf:5:", "duplicate grid id 2", "dupgrid.bdf:2"});
  expect_error(write_deck("dupelem.bdf", grids + tet + tet + prop), {"dupelem.bdf:6:", "duplicate element id 1"});
  expect_error(write_deck("trunc.bdf", grids + "CHEXA,1,1,1,2,3,4,1,2\n" + prop),
               {"trunc.bdf:5:", "CHEXA", "truncated card or continuation"});
  expect_error(write_deck("cont.bdf", "+C1     1.0\n" + grids), {"cont.bdf:1:", "continuation line without a card"});
  expect_error(write_deck("shell.bdf", grids + "CQUAD4,1,1,1,2,3,4\n"),
               {"shell.bdf:5:", "CQUAD4 1 references property 1, which is not defined"});
  expect_error(write_deck("conm1.bdf", grids + tet + prop + "CONM1,9,1\n"), {"conm1.bdf:8:", "CONM1", "not supported"});
  expect_error(write_deck("inc.bdf", grids + "INCLUDE 'nowhere.bdf'\n"), {"inc.bdf:5:", "cannot open included file"});
  expect_error(write_deck("real.bdf", "GRID,1,,0.,abc,0.\n"), {"real.bdf:1:", "GRID", "'ABC' is not a number"});
  expect_error(write_deck("cycle.bdf", grids + tet + prop + "CORD2R,5,6,0.,0.,0.,0.,0.,1.\n,1.,0.,0.\nCORD2R,6,5,0.,0.,0.,0.,0.,1.\n,1.,0.,0.\n"),
               {"cycle.bdf:", "cannot be resolved"});
  expect_error(write_deck("pin.bdf", "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nCBAR,1,1,1,2,0.,1.,0.\n,456,456\nPBAR,1,1,1.,1.,1.,1.\nMAT1,1,1.,,0.3,1.\n"),
               {"pin.bdf:3:", "pin flags"});
  expect_error(write_deck("offset.bdf", "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nCBAR,1,1,1,2,0.,1.,0.,GOG\n,,,0.,0.,0.1\nPBAR,1,1,1.,1.,1.,1.\nMAT1,1,1.,,0.3,1.\n"),
               {"offset.bdf:3:", "offsets"});
  expect_error(write_deck("spc_cd.bdf", "CORD2R,5,,0.,0.,0.,0.,0.,1.\n,0.,1.,0.\nGRID,1,,0.,0.,0.,5\n" + grids.substr(17) + tet +
                                           prop + "SPC1,1,12,1\n"),
               {"spc_cd.bdf:10:", "components 12", "CD = 5"}); // single components in a rotated CD
  expect_error(write_deck("method.bdf", "CEND\nMETHOD = 3\nBEGIN BULK\n" + grids + tet + prop + "EIGRL,1,,,5\n"),
               {"METHOD = 3 selects no EIGRL"});
}

// ---- CROD/PROD -------------------------------------------------------------------------------------

namespace {

/// A fixed-free chain of @p n CRODs of total length @p L along x (grid 1 at the origin).
std::string rod_chain(int n, double L, const std::string& extra) {
  std::ostringstream os;
  os.precision(17);
  os << extra;
  for (int i = 0; i <= n; ++i) os << "GRID*,"<< i + 1 << ",," << L * i / n << ",0.\n*,0.\n";
  for (int i = 1; i <= n; ++i) os << "CROD," << i << ",7," << i << "," << i + 1 << "\n";
  os << "PROD,7,3,1.E-2,2.E-5\nMAT1,3,2.E11,,0.3,7800.\n";
  return os.str();
}

/// Axial (u_x) eigenfrequencies of a rod chain read from a deck, grid 1 fixed: K and M assembled
/// from fe::beam_terms of the mesh's sections, restricted to u_x, solved densely.
Eigen::VectorXd axial_frequencies(const Mesh& m) {
  const int nn = static_cast<int>(m.num_nodes());
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nn, nn), M = K;
  const Section& s = m.sections.at(0);
  const double E = *m.materials.at(s.material).E, rho = *m.materials.at(s.material).rho;
  for (std::size_t e = 0; e < m.num_elements(); ++e) {
    const int* v = m.element(e);
    const auto t = fe::beam_terms(m.coords[static_cast<std::size_t>(v[0])], m.coords[static_cast<std::size_t>(v[1])],
                                  s.beam_section, m.elem_ids[e]);
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        K(v[a], v[b]) += E * t.K_E(6 * a, 6 * b);
        M(v[a], v[b]) += rho * t.M1(6 * a, 6 * b);
      }
  }
  const int fixed = index_of(m).at(1);
  std::vector<int> keep;
  for (int i = 0; i < nn; ++i)
    if (i != fixed) keep.push_back(i);
  Eigen::MatrixXd Kr(keep.size(), keep.size()), Mr(keep.size(), keep.size());
  for (std::size_t i = 0; i < keep.size(); ++i)
    for (std::size_t j = 0; j < keep.size(); ++j) {
      Kr(i, j) = K(keep[i], keep[j]);
      Mr(i, j) = M(keep[i], keep[j]);
    }
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(Kr, Mr);
  return es.eigenvalues().cwiseSqrt();
}

} // namespace

TEST(Bdf, CrodChainMatchesTheDiscreteAndContinuousAxialBar) {
  const int n = 24;
  const double L = 2.0, A = 1e-2, E = 2e11, rho = 7800;
  const Mesh lumped = read_bdf(write_deck("rod_lumped.bdf", rod_chain(n, L, "")));
  ASSERT_EQ(lumped.num_elements(), static_cast<std::size_t>(n));
  EXPECT_EQ(lumped.dofs_per_node(), 6);
  ASSERT_EQ(lumped.sections.size(), 1u);
  const Section& s = lumped.sections[0];
  EXPECT_TRUE(s.beam);
  EXPECT_EQ(s.material, "MAT1_3");
  EXPECT_EQ(s.beam_section.shape, "ROD");
  EXPECT_EQ(s.beam_section.A, A);
  EXPECT_EQ(s.beam_section.J, 2e-5);
  EXPECT_EQ(s.beam_section.I11, 0.0);
  EXPECT_TRUE(s.beam_section.lumped_mass);
  EXPECT_EQ(lumped.element_sets.at(s.elset).size(), static_cast<std::size_t>(n));
  EXPECT_EQ(lumped.element_sets.at("PROD_7").size(), static_cast<std::size_t>(n));

  // Lumped: masses m = ρAh inside, m/2 at the free end, springs k = EA/h. Mirrored about the free
  // end it is a fixed-fixed chain of 2n springs; its symmetric modes give exactly
  // ω_j = 2 √(k/m) sin((2j−1)π/(4n)).
  const double h = L / n, k = E * A / h, mass = rho * A * h, c = std::sqrt(E / rho);
  const Eigen::VectorXd wl = axial_frequencies(lumped);
  ASSERT_EQ(wl.size(), n);
  for (int j = 1; j <= 4; ++j)
    EXPECT_NEAR(wl(j - 1), 2 * std::sqrt(k / mass) * std::sin((2 * j - 1) * M_PI / (4.0 * n)), 1e-9 * wl(j - 1)) << j;

  // Coupled (PARAM,COUPMASS,1): the linear consistent mass bounds the continuous bar
  // ω_j = (2j−1)π c / (2L) from above (Rayleigh–Ritz), with a relative error ≈ (ω_j h / c)²/24.
  const Mesh coupled = read_bdf(write_deck("rod_coupled.bdf", rod_chain(n, L, "PARAM,COUPMASS,1\n")));
  EXPECT_FALSE(coupled.sections.at(0).beam_section.lumped_mass);
  const Eigen::VectorXd wc = axial_frequencies(coupled);
  for (int j = 1; j <= 3; ++j) {
    const double exact = (2 * j - 1) * M_PI * c / (2 * L), kh = exact * h / c;
    EXPECT_GT(wc(j - 1), exact) << j;
    EXPECT_NEAR(wc(j - 1) / exact - 1, kh * kh / 24, 0.2 * kh * kh / 24) << j;
    EXPECT_LT(wl(j - 1), exact) << j; // the lumped mass bounds it from below
  }
}

TEST(Bdf, ConrodIsACrodWithItsPropInline) {
  // The chain of CrodChainMatchesTheDiscreteAndContinuousAxialBar as CONRODs (MID, A, J inline):
  // the same axial frequencies to round-off, one shared property and section (CONROD_1), and the
  // PROD's checks on the inline fields.
  const int n = 24;
  const double L = 2.0;
  std::ostringstream os;
  os.precision(17);
  for (int i = 0; i <= n; ++i) os << "GRID*," << i + 1 << ",," << L * i / n << ",0.\n*,0.\n";
  for (int i = 1; i <= n; ++i) os << "CONROD," << i << "," << i << "," << i + 1 << ",3,1.E-2,2.E-5\n";
  os << "MAT1,3,2.E11,,0.3,7800.\n";
  const Mesh conrod = read_bdf(write_deck("conrod_chain.bdf", os.str()));
  const Mesh crod = read_bdf(write_deck("crod_chain.bdf", rod_chain(n, L, "")));
  ASSERT_EQ(conrod.num_elements(), static_cast<std::size_t>(n));
  ASSERT_EQ(conrod.sections.size(), 1u);
  EXPECT_EQ(conrod.sections[0].beam_section.A, 1e-2);
  EXPECT_EQ(conrod.sections[0].beam_section.J, 2e-5);
  EXPECT_EQ(conrod.element_sets.at("CONROD_1").size(), static_cast<std::size_t>(n));
  const Eigen::VectorXd a = axial_frequencies(conrod), b = axial_frequencies(crod);
  ASSERT_EQ(a.size(), b.size());
  for (Eigen::Index j = 0; j < a.size(); ++j) EXPECT_NEAR(a(j), b(j), 1e-12 * b(j)) << j;
  // Two different inline sections: two properties, two sections.
  const std::string grids = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,2.,0.,0.\n";
  const Mesh two = read_bdf(write_deck("conrod_two.bdf", grids + "CONROD,1,1,2,3,1.E-2\nCONROD,2,2,3,3,2.E-2\n"
                                                                "MAT1,3,2.E11,,0.3,7800.\n"));
  EXPECT_EQ(two.sections.size(), 2u);
  const std::string mat = "MAT1,3,2.E11,,0.3,7800.\n";
  expect_error(write_deck("conrod_area.bdf", grids + "CONROD,1,1,2,3,0.\n" + mat), {"conrod_area.bdf:4:", "CONROD", "A must be positive"});
  expect_error(write_deck("conrod_nsm.bdf", grids + "CONROD,1,1,2,3,1.E-2,,,-0.5\n" + mat), {"conrod_nsm.bdf:4:", "CONROD", "NSM"});
  expect_error(write_deck("conrod_mat.bdf", grids + "CONROD,1,1,2,9,1.E-2\n" + mat),
               {"conrod_mat.bdf:4:", "CONROD references material 9, which is not defined"});
}

TEST(Bdf, CrodHasNoBendingAndIsInvariantUnderRotation) {
  // One rod along a skew direction d: K_E = (A/L) [d dᵀ, −d dᵀ; …] on translations and nothing on
  // rotations, K_G = (J/L) d dᵀ on the rotations, coupled mass ρAL/6 [2 1; 1 2] ⊗ I₃ on translations.
  const std::string deck = "PARAM,COUPMASS,1\nGRID,1,,0.,0.,0.\nGRID,2,,1.,2.,2.\nCROD,5,7,1,2\n"
                           "PROD,7,3,0.5,0.25\nMAT1,3,1.,,0.3,1.\n";
  const Mesh m = read_bdf(write_deck("rod_skew.bdf", deck));
  const auto t = fe::beam_terms(m.coords[0], m.coords[1], m.sections.at(0).beam_section, 5);
  const double L = 3.0, A = 0.5, J = 0.25;
  const Eigen::Vector3d d = Eigen::Vector3d(1, 2, 2) / L;
  const Eigen::Matrix3d P = d * d.transpose();
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const double sgn = a == b ? 1.0 : -1.0;
      EXPECT_LT((t.K_E.block(6 * a, 6 * b, 3, 3) - sgn * A / L * P).norm(), 1e-14);
      EXPECT_LT(t.K_E.block(6 * a + 3, 6 * b, 3, 6).norm(), 1e-14); // no bending: rotations are free
      EXPECT_LT((t.K_G.block(6 * a + 3, 6 * b + 3, 3, 3) - sgn * J / L * P).norm(), 1e-14);
      EXPECT_LT((t.M1.block(6 * a, 6 * b, 3, 3) - (a == b ? 2.0 : 1.0) * A * L / 6 * Eigen::Matrix3d::Identity()).norm(),
                1e-14);
      EXPECT_LT(t.M1.block(6 * a + 3, 6 * b + 3, 3, 3).norm(), 1e-14); // no torsional inertia
    }
}

TEST(Bdf, CrodBadInput) {
  const std::string grids = "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\n";
  const std::string mat = "MAT1,3,1.E5,,0.3,1.\n";
  expect_error(write_deck("rod_noprop.bdf", grids + "CROD,1,7,1,2\n" + mat),
               {"rod_noprop.bdf:3:", "CROD 1 references property 7, which is not defined"});
  expect_error(write_deck("rod_pbar.bdf", grids + "CROD,1,7,1,2\nPBAR,7,3,1.,1.,1.,1.\n" + mat),
               {"rod_pbar.bdf:3:", "CROD 1 references property 7, a PBAR"});
  expect_error(write_deck("bar_prod.bdf", grids + "CBAR,1,7,1,2,0.,1.,0.\nPROD,7,3,1.\n" + mat),
               {"bar_prod.bdf:3:", "CBAR 1 references property 7, a PROD"});
  expect_error(write_deck("rod_nsm.bdf", grids + "CROD,1,7,1,2\nPROD,7,3,1.,0.,,-0.5\n" + mat),
               {"rod_nsm.bdf:4:", "PROD", "NSM"});
  expect_error(write_deck("rod_area.bdf", grids + "CROD,1,7,1,2\nPROD,7,3,0.\n" + mat),
               {"rod_area.bdf:4:", "PROD", "A must be positive"});
  expect_error(write_deck("rod_grid.bdf", grids + "CROD,1,7,1,9\nPROD,7,3,1.\n" + mat), {"rod_grid.bdf:3:", "9"});
  expect_error(write_deck("rod_same.bdf", grids + "CROD,1,7,1,1\nPROD,7,3,1.\n" + mat),
               {"rod_same.bdf:3:", "G1 and G2 are the same grid"});
  expect_error(write_deck("cmass2.bdf", grids + "CMASS3,1,1,101\n"), {"cmass2.bdf:3:", "CMASS3", "not supported"});
}

// A CBAR cantilever with a CROD of another material on every segment, through fe::Component and
// the SLEPc mode solver (1 and 2 ranks): the bars' bending is made so stiff that the two lowest
// modes are axial, a lumped chain with k = (E_b A_b + E_r A_r)/h and m = (ρ_b A_b + ρ_r A_r) h, so
// ω_j = 2 √(k/m) sin((2j−1)π/(4n)). Re-evaluating the rod group with E_r doubled (what a campaign
// sampling E of the rods' MAT1 does) moves them to the new k and leaves the bars alone.
TEST(Bdf, CrodInACbarFrameThroughComponentAndModes) {
  const int n = 8;
  const double L = 1.0, h = L / n, Ab = 1e-3, Ar = 4e-4, Eb = 7e10, Er = 2e11, rb = 2700, rr = 7800;
  std::ostringstream os;
  os.precision(17);
  for (int i = 0; i <= n; ++i) os << "GRID," << i + 1 << ",," << h * i << ",0.,0.\n";
  for (int i = 1; i <= n; ++i)
    os << "CBAR," << i << ",1," << i << "," << i + 1 << ",0.,1.,0.\nCROD," << 100 + i << ",2," << i << "," << i + 1 << "\n";
  os << "PBAR,1,1," << Ab << ",10.,10.,1.\nPROD,2,2," << Ar << "\nMAT1,1," << Eb << ",,0.3," << rb << "\nMAT1,2," << Er
     << ",,0.3," << rr << "\nSPC1,1,123456,1\n";
  const std::string path = write_deck("rod_frame.bdf", os.str());
  fe::ComponentOptions o;
  o.fixed_sets = {"SPC1"};
  fe::Component c(MPI_COMM_WORLD, read_bdf(path), o);
  ASSERT_EQ(c.groups().size(), 2u);
  fe::ModeOptions mo;
  mo.count = 2;
  mo.constrained = true;
  mo.progress = false;
  auto axial = [&](double er, int j) {
    const double k = (Eb * Ab + er * Ar) / h, m = (rb * Ab + rr * Ar) * h;
    return 2 * std::sqrt(k / m) * std::sin((2 * j - 1) * M_PI / (4.0 * n));
  };
  auto check = [&](double er) {
    const auto modes = fe::solve_modes(c.K(), c.M(), mo);
    ASSERT_GE(modes.eigenvalues.size(), 2u);
    for (int j = 1; j <= 2; ++j)
      EXPECT_NEAR(std::sqrt(modes.eigenvalues[j - 1]), axial(er, j), 1e-7 * axial(er, j)) << "E_rod " << er << " mode " << j;
  };
  check(Er);
  std::vector<fe::IsoMaterial> mats;
  for (const auto& g : c.groups()) {
    mats.push_back(g.material);
    if (g.material.name == "MAT1_2") mats.back().E = 2 * Er;
  }
  c.set_materials(mats);
  check(2 * Er);
}
