// SPDX-License-Identifier: MIT
#pragma once
/// @file Session.hpp
/// @brief RAII SLEPc/PETSc/MPI session. Construct it first in main; every PETSc object must die
/// before it does (keep them in an inner scope).

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

} // namespace flexuq
