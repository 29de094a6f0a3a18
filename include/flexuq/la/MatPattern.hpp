// SPDX-License-Identifier: MIT
#pragma once
/// @file MatPattern.hpp
/// @brief Whether two AIJ matrices store the same nonzero pattern, so that a shift K − σM can name
/// SAME_NONZERO_PATTERN (issue #38; docs/performance.md, "1 → 2 ranks after the shift's MatAXPY").
///
/// PETSc 3.18's MatAXPY on MPIAIJ with UNKNOWN_/DIFFERENT_NONZERO_PATTERN builds a new matrix through
/// MatSetValues (MatAXPY_BasicWithPreallocation), and with SUBSET_NONZERO_PATTERN adds row by row
/// through MatSetValues (MatAXPY_Basic); SeqAIJ detects an equal pattern itself, MPIAIJ does not. K and M
/// assembled from one preallocation store the same pattern: then Y += a X on the value arrays
/// (SAME_NONZERO_PATTERN) is the same sum entry by entry, y + a·x, to one rounding (BLAS may fuse the
/// multiply-add that MatSetValues rounds twice; equal on the 294 k crank's frequencies, see the docs).

#include <petscmat.h>

namespace flexuq::la {

/// True when @p A and @p B are both (Seq|MPI)AIJ of the same sizes and layouts and every rank stores
/// the same rows, columns (diagonal and off-diagonal blocks, and the off-diagonal block's global
/// columns) in the same order. Compares the index arrays in place (no copy). False for any other type.
/// @note Collective on A's communicator; the answer is the same on every rank.
bool same_nonzero_pattern(Mat A, Mat B);

/// The MatStructure to pass for Y += a X (or to SLEPc's STSetMatStructure) when X's pattern is
/// within Y's or equal to it: SAME_NONZERO_PATTERN where same_nonzero_pattern(Y, X), else @p otherwise.
/// @note Collective.
MatStructure axpy_structure(Mat Y, Mat X, MatStructure otherwise);

} // namespace flexuq::la
