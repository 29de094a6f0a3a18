// SPDX-License-Identifier: MIT
// linear_solver.out_of_core (issue #38 item 3): MUMPS's out-of-core factors (ICNTL(22) 1) give the same
// solutions as the in-core factors, for one right-hand side (KSPSolve, Krylov–Schur's solves) and for a
// block of 8 (KSPMatSolve, the block eigensolver's), to round-off, with less memory in core (MUMPS's
// INFOG(22)); shift-and-invert Krylov–Schur on the out-of-core factor finds the closed-form eigenvalues
// of the 7-point Laplacian on a 10³ grid with Dirichlet ends (4 Σ sin²(kπ / 22) per direction) to 1e-10;
// 1 and 2 ranks; the key's values are false and true.
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/MumpsOutOfCore.hpp"
#include "flexuq/la/Solvers.hpp"
#include "sinvert_eps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

using namespace flexuq;

namespace {

constexpr PetscInt kN = 20;    // grid points per direction (the solves)
constexpr PetscInt kNEig = 10; // and of the eigenproblem's grid, kept small: out-of-core solves are slow
constexpr PetscInt kCols = 8;

/// The 7-point Laplacian on an N³ grid, Dirichlet boundary (stencil offsets in x, y, z).
MatH grid_laplacian(MPI_Comm comm, PetscInt N) {
  const PetscInt n = N * N * N;
  MatH A;
  FLEXUQ_PETSC(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, n, n, 7, nullptr, 6, nullptr, A.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  const std::array<PetscInt, 3> stride{1, N, N * N};
  for (PetscInt row = lo; row < hi; ++row) {
    FLEXUQ_PETSC(MatSetValue(A.get(), row, row, 6.0, INSERT_VALUES));
    for (std::size_t d = 0; d < 3; ++d) {
      const PetscInt c = (row / stride[d]) % N; // this point's index along direction d
      if (c > 0) FLEXUQ_PETSC(MatSetValue(A.get(), row, row - stride[d], -1.0, INSERT_VALUES));
      if (c + 1 < N) FLEXUQ_PETSC(MatSetValue(A.get(), row, row + stride[d], -1.0, INSERT_VALUES));
    }
  }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

/// A MUMPS Cholesky KSP set up by la::setup_mumps_cholesky under the process-wide choice.
struct Factored {
  KspH ksp;
  Mat F = nullptr;
  PetscInt icntl22 = -1, infog22 = -1; ///< out-of-core flag; MUMPS memory used, summed over ranks [MB]
};

Factored factor(Mat A, const std::string& prefix) {
  Factored out;
  FLEXUQ_PETSC(KSPCreate(PetscObjectComm(reinterpret_cast<PetscObject>(A)), out.ksp.out()));
  FLEXUQ_PETSC(KSPSetOptionsPrefix(out.ksp.get(), prefix.c_str()));
  FLEXUQ_PETSC(KSPSetOperators(out.ksp.get(), A, A));
  la::SolverDefaults defaults;
  la::setup_mumps_cholesky(out.ksp.get(), prefix, defaults);
  const auto scope = defaults.apply();
  FLEXUQ_PETSC(KSPSetFromOptions(out.ksp.get()));
  FLEXUQ_PETSC(KSPSetUp(out.ksp.get()));
  PC pc = nullptr;
  FLEXUQ_PETSC(KSPGetPC(out.ksp.get(), &pc));
  FLEXUQ_PETSC(PCFactorGetMatrix(pc, &out.F));
  FLEXUQ_PETSC(MatMumpsGetIcntl(out.F, 22, &out.icntl22));
  FLEXUQ_PETSC(MatMumpsGetInfog(out.F, 22, &out.infog22));
  return out;
}

/// Sets the process-wide choice for a test and restores it.
struct OutOfCoreGuard {
  la::MumpsOutOfCore saved = la::mumps_out_of_core();
  ~OutOfCoreGuard() { la::set_mumps_out_of_core(saved); }
};

double relative_difference(Vec a, Vec b) {
  VecH d;
  FLEXUQ_PETSC(VecDuplicate(a, d.out()));
  FLEXUQ_PETSC(VecWAXPY(d.get(), -1.0, a, b));
  PetscReal nd = 0, na = 0;
  FLEXUQ_PETSC(VecNorm(d.get(), NORM_2, &nd));
  FLEXUQ_PETSC(VecNorm(a, NORM_2, &na));
  return nd / na;
}

} // namespace

TEST(MumpsOutOfCore, SolvesEqualTheInCoreOnesWithLessMemory) {
  OutOfCoreGuard guard;
  MatH A = grid_laplacian(MPI_COMM_WORLD, kN);
  la::set_mumps_out_of_core(la::MumpsOutOfCore::off);
  Factored in_core = factor(A.get(), "oocin_");
  la::set_mumps_out_of_core(la::MumpsOutOfCore::on);
  Factored ooc = factor(A.get(), "oocon_");
  EXPECT_EQ(in_core.icntl22, 0);
  EXPECT_EQ(ooc.icntl22, 1);
  // The factor is not held in core: MUMPS uses less memory (1 rank: 7 MB instead of 11 MB).
  EXPECT_GT(in_core.infog22, 0);
  EXPECT_LT(ooc.infog22, in_core.infog22) << "in core " << in_core.infog22 << " MB, out of core " << ooc.infog22;

  // One right-hand side: b_i = sin(i) + 2 (any vector with all frequencies).
  VecH b, x_in, x_ooc;
  FLEXUQ_PETSC(MatCreateVecs(A.get(), x_in.out(), b.out()));
  FLEXUQ_PETSC(VecDuplicate(x_in.get(), x_ooc.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(VecGetOwnershipRange(b.get(), &lo, &hi));
  for (PetscInt i = lo; i < hi; ++i) FLEXUQ_PETSC(VecSetValue(b.get(), i, std::sin(double(i)) + 2.0, INSERT_VALUES));
  FLEXUQ_PETSC(VecAssemblyBegin(b.get()));
  FLEXUQ_PETSC(VecAssemblyEnd(b.get()));
  FLEXUQ_PETSC(KSPSolve(in_core.ksp.get(), b.get(), x_in.get()));
  FLEXUQ_PETSC(KSPSolve(ooc.ksp.get(), b.get(), x_ooc.get()));
  EXPECT_LT(relative_difference(x_in.get(), x_ooc.get()), 1e-12);
  // ... and A x = b holds (the solve is a solve, not a copy): residual at round-off.
  VecH r;
  FLEXUQ_PETSC(VecDuplicate(b.get(), r.out()));
  FLEXUQ_PETSC(MatMult(A.get(), x_ooc.get(), r.get()));
  EXPECT_LT(relative_difference(b.get(), r.get()), 1e-12);

  // A block of kCols right-hand sides in one KSPMatSolve: column j is b scaled by (j + 1) plus e_j.
  PetscInt m = 0, n = 0;
  FLEXUQ_PETSC(MatGetLocalSize(A.get(), &m, nullptr));
  FLEXUQ_PETSC(MatGetSize(A.get(), &n, nullptr));
  MatH B, X_in, X_ooc;
  FLEXUQ_PETSC(MatCreateDense(MPI_COMM_WORLD, m, PETSC_DECIDE, n, kCols, nullptr, B.out()));
  for (PetscInt j = 0; j < kCols; ++j)
    for (PetscInt i = lo; i < hi; ++i)
      FLEXUQ_PETSC(MatSetValue(B.get(), i, j, (j + 1) * (std::sin(double(i)) + 2.0) + (i == j * 997 ? 1.0 : 0.0),
                               INSERT_VALUES));
  FLEXUQ_PETSC(MatAssemblyBegin(B.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(B.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatDuplicate(B.get(), MAT_DO_NOT_COPY_VALUES, X_in.out()));
  FLEXUQ_PETSC(MatDuplicate(B.get(), MAT_DO_NOT_COPY_VALUES, X_ooc.out()));
  FLEXUQ_PETSC(KSPMatSolve(in_core.ksp.get(), B.get(), X_in.get()));
  FLEXUQ_PETSC(KSPMatSolve(ooc.ksp.get(), B.get(), X_ooc.get()));
  for (PetscInt j = 0; j < kCols; ++j) {
    VecH ci, co;
    FLEXUQ_PETSC(MatCreateVecs(A.get(), ci.out(), co.out()));
    FLEXUQ_PETSC(MatGetColumnVector(X_in.get(), ci.get(), j));
    FLEXUQ_PETSC(MatGetColumnVector(X_ooc.get(), co.get(), j));
    EXPECT_LT(relative_difference(ci.get(), co.get()), 1e-12) << "column " << j;
  }
}

TEST(MumpsOutOfCore, KrylovSchurOnTheOutOfCoreFactorFindsTheClosedFormEigenvalues) {
  OutOfCoreGuard guard;
  la::set_mumps_out_of_core(la::MumpsOutOfCore::on);
  MatH A = grid_laplacian(MPI_COMM_WORLD, kNEig);
  constexpr int nev = 6;
  std::vector<double> exact;
  for (PetscInt a = 1; a <= 4; ++a)
    for (PetscInt b = 1; b <= 4; ++b)
      for (PetscInt c = 1; c <= 4; ++c) {
        double l = 0;
        for (PetscInt k : {a, b, c}) l += 4 * std::pow(std::sin(k * M_PI / (2.0 * (kNEig + 1))), 2);
        exact.push_back(l);
      }
  std::sort(exact.begin(), exact.end());
  EpsH eps;
  const std::vector<double> got = test_la::sinvert_smallest(A.get(), "ooceps_", nev, eps);
  ASSERT_GE(got.size(), std::size_t(nev));
  for (int i = 0; i < nev; ++i) EXPECT_NEAR(got[i], exact[i], 1e-10 * exact[i]) << "eigenvalue " << i;
  PetscInt icntl22 = -1;
  FLEXUQ_PETSC(MatMumpsGetIcntl(test_la::sinvert_factor(eps.get()), 22, &icntl22));
  EXPECT_EQ(icntl22, 1);
}

TEST(MumpsOutOfCore, KeyValuesAreFalseAndTrue) {
  EXPECT_EQ(parse_enum(la::kMumpsOutOfCoreNames, "false"), la::MumpsOutOfCore::off);
  EXPECT_EQ(parse_enum(la::kMumpsOutOfCoreNames, "true"), la::MumpsOutOfCore::on);
  EXPECT_FALSE(parse_enum(la::kMumpsOutOfCoreNames, "auto").has_value());
  EXPECT_EQ(enum_choices(la::kMumpsOutOfCoreNames), "false or true");
}
