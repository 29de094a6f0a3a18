// SPDX-License-Identifier: MIT
#pragma once
/// @file MumpsOutOfCore.hpp
/// @brief Out-of-core MUMPS factors for every factorisation flexuq sets up (issue #38 item 3; the job
/// key `linear_solver.out_of_core`, docs/config.md; measurements in docs/performance.md, "Memory of the
/// 868 k-DOF crank at 2 ranks").
///
/// MUMPS's ICNTL(22) = 1 writes the factor to files (in $MUMPS_OOC_TMPDIR, default /tmp) during the
/// factorisation and reads it back at each solve: the same factorisation and the same arithmetic, so
/// the same solution to round-off, with a fraction of the in-core memory. Process-wide like the
/// ordering: setup_mumps_cholesky (la/Solvers.hpp) records ICNTL(22) under each factorisation's prefix
/// as an overridable default (a user's own -<prefix>mat_mumps_icntl_22 wins).

#include "flexuq/core/EnumNames.hpp"

#include <string>

namespace flexuq::la {

class SolverDefaults;

/// `off` (the name "false", the default): factors in core. `on` ("true"): factors out of core.
enum class MumpsOutOfCore { off, on };
inline constexpr EnumNames<MumpsOutOfCore, 2> kMumpsOutOfCoreNames{
    {{{MumpsOutOfCore::off, "false"}, {MumpsOutOfCore::on, "true"}}}};

/// Set the process-wide choice (default off). Not collective; every rank must set the same.
void set_mumps_out_of_core(MumpsOutOfCore choice);
MumpsOutOfCore mumps_out_of_core();

/// Record in @p defaults, under the KSP prefix @p ksp_prefix, ICNTL(22) of the process-wide choice
/// (nothing when off: MUMPS's default, in core). Called by setup_mumps_cholesky.
void mumps_out_of_core_defaults(const std::string& ksp_prefix, SolverDefaults& defaults);

} // namespace flexuq::la
