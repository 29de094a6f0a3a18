// SPDX-License-Identifier: MIT
#include "flexuq/la/Guards.hpp"

#include "flexuq/core/Error.hpp"

namespace flexuq::la {

VecReadArray::VecReadArray(Vec v) : v_(v) {
  FLEXUQ_PETSC(VecGetLocalSize(v, &n_));
  FLEXUQ_PETSC(VecGetArrayRead(v, &a_));
}

VecWriteArray::VecWriteArray(Vec v, bool write_only) : v_(v), write_only_(write_only) {
  FLEXUQ_PETSC(VecGetLocalSize(v, &n_));
  if (write_only)
    FLEXUQ_PETSC(VecGetArrayWrite(v, &a_));
  else
    FLEXUQ_PETSC(VecGetArray(v, &a_));
}

DenseColumn::DenseColumn(Mat A, PetscInt j, Access access) : A_(A), j_(j), access_(access) {
  switch (access) {
  case Access::read: FLEXUQ_PETSC(MatDenseGetColumnVecRead(A, j, &v_)); break;
  case Access::write: FLEXUQ_PETSC(MatDenseGetColumnVecWrite(A, j, &v_)); break;
  case Access::read_write: FLEXUQ_PETSC(MatDenseGetColumnVec(A, j, &v_)); break;
  }
}

DenseColumn::~DenseColumn() {
  if (!v_ || !detail::petsc_alive()) return;
  switch (access_) {
  case Access::read: (void)MatDenseRestoreColumnVecRead(A_, j_, &v_); break;
  case Access::write: (void)MatDenseRestoreColumnVecWrite(A_, j_, &v_); break;
  case Access::read_write: (void)MatDenseRestoreColumnVec(A_, j_, &v_); break;
  }
}

} // namespace flexuq::la
