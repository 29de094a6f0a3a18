// SPDX-License-Identifier: MIT
#include "flexuq/cms/BlockProduct.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cstring>

namespace flexuq::cms {

bool BlockProduct::supports(Mat A) {
  PetscBool seq = PETSC_FALSE, mpi = PETSC_FALSE;
  PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATSEQAIJ, &seq);
  PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATMPIAIJ, &mpi);
  return seq || mpi;
}

BlockProduct::BlockProduct(Mat A) : A_(A) {
  FLEXUQ_REQUIRE(supports(A), "internal: BlockProduct needs an AIJ matrix");
  PetscBool mpi = PETSC_FALSE;
  FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATMPIAIJ, &mpi));
  const PetscInt* garray = nullptr;
  if (mpi) {
    FLEXUQ_PETSC(MatMPIAIJGetSeqAIJ(A, &Ad_, &Ao_, &garray));
  } else {
    Ad_ = A;
  }
  PetscInt n = 0;
  PetscBool done = PETSC_FALSE;
  FLEXUQ_PETSC(MatGetRowIJ(Ad_, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia_, &ja_, &done));
  FLEXUQ_REQUIRE(done, "internal: MatGetRowIJ failed");
  nloc_ = n;
  FLEXUQ_PETSC(MatSeqAIJGetArrayRead(Ad_, &va_));
  PetscLayout cmap = nullptr;
  FLEXUQ_PETSC(MatGetLayouts(A, nullptr, &cmap));
  FLEXUQ_PETSC(PetscSFCreate(PetscObjectComm(reinterpret_cast<PetscObject>(A)), &sf_));
  if (Ao_) {
    FLEXUQ_PETSC(MatGetRowIJ(Ao_, 0, PETSC_FALSE, PETSC_FALSE, &n, &iao_, &jao_, &done));
    FLEXUQ_REQUIRE(done, "internal: MatGetRowIJ failed");
    FLEXUQ_PETSC(MatSeqAIJGetArrayRead(Ao_, &vao_));
    FLEXUQ_PETSC(MatGetSize(Ao_, nullptr, &nghost_));
  }
  // Leaves: the ghost rows (garray: global column indices of A's off-diagonal block), roots: owners.
  FLEXUQ_PETSC(PetscSFSetGraphLayout(sf_, cmap, nghost_, nullptr, PETSC_COPY_VALUES, garray));
  FLEXUQ_PETSC(PetscSFSetUp(sf_));
}

BlockProduct::~BlockProduct() {
  PetscBool done = PETSC_FALSE;
  PetscInt n = 0;
  if (va_) MatSeqAIJRestoreArrayRead(Ad_, &va_);
  if (ia_) MatRestoreRowIJ(Ad_, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia_, &ja_, &done);
  if (vao_) MatSeqAIJRestoreArrayRead(Ao_, &vao_);
  if (iao_) MatRestoreRowIJ(Ao_, 0, PETSC_FALSE, PETSC_FALSE, &n, &iao_, &jao_, &done);
  PetscSFDestroy(&sf_);
}

void BlockProduct::apply(const double* X, PetscInt b, double* Y) {
  MPI_Datatype unit = MPI_DATATYPE_NULL;
  FLEXUQ_MPI(MPI_Type_contiguous(static_cast<int>(b), MPIU_SCALAR, &unit));
  FLEXUQ_MPI(MPI_Type_commit(&unit));
  ghost_.resize(static_cast<std::size_t>(nghost_ * b));
  FLEXUQ_PETSC(PetscSFBcastBegin(sf_, unit, X, ghost_.data(), MPI_REPLACE));
  // Diagonal block while the ghost rows travel.
  for (PetscInt i = 0; i < nloc_; ++i) {
    double* y = Y + i * b;
    std::fill(y, y + b, 0.0);
    for (PetscInt k = ia_[i]; k < ia_[i + 1]; ++k) {
      const double a = va_[k];
      const double* x = X + ja_[k] * b;
      for (PetscInt c = 0; c < b; ++c) y[c] += a * x[c];
    }
  }
  FLEXUQ_PETSC(PetscSFBcastEnd(sf_, unit, X, ghost_.data(), MPI_REPLACE));
  FLEXUQ_MPI(MPI_Type_free(&unit));
  if (!Ao_) return;
  for (PetscInt i = 0; i < nloc_; ++i) {
    double* y = Y + i * b;
    for (PetscInt k = iao_[i]; k < iao_[i + 1]; ++k) {
      const double a = vao_[k];
      const double* x = ghost_.data() + jao_[k] * b;
      for (PetscInt c = 0; c < b; ++c) y[c] += a * x[c];
    }
  }
}

} // namespace flexuq::cms
