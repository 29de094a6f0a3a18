// SPDX-License-Identifier: MIT
#include "flexuq/la/MatPattern.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cstring>

namespace flexuq::la {

namespace {

/// Row pointers and column indices of a SeqAIJ matrix, as stored (MatGetRowIJ returns AIJ's own arrays).
class RowIJ {
public:
  explicit RowIJ(Mat m) : m_(m) {
    FLEXUQ_PETSC(MatGetRowIJ(m_, 0, PETSC_FALSE, PETSC_FALSE, &n_, &ia_, &ja_, &done_));
  }
  ~RowIJ() {
    if (done_) (void)MatRestoreRowIJ(m_, 0, PETSC_FALSE, PETSC_FALSE, &n_, &ia_, &ja_, &done_);
  }
  RowIJ(const RowIJ&) = delete;
  RowIJ& operator=(const RowIJ&) = delete;
  bool equal(const RowIJ& o) const {
    if (!done_ || !o.done_ || n_ != o.n_) return false;
    if (std::memcmp(ia_, o.ia_, static_cast<std::size_t>(n_ + 1) * sizeof(PetscInt)) != 0) return false;
    const PetscInt nz = ia_[n_] - ia_[0];
    return nz == 0 || std::memcmp(ja_ + ia_[0], o.ja_ + o.ia_[0], static_cast<std::size_t>(nz) * sizeof(PetscInt)) == 0;
  }

private:
  Mat m_;
  PetscInt n_ = 0;
  const PetscInt* ia_ = nullptr;
  const PetscInt* ja_ = nullptr;
  PetscBool done_ = PETSC_FALSE;
};

bool same_seq(Mat a, Mat b) {
  PetscInt ma = 0, na = 0, mb = 0, nb = 0;
  FLEXUQ_PETSC(MatGetSize(a, &ma, &na));
  FLEXUQ_PETSC(MatGetSize(b, &mb, &nb));
  if (ma != mb || na != nb) return false;
  const RowIJ ra(a), rb(b);
  return ra.equal(rb);
}

/// This rank's verdict (the caller reduces it).
bool same_here(Mat A, Mat B) {
  PetscBool mpi_a = PETSC_FALSE, mpi_b = PETSC_FALSE, seq_a = PETSC_FALSE, seq_b = PETSC_FALSE;
  FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATMPIAIJ, &mpi_a));
  FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(B), MATMPIAIJ, &mpi_b));
  FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATSEQAIJ, &seq_a));
  FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(B), MATSEQAIJ, &seq_b));
  PetscInt la = 0, lb = 0, ca = 0, cb = 0, ra = 0, rb = 0;
  FLEXUQ_PETSC(MatGetLocalSize(A, &la, &ca));
  FLEXUQ_PETSC(MatGetLocalSize(B, &lb, &cb));
  FLEXUQ_PETSC(MatGetOwnershipRange(A, &ra, nullptr));
  FLEXUQ_PETSC(MatGetOwnershipRange(B, &rb, nullptr));
  if (la != lb || ca != cb || ra != rb) return false;
  if (seq_a && seq_b) return same_seq(A, B);
  if (!mpi_a || !mpi_b) return false;
  Mat Ad = nullptr, Ao = nullptr, Bd = nullptr, Bo = nullptr;
  const PetscInt *ga = nullptr, *gb = nullptr;
  FLEXUQ_PETSC(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &ga));
  FLEXUQ_PETSC(MatMPIAIJGetSeqAIJ(B, &Bd, &Bo, &gb));
  if (!same_seq(Ad, Bd) || !same_seq(Ao, Bo)) return false;
  PetscInt nga = 0;
  FLEXUQ_PETSC(MatGetSize(Ao, nullptr, &nga)); // the off-diagonal block's columns: garray's entries
  return nga == 0 || (ga && gb && std::equal(ga, ga + nga, gb));
}

} // namespace

bool same_nonzero_pattern(Mat A, Mat B) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(A));
  PetscInt MA = 0, NA = 0, MB = 0, NB = 0;
  FLEXUQ_PETSC(MatGetSize(A, &MA, &NA));
  FLEXUQ_PETSC(MatGetSize(B, &MB, &NB));
  if (MA != MB || NA != NB) return false; // the same on every rank: no reduction needed
  PetscBool assembled_a = PETSC_FALSE, assembled_b = PETSC_FALSE;
  FLEXUQ_PETSC(MatAssembled(A, &assembled_a));
  FLEXUQ_PETSC(MatAssembled(B, &assembled_b));
  int here = assembled_a && assembled_b && same_here(A, B) ? 1 : 0, all = 0;
  FLEXUQ_MPI(MPI_Allreduce(&here, &all, 1, MPI_INT, MPI_LAND, comm));
  return all != 0;
}

MatStructure axpy_structure(Mat Y, Mat X, MatStructure otherwise) {
  return same_nonzero_pattern(Y, X) ? SAME_NONZERO_PATTERN : otherwise;
}

} // namespace flexuq::la
