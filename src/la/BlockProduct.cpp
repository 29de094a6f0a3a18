// SPDX-License-Identifier: MIT
#include "flexuq/la/BlockProduct.hpp"

#include "flexuq/core/Assert.hpp"

#include <algorithm>

namespace flexuq::la {

namespace {
/// An MPI datatype of b contiguous scalars, freed on scope exit (also when the broadcast throws).
class ContiguousType {
public:
  explicit ContiguousType(PetscInt b) {
    FLEXUQ_MPI(MPI_Type_contiguous(static_cast<int>(b), MPIU_SCALAR, &t_));
    if (const int err = MPI_Type_commit(&t_); err != MPI_SUCCESS) {
      MPI_Type_free(&t_);
      FLEXUQ_MPI(err);
    }
  }
  ~ContiguousType() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && t_ != MPI_DATATYPE_NULL) MPI_Type_free(&t_);
  }
  ContiguousType(const ContiguousType&) = delete;
  ContiguousType& operator=(const ContiguousType&) = delete;
  MPI_Datatype get() const { return t_; }

private:
  MPI_Datatype t_ = MPI_DATATYPE_NULL;
};
} // namespace

bool BlockProduct::supports(Mat A) {
  PetscBool seq = PETSC_FALSE, mpi = PETSC_FALSE;
  FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATSEQAIJ, &seq));
  FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATMPIAIJ, &mpi));
  return seq || mpi;
}

BlockProduct::BlockProduct(Mat A) : A_(A) {
  FLEXUQ_ASSERT(supports(A), "BlockProduct needs an AIJ matrix");
  // A constructor that throws runs no destructor: give back whatever was taken so far.
  try {
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
    FLEXUQ_ASSERT(done, "MatGetRowIJ gave no row structure");
    nloc_ = n;
    FLEXUQ_PETSC(MatSeqAIJGetArrayRead(Ad_, &va_));
    PetscLayout cmap = nullptr;
    FLEXUQ_PETSC(MatGetLayouts(A, nullptr, &cmap));
    FLEXUQ_PETSC(PetscSFCreate(PetscObjectComm(reinterpret_cast<PetscObject>(A)), sf_.out()));
    if (Ao_) {
      FLEXUQ_PETSC(MatGetRowIJ(Ao_, 0, PETSC_FALSE, PETSC_FALSE, &n, &iao_, &jao_, &done));
      FLEXUQ_ASSERT(done, "MatGetRowIJ gave no row structure");
      FLEXUQ_PETSC(MatSeqAIJGetArrayRead(Ao_, &vao_));
      FLEXUQ_PETSC(MatGetSize(Ao_, nullptr, &nghost_));
    }
    // Leaves: the ghost rows (garray: global column indices of A's off-diagonal block), roots: owners.
    FLEXUQ_PETSC(PetscSFSetGraphLayout(sf_.get(), cmap, nghost_, nullptr, PETSC_COPY_VALUES, garray));
    FLEXUQ_PETSC(PetscSFSetUp(sf_.get()));
  } catch (...) {
    release();
    throw;
  }
}

void BlockProduct::release() noexcept {
  PetscBool done = PETSC_FALSE;
  PetscInt n = 0;
  PetscBool finalized = PETSC_FALSE;
  (void)PetscFinalized(&finalized);
  if (finalized) return;
  if (va_) (void)MatSeqAIJRestoreArrayRead(Ad_, &va_);
  if (ia_) (void)MatRestoreRowIJ(Ad_, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia_, &ja_, &done);
  if (vao_) (void)MatSeqAIJRestoreArrayRead(Ao_, &vao_);
  if (iao_) (void)MatRestoreRowIJ(Ao_, 0, PETSC_FALSE, PETSC_FALSE, &n, &iao_, &jao_, &done);
  va_ = vao_ = nullptr;
  ia_ = ja_ = iao_ = jao_ = nullptr;
}

BlockProduct::~BlockProduct() { release(); }

void BlockProduct::apply(const double* X, PetscInt b, double* Y) {
  const ContiguousType unit(b);
  ghost_.resize(static_cast<std::size_t>(nghost_ * b));
  FLEXUQ_PETSC(PetscSFBcastBegin(sf_.get(), unit.get(), X, ghost_.data(), MPI_REPLACE));
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
  FLEXUQ_PETSC(PetscSFBcastEnd(sf_.get(), unit.get(), X, ghost_.data(), MPI_REPLACE));
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

} // namespace flexuq::la
