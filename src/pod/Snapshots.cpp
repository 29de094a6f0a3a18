// SPDX-License-Identifier: MIT
#include "flexuq/pod/Snapshots.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <vector>

namespace flexuq::pod {

SnapshotMatrix::SnapshotMatrix(MPI_Comm comm, PetscInt local_rows) : comm_(comm), local_rows_(local_rows) {
  if (local_rows < 0) throw Error(FLEXUQ_MSG("SnapshotMatrix: negative local row count " << local_rows));
  long long n = local_rows, total = 0, before = 0;
  FLEXUQ_MPI(MPI_Allreduce(&n, &total, 1, MPI_LONG_LONG, MPI_SUM, comm));
  FLEXUQ_MPI(MPI_Exscan(&n, &before, 1, MPI_LONG_LONG, MPI_SUM, comm));
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  global_rows_ = static_cast<PetscInt>(total);
  row_begin_ = rank == 0 ? 0 : static_cast<PetscInt>(before);
}

SnapshotMatrix SnapshotMatrix::like(Vec layout) {
  MPI_Comm comm = MPI_COMM_NULL;
  FLEXUQ_PETSC(PetscObjectGetComm(reinterpret_cast<PetscObject>(layout), &comm));
  PetscInt n = 0;
  FLEXUQ_PETSC(VecGetLocalSize(layout, &n));
  return SnapshotMatrix(comm, n);
}

SnapshotMatrix SnapshotMatrix::from_local(MPI_Comm comm, Eigen::MatrixXd local_block) {
  SnapshotMatrix s(comm, static_cast<PetscInt>(local_block.rows()));
  s.cols_ = local_block.cols();
  s.data_ = std::move(local_block);
  return s;
}

void SnapshotMatrix::append_local(const Eigen::Ref<const Eigen::MatrixXd>& block) {
  if (block.rows() != local_rows_)
    throw Error(FLEXUQ_MSG("SnapshotMatrix: a snapshot block has " << block.rows() << " local rows, the matrix "
                                                                    << local_rows_));
  const Eigen::Index need = cols_ + block.cols();
  if (need > data_.cols()) {
    const Eigen::Index cap = std::max<Eigen::Index>(need, std::max<Eigen::Index>(8, 2 * data_.cols()));
    data_.conservativeResize(local_rows_, cap);
  }
  data_.middleCols(cols_, block.cols()) = block;
  cols_ = need;
}

void SnapshotMatrix::append(Vec v) {
  PetscInt n = 0;
  FLEXUQ_PETSC(VecGetLocalSize(v, &n));
  if (n != local_rows_)
    throw Error(FLEXUQ_MSG("SnapshotMatrix: snapshot vector has " << n << " local rows, the matrix " << local_rows_));
  const PetscScalar* a = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(v, &a));
  append_local(Eigen::Map<const Eigen::VectorXd>(a, n));
  FLEXUQ_PETSC(VecRestoreArrayRead(v, &a));
}

Eigen::VectorXd SnapshotMatrix::local_mean() const {
  if (cols_ == 0) return Eigen::VectorXd::Zero(local_rows_);
  return local().rowwise().sum() / static_cast<double>(cols_);
}

MatH SnapshotMatrix::to_petsc() const {
  MatH A;
  FLEXUQ_PETSC(MatCreateDense(comm_, static_cast<PetscInt>(local_rows_), PETSC_DECIDE, global_rows_,
                              static_cast<PetscInt>(cols_), nullptr, A.out()));
  PetscScalar* a = nullptr;
  PetscInt lda = 0;
  FLEXUQ_PETSC(MatDenseGetLDA(A.get(), &lda));
  FLEXUQ_PETSC(MatDenseGetArrayWrite(A.get(), &a));
  for (Eigen::Index j = 0; j < cols_; ++j)
    std::copy_n(data_.col(j).data(), local_rows_, a + j * static_cast<Eigen::Index>(lda));
  FLEXUQ_PETSC(MatDenseRestoreArrayWrite(A.get(), &a));
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

Eigen::MatrixXd gather_rows(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& local_rows) {
  int size = 1;
  FLEXUQ_MPI(MPI_Comm_size(comm, &size));
  const int nc = static_cast<int>(local_rows.cols());
  int nr = static_cast<int>(local_rows.rows());
  std::vector<int> rows(static_cast<std::size_t>(size)), counts(rows.size()), displs(rows.size());
  FLEXUQ_MPI(MPI_Allgather(&nr, 1, MPI_INT, rows.data(), 1, MPI_INT, comm));
  int total = 0;
  for (int p = 0; p < size; ++p) {
    counts[static_cast<std::size_t>(p)] = rows[static_cast<std::size_t>(p)] * nc;
    displs[static_cast<std::size_t>(p)] = total * nc;
    total += rows[static_cast<std::size_t>(p)];
  }
  // Row-major transfer so that each rank's block is contiguous.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> mine = local_rows;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> all(total, nc);
  FLEXUQ_MPI(MPI_Allgatherv(mine.data(), nr * nc, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
                            comm));
  return all;
}

std::pair<PetscInt, PetscInt> split_rows(MPI_Comm comm, PetscInt global_rows) {
  int rank = 0, size = 1;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  FLEXUQ_MPI(MPI_Comm_size(comm, &size));
  const PetscInt base = global_rows / size, extra = global_rows % size;
  const PetscInt n = base + (rank < extra ? 1 : 0);
  const PetscInt begin = rank * base + std::min<PetscInt>(rank, extra);
  return {begin, n};
}

} // namespace flexuq::pod
