// SPDX-License-Identifier: MIT
#pragma once
/// @file Snapshots.hpp
/// @brief Tall-skinny snapshot matrices distributed by rows: each rank holds one contiguous block of
/// rows in the component's DOF layout (the ownership range of its PETSc vectors); columns are
/// snapshots (samples, time steps, modes at parameter points). Nothing is ever gathered on one rank.

#include "flexuq/core/Handle.hpp"

#include <Eigen/Dense>
#include <mpi.h>
#include <petscmat.h>

namespace flexuq::pod {

class SnapshotMatrix {
public:
  /// Empty matrix with @p local_rows rows on this rank. @note Collective (sums the global row count).
  SnapshotMatrix(MPI_Comm comm, PetscInt local_rows);
  /// Empty matrix with the row layout of @p layout (a PETSc vector). @note Collective.
  static SnapshotMatrix like(Vec layout);
  /// Wrap an existing local block (rows of this rank × snapshots). @note Collective.
  static SnapshotMatrix from_local(MPI_Comm comm, Eigen::MatrixXd local_block);

  MPI_Comm comm() const { return comm_; }
  Eigen::Index local_rows() const { return local_rows_; }
  PetscInt global_rows() const { return global_rows_; }
  PetscInt row_begin() const { return row_begin_; }
  Eigen::Index cols() const { return cols_; }

  /// Append one snapshot from a PETSc vector with this layout (its local part is copied). Throws
  /// Error if the local size differs. Not collective.
  void append(Vec v);
  /// Append columns given by their local rows (local_rows() × b). Not collective.
  void append_local(const Eigen::Ref<const Eigen::MatrixXd>& block);

  /// This rank's rows of all snapshots (local_rows() × cols()), column-major.
  Eigen::Ref<const Eigen::MatrixXd> local() const { return data_.leftCols(cols_); }

  /// Row mean over the snapshots (this rank's rows). Not collective.
  Eigen::VectorXd local_mean() const;

  /// A parallel dense PETSc matrix holding a copy of the snapshots (for SLEPc). @note Collective.
  MatH to_petsc() const;

private:
  MPI_Comm comm_;
  Eigen::Index local_rows_ = 0;
  PetscInt global_rows_ = 0, row_begin_ = 0;
  Eigen::Index cols_ = 0;
  Eigen::MatrixXd data_; ///< capacity ≥ cols_ columns (grown geometrically)
};

/// All rows of a row-distributed block on every rank (for small matrices only, e.g. a 1-D bar).
/// @note Collective.
Eigen::MatrixXd gather_rows(MPI_Comm comm, const Eigen::Ref<const Eigen::MatrixXd>& local_rows);

/// Contiguous split of @p global_rows over the ranks (PETSc's PETSC_DECIDE rule): this rank's
/// {begin, local size}.
std::pair<PetscInt, PetscInt> split_rows(MPI_Comm comm, PetscInt global_rows);

} // namespace flexuq::pod
