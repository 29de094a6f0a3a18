// SPDX-License-Identifier: MIT
#pragma once
/// @file BlockOps.hpp
/// @brief Blocks of distributed vectors (each rank holds its rows of K's layout, column-major) and
/// the BLAS-3 operations of the block eigensolvers (fe/RecycledModes.hpp, fe/BlockModes.hpp): the
/// sparse products streamed once per block, inner products summed over the ranks, M-orthonormalisation
/// by SVQB, projection against a basis, and the multi-right-hand-side solve with a factorization.

#include "flexuq/core/Handle.hpp"

#include <Eigen/Dense>
#include <mpi.h>
#include <petscksp.h>

#include <memory>

namespace flexuq::la {
class BlockProduct;
}

namespace flexuq::fe::block {

/// The parts of the block eigensolvers timed as PETSc log events (-log_view: BlkMProduct, ...).
enum class Event { MProduct, Inner, SVQB, Project, SolveCopy, RayleighRitz, Check, Restart, Grow, Count };
/// The PETSc log event of @p e (registered on first use).
PetscLogEvent event(Event e);
/// Logs its scope as the event @p e.
class ScopedEvent {
public:
  explicit ScopedEvent(Event e);
  ~ScopedEvent();
  ScopedEvent(const ScopedEvent&) = delete;
  ScopedEvent& operator=(const ScopedEvent&) = delete;

private:
  PetscLogEvent e_;
};

/// Local rows × columns of a block of distributed vectors (column-major, K's row layout).
using Block = Eigen::MatrixXd;

/// Y = A X for local blocks, the sparse matrix streamed once per block (la::BlockProduct) where its
/// type allows, else one MatMult per column.
class Operator {
public:
  explicit Operator(Mat A);
  ~Operator();
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;
  Block apply(const Block& X);

private:
  Mat A_;
  std::unique_ptr<la::BlockProduct> bp_;
};

/// Xᵀ Y summed over the ranks (replicated).
Eigen::MatrixXd inner(MPI_Comm comm, const Block& X, const Block& Y);
/// Squared Euclidean column norms summed over the ranks.
Eigen::VectorXd column_norms2(MPI_Comm comm, const Block& X);
/// diag(Xᵀ Y) summed over the ranks.
Eigen::VectorXd inner_diagonal(MPI_Comm comm, const Block& X, const Block& Y);
/// SVQB: X ← X T with (X T)ᵀ M (X T) = I, MX updated alike; directions whose eigenvalue of the
/// diagonally scaled Gram matrix is below 1e-14 of the largest are dropped (round-off, not space).
void svqb(MPI_Comm comm, Block& X, Block& MX);
/// Y ← (I − V Vᵀ M) Y twice (V M-orthonormal, MV = M V); columns left with less than 1e-13 of
/// their norm are dropped (in the basis's span to round-off). @p first: the first pass's
/// coefficients MVᵀ Y when the caller has them already (one read of MV fewer).
void project_out(MPI_Comm comm, const Block& V, const Block& MV, Block& Y, const Eigen::MatrixXd* first = nullptr);
/// X ← X Z in place (Z: X.cols() × k, k ≤ X.cols()), by row panels: no second copy of X.
void rotate(Block& X, const Eigen::MatrixXd& Z);
/// X = A⁻¹ B with the set-up KSP @p ksp (operator A of @p layout's row layout): one KSPMatSolve,
/// MUMPS's multi-right-hand-side solve with its factorization.
Block solve(KSP ksp, Mat layout, const Block& B);
/// Column @p j of @p X as a vector of @p layout's row layout.
VecH column_vec(Mat layout, const Block& X, Eigen::Index j);

} // namespace flexuq::fe::block
