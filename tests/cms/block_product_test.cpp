// SPDX-License-Identifier: MIT
// BlockProduct (row-major sparse × dense block, ghost rows through a PetscSF) against MatMult column
// by column on the assembled stiffness of a box, and project_pair against per-column products.
#include "FeTestUtil.hpp"

#include "flexuq/cms/BlockProduct.hpp"
#include "flexuq/cms/Reduction.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace flexuq;

TEST(BlockProduct, EqualsColumnByColumnMatMult) {
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 3, 2], order: 2}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
  fixed: [XMIN]
)");
  Mat K = comp->K();
  ASSERT_TRUE(cms::BlockProduct::supports(K));
  cms::BlockProduct bp(K);
  const PetscInt n = bp.local_rows(), b = 7;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::mt19937 gen(17 + static_cast<unsigned>(rank));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> X(static_cast<std::size_t>(n * b)), Y(X.size());
  for (auto& x : X) x = u(gen);
  bp.apply(X.data(), b, Y.data());
  VecH x, y;
  FLEXUQ_PETSC(MatCreateVecs(K, x.out(), y.out()));
  double err = 0, scale = 0;
  for (PetscInt j = 0; j < b; ++j) {
    PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArray(x.get(), &a));
    for (PetscInt r = 0; r < n; ++r) a[r] = X[static_cast<std::size_t>(r * b + j)];
    FLEXUQ_PETSC(VecRestoreArray(x.get(), &a));
    FLEXUQ_PETSC(MatMult(K, x.get(), y.get()));
    const PetscScalar* c = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(y.get(), &c));
    for (PetscInt r = 0; r < n; ++r) {
      err = std::max(err, std::abs(c[r] - Y[static_cast<std::size_t>(r * b + j)]));
      scale = std::max(scale, std::abs(c[r]));
    }
    FLEXUQ_PETSC(VecRestoreArrayRead(y.get(), &c));
  }
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  EXPECT_LT(err, 1e-13 * scale);

  // project_pair (blocks of 64, upper triangle, DGEMM) against per-column dot products, 70 columns.
  std::vector<VecH> cols;
  for (int j = 0; j < 70; ++j) {
    VecH v;
    FLEXUQ_PETSC(VecDuplicate(x.get(), v.out()));
    PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArray(v.get(), &a));
    for (PetscInt r = 0; r < n; ++r) a[r] = u(gen);
    FLEXUQ_PETSC(VecRestoreArray(v.get(), &a));
    cols.push_back(std::move(v));
  }
  const auto [KK, MM] = cms::project_pair(K, comp->M(), cols);
  double e2 = 0;
  for (int j = 0; j < 70; j += 13)
    for (int i = 0; i < 70; i += 11) {
      FLEXUQ_PETSC(MatMult(K, cols[static_cast<std::size_t>(j)].get(), y.get()));
      PetscScalar d = 0;
      FLEXUQ_PETSC(VecDot(y.get(), cols[static_cast<std::size_t>(i)].get(), &d));
      e2 = std::max(e2, std::abs(d - KK(i, j)) / KK.cwiseAbs().maxCoeff());
    }
  EXPECT_LT(e2, 1e-12);
  EXPECT_LT((KK - KK.transpose()).norm(), 1e-14 * KK.norm());
  EXPECT_GT(MM.norm(), 0);
}
