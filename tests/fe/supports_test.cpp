// SPDX-License-Identifier: MIT
// Supports of single components (fe::DofMap FixedDofs, ComponentOptions::fixed_components, the mesh's
// set_components): the whole-node form unchanged, elimination = the free operators' submatrix, a
// simply supported shell plate against Navier's closed form, a half beam with a symmetry plane
// against the full beam's symmetric modes, a 2-D beam on a pin and a roller against Timoshenko and
// the fixed-free rod, 1 rank = 2 ranks, and bad input.
#include "FeTestUtil.hpp"
#include "PlaneMesh.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <gtest/gtest.h>
#include <petscmat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace flexuq;

namespace {

constexpr double kE = 2.1e11, kNu = 0.3, kRho = 7850;

std::vector<double> frequencies(const fe::Component& c, int count) { return test::constrained_frequencies(c, count); }

/// ‖A − B‖_F / ‖B‖_F.
double rel_diff(Mat A, Mat B) {
  Mat D = nullptr;
  FLEXUQ_PETSC(MatDuplicate(A, MAT_COPY_VALUES, &D));
  FLEXUQ_PETSC(MatAXPY(D, -1.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscReal d = 0, b = 0;
  FLEXUQ_PETSC(MatNorm(D, NORM_FROBENIUS, &d));
  FLEXUQ_PETSC(MatNorm(B, NORM_FROBENIUS, &b));
  FLEXUQ_PETSC(MatDestroy(&D));
  return d / b;
}

std::string box_yaml(double length, int cells, const std::string& fixed) {
  std::ostringstream os;
  os << "model:\n  generator: {type: box, size: [" << length << ", 0.04, 0.03], cells: [" << cells
     << ", 2, 2], order: 1}\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n  fixed: " << fixed << "\n";
  return os.str();
}

} // namespace

TEST(Supports, WholeNodeFormIsUnchangedAndEliminationIsTheSubmatrix) {
  // The components form with every component of a node fixes it whole: same numbering, same K.
  auto whole = test::component_from_yaml(MPI_COMM_WORLD, box_yaml(0.2, 6, "[XMIN]"));
  auto all3 = test::component_from_yaml(MPI_COMM_WORLD, box_yaml(0.2, 6, "[{set: XMIN, dofs: [3, 1, 2]}]"));
  ASSERT_EQ(whole->dofs().global_size(), all3->dofs().global_size());
  EXPECT_FALSE(all3->dofs().has_partly_fixed());
  for (int v = 0; v < static_cast<int>(whole->mesh().num_nodes()); ++v)
    ASSERT_EQ(whole->dofs().node_dof(v), all3->dofs().node_dof(v)) << v;
  EXPECT_EQ(rel_diff(all3->K(), whole->K()), 0.0);
  EXPECT_EQ(rel_diff(all3->M(), whole->M()), 0.0);

  // u_y fixed on XMIN and u_x, u_z on XMAX: K and M are the free operators' rows and columns of the
  // other DOFs, and the numbering keeps each node's free components in order.
  auto free = test::component_from_yaml(MPI_COMM_WORLD, box_yaml(0.2, 6, "[]"));
  auto part = test::component_from_yaml(MPI_COMM_WORLD,
                                        box_yaml(0.2, 6, "[{set: XMIN, dofs: [2]}, {set: XMAX, dofs: [1, 3]}]"));
  const auto& mesh = part->mesh();
  const auto& xmin = mesh.node_set("XMIN");
  const auto& xmax = mesh.node_set("XMAX");
  EXPECT_TRUE(part->dofs().has_partly_fixed());
  EXPECT_EQ(part->dofs().global_size(), free->dofs().global_size() - static_cast<PetscInt>(xmin.size() + 2 * xmax.size()));
  for (int v : xmin) {
    EXPECT_TRUE(part->dofs().partly_fixed(v));
    EXPECT_EQ(part->dofs().fixed_mask(v), 2u);
    EXPECT_EQ(part->dofs().dof(v, 1), -1);
    EXPECT_EQ(part->dofs().dof(v, 2), part->dofs().dof(v, 0) + 1);
    EXPECT_EQ(part->dofs().free_dofs(v), 2);
  }
  std::vector<PetscInt> rows;
  for (int v : free->dofs().owned_nodes())
    for (int k = 0; k < 3; ++k)
      if (part->dofs().dof(v, k) >= 0) rows.push_back(free->dofs().dof(v, k));
  ASSERT_EQ(static_cast<PetscInt>(rows.size()), part->dofs().local_size());
  IS is = nullptr;
  FLEXUQ_PETSC(ISCreateGeneral(PETSC_COMM_WORLD, static_cast<PetscInt>(rows.size()), rows.data(), PETSC_COPY_VALUES, &is));
  Mat Ks = nullptr, Ms = nullptr;
  FLEXUQ_PETSC(MatCreateSubMatrix(free->K(), is, is, MAT_INITIAL_MATRIX, &Ks));
  FLEXUQ_PETSC(MatCreateSubMatrix(free->M(), is, is, MAT_INITIAL_MATRIX, &Ms));
  EXPECT_LE(rel_diff(part->K(), Ks), 1e-15);
  EXPECT_LE(rel_diff(part->M(), Ms), 1e-15);
  FLEXUQ_PETSC(MatDestroy(&Ks));
  FLEXUQ_PETSC(MatDestroy(&Ms));
  FLEXUQ_PETSC(ISDestroy(&is));
  EXPECT_EQ(part->fixed_sets(), (std::vector<std::string>{"XMIN[2]", "XMAX[13]"}));
}

namespace {

/// An a × b plate of nx × ny S4 shells (thickness h, steel) as an Abaqus deck, node set EDGE on its
/// boundary (without the edge x = a when @p sym, which is node set SYM then), and the given *BOUNDARY
/// lines. Written by each rank to a file of its own.
std::string plate_inp(double a, double b, int nx, int ny, double h, const std::string& boundary, bool sym = false) {
  std::ostringstream os;
  os << "*NODE\n";
  auto id = [&](int i, int j) { return j * (nx + 1) + i + 1; };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) os << id(i, j) << ", " << a * i / nx << ", " << b * j / ny << ", 0\n";
  os << "*ELEMENT, TYPE=S4, ELSET=PLATE\n";
  int e = 1;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      os << e++ << ", " << id(i, j) << ", " << id(i + 1, j) << ", " << id(i + 1, j + 1) << ", " << id(i, j + 1) << "\n";
  os << "*NSET, NSET=EDGE\n";
  int n = 0;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i)
      if (i == 0 || j == 0 || (i == nx && !sym) || j == ny) os << id(i, j) << (++n % 8 == 0 ? "\n" : ", ");
  if (sym) {
    os << "\n*NSET, NSET=SYM\n";
    for (int j = 0; j <= ny; ++j) os << id(nx, j) << (j % 8 == 7 ? "\n" : ", ");
  }
  os << "\n*MATERIAL, NAME=STEEL\n*ELASTIC\n" << kE << ", " << kNu << "\n*DENSITY\n" << kRho
     << "\n*SHELL SECTION, ELSET=PLATE, MATERIAL=STEEL\n" << h << "\n" << boundary;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string path = "/tmp/flexuq_supports_plate_" + std::to_string(getpid()) + "_" + std::to_string(rank) + ".inp";
  std::ofstream(path) << os.str();
  return path;
}

} // namespace

TEST(Supports, SimplySupportedShellPlateMatchesNavier) {
  // *BOUNDARY EDGE, 1, 3: w and the in-plane translations held on the edges, rotations free (the
  // soft simple support; the membrane is decoupled in a flat plate). Kirchhoff/Navier:
  // ω_mn = π²(m²/a² + n²/b²)√(D/(ρh)), D = Eh³/(12(1−ν²)), at a/h = 100.
  const double a = 1.0, b = 0.6, h = 0.01;
  const std::string path = plate_inp(a, b, 40, 24, h, "*BOUNDARY\nEDGE, 1, 3\n");
  fe::ComponentOptions o;
  o.fixed_sets = {"BOUNDARY"};
  fe::Component c(MPI_COMM_WORLD, io::read_mesh(path), o);
  std::remove(path.c_str());
  const double D = kE * h * h * h / (12 * (1 - kNu * kNu));
  std::vector<double> ref;
  for (int m = 1; m <= 6; ++m)
    for (int n = 1; n <= 6; ++n)
      ref.push_back(M_PI * M_PI * (m * m / (a * a) + n * n / (b * b)) * std::sqrt(D / (kRho * h)) / (2 * M_PI));
  std::sort(ref.begin(), ref.end());
  const auto f = frequencies(c, 6);
  ASSERT_GE(f.size(), 6u);
  double err = 0;
  for (int k = 0; k < 6; ++k) err = std::max(err, std::abs(f[k] / ref[k] - 1));
  if (c.dofs().begin() == 0)
    std::printf("[Supports] SS plate 40x24 S4, a/h 100: f1 %.4f Hz (Navier %.4f), max error f1..f6 %.3f %%\n", f[0], ref[0],
                100 * err);
  EXPECT_LT(err, 0.015);

  // The same supports in the YAML form on the same mesh: the same operators, the same frequencies.
  const std::string path2 = plate_inp(a, b, 40, 24, h, "");
  fe::ComponentOptions oy;
  oy.fixed_components = {{"EDGE", {1, 2, 3}, "<test>"}};
  fe::Component cy(MPI_COMM_WORLD, io::read_mesh(path2), oy);
  std::remove(path2.c_str());
  EXPECT_EQ(rel_diff(cy.K(), c.K()), 0.0);
  const auto fy = frequencies(cy, 6);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(fy[k] / f[k], 1.0, 1e-9);

  // Half the plate, x ∈ [0, a/2] (20 × 24 quads, the same elements), *BOUNDARY SYM, XSYMM on the cut
  // (u_x = θ_y = θ_z = 0, Abaqus's meaning on shell nodes): the full plate's modes symmetric about
  // x = a/2, Navier's with m odd.
  const std::string path3 = plate_inp(a / 2, b, 20, 24, h, "*BOUNDARY\nEDGE, 1, 3\nSYM, XSYMM\n", true);
  fe::Component half(MPI_COMM_WORLD, io::read_mesh(path3), o);
  std::remove(path3.c_str());
  std::vector<double> odd;
  for (int m = 1; m <= 7; m += 2)
    for (int n = 1; n <= 6; ++n)
      odd.push_back(M_PI * M_PI * (m * m / (a * a) + n * n / (b * b)) * std::sqrt(D / (kRho * h)) / (2 * M_PI));
  std::sort(odd.begin(), odd.end());
  const auto fh = frequencies(half, 6);
  ASSERT_GE(fh.size(), 6u);
  double eh = 0;
  for (int k = 0; k < 6; ++k) eh = std::max(eh, std::abs(fh[k] / odd[k] - 1));
  EXPECT_LT(eh, 0.015);
  // The same elements: the half's first mode is the full plate's (m = n = 1) to the solver's tolerance.
  EXPECT_NEAR(fh[0] / f[0], 1.0, 1e-7);
  if (c.dofs().begin() == 0)
    std::printf("[Supports] half plate with XSYMM (20x24 S4): max error f1..f6 vs Navier (m odd) %.3f %%\n", 100 * eh);
}

TEST(Supports, HalfBeamWithSymmetryPlaneGivesTheFullBeamsSymmetricModes) {
  // A clamped-clamped bar of 0.4 m, 20 cells long, and its half (0.2 m, 10 cells) with u_x = 0 on
  // the cut (XSYMM on solid nodes): the mesh is symmetric, so every mode of the half is a mode of
  // the full bar (the symmetric ones) to the eigensolver's tolerance.
  auto full = test::component_from_yaml(MPI_COMM_WORLD, box_yaml(0.4, 20, "[XMIN, XMAX]"));
  auto half = test::component_from_yaml(MPI_COMM_WORLD, box_yaml(0.2, 10, "[XMIN, {set: XMAX, dofs: [1]}]"));
  const auto ff = frequencies(*full, 16), fh = frequencies(*half, 6);
  ASSERT_EQ(fh.size(), 6u);
  int matched_below = 0;
  for (double f : fh) {
    double best = 1;
    for (double g : ff) best = std::min(best, std::abs(g / f - 1));
    EXPECT_LT(best, 1e-8) << "half-beam mode at " << f << " Hz is no mode of the full beam";
  }
  for (double g : ff)
    if (g <= fh.back() * (1 + 1e-8)) ++matched_below;
  // The full beam's modes up to the half's sixth: the half's six plus antisymmetric ones.
  EXPECT_GT(matched_below, 6);
  EXPECT_NEAR(fh[0] / ff[0], 1.0, 1e-8); // the first bending mode is symmetric
  // 1 rank = 2 ranks.
  auto one = test::component_from_yaml(MPI_COMM_SELF, box_yaml(0.2, 10, "[XMIN, {set: XMAX, dofs: [1]}]"));
  const auto f1 = frequencies(*one, 6);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR(f1[k] / fh[k], 1.0, 1e-9);
  if (half->dofs().begin() == 0)
    std::printf("[Supports] half beam XSYMM: f1..f3 %.3f %.3f %.3f Hz, full f1 %.3f Hz\n", fh[0], fh[1], fh[2], ff[0]);
}

TEST(Supports, PlaneBeamOnPinAndRollerMatchesTimoshenkoAndTheRod) {
  // A 1 × 0.05 plane-stress strip (quad8, 40 × 2). (a) Pinned (u_x = u_y = 0) at the left end's
  // mid-height node and on a roller (u_y = 0) at the right end's: a simply supported beam.
  // (b) A roller along the whole left edge (u_x = 0: the edge slides along y, Poisson's contraction
  // free) and u_y = 0 at its mid node: the strip is axially fixed-free, the rod's c/(4L), c = √(E/ρ).
  const double L = 1.0, H = 0.05, t = 0.01;
  io::Mesh m = test::grid_mesh(io::ElementType::quad8, L, H, 40, 2, t, false);
  for (int v = 0; v < static_cast<int>(m.num_nodes()); ++v) {
    const auto& x = m.coords[static_cast<std::size_t>(v)];
    if (std::abs(x[0]) < 1e-12) m.node_sets["LEFT"].push_back(v);
    if (std::abs(x[1] - H / 2) > 1e-12) continue;
    if (std::abs(x[0]) < 1e-12) m.node_sets["PIN"].push_back(v);
    if (std::abs(x[0] - L) < 1e-12) m.node_sets["ROLLER"].push_back(v);
  }
  ASSERT_EQ(m.node_sets["PIN"].size(), 1u);
  ASSERT_EQ(m.node_sets["ROLLER"].size(), 1u);
  fe::ComponentOptions o;
  o.fixed_components = {{"PIN", {1, 2}, "<test>"}, {"ROLLER", {2}, "<test>"}};
  fe::Component c(MPI_COMM_WORLD, m, o);
  const auto f = frequencies(c, 2); // constrained: no zero-energy mode is left
  ASSERT_EQ(f.size(), 2u);
  // Timoshenko, simply supported, mode 1: κ = 5/6, E I k⁴ − ω²(ρA + ρI k² + ρ E I k²/(κG)) + ω⁴ ρ² I/(κG) = 0.
  const double E = test::kPlaneE, rho = test::kPlaneRho, G = E / (2 * (1 + test::kPlaneNu)), kap = 5.0 / 6.0;
  const double A = H * t, I = t * H * H * H / 12, k = M_PI / L;
  const double qa = rho * rho * I / (kap * G), qb = -(rho * A + rho * I * k * k + rho * E * I * k * k / (kap * G)),
               qc = E * I * k * k * k * k;
  const double w2 = (-qb - std::sqrt(qb * qb - 4 * qa * qc)) / (2 * qa);
  const double f_bend = std::sqrt(w2) / (2 * M_PI), f_rod = std::sqrt(E / rho) / (4 * L);
  EXPECT_NEAR(f[0] / f_bend, 1.0, 0.01) << f[0] << " vs " << f_bend;

  fe::ComponentOptions r;
  r.fixed_components = {{"LEFT", {1}, "<test>"}, {"PIN", {2}, "<test>"}};
  fe::Component cr(MPI_COMM_WORLD, m, r);
  const auto fr = frequencies(cr, 8);
  double best = 1;
  for (double g : fr) best = std::min(best, std::abs(g / f_rod - 1));
  EXPECT_LT(best, 0.002) << "no axial mode near the fixed-free rod's " << f_rod << " Hz";
  // A 2-D component's nodes have components 1-2 only.
  fe::ComponentOptions bad;
  bad.fixed_components = {{"ROLLER", {2, 3}, "strip.yaml: model.fixed[1] (line 7)"}};
  try {
    fe::Component(MPI_COMM_WORLD, m, bad);
    ADD_FAILURE() << "u_z of a 2-D component accepted";
  } catch (const InputError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("strip.yaml: model.fixed[1] (line 7)"), std::string::npos) << w;
    EXPECT_NE(w.find("component 3"), std::string::npos) << w;
    EXPECT_NE(w.find("1-2"), std::string::npos) << w;
  }
  if (c.dofs().begin() == 0)
    std::printf("[Supports] strip: pin-roller f1 %.3f Hz (Timoshenko %.3f); edge roller: axial error %.4f %% (rod %.2f Hz)\n",
                f[0], f_bend, 100 * best, f_rod);
}

TEST(Supports, BadComponentsAreRefusedNamingTheKeyAndLine) {
  auto refused = [](const std::string& yaml, std::initializer_list<const char*> parts) {
    try {
      test::component_from_yaml(MPI_COMM_WORLD, yaml);
      ADD_FAILURE() << "accepted:\n" << yaml;
    } catch (const InputError& e) {
      for (const char* p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  };
  // Outside 1-6 (the parser), a rotation on solid nodes (the component), a missing dofs list.
  refused(box_yaml(0.2, 4, "[XMIN, {set: XMAX, dofs: [1, 7]}]"), {"<test>", "model.fixed[1].dofs", "line 4", "7"});
  refused(box_yaml(0.2, 4, "[{set: XMAX, dofs: [4]}]"), {"model.fixed[0]", "line 4", "component 4", "1-3"});
  refused(box_yaml(0.2, 4, "[{set: XMAX}]"), {"model.fixed[0]", "dofs"});
  refused(box_yaml(0.2, 4, "[{set: XMAX, dofs: [1], oops: 2}]"), {"oops"});
  refused(box_yaml(0.2, 4, "[{set: NOPE, dofs: [1]}]"), {"NOPE"});
}
