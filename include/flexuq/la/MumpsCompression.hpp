// SPDX-License-Identifier: MIT
#pragma once
/// @file MumpsCompression.hpp
/// @brief MUMPS's analysis on the graph of nodes instead of DOFs (ICNTL(15), issue #38 item 3; the job
/// key `linear_solver.compress`, docs/config.md; measurements in docs/performance.md, "MUMPS's analysis
/// on the node graph (ICNTL(15))").
///
/// MUMPS 5.5's ICNTL(15) = −k compresses the input graph by uniform blocks of k consecutive variables:
/// the ordering runs on the quotient graph (for dpn = 3, 3× fewer vertices, ~9× fewer edges) and is
/// expanded back. PETSc 3.18's MUMPS interface sets ICNTL(15) = −bs by itself when the factored matrix has
/// equal row and column block sizes bs > 1, so the block size *is* the switch: fe::Component gives K and M
/// the block size dpn when every node has all or none of its DOFs free, and every operator made from them
/// by MatDuplicate/MatAXPY (SLEPc's shifted K − σM, fe's block eigensolver) keeps it; submatrices
/// (cms's K_ii, K_ff, sg's K_ii terms) take it through inherit_block_size where their index set keeps
/// whole blocks. `off` asks for ICNTL(15) = 0 on every factorisation. Same factorisation up to the
/// ordering: results agree to round-off.

#include "flexuq/core/EnumNames.hpp"

#include <petscmat.h>

#include <string>

namespace flexuq::la {

class SolverDefaults;

/// `automatic` ("auto", the default): compressed wherever the factored matrix carries a block size > 1.
/// `off`: never (ICNTL(15) = 0).
enum class MumpsCompression { automatic, off };
inline constexpr EnumNames<MumpsCompression, 2> kMumpsCompressionNames{
    {{{MumpsCompression::automatic, "auto"}, {MumpsCompression::off, "off"}}}};

/// Set the process-wide choice (default automatic). Not collective; every rank must set the same.
void set_mumps_compression(MumpsCompression choice);
MumpsCompression mumps_compression();

/// Record in @p defaults, under the KSP prefix @p ksp_prefix, ICNTL(15) of the process-wide choice
/// (off: 0; automatic: nothing, PETSc derives −bs from the matrix). Called by setup_mumps_cholesky; a
/// user's own -<prefix>mat_mumps_icntl_15 wins.
void mumps_compression_defaults(const std::string& ksp_prefix, SolverDefaults& defaults);

/// Give @p sub, made by MatCreateSubMatrix(@p parent, @p is, @p is, ...), the parent's block size k > 1
/// when @p is keeps whole blocks of the parent on every rank (its local indices in runs of k consecutive
/// indices, each run starting at a multiple of k: whole nodes of fe's numbering). Returns the block size
/// @p sub has afterwards (1 where a block is cut, e.g. a node with some of its DOFs on an interface).
/// Collective on @p sub's communicator.
PetscInt inherit_block_size(Mat parent, IS is, Mat sub);

} // namespace flexuq::la
