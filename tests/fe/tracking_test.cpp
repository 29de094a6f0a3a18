// SPDX-License-Identifier: MIT
// Mode tracking: swapped modes, sign flips, degenerate pairs handled as subspaces.
#include "flexuq/fe/ModeTracking.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq::fe;

TEST(ModeTracking, FollowsSwappedModesAndSigns) {
  // Reference modes 0,1,2; the sample has them in order 2,0,1 with mode 0 flipped.
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(3, 4);
  C(0, 1) = -0.99; C(0, 0) = 0.1;
  C(1, 2) = 0.98;
  C(2, 0) = 0.97;
  const auto t = track_modes(C, {0, 1, 2}, {1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(t.assignment, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(t.sign, (std::vector<int>{-1, 1, 1}));
  EXPECT_NEAR(t.mac[0], 0.99 * 0.99, 1e-15);
  EXPECT_NEAR(t.min_mac, 0.97 * 0.97, 1e-15);
}

TEST(ModeTracking, DegeneratePairIsASubspace) {
  // Reference modes 0 and 1 form a pair; the sample returns the pair rotated by 40° (any basis of
  // the plane is as good), in positions 1 and 2. Both must be captured fully, ordered by eigenvalue.
  const double a = 40.0 * M_PI / 180.0;
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(3, 3);
  C(0, 1) = std::cos(a); C(0, 2) = -std::sin(a);
  C(1, 1) = std::sin(a); C(1, 2) = std::cos(a);
  C(2, 0) = 1.0;
  const auto t = track_modes(C, {0, 0, 1}, {5.0, 1.0, 1.0 + 1e-9});
  EXPECT_EQ(t.assignment, (std::vector<int>{1, 2, 0}));
  EXPECT_NEAR(t.mac[0], 1.0, 1e-14);
  EXPECT_NEAR(t.mac[1], 1.0, 1e-14);
  EXPECT_NEAR(t.min_mac, 1.0, 1e-14);
  // Treated one by one, the rotated pair would have matched at MAC cos²(40°) = 0.59 only.
}

TEST(ModeTracking, ProcrustesMapsARotatedReflectedPairBack) {
  // Sample pair = reference pair rotated by 35° and one vector flipped: Φ_S = Φ_J Q, C_JS = Q.
  const double a = 35.0 * M_PI / 180.0;
  Eigen::Matrix2d Q;
  Q << std::cos(a), std::sin(a), std::sin(a), -std::cos(a); // a reflection
  const Eigen::MatrixXd R = procrustes_rotation(Q);
  EXPECT_LT((Q * R - Eigen::Matrix2d::Identity()).norm(), 1e-14); // Φ_S R = Φ_J Q R = Φ_J
  // A single mode with negative overlap: R is −1.
  Eigen::MatrixXd c(1, 1);
  c(0, 0) = -0.98;
  EXPECT_NEAR(procrustes_rotation(c)(0, 0), -1.0, 1e-15);
}
