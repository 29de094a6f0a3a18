// SPDX-License-Identifier: MIT
#pragma once
/// @file MumpsOrdering.hpp
/// @brief The fill-reducing ordering of every MUMPS factorisation flexuq sets up (issue #38 item 3;
/// the job key `linear_solver.ordering`, docs/config.md; measurements in docs/performance.md, "MUMPS
/// ordering").
///
/// Debian's PETSc links a MUMPS with PORD only; where CMake found Debian's PT-Scotch build of MUMPS
/// (libmumps-ptscotch-5.5, option FLEXUQ_MUMPS_SCOTCH) the executables bind PETSc's MUMPS to it, and
/// Scotch (sequential) and PT-Scotch (parallel analysis) orderings exist too: mumps_has_scotch().
/// The choice is process-wide (like the log level): setup_mumps_cholesky (la/Solvers.hpp) records,
/// under each factorisation's prefix, the MUMPS options of the ordering in force, as overridable
/// defaults (a user's own -<prefix>mat_mumps_icntl_7/28/29 wins).

#include "flexuq/core/EnumNames.hpp"

#include <string>

namespace flexuq::la {

class SolverDefaults;

/// `automatic` (the name "auto"): PORD on up to kMumpsPordMaxRanks ranks of a factorisation's
/// communicator, sequential Scotch above (PORD where the build lacks Scotch; PT-Scotch ordered with
/// 3.7-4.3x PORD's operations at 16 processes, docs/performance.md "16 ranks"). `pord`: sequential PORD on the
/// host (ICNTL(28) 1, ICNTL(7) 4). `scotch`: sequential Scotch (ICNTL(7) 3). `ptscotch`: parallel
/// analysis with PT-Scotch (ICNTL(28) 2, ICNTL(29) 1); on a one-rank communicator, where there is no
/// parallel analysis, sequential Scotch (the same nested dissection).
enum class MumpsOrdering { automatic, pord, scotch, ptscotch };
inline constexpr EnumNames<MumpsOrdering, 4> kMumpsOrderingNames{{{{MumpsOrdering::automatic, "auto"},
                                                                    {MumpsOrdering::pord, "pord"},
                                                                    {MumpsOrdering::scotch, "scotch"},
                                                                    {MumpsOrdering::ptscotch, "ptscotch"}}}};

/// Largest communicator size on which `auto` orders with PORD (docs/performance.md says why).
inline constexpr int kMumpsPordMaxRanks = 16;

/// Whether this build's MUMPS has the Scotch and PT-Scotch orderings (FLEXUQ_HAVE_MUMPS_SCOTCH).
bool mumps_has_scotch();

/// Set the process-wide ordering (default automatic). scotch or ptscotch in a build without them:
/// OptionError on the option "ordering" naming the package to install. Not collective; every rank
/// must set the same.
void set_mumps_ordering(MumpsOrdering ordering);
/// The check set_mumps_ordering makes, for a build with (@p have_scotch) or without Scotch.
void check_mumps_ordering(MumpsOrdering ordering, bool have_scotch);
MumpsOrdering mumps_ordering();

/// The ordering @p ordering amounts to on a communicator of @p comm_size ranks (automatic resolved;
/// ptscotch on one rank is scotch).
MumpsOrdering effective_mumps_ordering(MumpsOrdering ordering, int comm_size);

/// Fewer rows than this: `auto` orders with AMF (ICNTL(7) 2, sequential analysis) instead of PORD.
/// PORD aborts the process on some small graphs ("orderMinPriority: no valid number of stages in
/// multisector": a bar-and-spring deck of a few dozen DOFs); MUMPS's own automatic choice took AMF
/// there, and PORD from ~30 k DOFs up, with the PORD-only MUMPS. An explicit `pord` stays PORD.
inline constexpr long long kMumpsPordMinRows = 10000;

/// Record in @p defaults, under the KSP prefix @p ksp_prefix, the MUMPS options of the process-wide
/// ordering on @p comm_size ranks for a matrix of @p rows global rows (−1: not known; setup_mumps_cholesky
/// takes them from the KSP's operator when it has one). Called by setup_mumps_cholesky; call it again
/// with the rows where the operator is set later (a SLEPc ST's KSP): a later call replaces the values.
void mumps_ordering_defaults(const std::string& ksp_prefix, int comm_size, SolverDefaults& defaults,
                             long long rows = -1);

} // namespace flexuq::la
