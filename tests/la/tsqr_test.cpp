// SPDX-License-Identifier: MIT
// TSQR and thin SVD of row-distributed tall matrices against a direct SVD of the whole matrix
// (seed-001 A14), the left singular vectors, and independence of the rank count.
#include "flexuq/core/Error.hpp"
#include "flexuq/la/Tsqr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace flexuq;

namespace {
std::pair<int, int> block(MPI_Comm c, int n) {
  int r = 0, s = 1;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &s);
  return {n * r / s, n * (r + 1) / s};
}

/// Tall random matrix with column scales over 7 decades.
Eigen::MatrixXd scaled_random(int n, int nc, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> g;
  Eigen::MatrixXd A(n, nc);
  for (int j = 0; j < nc; ++j)
    for (int i = 0; i < n; ++i) A(i, j) = g(gen) * std::pow(10.0, -0.5 * j);
  return A;
}
} // namespace

TEST(Tsqr, A14ThinSvdEqualsDirectSvd) {
  const int n = 301, nc = 15;
  const Eigen::MatrixXd A = scaled_random(n, nc, 20);
  const auto [b, e] = block(MPI_COMM_WORLD, n);
  const auto s = la::thin_svd(MPI_COMM_WORLD, A.middleRows(b, e - b));
  Eigen::JacobiSVD<Eigen::MatrixXd> ref(A, Eigen::ComputeThinV);
  ASSERT_EQ(s.sigma.size(), nc);
  EXPECT_EQ(s.U_local.size(), 0); // not requested
  for (int i = 0; i < nc; ++i) {
    EXPECT_NEAR(s.sigma(i), ref.singularValues()(i), 1e-13 * ref.singularValues()(0)) << i;
    EXPECT_NEAR(std::abs(s.V.col(i).dot(ref.matrixV().col(i))), 1.0, 1e-10) << i;
  }
  // Also when some ranks hold fewer rows than columns.
  const auto [b2, e2] = block(MPI_COMM_WORLD, 20);
  const auto s2 = la::thin_svd(MPI_COMM_WORLD, A.topRows(20).middleRows(b2, e2 - b2));
  Eigen::JacobiSVD<Eigen::MatrixXd> ref2(A.topRows(20));
  for (int i = 0; i < nc; ++i) EXPECT_NEAR(s2.sigma(i), ref2.singularValues()(i), 1e-13 * ref2.singularValues()(0));
}

TEST(Tsqr, RIsTheCholeskyFactorOfTheGram) {
  // RᵀR = AᵀA exactly (up to round-off), on every rank, whatever the row split.
  const int n = 97, nc = 6;
  const Eigen::MatrixXd A = scaled_random(n, nc, 5);
  const auto [b, e] = block(MPI_COMM_WORLD, n);
  const Eigen::MatrixXd R = la::tsqr(MPI_COMM_WORLD, A.middleRows(b, e - b));
  ASSERT_EQ(R.rows(), nc);
  EXPECT_LT((R.transpose() * R - A.transpose() * A).norm(), 1e-13 * (A.transpose() * A).norm());
  EXPECT_DOUBLE_EQ(R.triangularView<Eigen::StrictlyLower>().toDenseMatrix().norm(), 0.0);
}

TEST(Tsqr, LeftSingularVectorsReconstructAndAreOrthonormal) {
  const int n = 120, nc = 8;
  const Eigen::MatrixXd A = scaled_random(n, nc, 7);
  const auto [b, e] = block(MPI_COMM_WORLD, n);
  const Eigen::MatrixXd Aloc = A.middleRows(b, e - b);
  const auto s = la::thin_svd(MPI_COMM_WORLD, Aloc, true);
  ASSERT_EQ(s.U_local.rows(), Aloc.rows());
  ASSERT_EQ(s.U_local.cols(), nc);
  // UᵀU = I over all ranks, and U Σ Vᵀ = A on this rank's rows.
  Eigen::MatrixXd G = s.U_local.transpose() * s.U_local;
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, G.data(), static_cast<int>(G.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_LT((G - Eigen::MatrixXd::Identity(nc, nc)).norm(), 1e-13);
  const Eigen::MatrixXd back = s.U_local * s.sigma.asDiagonal() * s.V.transpose();
  EXPECT_LT((back - Aloc).norm(), 1e-13 * A.norm());
  // u_i = A v_i / σ_i for the well-separated leading value.
  const Eigen::VectorXd u0 = Aloc * s.V.col(0) / s.sigma(0);
  EXPECT_LT((u0 - s.U_local.col(0)).norm(), 1e-13);
}

TEST(Tsqr, SameResultOnOneRankAndOnAll) {
  // Signs are fixed, so V itself (not only its span) agrees between rank counts.
  const int n = 64, nc = 5;
  const Eigen::MatrixXd A = scaled_random(n, nc, 11);
  const auto [b, e] = block(MPI_COMM_WORLD, n);
  const auto sw = la::thin_svd(MPI_COMM_WORLD, A.middleRows(b, e - b));
  const auto ss = la::thin_svd(MPI_COMM_SELF, A);
  EXPECT_LT((sw.sigma - ss.sigma).norm(), 1e-13 * ss.sigma(0));
  EXPECT_LT((sw.V - ss.V).norm(), 1e-10);
}

TEST(Tsqr, EmptyAndMismatchedColumns) {
  const auto s = la::thin_svd(MPI_COMM_WORLD, Eigen::MatrixXd(3, 0), true);
  EXPECT_EQ(s.sigma.size(), 0);
  EXPECT_EQ(s.U_local.rows(), 3);
  EXPECT_EQ(s.U_local.cols(), 0);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) {
    EXPECT_THROW(la::tsqr(MPI_COMM_WORLD, Eigen::MatrixXd::Ones(4, 2 + rank)), Error);
  }
}

TEST(Tsqr, ConditionNumber) {
  EXPECT_DOUBLE_EQ(la::condition_number(Eigen::Vector3d(4, 2, 0.5)), 8.0);
  EXPECT_TRUE(std::isinf(la::condition_number(Eigen::Vector2d(1, 0))));
  EXPECT_TRUE(std::isnan(la::condition_number(Eigen::VectorXd(0))));
}
