// SPDX-License-Identifier: MIT
#pragma once
/// @file Guards.hpp
/// @brief Scoped access to the raw arrays and columns of PETSc objects: every Get has its Restore in
/// a destructor, so an exception between them (a failed check, a throwing callback) leaves the
/// object usable and its lock released. Not copyable, not movable (a guard lives in one scope).

#include <petscmat.h>
#include <petscvec.h>

namespace flexuq::la {

namespace detail {
inline bool petsc_alive() {
  PetscBool finalized = PETSC_FALSE;
  (void)PetscFinalized(&finalized);
  return !finalized;
}
} // namespace detail

/// VecGetArrayRead / VecRestoreArrayRead: the local entries, read-only.
class VecReadArray {
public:
  explicit VecReadArray(Vec v);
  ~VecReadArray() {
    if (a_ && detail::petsc_alive()) (void)VecRestoreArrayRead(v_, &a_);
  }
  VecReadArray(const VecReadArray&) = delete;
  VecReadArray& operator=(const VecReadArray&) = delete;
  const PetscScalar* data() const { return a_; }
  const PetscScalar& operator[](PetscInt i) const { return a_[i]; }
  PetscInt size() const { return n_; }
  const PetscScalar* begin() const { return a_; }
  const PetscScalar* end() const { return a_ + n_; }

private:
  Vec v_;
  const PetscScalar* a_ = nullptr;
  PetscInt n_ = 0;
};

/// VecGetArray / VecRestoreArray (read-write), or VecGetArrayWrite / VecRestoreArrayWrite with
/// @p write_only (the entries are all overwritten; PETSc may skip copying them in).
class VecWriteArray {
public:
  explicit VecWriteArray(Vec v, bool write_only = false);
  ~VecWriteArray() {
    if (a_ && detail::petsc_alive()) (void)(write_only_ ? VecRestoreArrayWrite(v_, &a_) : VecRestoreArray(v_, &a_));
  }
  VecWriteArray(const VecWriteArray&) = delete;
  VecWriteArray& operator=(const VecWriteArray&) = delete;
  PetscScalar* data() const { return a_; }
  PetscScalar& operator[](PetscInt i) const { return a_[i]; }
  PetscInt size() const { return n_; }
  PetscScalar* begin() const { return a_; }
  PetscScalar* end() const { return a_ + n_; }

private:
  Vec v_;
  PetscScalar* a_ = nullptr;
  PetscInt n_ = 0;
  bool write_only_ = false;
};

/// Column @p j of a dense matrix as a Vec (MatDenseGetColumnVecRead/Write, or the read-write form
/// with @p access = read_write), restored on scope exit.
class DenseColumn {
public:
  enum class Access { read, write, read_write };
  DenseColumn(Mat A, PetscInt j, Access access);
  ~DenseColumn();
  DenseColumn(const DenseColumn&) = delete;
  DenseColumn& operator=(const DenseColumn&) = delete;
  Vec get() const { return v_; }

private:
  Mat A_;
  PetscInt j_;
  Access access_;
  Vec v_ = nullptr;
};

} // namespace flexuq::la
