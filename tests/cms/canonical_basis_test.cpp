// SPDX-License-Identifier: MIT
// Canonical bases (issue #38 leftover, docs/cms.md "Canonical signs and rigid columns"): what a CMS basis
// holds must not depend on the round-off of the solver that computed it, so that two runs, two rank
// counts or two forms of the same supports write the same datasets, signs included.
//  1. WorkSpace::canonical_sign on a 0.3 × 0.1 × 0.05 m box (8 × 2 × 2 hex8), its rigid modes about the
//     box's centre. r_z there is antisymmetric about x = 0.15: its largest entries are u_y = ∓0.15 at
//     x = 0 and x = 0.3, a tie that only round-off orders. By the rule (largest magnitude positive, ties
//     to the smallest position (x, y, z), then component) the entry at (0, 0, 0), u_y = −0.15, decides:
//     the result is −r_z. Likewise r_x (u_z = −0.05 at y = 0 decides: −r_x) and t_x (all entries 1: +t_x).
//     Perturbed by ±1e-10 relative (the run-to-run noise of 2-rank MUMPS, tests/app/
//     mesh_supports_reduce_test.sh) towards either side of the tie, the canonical sign stays (1e-9),
//     where the largest-entry rule of fe::normalize_sign alone gives opposite signs (asserted: the
//     defect the rule removes). canonical_sign(−v) = canonical_sign(v) for every vector.
//  2. cms::rigid_null_space: u_y fixed at nodes of the line x = 1, y = 0 (several z) leaves t_x, t_z,
//     r_y and the rotation about that line, r_z − t_y (u = e_z × (x − (1, 0, 0))): derived by hand,
//     Z = [e_tx, e_tz, e_ry, e_rz − e_ty], picks {tx, tz, ry, rz}, to 1e-12. The same Z from the rows
//     reversed and scaled and from the base rotated (a 6 × 6 orthogonal mix of the rigid modes): the
//     columns are normalised on the picked rigid coordinates (Z(picks, :) = 1), a rule independent of
//     the SVD's rotation of the null space.
//  3. Degenerate multiplets (WorkSpace::canonical_multiplets): see the test below.
// Runs on 1 and 2 ranks with the same expectations (the rule is of the geometry, not the partition).
#include "CmsTestUtil.hpp"

#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/fe/Modes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace flexuq;

namespace {

const MPI_Comm kComm = MPI_COMM_WORLD;

VecH copy(Vec v) {
  VecH out;
  FLEXUQ_PETSC(VecDuplicate(v, out.out()));
  FLEXUQ_PETSC(VecCopy(v, out.get()));
  return out;
}

/// ‖a − s b‖_∞ / ‖b‖_∞ over every rank.
double distance(Vec a, Vec b, double s) {
  PetscInt n = 0;
  FLEXUQ_PETSC(VecGetLocalSize(a, &n));
  const PetscScalar *x = nullptr, *y = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(a, &x));
  FLEXUQ_PETSC(VecGetArrayRead(b, &y));
  double m[2] = {0, 0}; // max |a − s b|, max |b|
  for (PetscInt i = 0; i < n; ++i) m[0] = std::max(m[0], std::abs(x[i] - s * y[i])), m[1] = std::max(m[1], std::abs(y[i]));
  FLEXUQ_PETSC(VecRestoreArrayRead(a, &x));
  FLEXUQ_PETSC(VecRestoreArrayRead(b, &y));
  MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_MAX, kComm);
  return m[0] / m[1];
}

} // namespace

TEST(CmsCanonicalBasis, SignIsARuleOfTheGeometry) {
  auto comp = test::component_from_yaml(kComm, test::steel_box_yaml());
  cms::WorkSpace ws(*comp, test::interfaces({"XMIN"}));
  const auto R = ws.rigid_modes({0.15, 0.05, 0.025}); // tx ty tz rx ry rz about the box's centre
  // Closed form: t_x keeps its sign, r_x and r_z flip (see the header).
  const std::pair<int, double> expected[] = {{0, 1.0}, {3, -1.0}, {5, -1.0}};
  for (const auto& [j, s] : expected) {
    SCOPED_TRACE(j);
    const Vec r = R[static_cast<std::size_t>(j)].get();
    std::vector<VecH> vs;
    vs.push_back(copy(r));
    vs.push_back(copy(r));
    FLEXUQ_PETSC(VecScale(vs[1].get(), -1.0));
    ws.canonical_sign(vs);
    EXPECT_EQ(distance(vs[0].get(), r, s), 0.0);
    EXPECT_EQ(distance(vs[1].get(), r, s), 0.0);
  }
  // r_z perturbed by ±ε t_y d: |u_y| at x = 0.3 exceeds the one at x = 0 by 2εd/0.15 relative (or
  // falls short of it): 1e-10 either way.
  const double eps = 1e-10, d = 0.075;
  std::vector<VecH> canon, old;
  for (double side : {1.0, -1.0})
    for (double flip : {1.0, -1.0}) {
      VecH v = copy(R[5].get());
      FLEXUQ_PETSC(VecAXPY(v.get(), side * eps * d, R[1].get()));
      FLEXUQ_PETSC(VecScale(v.get(), flip));
      old.push_back(copy(v.get()));
      canon.push_back(std::move(v));
    }
  ws.canonical_sign(canon);
  for (const auto& v : canon) EXPECT_LT(distance(v.get(), R[5].get(), -1.0), 1e-9);
  for (const auto& v : old) fe::normalize_sign(v.get());
  // The largest-entry rule alone: +r_z on one side of the tie, −r_z on the other.
  EXPECT_LT(distance(old[0].get(), R[5].get(), 1.0), 1e-9);
  EXPECT_LT(distance(old[2].get(), R[5].get(), -1.0), 1e-9);
}

TEST(CmsCanonicalBasis, RigidNullSpaceOfASupportLineInClosedForm) {
  // u_y = 0 at (1, 0, z), z = 0, 0.4, 1.3: u_y = t_y − z r_x + r_z (rigid_row about the origin).
  Eigen::MatrixXd rows(3, 6);
  const double zs[] = {0.0, 0.4, 1.3};
  for (int i = 0; i < 3; ++i) rows.row(i) = cms::rigid_row({1.0, 0.0, zs[i]}, 1, {0, 0, 0});
  Eigen::MatrixXd Zx = Eigen::MatrixXd::Zero(6, 4);
  Zx(0, 0) = 1;                // t_x
  Zx(2, 1) = 1;                // t_z
  Zx(4, 2) = 1;                // r_y
  Zx(5, 3) = 1, Zx(1, 3) = -1; // r_z about the line x = 1, y = 0: t = −e_z × (1, 0, 0) = −e_y
  const std::vector<int> picks{0, 2, 4, 5};
  const auto a = cms::rigid_null_space(rows, Eigen::MatrixXd::Identity(6, 6));
  ASSERT_EQ(a.Z.cols(), 4);
  EXPECT_EQ(a.picks, picks);
  EXPECT_LT((a.Z - Zx).cwiseAbs().maxCoeff(), 1e-12);
  // Rows reversed and scaled, the base a rotated mix of the six rigid modes: the same Z.
  Eigen::MatrixXd rev = rows.colwise().reverse();
  rev.row(0) *= 3.0;
  const Eigen::MatrixXd G = (Eigen::MatrixXd(6, 6) << 2, 1, 0, 0, 1, 0, 1, 3, 1, 0, 0, 1, 0, 1, 4, 1, 0, 0, 0, 0, 1, 5,
                             1, 0, 1, 0, 0, 1, 6, 1, 0, 1, 0, 0, 1, 7)
                                .finished();
  const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(G).householderQ();
  const auto b = cms::rigid_null_space(rev, Q);
  ASSERT_EQ(b.Z.cols(), 4);
  EXPECT_EQ(b.picks, picks);
  EXPECT_LT((b.Z - Zx).cwiseAbs().maxCoeff(), 1e-12);
}

// 3. WorkSpace::canonical_multiplets on a square-section bar 0.3 × 0.04 × 0.04 m (8 × 2 × 2 hex8, XMIN
//    clamped: Craig–Bampton's fixed-interface modes): its first bending pair is degenerate (the section's
//    y ↔ z symmetry), so the eigensolver's basis inside it is arbitrary. The rule: Φ_Jᵀ M W_J upper
//    triangular with a positive diagonal (W_J the probe fields), checked to 1e-10; the pair rotated by
//    any angle and either sign the solver could have returned comes back to the same basis (1e-10).
TEST(CmsCanonicalBasis, MultipletBasisIsIndependentOfTheSolversRotation) {
  test::CmsFixture f(test::component_from_yaml(kComm, "\nmodel:\n  generator: {type: box, size: [0.3, 0.04, 0.04], "
                                                      "cells: [8, 2, 2], order: 1}\n  material: {E: 2.0e11, nu: 0.3, rho: 7800}\n"),
                     test::interfaces({"XMIN"}), 2);
  const auto& fm = f.red->fixed_modes();
  ASSERT_GE(fm.vectors.size(), 2u);
  const double l0 = fm.eigenvalues[0], l1 = fm.eigenvalues[1];
  ASSERT_LE(std::abs(l1 - l0), cms::WorkSpace::kMultipletTol * l0); // a degenerate pair (precondition)
  const Vec p0 = fm.vectors[0].get(), p1 = fm.vectors[1].get();
  Eigen::Matrix2d G;
  VecH Mw = f.ws->new_vector();
  for (int b = 0; b < 2; ++b) {
    const VecH w = cms::probe_field(*f.ws, b);
    FLEXUQ_PETSC(MatMult(f.ws->M(), w.get(), Mw.get()));
    for (int a = 0; a < 2; ++a) FLEXUQ_PETSC(VecDot(Mw.get(), fm.vectors[static_cast<std::size_t>(a)].get(), &G(a, b)));
  }
  EXPECT_LE(std::abs(G(1, 0)), 1e-10 * G.cwiseAbs().maxCoeff());
  EXPECT_GT(G(0, 0), 0.0);
  EXPECT_GT(G(1, 1), 0.0);
  for (double angle : {0.3, 2.0, -1.1})
    for (double flip : {1.0, -1.0}) {
      SCOPED_TRACE(angle * flip);
      std::vector<VecH> v;
      v.push_back(f.ws->new_vector());
      v.push_back(f.ws->new_vector());
      const double c = std::cos(angle), s = std::sin(angle);
      FLEXUQ_PETSC(VecAXPY(v[0].get(), c, p0));
      FLEXUQ_PETSC(VecAXPY(v[0].get(), s, p1));
      FLEXUQ_PETSC(VecAXPY(v[1].get(), -flip * s, p0));
      FLEXUQ_PETSC(VecAXPY(v[1].get(), flip * c, p1));
      f.ws->canonical_multiplets(v, {l0, l1});
      EXPECT_LT(distance(v[0].get(), p0, 1.0), 1e-10);
      EXPECT_LT(distance(v[1].get(), p1, 1.0), 1e-10);
    }
}
