// SPDX-License-Identifier: MIT
#pragma once
// Shared by the MUMPS option tests of tests/la: shift-and-invert Krylov–Schur at 0 on a matrix whose
// ST's KSP is set up by la::setup_mumps_cholesky (so the process-wide MUMPS options apply).
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/Solvers.hpp"

#include <slepceps.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace flexuq::test_la {

/// The @p nev eigenvalues of @p A nearest 0 (tolerance 1e-13), options under @p prefix (the KSP's under
/// prefix + "st_"), sorted; all that converged (at least @p nev when it worked). @p eps keeps the solver
/// (its ST's KSP holds the MUMPS factor, for MatMumpsGetInfog and the like).
inline std::vector<double> sinvert_smallest(Mat A, const std::string& prefix, PetscInt nev, EpsH& eps) {
  FLEXUQ_PETSC(EPSCreate(PetscObjectComm(reinterpret_cast<PetscObject>(A)), eps.out()));
  FLEXUQ_PETSC(EPSSetOperators(eps.get(), A, nullptr));
  FLEXUQ_PETSC(EPSSetProblemType(eps.get(), EPS_HEP));
  FLEXUQ_PETSC(EPSSetOptionsPrefix(eps.get(), prefix.c_str()));
  ST st = nullptr;
  FLEXUQ_PETSC(EPSGetST(eps.get(), &st));
  FLEXUQ_PETSC(STSetType(st, STSINVERT));
  KSP ksp = nullptr;
  FLEXUQ_PETSC(STGetKSP(st, &ksp));
  la::SolverDefaults defaults;
  la::setup_mumps_cholesky(ksp, prefix + "st_", defaults);
  FLEXUQ_PETSC(EPSSetTarget(eps.get(), 0.0));
  FLEXUQ_PETSC(EPSSetWhichEigenpairs(eps.get(), EPS_TARGET_MAGNITUDE));
  FLEXUQ_PETSC(EPSSetDimensions(eps.get(), nev, PETSC_DEFAULT, PETSC_DEFAULT));
  FLEXUQ_PETSC(EPSSetTolerances(eps.get(), 1e-13, 200));
  const auto scope = defaults.apply();
  FLEXUQ_PETSC(EPSSetFromOptions(eps.get()));
  FLEXUQ_PETSC(EPSSolve(eps.get()));
  PetscInt nconv = 0;
  FLEXUQ_PETSC(EPSGetConverged(eps.get(), &nconv));
  std::vector<double> values;
  for (PetscInt i = 0; i < nconv; ++i) {
    PetscScalar re = 0, im = 0;
    FLEXUQ_PETSC(EPSGetEigenvalue(eps.get(), i, &re, &im));
    values.push_back(PetscRealPart(re));
  }
  std::sort(values.begin(), values.end());
  return values;
}

/// 4 sin²(kπ / (2(n+1))): the k-th eigenvalue of the 1-D Laplacian (2 on the diagonal, −1 beside) of
/// n points with Dirichlet ends; a 7-point grid Laplacian's are sums of three.
inline double laplacian_1d_eigenvalue(PetscInt k, PetscInt n) {
  const double s = std::sin(static_cast<double>(k) * M_PI / (2.0 * static_cast<double>(n + 1)));
  return 4 * s * s;
}

/// The MUMPS factor of @p eps's ST.
inline Mat sinvert_factor(EPS eps) {
  ST st = nullptr;
  KSP ksp = nullptr;
  PC pc = nullptr;
  Mat F = nullptr;
  FLEXUQ_PETSC(EPSGetST(eps, &st));
  FLEXUQ_PETSC(STGetKSP(st, &ksp));
  FLEXUQ_PETSC(KSPGetPC(ksp, &pc));
  FLEXUQ_PETSC(PCFactorGetMatrix(pc, &F));
  return F;
}

} // namespace flexuq::test_la
