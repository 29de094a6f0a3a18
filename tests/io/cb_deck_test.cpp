// SPDX-License-Identifier: MIT
// A Craig–Bampton check deck (tests/data/io/bdf/cb_cantilever.dat, source explained in the deck):
// the reduced body of a Nastran SOL 103 CB superelement deck checked as pyYeti's cbcheck does —
// fixed-interface frequencies against the Euler–Bernoulli cantilever (Blevins), MQQ = I,
// KQQ = diag(ω²), KBQ = 0, KBB = 0 (one interface grid: the body is held statically determinate),
// MBB = the rigid-body mass about the interface grid — and its OP4 export read back bit-exact, with
// the b-set in Nastran's order and PHI = [I 0] at the interface.
#include "FeTestUtil.hpp"

#include "flexuq/cms/Op4Export.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/cms/Reduction.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "TestUtil.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

using namespace flexuq;
using Eigen::MatrixXd;

TEST(CbDeck, CantileverCheckoutAndOp4) {
  const std::string deck = test::data_path("io/bdf/cb_cantilever.dat");
  io::BdfDeck d;
  const io::Mesh mesh = io::read_bdf(deck, &d);
  ASSERT_EQ(d.qset_spoints, 6);
  ASSERT_NE(d.method_eigrl(), nullptr);
  ASSERT_EQ(*d.method_eigrl()->nd, 6);
  EXPECT_EQ(d.coupmass, 1);
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, "model: {mesh: \"" + deck + "\"}\n");
  cms::WorkSpace ws(*comp, {{"BSET", cms::InterfaceKind::all_dofs, std::nullopt, {}}});
  ASSERT_EQ(ws.n_boundary(), 6u);
  cms::ReducerOptions o;
  o.modes.count = static_cast<int>(*d.method_eigrl()->nd);
  cms::Reducer r(ws, o);
  cms::BuildOptions b;
  b.method = cms::Method::craig_bampton;
  const cms::ReducedBasis rb = r.build(b);
  ASSERT_EQ(rb.n_columns(), 12u);
  ASSERT_TRUE(rb.physical_boundary);

  // Fixed-interface frequencies: bending in plane 1 (I1 = 0.04·0.02³/12) and plane 2 (I2 = 4 I1).
  const double E = 2.1e11, rho = 7850, A = 0.02 * 0.04, L = 1.0, I1 = 0.04 * std::pow(0.02, 3) / 12, I2 = 4 * I1;
  const double bl[4] = {1.875104068711961, 4.694091132974175, 7.854757438237613, 10.99554073487547};
  auto f = [&](int n, double I) { return bl[n] * bl[n] / (2 * M_PI) * std::sqrt(E * I / (rho * A * std::pow(L, 4))); };
  std::vector<double> want = {f(0, I1), f(0, I2), f(1, I1), f(1, I2), f(2, I1), f(3, I1)};
  std::sort(want.begin(), want.end());
  std::vector<double> got;
  for (double lam : rb.mode_eigenvalues) got.push_back(std::sqrt(lam) / (2 * M_PI));
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), 6u);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(got[k] / want[k], 1.0, 2e-4) << "mode " << k + 1 << ": " << got[k] << " Hz";

  // cbcheck identities on the partitioned reduced matrices (boundary columns first).
  std::vector<int> bcol, qcol;
  for (std::size_t c = 0; c < rb.n_columns(); ++c)
    (rb.kinds[c] == cms::ColumnKind::boundary_dof ? bcol : qcol).push_back(static_cast<int>(c));
  ASSERT_EQ(bcol.size(), 6u);
  const double kscale = *std::max_element(rb.mode_eigenvalues.begin(), rb.mode_eigenvalues.end());
  for (int i : qcol)
    for (int j : qcol) {
      EXPECT_NEAR(rb.M(i, j), i == j ? 1.0 : 0.0, 1e-9) << "MQQ";
      const double lam = rb.mode_eigenvalues[static_cast<std::size_t>(j - qcol[0])];
      EXPECT_NEAR(rb.K(i, j), i == j ? lam : 0.0, 1e-9 * kscale) << "KQQ";
    }
  for (int i : bcol) {
    for (int j : qcol) EXPECT_NEAR(rb.K(i, j), 0.0, 1e-9 * kscale) << "KBQ";
    for (int j : bcol) EXPECT_NEAR(rb.K(i, j), 0.0, 1e-9 * kscale) << "KBB";
  }
  // MBB: rigid-body mass about grid 1 (ux, uy, uz, rx, ry, rz): m, m, m, no torsional inertia
  // (Nastran's coupled CBAR mass has none: issue 39 item 2; the old ρ(I1+I2)L was flexuq's
  // consistent beam mass, not Nastran's), mL²/3 twice, couplings uy–rz = mL/2, uz–ry = −mL/2
  // (Hermite elements move rigidly exactly).
  const double m = rho * A * L;
  MatrixXd Mrb = MatrixXd::Zero(6, 6);
  Mrb(0, 0) = Mrb(1, 1) = Mrb(2, 2) = m;
  Mrb(3, 3) = 0.0;
  Mrb(4, 4) = Mrb(5, 5) = m * L * L / 3;
  Mrb(1, 5) = Mrb(5, 1) = m * L / 2;
  Mrb(2, 4) = Mrb(4, 2) = -m * L / 2;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(rb.M(bcol[i], bcol[j]), Mrb(i, j), 1e-10 * m) << "MBB(" << i << "," << j << ")";

  // Check-out of a body whose reduced mass is singular (the rigid twist carries no mass with
  // Nastran's CBAR mass): the reduced free-free frequencies condense the massless direction and
  // start with the free-free Euler–Bernoulli bar, (βL)² = 22.373 (Blevins), plane 1 then plane 2;
  // the rigid residuals have no NaN; the full free-free solve (singular pencil) is skipped.
  {
    const cms::Checkout chk = cms::checkout(r, rb, 10);
    EXPECT_EQ(chk.full_hz.size(), 0);
    ASSERT_GE(chk.reduced_hz.size(), 2);
    const double ff = 22.3733 / (2 * M_PI) * std::sqrt(E * I1 / (rho * A * std::pow(L, 4)));
    EXPECT_NEAR(chk.reduced_hz(0) / ff, 1.0, 2e-3) << chk.reduced_hz.transpose();
    EXPECT_NEAR(chk.reduced_hz(1) / (2 * ff), 1.0, 2e-2) << chk.reduced_hz.transpose();
    for (int a = 0; a < 6; ++a) {
      EXPECT_TRUE(std::isfinite(chk.rigid_residual(a))) << a;
      EXPECT_LT(chk.rigid_residual(a), 1e-8) << a;
      EXPECT_TRUE(std::isfinite(chk.effective_fraction(a))) << a;
    }
  }

  // OP4 round trip (binary and ASCII): KAA/MAA bit-identical to the reduced matrices in the file's
  // order, BDOF = grid 1 components 1..6, PHI at the interface = [I 0].
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rank 0 writes the file: every rank names rank 0's folder.
  const auto dir = std::filesystem::temp_directory_path() / ("flexuq_cbdeck_np" + std::to_string(size));
  std::filesystem::create_directories(dir);
  for (auto fmt : {io::Op4Format::binary, io::Op4Format::ascii}) {
    const std::string path = (dir / "body.op4").string();
    cms::Op4ExportOptions eo;
    eo.format = fmt;
    eo.phi_sets = {"BSET"};
    cms::write_reduced_op4(path, ws, rb, eo);
    if (rank != 0) continue;
    const auto mats = io::read_op4(path);
    ASSERT_EQ(mats.size(), 5u);
    EXPECT_EQ(mats[0].name, "KAA");
    EXPECT_EQ(mats[1].name, "MAA");
    EXPECT_EQ(mats[2].name, "BDOF");
    EXPECT_EQ(mats[3].name, "PHI");
    EXPECT_EQ(mats[4].name, "PHIDOF");
    const auto order = cms::op4_order(ws, rb, {}, nullptr);
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        const double k = rb.K(order[i], order[j]), mm = rb.M(order[i], order[j]);
        const double fk = mats[0](i, j), fm = mats[1](i, j);
        EXPECT_EQ(std::memcmp(&fk, &k, 8), 0) << "KAA(" << i << "," << j << ")";
        EXPECT_EQ(std::memcmp(&fm, &mm, 8), 0) << "MAA(" << i << "," << j << ")";
      }
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(mats[2](i, 0), 1.0);
      EXPECT_EQ(mats[2](i, 1), i + 1.0);
      EXPECT_EQ(mats[4](i, 0), 1.0);
      for (int j = 0; j < 12; ++j) EXPECT_NEAR(mats[3](i, j), i == j ? 1.0 : 0.0, 1e-12) << "PHI(" << i << "," << j << ")";
    }
  }
}

TEST(CbDeck, BoundaryInTheCdSystem) {
  // formats.bdf: b-set grids 9, 11, 12 (all DOFs); grid 11 has CD = 1 (x' = basic y, y' = −basic x).
  // KAA/MAA in the file are the reduced matrices with grid 11's rows and columns rotated into its CD
  // system: block (11, 11) = R K̄₁₁ Rᵀ, blocks with basic grids = R K̄₁ⱼ, and the spectrum of
  // (KAA, MAA) is that of (K̄, M̄) (orthogonal congruence).
  const std::string deck = test::data_path("io/bdf/formats.bdf");
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, "model: {mesh: \"" + deck + "\"}\n");
  cms::WorkSpace ws(*comp, {{"BSET", cms::InterfaceKind::all_dofs, std::nullopt, {}}});
  ASSERT_EQ(ws.n_boundary(), 9u);
  cms::ReducerOptions o;
  o.modes.count = 2;
  cms::Reducer r(ws, o);
  cms::BuildOptions b;
  b.method = cms::Method::craig_bampton;
  const cms::ReducedBasis rb = r.build(b);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto dir = std::filesystem::temp_directory_path() / ("flexuq_cbdeck_cd_np" + std::to_string(size));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "cd.op4").string();
  cms::Op4ExportOptions eo;
  eo.phi_sets = {"BSET"};
  cms::write_reduced_op4(path, ws, rb, eo);
  if (rank != 0) return;
  const auto mats = io::read_op4(path);
  std::vector<std::array<long, 2>> bdof;
  const auto order = cms::op4_order(ws, rb, {}, &bdof);
  ASSERT_EQ(bdof.size(), 9u);
  const long grids[3] = {9, 11, 12};
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(bdof[static_cast<std::size_t>(i)][0], grids[i / 3]);
    EXPECT_EQ(mats[2](i, 0), static_cast<double>(grids[i / 3]));
    EXPECT_EQ(mats[2](i, 1), i % 3 + 1.0);
  }
  const int n = static_cast<int>(order.size());
  MatrixXd K(n, n), M(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      K(i, j) = rb.K(order[i], order[j]);
      M(i, j) = rb.M(order[i], order[j]);
    }
  Eigen::Matrix3d R;
  R << 0, 1, 0, -1, 0, 0, 0, 0, 1;
  MatrixXd Kf(n, n), Mf(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      Kf(i, j) = mats[0](i, j);
      Mf(i, j) = mats[1](i, j);
    }
  const double ks = K.cwiseAbs().maxCoeff();
  EXPECT_LT((Kf.block(3, 3, 3, 3) - R * K.block(3, 3, 3, 3) * R.transpose()).norm(), 1e-12 * ks);
  EXPECT_LT((Kf.block(3, 0, 3, 3) - R * K.block(3, 0, 3, 3)).norm(), 1e-12 * ks);
  EXPECT_LT((Kf.block(0, 0, 3, 3) - K.block(0, 0, 3, 3)).norm(), 1e-12 * ks);
  EXPECT_LT((Kf.block(3, 9, 3, n - 9) - R * K.block(3, 9, 3, n - 9)).norm(), 1e-12 * ks);
  Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> e1(K, M, Eigen::EigenvaluesOnly), e2(Kf, Mf, Eigen::EigenvaluesOnly);
  EXPECT_LT((e1.eigenvalues() - e2.eigenvalues()).norm(), 1e-9 * e1.eigenvalues().cwiseAbs().maxCoeff());
  // PHI rows at the interface, in the CD system, are still the identity on the boundary columns.
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < n; ++j) EXPECT_NEAR(mats[3](i, j), i == j ? 1.0 : 0.0, 1e-12) << "PHI(" << i << "," << j << ")";
}
