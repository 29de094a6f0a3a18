// SPDX-License-Identifier: MIT
// RBE3 (averaging) interfaces:
//  - the averaging matrix: W S_rigid = 1 (a rigid motion of the set is reproduced exactly) and, for a
//    set symmetric about its centroid with uniform weights, the reference translation is the plain
//    mean of the translations;
//  - the exact condensation identity: with the component clamped elsewhere, the Guyan stiffness at
//    the reference node is K̄ = (W K⁻¹ Wᵀ)⁻¹ (minimum strain energy under W u = u_ref, solved here
//    independently with a sparse factorisation of the clamped K);
//  - RBE2 ⊂ RBE3 constraint sets, so K̄_RBE2 − K̄_RBE3 is positive semi-definite and non-zero;
//  - on a free body with two RBE3 interfaces, every basis column satisfies the constraint in the
//    physical space (reference columns W u = e_j, modes W u = 0), the reduced model has the 6 rigid
//    modes and its free-free spectrum bounds the full one from above (Rayleigh–Ritz);
//  - 1 rank = all ranks.
#include "CmsTestUtil.hpp"

#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/la/Solvers.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const std::string kFree = test::steel_box_yaml(3);
const std::string kClamped = kFree + "  fixed: [XMIN]\n";

using Kind = cms::InterfaceKind;

MatrixXd gen_eigs(const MatrixXd& K, const MatrixXd& M) { return test::pencil_eigenvalues(K, M); }

/// Guyan K̄ at the reference node of a single interface on XMAX.
MatrixXd guyan_at_xmax(Kind kind, const fe::Component& comp) {
  cms::WorkSpace ws(comp, {{"XMAX", kind, std::nullopt, {}}});
  cms::ReducerOptions o;
  o.modes.count = 1;
  cms::Reducer r(ws, o);
  cms::BuildOptions b;
  b.method = cms::Method::guyan;
  return r.build(b).K;
}

/// Independent averaging matrix of the XMAX face (the test's own least-squares fit).
MatrixXd face_average(const fe::Component& c, const std::vector<int>& nodes, const std::array<double, 3>& ref) {
  const auto& x = c.mesh().coords;
  Eigen::Matrix<double, 6, 6> A = Eigen::Matrix<double, 6, 6>::Zero();
  MatrixXd St(6, 3 * static_cast<Eigen::Index>(nodes.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Eigen::Vector3d d(x[nodes[i]][0] - ref[0], x[nodes[i]][1] - ref[1], x[nodes[i]][2] - ref[2]);
    Eigen::Matrix<double, 3, 6> S;
    S.leftCols<3>().setIdentity();
    S.rightCols<3>() << 0, d(2), -d(1), -d(2), 0, d(0), d(1), -d(0), 0; // u = t + θ × d = t − d̃ θ
    A += S.transpose() * S;
    St.middleCols(3 * static_cast<Eigen::Index>(i), 3) = S.transpose();
  }
  return A.inverse() * St;
}

} // namespace

TEST(Rbe3, AveragingMatrixReproducesRigidMotionAndTheMean) {
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, kFree);
  cms::WorkSpace ws(*comp, {{"XMAX", Kind::rbe3, std::nullopt, {}}});
  EXPECT_EQ(ws.n_boundary(), 6u);
  const MatrixXd& W = ws.rbe3_matrix(0);
  const auto& nodes = ws.interface_nodes(0);
  ASSERT_EQ(W.cols(), 3 * static_cast<Eigen::Index>(nodes.size()));
  const auto ref = ws.reference_point(0);
  // Rigid motions of the set about the reference point → exactly the reference motion.
  MatrixXd S(W.cols(), 6);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (int k = 0; k < 3; ++k) S.row(3 * static_cast<Eigen::Index>(i) + k) = cms::rigid_row(comp->mesh().coords[nodes[i]], k, ref);
  EXPECT_LT((W * S - MatrixXd::Identity(6, 6)).norm(), 1e-12);
  // The XMAX face is symmetric about its centroid: the reference translation is the mean.
  const double n = static_cast<double>(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i)
    EXPECT_LT((W.block(0, 3 * static_cast<Eigen::Index>(i), 3, 3) - Eigen::Matrix3d::Identity() / n).norm(), 1e-13);
  EXPECT_LT((W - face_average(*comp, nodes, ref)).norm(), 1e-10 * W.norm());
  EXPECT_NEAR(ref[0], 0.3, 1e-14);
  EXPECT_NEAR(ref[1], 0.05, 1e-14);
  EXPECT_NEAR(ref[2], 0.025, 1e-14);
  // Non-uniform weights move the default reference point to the weighted centroid.
  std::vector<double> w(comp->mesh().node_set("XMAX").size());
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = 1.0 + comp->mesh().coords[comp->mesh().node_set("XMAX")[k]][1];
  cms::WorkSpace wsw(*comp, {{"XMAX", Kind::rbe3, std::nullopt, w}});
  EXPECT_GT(wsw.reference_point(0)[1], 0.05 + 1e-6);
  MatrixXd Sw(W.cols(), 6);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (int k = 0; k < 3; ++k)
      Sw.row(3 * static_cast<Eigen::Index>(i) + k) = cms::rigid_row(comp->mesh().coords[nodes[i]], k, wsw.reference_point(0));
  EXPECT_LT((wsw.rbe3_matrix(0) * Sw - MatrixXd::Identity(6, 6)).norm(), 1e-12);
}

TEST(Rbe3, GuyanStiffnessIsTheInverseAveragedFlexibility) {
  MPI_Comm comm = MPI_COMM_WORLD;
  auto comp = test::component_from_yaml(comm, kClamped);
  cms::WorkSpace ws(*comp, {{"XMAX", Kind::rbe3, std::nullopt, {}}});
  const MatrixXd Kbar = guyan_at_xmax(Kind::rbe3, *comp);
  ASSERT_EQ(Kbar.rows(), 6);
  // Independent: F = W K⁻¹ Wᵀ with the clamped K factored by MUMPS.
  const auto& nodes = ws.interface_nodes(0);
  const MatrixXd W = face_average(*comp, nodes, ws.reference_point(0));
  const auto& d = comp->dofs();
  KspH ksp;
  FLEXUQ_PETSC(KSPCreate(comm, ksp.out()));
  FLEXUQ_PETSC(KSPSetOperators(ksp.get(), comp->K(), comp->K()));
  FLEXUQ_PETSC(KSPSetOptionsPrefix(ksp.get(), "rbe3test_"));
  la::SolverDefaults defaults;
  la::setup_mumps_cholesky(ksp.get(), "rbe3test_", defaults);
  const auto scope = defaults.apply();
  std::vector<VecH> rhs, sol;
  for (int j = 0; j < 6; ++j) {
    VecH b, x;
    FLEXUQ_PETSC(MatCreateVecs(comp->K(), x.out(), b.out()));
    FLEXUQ_PETSC(VecZeroEntries(b.get()));
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        const PetscInt g = d.node_dof(nodes[i]) + k;
        if (g >= d.begin() && g < d.end())
          FLEXUQ_PETSC(VecSetValue(b.get(), g, W(j, 3 * static_cast<Eigen::Index>(i) + k), INSERT_VALUES));
      }
    FLEXUQ_PETSC(VecAssemblyBegin(b.get()));
    FLEXUQ_PETSC(VecAssemblyEnd(b.get()));
    FLEXUQ_PETSC(KSPSolve(ksp.get(), b.get(), x.get()));
    rhs.push_back(std::move(b));
    sol.push_back(std::move(x));
  }
  Eigen::Matrix<double, 6, 6> F;
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b) FLEXUQ_PETSC(VecDot(rhs[a].get(), sol[b].get(), &F(a, b)));
  const MatrixXd Kref = F.inverse();
  EXPECT_LT((Kbar - Kref).norm(), 1e-9 * Kref.norm()) << "Guyan K̄ at the RBE3 node:\n" << Kbar << "\nvs (W K⁻¹ Wᵀ)⁻¹:\n" << Kref;

  // RBE2 restricts the face further: K̄_RBE2 ⪰ K̄_RBE3, and strictly stiffer somewhere.
  const MatrixXd K2 = guyan_at_xmax(Kind::rbe2, *comp);
  // Compare in a dimensionless basis (translations and rotations scaled by the bar's length).
  Eigen::VectorXd s(6);
  s << 1, 1, 1, 1 / 0.3, 1 / 0.3, 1 / 0.3;
  const MatrixXd D = s.asDiagonal() * (K2 - Kbar) * s.asDiagonal();
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(D);
  const double scale = (s.asDiagonal() * K2 * s.asDiagonal()).norm();
  EXPECT_GT(es.eigenvalues().minCoeff(), -1e-10 * scale);
  EXPECT_GT(es.eigenvalues().maxCoeff(), 1e-4 * scale);
}

TEST(Rbe3, FreeBodyBasisHonoursTheConstraintAndBoundsTheSpectrum) {
  MPI_Comm comm = MPI_COMM_WORLD;
  test::CmsFixture f(test::component_from_yaml(comm, kFree), test::interfaces({"XMIN", "XMAX"}, Kind::rbe3), 6);
  const auto& ws = *f.ws;
  auto& r = *f.red;
  EXPECT_EQ(ws.n_boundary(), 12u);
  cms::BuildOptions b;
  b.method = cms::Method::craig_bampton;
  const auto cb = r.build(b);
  ASSERT_EQ(cb.n_columns(), 18u);
  // Physical columns: W u_set = e_j for the reference columns of each interface, 0 otherwise.
  const MatrixXd U = f.physical_columns(cb.columns); // rows: node × 3 in input order
  for (std::size_t s = 0; s < 2; ++s) {
    const auto& nodes = ws.interface_nodes(s);
    MatrixXd Us(3 * static_cast<Eigen::Index>(nodes.size()), U.cols());
    for (std::size_t i = 0; i < nodes.size(); ++i) Us.middleRows(3 * static_cast<Eigen::Index>(i), 3) = U.middleRows(3 * nodes[i], 3);
    MatrixXd expect = MatrixXd::Zero(6, U.cols());
    expect.block(0, 6 * static_cast<Eigen::Index>(s), 6, 6).setIdentity();
    EXPECT_LT((ws.rbe3_matrix(s) * Us - expect).cwiseAbs().maxCoeff(), 1e-10) << "interface " << s;
  }
  // The reduced model keeps the 6 rigid modes; the check-out finds them and the mass properties.
  const auto chk = cms::checkout(r, cb, 6);
  EXPECT_LT(chk.rigid_residual.maxCoeff(), 1e-10);
  EXPECT_LT(chk.rigid_energy.maxCoeff(), 1e-10);
  EXPECT_NEAR(chk.reduced.mass, chk.full.mass, 1e-10 * chk.full.mass);
  ASSERT_EQ(chk.full_hz.size(), 6);
  for (Eigen::Index i = 0; i < 6; ++i) EXPECT_GE(chk.reduced_hz(i), chk.full_hz(i) * (1 - 1e-10));
  // Exactly 6 zero eigenvalues in the reduced model: the RBE3s add no stiffness and no constraint.
  const VectorXd e = gen_eigs(cb.K, cb.M);
  EXPECT_LT(std::abs(e(5)), 1e-8 * e(6));
  EXPECT_GT(e(6), 0);
}

TEST(Rbe3, OneRankEqualsAllRanks) {
  auto all = test::component_from_yaml(MPI_COMM_WORLD, kClamped);
  auto self = test::component_from_yaml(MPI_COMM_SELF, kClamped);
  const MatrixXd Ka = guyan_at_xmax(Kind::rbe3, *all);
  const MatrixXd Ks = guyan_at_xmax(Kind::rbe3, *self);
  EXPECT_LT((Ka - Ks).norm(), 1e-10 * Ks.norm());
}

TEST(Rbe3, InvariantsOfTheCondensedBasisMatchTheGeneralPath) {
  // compute_invariants (solids: from MΦ and local products) against the general lifting path, on a
  // basis mapped back through the RBE3 and RBE2 congruences; and the box's closed-form mass data.
  test::CmsFixture f(test::component_from_yaml(MPI_COMM_WORLD, kFree),
                     {{"XMIN", Kind::rbe2, std::nullopt, {}}, {"XMAX", Kind::rbe3, std::nullopt, {}}}, 4);
  const auto& ws = *f.ws;
  auto& r = *f.red;
  cms::BuildOptions b;
  b.method = cms::Method::craig_bampton;
  const auto cb = r.build(b);
  const auto fast = cms::compute_invariants(ws, cb);
  const auto ref = cms::compute_invariants_by_lifting(ws, cb);
  const double m = 7800 * 0.3 * 0.1 * 0.05;
  EXPECT_NEAR(fast.mass, m, 1e-12 * m);
  EXPECT_NEAR(ref.mass, m, 1e-12 * m);
  EXPECT_LT((fast.com - ref.com).norm(), 1e-13);
  EXPECT_LT((fast.inertia_origin - ref.inertia_origin).norm(), 1e-12 * ref.inertia_origin.norm());
  EXPECT_LT((fast.S - ref.S).norm(), 1e-12 * ref.S.norm());
  EXPECT_LT((fast.Sr - ref.Sr).norm(), 1e-12 * ref.Sr.norm());
  EXPECT_LT((fast.Sbar - ref.Sbar).norm(), 1e-12 * ref.Sbar.norm());
  EXPECT_LT((fast.Ikl - ref.Ikl).norm(), 1e-12 * ref.Ikl.norm());
  for (std::size_t q = 0; q < 9; ++q) EXPECT_LT((fast.Skl[q] - ref.Skl[q]).norm(), 1e-12 * ref.Skl[0].norm()) << q;
  EXPECT_LT((fast.Skl[0] + fast.Skl[4] + fast.Skl[8] - fast.Mff).norm(), 1e-10 * fast.Mff.norm());
  // Antisymmetry I5_kl = I5_lkᵀ (M symmetric).
  EXPECT_LT((fast.Skl[1] - fast.Skl[3].transpose()).norm(), 1e-12 * fast.Skl[0].norm());
}
