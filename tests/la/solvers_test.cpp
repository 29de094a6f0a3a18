// SPDX-License-Identifier: MIT
// Solver options scoped to one solver object: two MUMPS solvers with the same prefix on different
// sub-communicators, with different defaults, each get their own settings; nothing stays in PETSc's
// options database after a solver's scope; a user's option wins over a default and is left alone.
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/Solvers.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

namespace {

MatH laplacian(MPI_Comm comm, PetscInt N) {
  MatH A;
  FLEXUQ_PETSC(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, N, N, 3, nullptr, 2, nullptr, A.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  for (PetscInt i = lo; i < hi; ++i) {
    FLEXUQ_PETSC(MatSetValue(A.get(), i, i, 2.5, INSERT_VALUES));
    if (i > 0) FLEXUQ_PETSC(MatSetValue(A.get(), i, i - 1, -1.0, INSERT_VALUES));
    if (i + 1 < N) FLEXUQ_PETSC(MatSetValue(A.get(), i, i + 1, -1.0, INSERT_VALUES));
  }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

/// A MUMPS Cholesky KSP on @p A with @p prefix, set up inside its own defaults' scope.
struct Solver {
  KspH ksp;
  la::SolverDefaults defaults;
  Solver(Mat A, const std::string& prefix, bool inertia) {
    FLEXUQ_PETSC(KSPCreate(PetscObjectComm(reinterpret_cast<PetscObject>(A)), ksp.out()));
    FLEXUQ_PETSC(KSPSetOperators(ksp.get(), A, A));
    FLEXUQ_PETSC(KSPSetOptionsPrefix(ksp.get(), prefix.c_str()));
    la::setup_mumps_cholesky(ksp.get(), prefix, defaults);
    if (inertia) la::mumps_inertia_defaults(prefix, defaults);
    const auto scope = defaults.apply();
    FLEXUQ_PETSC(KSPSetFromOptions(ksp.get()));
    FLEXUQ_PETSC(KSPSetUp(ksp.get()));
  }
  PetscInt icntl(PetscInt i) const {
    PC pc = nullptr;
    Mat F = nullptr;
    FLEXUQ_PETSC(KSPGetPC(ksp.get(), &pc));
    FLEXUQ_PETSC(PCFactorGetMatrix(pc, &F));
    PetscInt v = -1;
    FLEXUQ_PETSC(MatMumpsGetIcntl(F, i, &v));
    return v;
  }
};

} // namespace

TEST(SolverDefaults, ScopeInsertsOnlyMissingOptionsAndRemovesThem) {
  la::SolverDefaults d;
  d.set("sdtest_a", "1");
  d.set("sdtest_b", "2");
  d.set("sdtest_a", "3"); // replaces
  ASSERT_EQ(d.values().size(), 2u);
  FLEXUQ_PETSC(PetscOptionsSetValue(nullptr, "-sdtest_b", "user"));
  {
    const auto scope = d.apply();
    EXPECT_TRUE(la::option_given("sdtest_a"));
    char buf[16] = {};
    PetscBool set = PETSC_FALSE;
    FLEXUQ_PETSC(PetscOptionsGetString(nullptr, nullptr, "-sdtest_b", buf, sizeof buf, &set));
    EXPECT_STREQ(buf, "user");
    FLEXUQ_PETSC(PetscOptionsGetString(nullptr, nullptr, "-sdtest_a", buf, sizeof buf, &set));
    EXPECT_STREQ(buf, "3");
  }
  EXPECT_FALSE(la::option_given("sdtest_a"));
  EXPECT_TRUE(la::option_given("sdtest_b")); // the user's, untouched
  FLEXUQ_PETSC(PetscOptionsClearValue(nullptr, "-sdtest_b"));
  // Removed on exceptions too.
  try {
    const auto scope = d.apply();
    throw Error("inside the scope");
  } catch (const Error&) {
  }
  EXPECT_FALSE(la::option_given("sdtest_a"));
}

TEST(SolverDefaults, SolversOnSubCommunicatorsKeepTheirOwnSettings) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Group 0: the whole world (distributed right-hand sides on more than one rank) with the inertia
  // settings of spectrum slicing. Group 1: every rank alone. Same prefix for both.
  MatH Aw = laplacian(MPI_COMM_WORLD, 40), As = laplacian(MPI_COMM_SELF, 30);
  const std::string prefix = "scoped_";
  Solver first(Aw.get(), prefix, true);
  EXPECT_EQ(first.icntl(13), 1);
  EXPECT_EQ(first.icntl(24), 1);
  for (const char* o : {"mat_mumps_icntl_13", "mat_mumps_icntl_24", "mat_mumps_cntl_3", "mat_mumps_icntl_20"})
    EXPECT_FALSE(la::option_given(prefix + o)) << o << " leaked into the options database";
  // The second solver must not inherit anything from the first.
  Solver second(As.get(), prefix, false);
  EXPECT_EQ(second.icntl(13), 0);
  EXPECT_EQ(second.icntl(24), 0);
  // Both still solve (the first was not disturbed by the second's set-up).
  VecH b, x;
  FLEXUQ_PETSC(MatCreateVecs(Aw.get(), x.out(), b.out()));
  FLEXUQ_PETSC(VecSet(b.get(), 1.0));
  FLEXUQ_PETSC(KSPSolve(first.ksp.get(), b.get(), x.get()));
  VecH r;
  FLEXUQ_PETSC(VecDuplicate(b.get(), r.out()));
  FLEXUQ_PETSC(MatMult(Aw.get(), x.get(), r.get()));
  FLEXUQ_PETSC(VecAXPY(r.get(), -1.0, b.get()));
  PetscReal nr = 0;
  FLEXUQ_PETSC(VecNorm(r.get(), NORM_2, &nr));
  EXPECT_LT(nr, 1e-12);
  // MUMPS copies ICNTL(20) (distributed right-hand sides) into its parameters at the solve: the
  // value read from the database during the first solver's set-up.
  EXPECT_EQ(first.icntl(20), size > 1 ? 10 : 0);
  VecH xs, bs;
  FLEXUQ_PETSC(MatCreateVecs(As.get(), xs.out(), bs.out()));
  FLEXUQ_PETSC(VecSet(bs.get(), 1.0));
  FLEXUQ_PETSC(KSPSolve(second.ksp.get(), bs.get(), xs.get()));
  EXPECT_EQ(second.icntl(20), 0);
  // A user's option (command line) wins over the default and stays in the database. (ICNTL 24 is
  // the user's here: PETSc itself sets ICNTL 13 to 1 whenever ICNTL 24 is on.)
  FLEXUQ_PETSC(PetscOptionsSetValue(nullptr, "-user_mat_mumps_icntl_24", "0"));
  Solver third(Aw.get(), "user_", true);
  EXPECT_EQ(third.icntl(24), 0);
  EXPECT_EQ(third.icntl(13), 1);
  EXPECT_TRUE(la::option_given("user_mat_mumps_icntl_24"));
  EXPECT_FALSE(la::option_given("user_mat_mumps_icntl_13"));
  FLEXUQ_PETSC(PetscOptionsClearValue(nullptr, "-user_mat_mumps_icntl_24"));
}
