// SPDX-License-Identifier: MIT
// linear_solver.ordering (issue #38 item 3): every MUMPS ordering flexuq offers gives the same
// eigenvalues, those of the 7-point Laplacian on a 14 × 11 × 9 grid with Dirichlet ends, known in
// closed form (λ = 4 Σ sin²(kπ / (2(n+1))) per direction), to 1e-10 on 1 and 2 ranks; MUMPS reports
// the ordering it used (INFOG(7), INFOG(32)), so a build whose PETSc is not bound to the Scotch MUMPS
// fails here; a request for Scotch from a build without it is refused naming the option.
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/MumpsOrdering.hpp"
#include "flexuq/la/Solvers.hpp"
#include "sinvert_eps.hpp"

#include <slepceps.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace flexuq;

namespace {

constexpr PetscInt kNx = 14, kNy = 11, kNz = 9;
constexpr int kNev = 8;

MatH laplacian_3d(MPI_Comm comm) {
  const PetscInt n = kNx * kNy * kNz;
  MatH A;
  FLEXUQ_PETSC(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, n, n, 7, nullptr, 6, nullptr, A.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  for (PetscInt row = lo; row < hi; ++row) {
    const PetscInt i = row % kNx, j = (row / kNx) % kNy, k = row / (kNx * kNy);
    FLEXUQ_PETSC(MatSetValue(A.get(), row, row, 6.0, INSERT_VALUES));
    if (i > 0) FLEXUQ_PETSC(MatSetValue(A.get(), row, row - 1, -1.0, INSERT_VALUES));
    if (i + 1 < kNx) FLEXUQ_PETSC(MatSetValue(A.get(), row, row + 1, -1.0, INSERT_VALUES));
    if (j > 0) FLEXUQ_PETSC(MatSetValue(A.get(), row, row - kNx, -1.0, INSERT_VALUES));
    if (j + 1 < kNy) FLEXUQ_PETSC(MatSetValue(A.get(), row, row + kNx, -1.0, INSERT_VALUES));
    if (k > 0) FLEXUQ_PETSC(MatSetValue(A.get(), row, row - kNx * kNy, -1.0, INSERT_VALUES));
    if (k + 1 < kNz) FLEXUQ_PETSC(MatSetValue(A.get(), row, row + kNx * kNy, -1.0, INSERT_VALUES));
  }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

/// The kNev smallest eigenvalues of the grid Laplacian, in closed form.
std::vector<double> exact_eigenvalues() {
  auto s2 = [](PetscInt k, PetscInt n) {
    const double s = std::sin(k * M_PI / (2.0 * (n + 1)));
    return 4 * s * s;
  };
  std::vector<double> all;
  for (PetscInt a = 1; a <= 4; ++a)
    for (PetscInt b = 1; b <= 4; ++b)
      for (PetscInt c = 1; c <= 4; ++c) all.push_back(s2(a, kNx) + s2(b, kNy) + s2(c, kNz));
  std::sort(all.begin(), all.end());
  all.resize(kNev);
  return all;
}

struct Solve {
  std::vector<double> values;
  PetscInt infog7 = -1, infog32 = -1; ///< ordering used, type of analysis (1 sequential, 2 parallel)
};

/// Shift-and-invert Krylov–Schur at 0 with the KSP set up by la::setup_mumps_cholesky.
Solve solve(Mat A) {
  EpsH eps;
  Solve out;
  out.values = test_la::sinvert_smallest(A, "ordtest_", kNev, eps);
  out.values.resize(std::min<std::size_t>(out.values.size(), kNev));
  Mat F = test_la::sinvert_factor(eps.get());
  FLEXUQ_PETSC(MatMumpsGetInfog(F, 7, &out.infog7));
  FLEXUQ_PETSC(MatMumpsGetInfog(F, 32, &out.infog32));
  return out;
}

/// Restores the process-wide ordering at the end of a test.
struct OrderingGuard {
  la::MumpsOrdering saved = la::mumps_ordering();
  ~OrderingGuard() { la::set_mumps_ordering(saved); }
};

} // namespace

TEST(MumpsOrdering, EveryOrderingGivesTheClosedFormEigenvalues) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OrderingGuard guard;
  MatH A = laplacian_3d(MPI_COMM_WORLD);
  const std::vector<double> exact = exact_eigenvalues();
  std::vector<la::MumpsOrdering> orderings{la::MumpsOrdering::automatic, la::MumpsOrdering::pord};
  if (la::mumps_has_scotch()) {
    orderings.push_back(la::MumpsOrdering::scotch);
    orderings.push_back(la::MumpsOrdering::ptscotch);
  }
  for (const auto o : orderings) {
    const char* name = enum_name(la::kMumpsOrderingNames, o);
    la::set_mumps_ordering(o);
    const Solve s = solve(A.get());
    ASSERT_EQ(s.values.size(), exact.size()) << name;
    for (std::size_t i = 0; i < exact.size(); ++i)
      EXPECT_NEAR(s.values[i], exact[i], 1e-10 * exact[i]) << name << " eigenvalue " << i;
    // What MUMPS says it did: sequential analysis (INFOG(32) 1) with PORD (INFOG(7) 4) or Scotch
    // (3); parallel analysis (2) with PT-Scotch (INFOG(7) then reports ICNTL(29): 1).
    switch (la::effective_mumps_ordering(o, size)) {
    case la::MumpsOrdering::pord:
      EXPECT_EQ(s.infog32, 1) << name;
      EXPECT_EQ(s.infog7, 4) << name;
      break;
    case la::MumpsOrdering::scotch:
      EXPECT_EQ(s.infog32, 1) << name;
      EXPECT_EQ(s.infog7, 3) << name;
      break;
    default:
      EXPECT_EQ(s.infog32, 2) << name;
      EXPECT_EQ(s.infog7, 1) << name;
      break;
    }
  }
  EXPECT_EQ(la::effective_mumps_ordering(la::MumpsOrdering::automatic, la::kMumpsPordMaxRanks),
            la::MumpsOrdering::pord);
  EXPECT_EQ(la::effective_mumps_ordering(la::MumpsOrdering::automatic, la::kMumpsPordMaxRanks + 1),
            la::mumps_has_scotch() ? la::MumpsOrdering::scotch : la::MumpsOrdering::pord);
  EXPECT_EQ(la::effective_mumps_ordering(la::MumpsOrdering::ptscotch, 1), la::MumpsOrdering::scotch);
}

TEST(MumpsOrdering, ScotchIsRefusedWithoutItNamingTheKey) {
  for (const auto o : {la::MumpsOrdering::scotch, la::MumpsOrdering::ptscotch}) {
    try {
      la::check_mumps_ordering(o, /*have_scotch=*/false);
      ADD_FAILURE() << "no error for " << enum_name(la::kMumpsOrderingNames, o);
    } catch (const OptionError& e) {
      const std::string m = e.message_for("linear_solver.ordering");
      EXPECT_NE(m.find("linear_solver.ordering: '"), std::string::npos) << m;
      EXPECT_NE(m.find("libmumps-ptscotch"), std::string::npos) << m;
    }
  }
  EXPECT_NO_THROW(la::check_mumps_ordering(la::MumpsOrdering::pord, false));
  EXPECT_NO_THROW(la::check_mumps_ordering(la::MumpsOrdering::automatic, false));
  EXPECT_NO_THROW(la::check_mumps_ordering(la::MumpsOrdering::ptscotch, true));
}

// `auto` on a matrix below kMumpsPordMinRows orders with AMF (PORD aborts on some small graphs), an
// explicit `pord` stays PORD; the size is taken from the KSP's operator (here set before the set-up).
TEST(MumpsOrdering, AutoTakesAmfBelowThePordSize) {
  OrderingGuard guard;
  MatH A = laplacian_3d(MPI_COMM_WORLD);
  PetscInt rows = 0;
  FLEXUQ_PETSC(MatGetSize(A.get(), &rows, nullptr));
  ASSERT_LT(rows, la::kMumpsPordMinRows);
  for (const auto [o, expected] : {std::pair{la::MumpsOrdering::automatic, 2}, std::pair{la::MumpsOrdering::pord, 4}}) {
    la::set_mumps_ordering(o);
    KspH ksp;
    FLEXUQ_PETSC(KSPCreate(MPI_COMM_WORLD, ksp.out()));
    FLEXUQ_PETSC(KSPSetOptionsPrefix(ksp.get(), "ordsize_"));
    FLEXUQ_PETSC(KSPSetOperators(ksp.get(), A.get(), A.get()));
    la::SolverDefaults defaults;
    la::setup_mumps_cholesky(ksp.get(), "ordsize_", defaults);
    const auto scope = defaults.apply();
    FLEXUQ_PETSC(KSPSetFromOptions(ksp.get()));
    FLEXUQ_PETSC(KSPSetUp(ksp.get()));
    PC pc = nullptr;
    Mat F = nullptr;
    FLEXUQ_PETSC(KSPGetPC(ksp.get(), &pc));
    FLEXUQ_PETSC(PCFactorGetMatrix(pc, &F));
    PetscInt infog7 = -1;
    FLEXUQ_PETSC(MatMumpsGetInfog(F, 7, &infog7));
    EXPECT_EQ(infog7, expected) << enum_name(la::kMumpsOrderingNames, o);
  }
}
