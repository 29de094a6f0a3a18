// SPDX-License-Identifier: MIT
// la::same_nonzero_pattern / axpy_structure (issue #38): two AIJ matrices preallocated and filled on one
// stencil (a 1-D chain with neighbours at ±1 and ±2, split over the ranks so that the off-diagonal blocks
// are nonempty) store the same pattern; one more entry, a missing entry, another layout, another type or
// another size do not. For the same pattern, K − σM formed with SAME_NONZERO_PATTERN equals, entry by
// entry to one rounding (BLAS may fuse the multiply-add), the sum formed with UNKNOWN_NONZERO_PATTERN (PETSc's MatSetValues path on MPIAIJ)
// and the closed form k_ij − σ m_ij of the two stencils.
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/MatPattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace flexuq;

namespace {

constexpr PetscInt kN = 41;

double k_entry(PetscInt i, PetscInt j) { return i == j ? 6.0 + 0.01 * static_cast<double>(i) : -1.0 / (1.0 + std::abs(static_cast<double>(i - j))); }
double m_entry(PetscInt i, PetscInt j) { return i == j ? 0.3 : 0.05 / static_cast<double>(1 + std::abs(i - j)) + 1e-3 * static_cast<double>(i % 7); }

/// The ±2 chain with values f; `extra` adds (0, kN − 1) and (kN − 1, 0); `drop` leaves out (1, 3), (3, 1).
MatH chain(double (*f)(PetscInt, PetscInt), bool extra = false, bool drop = false, PetscInt local = PETSC_DECIDE) {
  MatH A;
  FLEXUQ_PETSC(MatCreateAIJ(MPI_COMM_WORLD, local, local, kN, kN, 6, nullptr, 6, nullptr, A.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  for (PetscInt i = lo; i < hi; ++i)
    for (PetscInt j = std::max<PetscInt>(0, i - 2); j <= std::min<PetscInt>(kN - 1, i + 2); ++j) {
      if (drop && ((i == 1 && j == 3) || (i == 3 && j == 1))) continue;
      FLEXUQ_PETSC(MatSetValue(A.get(), i, j, f(i, j), INSERT_VALUES));
    }
  if (extra) {
    if (lo == 0) FLEXUQ_PETSC(MatSetValue(A.get(), 0, kN - 1, 1e-3, INSERT_VALUES));
    if (hi == kN) FLEXUQ_PETSC(MatSetValue(A.get(), kN - 1, 0, 1e-3, INSERT_VALUES));
  }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

int ranks() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

} // namespace

TEST(MatPattern, OneStencilIsTheSamePattern) {
  MatH K = chain(k_entry), M = chain(m_entry);
  EXPECT_TRUE(la::same_nonzero_pattern(K.get(), M.get()));
  EXPECT_TRUE(la::same_nonzero_pattern(K.get(), K.get()));
  EXPECT_EQ(la::axpy_structure(K.get(), M.get(), UNKNOWN_NONZERO_PATTERN), SAME_NONZERO_PATTERN);
}

TEST(MatPattern, DifferentPatternsAreNot) {
  MatH K = chain(k_entry), more = chain(m_entry, true), fewer = chain(m_entry, false, true);
  EXPECT_FALSE(la::same_nonzero_pattern(K.get(), more.get()));
  EXPECT_FALSE(la::same_nonzero_pattern(more.get(), K.get()));
  EXPECT_FALSE(la::same_nonzero_pattern(K.get(), fewer.get()));
  EXPECT_EQ(la::axpy_structure(K.get(), fewer.get(), SUBSET_NONZERO_PATTERN), SUBSET_NONZERO_PATTERN);
  // Another row layout (on 2 ranks: 30 + 11 rows against PETSc's 21 + 20), another size, another type.
  if (ranks() == 2) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MatH moved = chain(m_entry, false, false, rank == 0 ? 30 : kN - 30);
    EXPECT_FALSE(la::same_nonzero_pattern(K.get(), moved.get()));
  }
  MatH small;
  FLEXUQ_PETSC(MatCreateAIJ(MPI_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, kN - 1, kN - 1, 1, nullptr, 0, nullptr, small.out()));
  FLEXUQ_PETSC(MatAssemblyBegin(small.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(small.get(), MAT_FINAL_ASSEMBLY));
  EXPECT_FALSE(la::same_nonzero_pattern(K.get(), small.get()));
  MatH dense;
  FLEXUQ_PETSC(MatConvert(K.get(), MATDENSE, MAT_INITIAL_MATRIX, dense.out()));
  EXPECT_FALSE(la::same_nonzero_pattern(K.get(), dense.get()));
}

TEST(MatPattern, TheShiftOnTheValueArraysEqualsPetscsGeneralPath) {
  const double sigma = -3.7e2;
  MatH K = chain(k_entry), M = chain(m_entry), fast, general;
  FLEXUQ_PETSC(MatDuplicate(K.get(), MAT_COPY_VALUES, fast.out()));
  FLEXUQ_PETSC(MatAXPY(fast.get(), -sigma, M.get(), la::axpy_structure(K.get(), M.get(), UNKNOWN_NONZERO_PATTERN)));
  FLEXUQ_PETSC(MatDuplicate(K.get(), MAT_COPY_VALUES, general.out()));
  FLEXUQ_PETSC(MatAXPY(general.get(), -sigma, M.get(), UNKNOWN_NONZERO_PATTERN));
  EXPECT_TRUE(la::same_nonzero_pattern(fast.get(), general.get()));
  PetscInt lo = 0, hi = 0, checked = 0;
  double worst = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(K.get(), &lo, &hi));
  for (PetscInt i = lo; i < hi; ++i)
    for (PetscInt j = std::max<PetscInt>(0, i - 2); j <= std::min<PetscInt>(kN - 1, i + 2); ++j) {
      PetscScalar a = 0, b = 0;
      FLEXUQ_PETSC(MatGetValues(fast.get(), 1, &i, 1, &j, &a));
      FLEXUQ_PETSC(MatGetValues(general.get(), 1, &i, 1, &j, &b));
      // y + a·x: one or two roundings (BLAS axpy may fuse the multiply-add, MatSetValues adds a·x rounded).
      const double exact = k_entry(i, j) + (-sigma) * m_entry(i, j);
      const double ulp = 2 * DBL_EPSILON * (std::abs(k_entry(i, j)) + std::abs(sigma * m_entry(i, j)));
      EXPECT_LE(std::abs(a - b), ulp) << i << "," << j;
      EXPECT_LE(std::abs(a - exact), ulp) << i << "," << j;
      worst = std::max(worst, std::abs(a - b));
      ++checked;
    }
  EXPECT_GT(checked, 0);
  std::printf("shift: %d entries, largest difference between the two paths %.3g\n", static_cast<int>(checked), worst);
}
