// SPDX-License-Identifier: MIT
// cms::ReducedBody: the value type round-trips through /reduced exactly (every field, every
// dataset and attribute), and its header and the floating-frame algebra need neither PETSc nor SLEPc.
// cms::PodBody: its affine rule, invariants and file round trip.
#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/ReducedBody.hpp"
#if defined(PETSC_VERSION_MAJOR) || defined(SLEPC_VERSION_MAJOR) || defined(PETSCSYS_H)
#error "cms/ReducedBody.hpp and cms/FloatingFrame.hpp must not include PETSc or SLEPc"
#endif

#include "ReducedBodyFixture.hpp"
#include "flexuq/cms/PodBody.hpp"
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <map>
#include <random>

using namespace flexuq;
using namespace flexuq::test;

namespace {

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

// The Ψ/Υ split of the basis (/reduced/gs, cms/GsSplitBody.hpp): written and read back exactly, or the
// reason it is missing; a damaged one is named.
TEST(ReducedBody, GsSplitRoundTripsOrSaysWhyNot) {
  std::mt19937 g(3);
  std::uniform_real_distribution<double> u(-1, 1);
  cms::ReducedBody b = synthetic_body(true);
  b.gs.S = Eigen::MatrixXd::NullaryExpr(5, 5, [&] { return u(g); });
  b.gs.labels = {"REF PIN ux", "REF TIP ux", "m1", "m2", "m3"};
  b.gs.psi_hat = {3, 1};
  b.gs.psi_rcond = 0.25;
  b.gs.rigid_residual = 1.5e-13;
  const std::string path = tmp_path("gs");
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    b.write(f);
  }
  const cms::ReducedBody r = cms::ReducedBody::read(MPI_COMM_WORLD, path);
  ASSERT_TRUE(r.gs.present());
  EXPECT_EQ(r.gs.S, b.gs.S);
  EXPECT_EQ(r.gs.labels, b.gs.labels);
  EXPECT_EQ(r.gs.psi_hat, b.gs.psi_hat);
  EXPECT_EQ(r.gs.psi_rcond, 0.25);
  EXPECT_EQ(r.gs.rigid_residual, 1.5e-13);
  EXPECT_TRUE(r.gs.refused.empty());
  // Without a split: the reason, and no S.
  cms::ReducedBody w = synthetic_body(false);
  w.gs.refused = "generalised superelement: the basis cannot describe rigid-body motion";
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    w.write(f);
  }
  const cms::ReducedBody rw = cms::ReducedBody::read(MPI_COMM_WORLD, path);
  EXPECT_FALSE(rw.gs.present());
  EXPECT_EQ(rw.gs.refused, w.gs.refused);
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
    EXPECT_FALSE(f.exists("/reduced/gs/S"));
  }
  // Neither (a body that was never split): nothing written, nothing read.
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    synthetic_body(false).write(f);
  }
  EXPECT_FALSE(io::H5File(MPI_COMM_WORLD, path, io::H5File::Mode::read).exists("/reduced/gs"));
  const cms::ReducedBody rn = cms::ReducedBody::read(MPI_COMM_WORLD, path);
  EXPECT_TRUE(!rn.gs.present() && rn.gs.refused.empty());
  // A column index past the basis is named.
  b.gs.psi_hat = {3, 5};
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    b.write(f);
  }
  try {
    (void)cms::ReducedBody::read(MPI_COMM_WORLD, path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": /reduced/gs/psi_hat does not hold 2 column indices below 5"),
              std::string::npos)
        << e.what();
  }
}

// cms::PodBody (POD bodies, docs/stochastic-cb.md): the affine rule K̄(θ) = Σ c_t(θ̄)(θ_p/θ̄_p) K̄_t,
// the invariants by the same rule on their linear form (first moment, J_C recomputed), the file
// round trip, and the refusals.
TEST(PodBody, AffineTermsAndInvariantsRoundTripAndEvaluate) {
  std::mt19937 g(7);
  const Eigen::Index r = 4;
  cms::PodBody b;
  b.names = {"E_left", "rho_right"};
  b.nominal = {2.0e11, 7800.0};
  b.K = {{random(r, r, g), random(r, r, g), random(r, r, g)}, {1.0, 2.0e11, 2.1e11}, {-1, 0, 0}};
  b.M = {{random(r, r, g), random(r, r, g)}, {7800.0, 7800.0}, {-1, 1}};
  cms::Invariants a = synthetic_body(true).invariants, c = a;
  for (auto* inv : {&a, &c}) { // r columns, distinct values
    inv->S = random(3, r, g);
    inv->Sr = random(3, r, g);
    for (auto& S : inv->Skl) S = random(r, r, g);
    inv->Sbar = random(9, r, g);
    inv->Mff = random(r, r, g);
    inv->com = random(3, 1, g);
  }
  c.mass = 3.2;
  b.I = {{cms::PodBody::linear_invariants(a), cms::PodBody::linear_invariants(c)}, {1.0, 1.0}, {-1, 1}};
  b.lumped = true;
  const std::vector<double> theta = {2.2e11, 7020.0};
  const double s0 = theta[0] / b.nominal[0], s1 = theta[1] / b.nominal[1];
  const Eigen::MatrixXd K = b.K.terms[0] + 2.0e11 * s0 * b.K.terms[1] + 2.1e11 * s0 * b.K.terms[2];
  EXPECT_LT((b.K_at(theta) - K).norm(), 1e-15 * K.norm());
  const Eigen::MatrixXd M = 7800.0 * b.M.terms[0] + 7800.0 * s1 * b.M.terms[1];
  EXPECT_LT((b.M_at(theta) - M).norm(), 1e-15 * M.norm());
  // Invariants: linear parts add, the centre of mass is the first moment over the mass, J_C from J_O.
  const cms::Invariants i = b.invariants_at(theta);
  const double m = a.mass + s1 * c.mass;
  EXPECT_NEAR(i.mass, m, 1e-15 * m);
  const Eigen::Vector3d com = (a.mass * a.com + s1 * c.mass * c.com) / m;
  EXPECT_LT((i.com - com).norm(), 1e-14 * com.norm());
  const Eigen::Matrix3d JO = a.inertia_origin + s1 * c.inertia_origin;
  EXPECT_LT((i.inertia_origin - JO).norm(), 1e-14 * JO.norm());
  const Eigen::Matrix3d JC = JO - m * (com.squaredNorm() * Eigen::Matrix3d::Identity() - com * com.transpose());
  EXPECT_LT((i.inertia_com - JC).norm(), 1e-13 * JC.norm());
  for (std::size_t k = 0; k < 9; ++k) {
    const Eigen::MatrixXd S = a.Skl[k] + s1 * c.Skl[k];
    EXPECT_LT((i.Skl[k] - S).norm(), 1e-14 * S.norm()) << k;
  }
  EXPECT_LT((i.Mff - (a.Mff + s1 * c.Mff)).norm(), 1e-14 * a.Mff.norm());
  EXPECT_TRUE(i.lumped);
  // At θ̄ the body's own invariants (the constant and the parameter term summed).
  EXPECT_NEAR(b.invariants_at(b.nominal).mass, a.mass + c.mass, 1e-14);
  // File round trip: the same evaluation from what is read back.
  const std::string path = tmp_path("pod-body");
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    b.write(f);
  }
  {
    const io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
    const cms::PodBody rb = cms::PodBody::read(f);
    EXPECT_EQ(rb.names, b.names);
    EXPECT_EQ(rb.nominal, b.nominal);
    EXPECT_EQ(rb.K_at(theta), b.K_at(theta));
    EXPECT_EQ(rb.M_at(theta), b.M_at(theta));
    ASSERT_TRUE(rb.has_invariants());
    EXPECT_EQ(rb.I.parameter, b.I.parameter);
    EXPECT_EQ(cms::flatten_invariants(rb.invariants_at(theta)), cms::flatten_invariants(i));
    EXPECT_TRUE(rb.lumped);
  }
  // Refusals: θ of the wrong size or not positive; a body without invariant terms (older files).
  EXPECT_THROW(b.K_at({2.0e11}), InputError);
  EXPECT_THROW(b.invariants_at({2.0e11, -1.0}), InputError);
  cms::PodBody old = b;
  old.I = {};
  EXPECT_FALSE(old.has_invariants());
  EXPECT_THROW(old.invariants_at(theta), InputError);
  {
    io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::create);
    old.write(f);
  }
  const io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
  EXPECT_FALSE(cms::PodBody::read(f).has_invariants());
  EXPECT_FALSE(f.exists("/stochastic_body/pod/invariant_terms"));
}
