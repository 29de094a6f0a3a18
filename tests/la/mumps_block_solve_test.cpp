// SPDX-License-Identifier: MIT
// la::ksp_mat_solve (issue #38): a block of right-hand sides solved on PETSc's MUMPS factor by MUMPS's
// own distributed solve, with the map of MUMPS's solution rows kept with the factor. Oracle: the
// anisotropic 7-point operator A = s I + Σ_d c_d (−δ²_d) on an n_x × n_y × n_z grid with Dirichlet ends,
// whose eigenvectors are the products of sines sin(k_d π (i_d + 1) / (n_d + 1)) with eigenvalues
// s + Σ_d 4 c_d sin²(k_d π / (2 (n_d + 1))): for B = such eigenvectors, A⁻¹ B = B / λ in closed form.
// Also equal to PETSc's KSPMatSolve on the same factor, repeated with fewer columns (the kept map), after a
// new factorisation of A + 0.5 I (the map rebuilt), out of core (ICNTL(22) 1), and on 1 rank (KSPMatSolve).
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/MumpsBlockSolve.hpp"
#include "flexuq/la/MumpsOutOfCore.hpp"
#include "flexuq/la/Solvers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace flexuq;

namespace {

constexpr std::array<PetscInt, 3> kGrid{17, 13, 11};
constexpr std::array<double, 3> kCoef{1.0, 2.5, 0.7};

PetscInt point(PetscInt i, PetscInt j, PetscInt k) { return i + kGrid[0] * (j + kGrid[1] * k); }

/// s I + the anisotropic grid operator (rows in x-fastest order).
MatH grid_operator(double shift) {
  const PetscInt n = kGrid[0] * kGrid[1] * kGrid[2];
  MatH A;
  FLEXUQ_PETSC(MatCreateAIJ(MPI_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 7, nullptr, 6, nullptr, A.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  for (PetscInt r = lo; r < hi; ++r) {
    const std::array<PetscInt, 3> at{r % kGrid[0], (r / kGrid[0]) % kGrid[1], r / (kGrid[0] * kGrid[1])};
    FLEXUQ_PETSC(MatSetValue(A.get(), r, r, shift + 2.0 * (kCoef[0] + kCoef[1] + kCoef[2]), INSERT_VALUES));
    for (int d = 0; d < 3; ++d)
      for (const int step : {-1, 1}) {
        auto nb = at;
        nb[d] += step;
        if (nb[d] < 0 || nb[d] >= kGrid[d]) continue;
        FLEXUQ_PETSC(MatSetValue(A.get(), r, point(nb[0], nb[1], nb[2]), -kCoef[d], INSERT_VALUES));
      }
  }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

/// Mode (k_x, k_y, k_z) of column j (1-based wave numbers, all different eigenvalues).
std::array<int, 3> mode(PetscInt j) { return {int(1 + j % 4), int(1 + (j / 4) % 3), int(1 + j % 5)}; }

double eigenvalue(PetscInt j, double shift) {
  double lam = shift;
  const auto k = mode(j);
  for (int d = 0; d < 3; ++d) {
    const double s = std::sin(k[d] * M_PI / (2.0 * double(kGrid[d] + 1)));
    lam += 4.0 * kCoef[d] * s * s;
  }
  return lam;
}

/// Dense n × cols block whose column j is mode(j) scaled by 1 / λ_j^power.
MatH modes_block(Mat A, PetscInt cols, double shift, int power) {
  PetscInt m = 0, n = 0, lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetLocalSize(A, &m, nullptr));
  FLEXUQ_PETSC(MatGetSize(A, &n, nullptr));
  FLEXUQ_PETSC(MatGetOwnershipRange(A, &lo, &hi));
  MatH B;
  FLEXUQ_PETSC(MatCreateDense(MPI_COMM_WORLD, m, PETSC_DECIDE, n, cols, nullptr, B.out()));
  for (PetscInt j = 0; j < cols; ++j) {
    const auto k = mode(j);
    const double scale = std::pow(eigenvalue(j, shift), -power);
    for (PetscInt r = lo; r < hi; ++r) {
      const std::array<PetscInt, 3> at{r % kGrid[0], (r / kGrid[0]) % kGrid[1], r / (kGrid[0] * kGrid[1])};
      double v = scale;
      for (int d = 0; d < 3; ++d) v *= std::sin(k[d] * M_PI * double(at[d] + 1) / double(kGrid[d] + 1));
      FLEXUQ_PETSC(MatSetValue(B.get(), r, j, v, INSERT_VALUES));
    }
  }
  FLEXUQ_PETSC(MatAssemblyBegin(B.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(B.get(), MAT_FINAL_ASSEMBLY));
  return B;
}

/// max_j ‖X_j − Y_j‖ / ‖Y_j‖.
double column_difference(Mat X, Mat Y) {
  MatH D;
  FLEXUQ_PETSC(MatDuplicate(X, MAT_COPY_VALUES, D.out()));
  FLEXUQ_PETSC(MatAXPY(D.get(), -1.0, Y, SAME_NONZERO_PATTERN));
  PetscInt cols = 0;
  FLEXUQ_PETSC(MatGetSize(X, nullptr, &cols));
  std::vector<PetscReal> nd(static_cast<std::size_t>(cols)), ny(static_cast<std::size_t>(cols));
  FLEXUQ_PETSC(MatGetColumnNorms(D.get(), NORM_2, nd.data()));
  FLEXUQ_PETSC(MatGetColumnNorms(Y, NORM_2, ny.data()));
  double worst = 0;
  for (std::size_t j = 0; j < nd.size(); ++j) worst = std::max(worst, double(nd[j] / ny[j]));
  return worst;
}

KspH factor(Mat A, const std::string& prefix) {
  KspH ksp;
  FLEXUQ_PETSC(KSPCreate(MPI_COMM_WORLD, ksp.out()));
  FLEXUQ_PETSC(KSPSetOptionsPrefix(ksp.get(), prefix.c_str()));
  FLEXUQ_PETSC(KSPSetOperators(ksp.get(), A, A));
  la::SolverDefaults defaults;
  la::setup_mumps_cholesky(ksp.get(), prefix, defaults);
  const auto scope = defaults.apply();
  FLEXUQ_PETSC(KSPSetFromOptions(ksp.get()));
  FLEXUQ_PETSC(KSPSetUp(ksp.get()));
  return ksp;
}

int ranks() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/// Solves B (modes, `cols` columns) on ksp by ksp_mat_solve and by KSPMatSolve; checks the closed form.
void check_solve(KSP ksp, Mat A, PetscInt cols, double shift, const char* what) {
  MatH B = modes_block(A, cols, shift, 0), exact = modes_block(A, cols, shift, 1), X, Xp;
  FLEXUQ_PETSC(MatDuplicate(B.get(), MAT_DO_NOT_COPY_VALUES, X.out()));
  FLEXUQ_PETSC(MatDuplicate(B.get(), MAT_DO_NOT_COPY_VALUES, Xp.out()));
  const bool direct = la::ksp_mat_solve(ksp, B.get(), X.get());
  EXPECT_EQ(direct, ranks() > 1) << what; // MUMPS's own distributed solve on more than one rank
  const la::MumpsBlockSolve saved = la::mumps_block_solve();
  la::set_mumps_block_solve(la::MumpsBlockSolve::petsc);
  EXPECT_FALSE(la::ksp_mat_solve(ksp, B.get(), Xp.get())) << what;
  la::set_mumps_block_solve(saved);
  const double vs_exact = column_difference(X.get(), exact.get()), vs_petsc = column_difference(X.get(), Xp.get());
  EXPECT_LT(vs_exact, 1e-12) << what; // A⁻¹ v = v / λ
  EXPECT_LT(vs_petsc, 1e-14) << what; // the same factor and solve as PETSc's MatMatSolve
  if (!::testing::Test::HasFailure()) return;
  std::printf("%s: against the closed form %.2e, against KSPMatSolve %.2e\n", what, vs_exact, vs_petsc);
}

} // namespace

TEST(MumpsBlockSolve, EqualsTheClosedFormAndPetscsMatSolve) {
  MatH A = grid_operator(0.0);
  KspH ksp = factor(A.get(), "mbs_");
  check_solve(ksp.get(), A.get(), 8, 0.0, "8 columns");
  check_solve(ksp.get(), A.get(), 3, 0.0, "3 columns, the kept map");
  check_solve(ksp.get(), A.get(), 1, 0.0, "1 column");
  check_solve(ksp.get(), A.get(), 8, 0.0, "8 columns again");
  // A new factorisation (a shifted operator on the same KSP): MUMPS's rows may move, the map follows.
  MatH As = grid_operator(0.5);
  FLEXUQ_PETSC(KSPSetOperators(ksp.get(), As.get(), As.get()));
  FLEXUQ_PETSC(KSPSetUp(ksp.get()));
  check_solve(ksp.get(), As.get(), 5, 0.5, "after a new factorisation");
}

TEST(MumpsBlockSolve, OutOfCoreFactor) {
  const la::MumpsOutOfCore saved = la::mumps_out_of_core();
  la::set_mumps_out_of_core(la::MumpsOutOfCore::on);
  MatH A = grid_operator(0.0);
  KspH ksp = factor(A.get(), "mbsooc_");
  la::set_mumps_out_of_core(saved);
  PC pc = nullptr;
  Mat F = nullptr;
  PetscInt ooc = -1;
  FLEXUQ_PETSC(KSPGetPC(ksp.get(), &pc));
  FLEXUQ_PETSC(PCFactorGetMatrix(pc, &F));
  FLEXUQ_PETSC(MatMumpsGetIcntl(F, 22, &ooc));
  EXPECT_EQ(ooc, 1);
  check_solve(ksp.get(), A.get(), 8, 0.0, "out of core");
}
