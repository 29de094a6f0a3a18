// SPDX-License-Identifier: MIT
// BlockProduct (row-major sparse × dense block, ghost rows through a PetscSF) against MatMult column
// by column, and project_pair against per-column products, on a random symmetric AIJ matrix whose
// couplings cross every rank boundary.
#include "flexuq/core/Error.hpp"
#include "flexuq/la/BlockProduct.hpp"
#include "flexuq/la/Guards.hpp"
#include "flexuq/la/Projection.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace flexuq;

namespace {
/// Symmetric N × N AIJ: a diagonal, the ±1 and ±N/3 off-diagonals with values from a fixed seed
/// (the same matrix on any rank count).
MatH random_symmetric(MPI_Comm comm, PetscInt N) {
  MatH A;
  FLEXUQ_PETSC(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, N, N, 5, nullptr, 5, nullptr, A.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  auto value = [](PetscInt i, PetscInt j) { // symmetric, deterministic
    const PetscInt a = std::min(i, j), b = std::max(i, j);
    return std::sin(1.0 + 0.37 * static_cast<double>(a) + 0.11 * static_cast<double>(b));
  };
  for (PetscInt i = lo; i < hi; ++i)
    for (PetscInt d : {PetscInt(0), PetscInt(1), -PetscInt(1), N / 3, -(N / 3)}) {
      const PetscInt j = i + d;
      if (j < 0 || j >= N) continue;
      FLEXUQ_PETSC(MatSetValue(A.get(), i, j, d == 0 ? 4.0 + value(i, i) : value(i, j), INSERT_VALUES));
    }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}
} // namespace

TEST(BlockProduct, EqualsColumnByColumnMatMult) {
  MatH Kh = random_symmetric(MPI_COMM_WORLD, 301), Mh = random_symmetric(MPI_COMM_WORLD, 301);
  Mat K = Kh.get();
  ASSERT_TRUE(la::BlockProduct::supports(K));
  la::BlockProduct bp(K);
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
    {
      la::VecWriteArray a(x.get(), true);
      for (PetscInt r = 0; r < n; ++r) a[r] = X[static_cast<std::size_t>(r * b + j)];
    }
    FLEXUQ_PETSC(MatMult(K, x.get(), y.get()));
    const la::VecReadArray c(y.get());
    for (PetscInt r = 0; r < n; ++r) {
      err = std::max(err, std::abs(c[r] - Y[static_cast<std::size_t>(r * b + j)]));
      scale = std::max(scale, std::abs(c[r]));
    }
  }
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  EXPECT_LT(err, 1e-13 * scale);

  // project_pair (blocks of 64, upper triangle, DGEMM) against per-column dot products, 70 columns.
  std::vector<VecH> cols;
  for (int j = 0; j < 70; ++j) {
    VecH v;
    FLEXUQ_PETSC(VecDuplicate(x.get(), v.out()));
    la::VecWriteArray a(v.get());
    for (auto& e : a) e = u(gen);
    cols.push_back(std::move(v));
  }
  const auto [KK, MM] = la::project_pair(K, Mh.get(), cols);
  double e2 = 0, e3 = 0;
  for (int j = 0; j < 70; j += 13)
    for (int i = 0; i < 70; i += 11) {
      PetscScalar d = 0;
      FLEXUQ_PETSC(MatMult(K, cols[static_cast<std::size_t>(j)].get(), y.get()));
      FLEXUQ_PETSC(VecDot(y.get(), cols[static_cast<std::size_t>(i)].get(), &d));
      e2 = std::max(e2, std::abs(d - KK(i, j)) / KK.cwiseAbs().maxCoeff());
      FLEXUQ_PETSC(MatMult(Mh.get(), cols[static_cast<std::size_t>(j)].get(), y.get()));
      FLEXUQ_PETSC(VecDot(y.get(), cols[static_cast<std::size_t>(i)].get(), &d));
      e3 = std::max(e3, std::abs(d - MM(i, j)) / MM.cwiseAbs().maxCoeff());
    }
  EXPECT_LT(e2, 1e-12);
  EXPECT_LT(e3, 1e-12);
  EXPECT_LT((KK - KK.transpose()).norm(), 1e-14 * KK.norm());
  EXPECT_LT((la::project(K, cols) - KK).norm(), 1e-14 * KK.norm());
}

TEST(Guards, RestoreWhenAnExceptionLeavesTheScope) {
  VecH v;
  FLEXUQ_PETSC(VecCreateMPI(MPI_COMM_WORLD, 5, PETSC_DECIDE, v.out()));
  FLEXUQ_PETSC(VecSet(v.get(), 1.0));
  try {
    la::VecWriteArray a(v.get());
    a[0] = 3.0;
    throw Error("thrown while the array is out");
  } catch (const Error&) {
  }
  // The array went back: a second Get works and sees the write; VecNorm would fail on a locked Vec.
  PetscReal nrm = 0;
  FLEXUQ_PETSC(VecNorm(v.get(), NORM_INFINITY, &nrm));
  EXPECT_DOUBLE_EQ(nrm, 3.0);
  {
    const la::VecReadArray r(v.get());
    EXPECT_DOUBLE_EQ(r[0], 3.0);
    EXPECT_EQ(r.size(), 5);
  }
  MatH D;
  FLEXUQ_PETSC(MatCreateDense(MPI_COMM_WORLD, 5, PETSC_DECIDE, PETSC_DECIDE, 2, nullptr, D.out()));
  FLEXUQ_PETSC(MatZeroEntries(D.get()));
  try {
    la::DenseColumn c(D.get(), 1, la::DenseColumn::Access::write);
    FLEXUQ_PETSC(VecSet(c.get(), 2.0));
    throw Error("thrown while the column is out");
  } catch (const Error&) {
  }
  FLEXUQ_PETSC(MatAssemblyBegin(D.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(D.get(), MAT_FINAL_ASSEMBLY));
  PetscReal fro = 0;
  FLEXUQ_PETSC(MatNorm(D.get(), NORM_FROBENIUS, &fro));
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_NEAR(fro, 2.0 * std::sqrt(5.0 * size), 1e-14);
  {
    la::DenseColumn c(D.get(), 0, la::DenseColumn::Access::read);
    PetscReal c0 = 1;
    FLEXUQ_PETSC(VecNorm(c.get(), NORM_2, &c0));
    EXPECT_EQ(c0, 0.0);
  }
}
