// SPDX-License-Identifier: MIT
// cms::ReducedBody: the value type round-trips through /reduced exactly (every field, every
// dataset and attribute), and its header and the floating-frame algebra need neither PETSc nor SLEPc.
#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/ReducedBody.hpp"
#if defined(PETSC_VERSION_MAJOR) || defined(SLEPC_VERSION_MAJOR) || defined(PETSCSYS_H)
#error "cms/ReducedBody.hpp and cms/FloatingFrame.hpp must not include PETSc or SLEPc"
#endif

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <map>
#include <random>

using namespace flexuq;

namespace {

Eigen::MatrixXd random(Eigen::Index r, Eigen::Index c, std::mt19937& g) {
  std::normal_distribution<double> d;
  Eigen::MatrixXd A(r, c);
  for (Eigen::Index j = 0; j < c; ++j)
    for (Eigen::Index i = 0; i < r; ++i) A(i, j) = d(g);
  return A;
}

/// A body with every field filled (values need not be physical, only distinct).
cms::ReducedBody synthetic_body(bool floating) {
  std::mt19937 g(42);
  const Eigen::Index n = 5;
  cms::ReducedBody b;
  b.method = "craig-bampton";
  b.mode_interface = "fixed";
  b.K = random(n, n, g);
  b.M = random(n, n, g);
  b.dof_labels = {"A node 1 ux", "A node 1 uy", "fixed-interface mode 1", "fixed-interface mode 2", "residual vector"};
  b.column_kinds = {"boundary_dof", "boundary_dof", "fixed_interface_mode", "fixed_interface_mode", "residual_vector"};
  b.column_scale = random(n, 1, g);
  b.mode_eigenvalues = Eigen::Vector2d(1e4, 3e4);
  b.interface_labels = {"A node 1 ux", "A node 1 uy"};
  // Reference points only on the floating variant: the grounded one stands for older files.
  if (floating) b.interface_points = {{"PIN", {0.1, -0.2, 0.3}}, {"TIP", {1.5, 0.0, 2.5e-3}}};
  b.n_boundary = 2;
  b.physical_boundary = 1;
  b.dofs_per_node = 3;
  b.basis_rcond = 1.5e-7;
  b.diagnostics["gcms_stages"] = random(4, 8, g);
  b.diagnostics["gcms_cond_psi"] = random(1, 1, g);
  auto& inv = b.invariants;
  inv.mass = 11.7;
  inv.com = random(3, 1, g);
  inv.inertia_origin = random(3, 3, g);
  inv.inertia_com = random(3, 3, g);
  inv.S = random(3, n, g);
  inv.Sr = random(3, n, g);
  for (auto& S : inv.Skl) S = random(n, n, g);
  inv.Sbar = random(9, n, g);
  inv.Ikl = random(3, 3, g);
  inv.Mff = random(n, n, g);
  inv.lumped = true;
  auto& c = b.checkout;
  c.rigid_residual = random(6, 1, g);
  c.rigid_energy = random(6, 1, g);
  c.full = {3.0, random(3, 1, g), random(3, 3, g)};
  c.reduced = {2.5, random(3, 1, g), random(3, 3, g)};
  c.full_hz = random(4, 1, g);
  c.reduced_hz = random(3, 1, g);
  c.mode_columns = {2, 3};
  c.effective_mass = random(2, 6, g);
  c.effective_fraction = random(6, 1, g);
  if (floating) {
    c.frame_V = random(n, 2, g);
    c.frame_eigenvalues = Eigen::Vector2d(5.0, 7.0);
  }
  return b;
}

void expect_same(const cms::Invariants& a, const cms::Invariants& b) {
  EXPECT_EQ(a.mass, b.mass);
  EXPECT_EQ(a.com, b.com);
  EXPECT_EQ(a.inertia_origin, b.inertia_origin);
  EXPECT_EQ(a.inertia_com, b.inertia_com);
  EXPECT_EQ(a.S, b.S);
  EXPECT_EQ(a.Sr, b.Sr);
  for (int k = 0; k < 9; ++k) EXPECT_EQ(a.Skl[static_cast<std::size_t>(k)], b.Skl[static_cast<std::size_t>(k)]) << k;
  EXPECT_EQ(a.Sbar, b.Sbar);
  EXPECT_EQ(a.Ikl, b.Ikl);
  EXPECT_EQ(a.Mff, b.Mff);
  EXPECT_EQ(a.lumped, b.lumped);
}

void expect_same(const cms::ReducedBody& a, const cms::ReducedBody& b) {
  EXPECT_EQ(a.method, b.method);
  EXPECT_EQ(a.mode_interface, b.mode_interface);
  EXPECT_EQ(a.K, b.K);
  EXPECT_EQ(a.M, b.M);
  EXPECT_EQ(a.dof_labels, b.dof_labels);
  EXPECT_EQ(a.column_kinds, b.column_kinds);
  EXPECT_EQ(a.column_scale, b.column_scale);
  EXPECT_EQ(a.mode_eigenvalues, b.mode_eigenvalues);
  EXPECT_EQ(a.interface_labels, b.interface_labels);
  EXPECT_EQ(a.interface_points, b.interface_points);
  EXPECT_EQ(a.n_boundary, b.n_boundary);
  EXPECT_EQ(a.physical_boundary, b.physical_boundary);
  EXPECT_EQ(a.dofs_per_node, b.dofs_per_node);
  EXPECT_EQ(a.basis_rcond, b.basis_rcond);
  ASSERT_EQ(a.diagnostics.size(), b.diagnostics.size());
  for (const auto& [k, v] : a.diagnostics) EXPECT_EQ(v, b.diagnostics.at(k)) << k;
  expect_same(a.invariants, b.invariants);
  const auto &c = a.checkout, &d = b.checkout;
  EXPECT_EQ(c.rigid_residual, d.rigid_residual);
  EXPECT_EQ(c.rigid_energy, d.rigid_energy);
  EXPECT_EQ(c.full.mass, d.full.mass);
  EXPECT_EQ(c.full.com, d.full.com);
  EXPECT_EQ(c.full.inertia_com, d.full.inertia_com);
  EXPECT_EQ(c.reduced.mass, d.reduced.mass);
  EXPECT_EQ(c.reduced.com, d.reduced.com);
  EXPECT_EQ(c.reduced.inertia_com, d.reduced.inertia_com);
  EXPECT_EQ(c.full_hz, d.full_hz);
  EXPECT_EQ(c.reduced_hz, d.reduced_hz);
  EXPECT_EQ(c.effective_mass, d.effective_mass);
  EXPECT_EQ(c.effective_fraction, d.effective_fraction);
  EXPECT_EQ(c.mode_columns, d.mode_columns);
  EXPECT_EQ(c.frame_V, d.frame_V);
  EXPECT_EQ(c.frame_eigenvalues, d.frame_eigenvalues);
}

std::string tmp_path(const std::string& stem) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return "/tmp/flexuq-reduced-body-" + stem + "-np" + std::to_string(size) + ".h5";
}

} // namespace

TEST(ReducedBody, RoundTripsEveryField) {
  for (bool floating : {false, true}) {
    const cms::ReducedBody b = synthetic_body(floating);
    const std::string path = tmp_path(floating ? "floating" : "grounded");
    {
      io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
      b.write(f);
    }
    const cms::ReducedBody r = cms::ReducedBody::read(MPI_COMM_WORLD, path);
    expect_same(b, r);
    EXPECT_EQ(r.has_floating_frame(), floating);
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
    EXPECT_EQ(f.exists("/reduced/floating_frame/invariants/Skl"), floating);
    EXPECT_EQ(f.exists("/reduced/interface_points"), floating);
    EXPECT_EQ(r.interface_points.size(), floating ? 2u : 0u);
    if (floating) {
      // The written frame invariants are those of Φ V, computed from the stored ones.
      const cms::Invariants fi = r.frame_invariants();
      const auto S = f.read_all("/reduced/floating_frame/invariants/S");
      ASSERT_EQ(S.size(), 6u);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j) EXPECT_EQ(S[static_cast<std::size_t>(2 * i + j)], fi.S(i, j));
      const Eigen::MatrixXd ref = b.checkout.frame_V.transpose() * b.invariants.Mff * b.checkout.frame_V;
      EXPECT_LT((fi.Mff - ref).norm(), 1e-13 * ref.norm());
    } else {
      EXPECT_THROW(r.frame_invariants(), Error);
    }
  }
}

TEST(ReducedBody, DocumentedDatasetsAndAttributes) {
  // The /reduced layout of docs/hdf5-schema.md (without the basis, which the value does not hold).
  const std::string path = tmp_path("layout");
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    synthetic_body(true).write(f);
  }
  io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
  const std::map<std::string, std::vector<std::uint64_t>> shapes{
      {"/reduced/K", {5, 5}}, {"/reduced/M", {5, 5}}, {"/reduced/dof_labels", {5}}, {"/reduced/column_kinds", {5}},
      {"/reduced/column_scale", {5}}, {"/reduced/mode_eigenvalues", {2}}, {"/reduced/interface_labels", {2}},
      {"/reduced/interface_point_sets", {2}}, {"/reduced/interface_points", {2, 3}},
      {"/reduced/diagnostics/gcms_stages", {4, 8}}, {"/reduced/diagnostics/gcms_cond_psi", {1, 1}},
      {"/reduced/invariants/mass", {1}}, {"/reduced/invariants/center_of_mass", {3}},
      {"/reduced/invariants/inertia_origin", {3, 3}}, {"/reduced/invariants/inertia_com", {3, 3}},
      {"/reduced/invariants/S", {3, 5}}, {"/reduced/invariants/Sr", {3, 5}}, {"/reduced/invariants/Skl", {3, 3, 5, 5}},
      {"/reduced/invariants/Sbar", {3, 3, 5}}, {"/reduced/invariants/Ikl", {3, 3}}, {"/reduced/invariants/Mff", {5, 5}},
      {"/reduced/floating_frame/V", {5, 2}}, {"/reduced/floating_frame/eigenvalues", {2}},
      {"/reduced/floating_frame/invariants/S", {3, 2}}, {"/reduced/floating_frame/invariants/Skl", {3, 3, 2, 2}},
      {"/reduced/checkout/rigid_residual", {6}}, {"/reduced/checkout/rigid_strain_energy", {6}},
      {"/reduced/checkout/mass_full_reduced", {2}}, {"/reduced/checkout/com_full", {3}},
      {"/reduced/checkout/com_reduced", {3}}, {"/reduced/checkout/inertia_com_full", {3, 3}},
      {"/reduced/checkout/inertia_com_reduced", {3, 3}}, {"/reduced/checkout/free_free_reduced_hz", {3}},
      {"/reduced/checkout/free_free_full_hz", {4}}, {"/reduced/checkout/effective_mass", {2, 6}},
      {"/reduced/checkout/effective_mass_fraction", {6}}};
  for (const auto& [d, s] : shapes) {
    ASSERT_TRUE(f.exists(d)) << d;
    EXPECT_EQ(f.shape(d), s) << d;
  }
  // Row-major on file: K(0, 1) is the second value.
  const cms::ReducedBody b = synthetic_body(true);
  EXPECT_EQ(f.read_all("/reduced/K")[1], b.K(0, 1));
  EXPECT_EQ(f.read_strings("/reduced/interface_point_sets"), (std::vector<std::string>{"PIN", "TIP"}));
  EXPECT_EQ(f.read_all("/reduced/interface_points")[5], 2.5e-3);
  EXPECT_EQ(f.read_attribute_string("/reduced", "method"), "craig-bampton");
  EXPECT_EQ(f.read_attribute_string("/reduced", "mode_interface"), "fixed");
  EXPECT_EQ(f.read_attribute_int("/reduced", "n_boundary"), 2);
  EXPECT_EQ(f.read_attribute_int("/reduced", "physical_boundary"), 1);
  EXPECT_EQ(f.read_attribute_int("/reduced", "dofs_per_node"), 3);
  EXPECT_EQ(f.read_attribute_double("/reduced", "basis_rcond"), 1.5e-7);
  EXPECT_EQ(f.read_attribute_int("/reduced/invariants", "lumped_I5_I7"), 1);
  EXPECT_NE(f.read_attribute_string("/reduced/invariants", "formulation").find("body frame = mesh frame"), std::string::npos);
  EXPECT_NE(f.read_attribute_string("/reduced/floating_frame", "meaning").find("V^T M V = 1"), std::string::npos);
}

TEST(ReducedBody, BadFilesNameTheDataset) {
  const std::string path = tmp_path("bad");
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    const double k[4] = {1, 2, 3, 4};
    f.write_replicated("/reduced/K", {2, 2}, k);
    f.write_replicated("/reduced/M", {2, 3}, k);
  }
  try {
    (void)cms::ReducedBody::read(MPI_COMM_WORLD, path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/reduced/M has shape (2, 3), expected (2, 2)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    const double k[1] = {1};
    f.write_replicated("/other", {1}, k);
  }
  try {
    (void)cms::ReducedBody::read(MPI_COMM_WORLD, path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing /reduced/K"), std::string::npos) << e.what();
  }
}
