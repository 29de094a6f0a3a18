// SPDX-License-Identifier: MIT
// MAC, principal angles, Procrustes alignment of a multiplet, eigenvalue multiplets: exact cases.
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/Subspace.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;

TEST(Subspace, MacIsInvariantToScaleAndSign) {
  const Eigen::Vector3d a(1, 2, 3), b(-2, -4, -6), c(3, 0, -1);
  EXPECT_NEAR(la::mac(a, b), 1.0, 1e-15);
  EXPECT_NEAR(la::mac(a, c), 0.0, 1e-15); // orthogonal
  EXPECT_NEAR(la::mac(a, Eigen::Vector3d(1, 0, 0)), 1.0 / 14.0, 1e-15);
  EXPECT_EQ(la::mac(a, Eigen::Vector3d::Zero()), 0.0);
  const Eigen::MatrixXd C = (Eigen::MatrixXd(2, 2) << 2, 0, 1, -3).finished();
  const Eigen::MatrixXd M = la::mac_matrix(C, Eigen::Vector2d(4, 1), Eigen::Vector2d(1, 9));
  EXPECT_NEAR(M(0, 0), 1.0, 1e-15);
  EXPECT_NEAR(M(1, 0), 1.0, 1e-15);
  EXPECT_NEAR(M(1, 1), 1.0, 1e-15);
  EXPECT_EQ(M(0, 1), 0.0);
}

TEST(Subspace, ProcrustesMapsARotatedReflectedPairBack) {
  // A degenerate pair Φ_S = Φ_J Q with Q a rotation by 0.7 rad composed with a reflection:
  // C_JS = Φ_Jᵀ Φ_S = Q, the alignment R must give Φ_S R = Φ_J, i.e. Q R = I.
  const double t = 0.7;
  Eigen::Matrix2d Q;
  Q << std::cos(t), std::sin(t), std::sin(t), -std::cos(t);
  const Eigen::MatrixXd R = la::procrustes_rotation(Q);
  EXPECT_LT((Q * R - Eigen::Matrix2d::Identity()).norm(), 1e-14);
  EXPECT_NEAR(la::procrustes_rotation(Eigen::MatrixXd::Constant(1, 1, -0.9))(0, 0), -1.0, 1e-15);
  // Same span: all principal cosines one; an orthogonal direction: zero.
  EXPECT_LT((la::principal_cosines(Q) - Eigen::Vector2d::Ones()).norm(), 1e-14);
  const Eigen::Vector2d c = la::principal_cosines((Eigen::MatrixXd(2, 2) << 1, 0, 0, 0).finished());
  EXPECT_DOUBLE_EQ(c(0), 1.0);
  EXPECT_DOUBLE_EQ(c(1), 0.0);
}

TEST(Clusters, MultipletsAndCompletion) {
  const std::vector<double> v{1.0, 2.0, 2.0 + 1e-9, 2.0 + 2e-9, 5.0, 5.0 * (1 + 1e-3)};
  const double tol = 1e-6;
  EXPECT_EQ(la::cluster_multiplicity(v, tol), (std::vector<int>{1, 3, 3, 3, 1, 1}));
  EXPECT_EQ(la::cluster_ids(v, tol), (std::vector<int>{0, 1, 1, 1, 2, 3}));
  EXPECT_EQ(la::cluster_multiplicity(v, 2e-3), (std::vector<int>{1, 3, 3, 3, 2, 2}));
  // Asking for 2 values returns the whole triplet; asking inside a complete prefix changes nothing.
  EXPECT_EQ(la::complete_multiplets(v, 2, tol), 4u);
  EXPECT_EQ(la::complete_multiplets(v, 1, tol), 1u);
  EXPECT_EQ(la::complete_multiplets(v, 5, tol), 5u);
  EXPECT_EQ(la::complete_multiplets(v, 5, 2e-3), 6u);
  EXPECT_EQ(la::complete_multiplets(v, 99, tol), v.size());
  EXPECT_EQ(la::complete_multiplets({}, 3, tol), 0u);
  EXPECT_TRUE(la::same_cluster(-1.0, -1.0 - 1e-9, tol));
  EXPECT_FALSE(la::same_cluster(0.0, 1e-30, tol));
  EXPECT_TRUE(la::same_cluster(0.0, 0.0, tol));
}
