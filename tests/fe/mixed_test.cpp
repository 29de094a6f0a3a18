// SPDX-License-Identifier: MIT
// Mixed meshes (issue #37 item 1): solid elements beside shells on one component. Every node carries
// 6 DOFs; the solids take the translations, and the rotations of nodes only solids touch are
// eliminated. References: the count of zero-energy modes (6 rigid motions, plus the hinge a shell edge
// on solid nodes alone makes), the limit of a very stiff and heavy solid (the shell with the shared
// nodes' translations held, a different model), Leissa's cantilever plate, and 1 rank = all ranks.
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "BeamSectionUtil.hpp"
#include "FeTestUtil.hpp"
#include "MixedMeshUtil.hpp"
#include "PetscTestUtil.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

using namespace flexuq;
using io::ElementType;

namespace {

using test::kE;
using test::kNu;
using test::kRho;
using test::plate_on_block;

/// Free-free modes of the plate on a block of Young's modulus s_E E and density s_rho ρ.
fe::ModeSet block_modes(MPI_Comm comm, int nx, int ns, bool embedded, double s_E, double s_rho, int count) {
  fe::ComponentOptions o;
  o.default_material = test::material("BLOCK", s_E * kE, kNu, s_rho * kRho);
  fe::Component c(comm, plate_on_block(nx, ns, 1.0, 0.01, 0.05, embedded), o);
  // Every node has 6 DOFs; the block-only nodes' rotations are eliminated, no node counts as fixed.
  EXPECT_EQ(c.dofs().dofs_per_node(), 6);
  EXPECT_FALSE(c.has_fixed_nodes());
  fe::ModeOptions mo;
  mo.count = count;
  mo.shift = -1.0; // below the plate's first mode (lambda ~ 1e3), above the rigid ones' rounding
  mo.rigid_tol = 1e-14;
  mo.progress = false;
  return fe::solve_modes(c.K(), c.M(), mo);
}

bool rank0() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r == 0;
}

} // namespace

TEST(MixedMesh, SolidOnlyNodesLoseTheirRotationsAndTheDofCountSaysSo) {
  // nx = 4, ns = 2 embedded: plate nodes 7 × 5 = 35 (6 DOFs), block-only nodes 2 layers × 3 × 5 = 30 (3 DOFs).
  fe::ComponentOptions o;
  o.default_material = test::material("BLOCK", kE, kNu, kRho);
  fe::Component c(MPI_COMM_WORLD, plate_on_block(4, 2, 1.0, 0.01, 0.05, true), o);
  EXPECT_EQ(c.dofs().global_size(), 35 * 6 + 30 * 3);
  for (int v : c.dofs().owned_nodes()) {
    const bool plate = std::abs(c.mesh().coords[static_cast<std::size_t>(v)][2]) == 0.0;
    EXPECT_EQ(c.dofs().free_dofs(v), plate ? 6 : 3) << "node " << c.mesh().node_ids[static_cast<std::size_t>(v)];
  }
}

TEST(MixedMesh, EmbeddedPlateHasExactlySixRigidModesAndAnEdgeAloneIsAHinge) {
  for (bool embedded : {true, false}) {
    const auto modes = block_modes(MPI_COMM_WORLD, 8, 2, embedded, 1.0, 1.0, 3);
    double rigid = 0;
    for (double l : modes.rigid_eigenvalues) rigid = std::max(rigid, std::abs(l));
    if (modes.eigenvalues.empty()) FAIL() << "no elastic modes";
    if (rank0()) std::printf("[MixedMesh] %s: %zu zero modes (|lambda| <= %.3e), lambda_1 %.4e\n",
                               embedded ? "embedded" : "edge only", modes.rigid_eigenvalues.size(), rigid, modes.eigenvalues[0]);
    // The plate on the block's edge only can turn about that edge: a seventh zero-energy mode.
    EXPECT_EQ(modes.rigid_eigenvalues.size(), embedded ? 6u : 7u);
    EXPECT_GT(modes.eigenvalues[0], 1e6 * rigid);
  }
}

TEST(MixedMesh, StiffHeavyBlockClampsThePlateAndOneRankEqualsAll) {
  // As the block's E and ρ grow by s (its own modes stay put, the plate's base stops moving: the
  // block's small inertia about y against the plate's makes the difference ~120/s), the plate's frequencies tend to those of the plate alone with the shared nodes' translations held
  // (model.fixed {set: SHARED, dofs: [1, 2, 3]}): the difference falls like 1/s. That plate is a
  // cantilever, Leissa's CFFF square plate: ω a² √(ρh/D) = 3.492, 8.525, 21.43, 27.33, 31.11.
  const int nx = 16, ns = 2, count = 5;
  const double a = 1.0, h = 0.01;
  fe::ComponentOptions o;
  o.fixed_components.push_back({"SHARED", {1, 2, 3}, "test: fixed[0]"});
  fe::Component held(MPI_COMM_WORLD, plate_on_block(nx, ns, a, h, 0.05, true, false), o);
  const auto ref = test::constrained_frequencies(held, count);
  ASSERT_EQ(ref.size(), static_cast<std::size_t>(count));
  const double D = kE * h * h * h / (12 * (1 - kNu * kNu));
  const double leissa[count] = {3.492, 8.525, 21.43, 27.33, 31.11};
  double leissa_err = 0;
  for (int k = 0; k < count; ++k) {
    const double f = leissa[k] / (a * a) * std::sqrt(D / (kRho * h)) / (2 * M_PI);
    leissa_err = std::max(leissa_err, std::abs(ref[static_cast<std::size_t>(k)] / f - 1));
  }
  std::vector<double> err;
  std::vector<double> f_world;
  for (double s : {1e5, 1e7}) {
    const auto f = block_modes(MPI_COMM_WORLD, nx, ns, true, s, s, count).frequencies_hz();
    ASSERT_EQ(f.size(), static_cast<std::size_t>(count));
    double e = 0;
    for (int k = 0; k < count; ++k) e = std::max(e, std::abs(f[static_cast<std::size_t>(k)] / ref[static_cast<std::size_t>(k)] - 1));
    err.push_back(e);
    f_world = f;
  }
  const auto f_self = block_modes(MPI_COMM_SELF, nx, ns, true, 1e7, 1e7, count).frequencies_hz();
  double ranks = 0;
  for (int k = 0; k < count; ++k) ranks = std::max(ranks, std::abs(f_self.at(static_cast<std::size_t>(k)) / f_world[static_cast<std::size_t>(k)] - 1));
  if (rank0())
    std::printf("[MixedMesh] held plate f1 %.4f Hz, vs Leissa CFFF max %.3e; block s = 1e5: %.3e, s = 1e7: %.3e; "
                "1 rank vs all %.1e\n",
                ref[0], leissa_err, err[0], err[1], ranks);
  EXPECT_LT(err[1], 5e-5);
  EXPECT_LT(err[1], 0.03 * err[0]); // ~1/s
  EXPECT_LT(leissa_err, 0.03);
  EXPECT_LT(ranks, 1e-9);
}

TEST(MixedMesh, ASpringOnTheRotationOfASolidOnlyNodeIsRefusedNamingIt) {
  io::Mesh m = plate_on_block(4, 2, 1.0, 0.01, 0.05, true);
  int below = -1; // a node of the block's lower layer: only hex8 touch it
  for (std::size_t v = 0; v < m.num_nodes() && below < 0; ++v)
    if (m.coords[v][2] < 0) below = static_cast<int>(v);
  ASSERT_GE(below, 0);
  io::ScalarSpring sp;
  sp.id = 7;
  sp.node_a = below;
  sp.comp_a = 5;
  sp.k = 1e3;
  sp.where.file = "deck.bdf";
  sp.where.line = 12;
  fe::ComponentOptions o;
  o.default_material = test::material("BLOCK", kE, kNu, kRho);
  io::Mesh rotation = m;
  rotation.springs.push_back(sp);
  try {
    fe::Component c(MPI_COMM_WORLD, rotation, o);
    ADD_FAILURE() << "accepted a spring on a rotation no element has";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deck.bdf:12: spring 7 acts on rotation 5 of node " + std::to_string(m.node_ids[static_cast<std::size_t>(below)]) +
                        ", which only solid elements touch"),
              std::string::npos)
        << what;
  }
  sp.comp_a = 2; // a translation of that node is there
  m.springs.push_back(sp);
  fe::Component c(MPI_COMM_WORLD, m, o);
  EXPECT_TRUE(c.has_constant_stiffness());
}

namespace {

/// A steel hex8 cube [0, 0.1]³ and a RECT 10 × 10 mm beam along x: from the corner node (0, 0, 0) out to
/// x = −0.5 in 5 elements, and when @p embedded also along the cube's edge to (0.1, 0, 0) (two shared nodes).
io::Mesh beam_on_cube(bool embedded) {
  io::Mesh m;
  m.source = "beam_on_cube";
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        m.coords.push_back({0.1 * i, 0.1 * j, 0.1 * k});
        m.node_ids.push_back(static_cast<long>(m.coords.size()));
      }
  m.add_element(io::ElementType::hex8, {0, 1, 3, 2, 4, 5, 7, 6}, 1);
  int prev = embedded ? 1 : 0;
  if (embedded) {
    m.add_element(io::ElementType::beam2, {1, 0}, 2);
    m.element_sets["BEAM"].push_back(1);
    prev = 0;
  }
  for (int e = 1; e <= 5; ++e) {
    m.coords.push_back({-0.1 * e, 0.0, 0.0});
    m.node_ids.push_back(static_cast<long>(m.coords.size()));
    const int next = static_cast<int>(m.coords.size()) - 1;
    m.add_element(io::ElementType::beam2, {prev, next}, 10 + e);
    m.element_sets["BEAM"].push_back(static_cast<int>(m.num_elements()) - 1);
    prev = next;
  }
  m.materials["STEEL"] = test::material("STEEL", kE, kNu, kRho);
  test::add_rect_beam_section(m, "BEAM", "STEEL", 0.01, 0.01);
  return m;
}

} // namespace

TEST(MixedMesh, BeamOnOneSolidNodeIsABallJointAndAlongAnEdgeKeepsOnlyItsTwist) {
  // One shared node: the beam turns freely about it (6 + 3 zero modes); along the cube's edge (two
  // shared nodes on its axis) the cube holds its bending but not its twist about the axis (6 + 1).
  for (bool embedded : {false, true}) {
    fe::ComponentOptions o;
    o.default_material = test::material("STEEL", kE, kNu, kRho);
    fe::Component c(MPI_COMM_WORLD, beam_on_cube(embedded), o);
    fe::ModeOptions mo;
    mo.count = 2;
    mo.shift = -1.0;
    mo.rigid_tol = 1e-14;
    mo.progress = false;
    const auto modes = fe::solve_modes(c.K(), c.M(), mo);
    EXPECT_EQ(modes.rigid_eigenvalues.size(), embedded ? 7u : 9u) << (embedded ? "embedded" : "one node");
    // 8 cube nodes (3 DOFs, but 6 on the beam's) and 5 beam nodes.
    EXPECT_EQ(c.dofs().global_size(), 8 * 3 + (embedded ? 2 : 1) * 3 + 5 * 6);
  }
}
