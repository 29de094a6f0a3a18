// SPDX-License-Identifier: MIT
#pragma once
/// @file MumpsBlockSolve.hpp
/// @brief Solves with a block of right-hand sides on a MUMPS factorisation over several ranks without
/// PETSc 3.18's per-call set-up of the solution's scatter (issue #38; docs/performance.md, "1 → 2 ranks:
/// where the block solve lost").
///
/// PETSc 3.18's MatMatSolve_MUMPS on more than one rank passes the dense right-hand sides distributed
/// (ICNTL(20) 10) and gets MUMPS's solution distributed (ICNTL(21) 1), then, on every call, builds an
/// index set of nrhs × INFO(23) entries and a fresh VecScatter (PetscSF graph, ranks, sort) from MUMPS's
/// distribution to PETSc's, scatters and destroys it. Its single-vector MatSolve keeps that scatter. On
/// 2 ranks at 294 k DOFs with 8 columns the set-up was measured at ~0.2–0.4 s per call, as much as
/// MUMPS's own solve. ksp_mat_solve makes the same MUMPS solve (same factors, same ICNTLs, distributed
/// right-hand sides and solution) but keeps the map of MUMPS's solution rows to PETSc's (a PetscSF of
/// INFO(23) leaves, applied one column at a time: measured cheaper on 2 ranks than one exchange for all
/// columns, see direct_solve) with the factor and rebuilds it only when MUMPS's row list changes (a new
/// factorisation). MUMPS's instance is PETSc's: the Mat_MUMPS of PETSc 3.18 begins with
/// the DMUMPS_STRUC_C (its first member), which is checked against MatMumpsGetInfog/Icntl/Rinfog
/// (n, INFOG(1, 3, 4, 7, 9, 28, 29), ICNTL(7, 14, 18, 28), RINFOG(1), the communicator) before use; anything else
/// (one rank, no MUMPS, a KSP that is not preonly, a failed check on any rank) takes KSPMatSolve.

#include "flexuq/core/EnumNames.hpp"

#include <petscksp.h>

namespace flexuq::la {

/// X = A⁻¹ B for the dense (MATDENSE) B and X of the row layout of @p ksp's operator, @p ksp a preonly
/// KSP whose PC is a MUMPS Cholesky or LU factor (la::setup_mumps_cholesky). On one rank or where the
/// direct path does not apply: KSPMatSolve. Logged as KSPMatSolve in -log_view either way. Returns
/// whether the direct path was taken (the same on every rank). @note Collective on the KSP.
bool ksp_mat_solve(KSP ksp, Mat B, Mat X);

/// Which block solve ksp_mat_solve makes on more than one rank: `mumps` (the default) MUMPS's own
/// distributed solve as above, `petsc` always KSPMatSolve (PETSc's MatMatSolve_MUMPS, for comparisons).
/// The job key `linear_solver.block_solve` (docs/config.md), process-wide like linear_solver.ordering: it
/// serves every caller (fe block modes, cms block statics, sg's preconditioner).
enum class MumpsBlockSolve { mumps, petsc };
inline constexpr EnumNames<MumpsBlockSolve, 2> kMumpsBlockSolveNames{
    {{{MumpsBlockSolve::mumps, "mumps"}, {MumpsBlockSolve::petsc, "petsc"}}}};

/// Set the process-wide choice. Not collective; every rank must set the same.
void set_mumps_block_solve(MumpsBlockSolve choice);
/// The process-wide choice: the one set, else the environment's FLEXUQ_MUMPS_BLOCK_SOLVE (`mumps` or
/// `petsc`, read once; an alias kept for the benches; another value throws InputError naming it), else mumps.
MumpsBlockSolve mumps_block_solve();

} // namespace flexuq::la
