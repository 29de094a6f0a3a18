// SPDX-License-Identifier: MIT
#pragma once
// Helpers for tests that compare PETSc operators.
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"

#include <petscmat.h>

namespace flexuq::test {

/// ‖A − B‖_F / ‖B‖_F of two operators on the same layout. @note Collective.
inline double rel_diff(Mat A, Mat B) {
  MatH D;
  FLEXUQ_PETSC(MatDuplicate(A, MAT_COPY_VALUES, D.out()));
  FLEXUQ_PETSC(MatAXPY(D.get(), -1.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscReal d = 0, b = 0;
  FLEXUQ_PETSC(MatNorm(D.get(), NORM_FROBENIUS, &d));
  FLEXUQ_PETSC(MatNorm(B, NORM_FROBENIUS, &b));
  return d / b;
}

} // namespace flexuq::test
