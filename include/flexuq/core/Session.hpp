// SPDX-License-Identifier: MIT
#pragma once
/// @file Session.hpp
/// @brief RAII SLEPc/PETSc/MPI session. Construct it first in main; every PETSc object must die
/// before it does (keep them in an inner scope).

#include <string>

namespace flexuq {

class Session {
public:
  /// Initialise MPI (if needed) and SLEPc with the given command line (passed to PETSc's options
  /// database). @p help is PETSc's help string.
  Session(int* argc, char*** argv, const char* help = nullptr);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

/// Abort every rank of MPI_COMM_WORLD with @p code after printing @p msg on the calling rank.
/// Used by main when an exception escapes: one rank unwinding while others wait in a collective
/// would hang the job.
[[noreturn]] void abort_all(const char* msg, int code);

/// The PETSc/SLEPc options given but never used, as " -name[ value]" each, and in @p count their
/// number (0 and "" when PETSc cannot list them). Call before the Session ends.
std::string unused_options(int& count);

/// This process's rank in MPI_COMM_WORLD and its size (MPI initialised).
int world_rank();
int world_size();

/// The fatal end of main: MPI_Abort(MPI_COMM_WORLD, @p code) when there are several ranks, then
/// SLEPc (and with it MPI) finalized and exit(@p code). MPI return codes are not checked: nothing is
/// left to do if they fail.
[[noreturn]] void exit_all(int code);

/// The normal end of main: a warning on rank 0 listing the PETSc/SLEPc options given but never used.
void warn_unused_options();

/// The error end of main: "flexuq: error: @p what" on rank 0 ("flexuq: internal error (a bug …)" for
/// @p code 3); another rank waits 800 ms so that rank 0 can report a collective error once, then
/// prints its own tagged with its rank; then exit_all(@p code).
[[noreturn]] void fail_all(const std::string& what, int code);

} // namespace flexuq
