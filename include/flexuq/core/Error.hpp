// SPDX-License-Identifier: MIT
#pragma once
/// @file Error.hpp
/// @brief The one exception type of flexuq and the one throwing check for PETSc/SLEPc/MPI calls.

#include <petscsys.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace flexuq {

/// @brief Every error flexuq raises. The message is meant for the user: it names the file, line,
/// key, set or sample at fault. `main` prints it once on rank 0 and aborts every rank.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// @brief An error in user input (config, mesh, parameters). Same handling; separate type so
/// tests can tell bad input from internal failures.
class InputError : public Error {
public:
  explicit InputError(const std::string& what) : Error(what) {}
};

namespace detail {
/// @brief Throw an Error carrying PETSc's message for @p ierr. Not collective.
[[noreturn]] void throw_petsc_error(PetscErrorCode ierr, const char* call, const char* file, int line);
[[noreturn]] void throw_mpi_error(int ierr, const char* call, const char* file, int line);
} // namespace detail

/// Build a message with stream syntax: `FLEXUQ_MSG("bad " << x)`.
#define FLEXUQ_MSG(stream_expr)                                                                     \
  ([&]() {                                                                                          \
    std::ostringstream flexuq_os_;                                                                  \
    flexuq_os_ << stream_expr;                                                                      \
    return flexuq_os_.str();                                                                        \
  }())

} // namespace flexuq

/// Check a PETSc/SLEPc call; throw flexuq::Error with PETSc's text on failure.
#define FLEXUQ_PETSC(call)                                                                          \
  do {                                                                                              \
    PetscErrorCode flexuq_ierr_ = (call);                                                           \
    if (flexuq_ierr_ != 0)                                                                          \
      ::flexuq::detail::throw_petsc_error(flexuq_ierr_, #call, __FILE__, __LINE__);                 \
  } while (0)

/// Check an MPI call; throw flexuq::Error with MPI's error string on failure.
#define FLEXUQ_MPI(call)                                                                            \
  do {                                                                                              \
    int flexuq_mpierr_ = (call);                                                                    \
    if (flexuq_mpierr_ != MPI_SUCCESS)                                                              \
      ::flexuq::detail::throw_mpi_error(flexuq_mpierr_, #call, __FILE__, __LINE__);                 \
  } while (0)

/// Throw flexuq::InputError(msg) unless cond holds.
#define FLEXUQ_REQUIRE(cond, stream_expr)                                                           \
  do {                                                                                              \
    if (!(cond)) throw ::flexuq::InputError(FLEXUQ_MSG(stream_expr));                               \
  } while (0)
