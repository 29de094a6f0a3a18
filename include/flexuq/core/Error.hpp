// SPDX-License-Identifier: MIT
#pragma once
/// @file Error.hpp
/// @brief The one exception type of flexuq and the one throwing check for PETSc/SLEPc/MPI calls.

#include <petscsys.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

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

/// Bad input in one option of a library's options struct (issue #33 item 2). Libraries do not know the
/// job file, so they name the option by its field (e.g. "checkout.free_free", "pce.order") and write the
/// message with `{}` where its name goes; the job-file parser (app), which knows the key the value came
/// from, renders the message with that key (`message_for("reduce.checkout.free_free")`). what() renders it
/// with the field name, so a library used without the CLI still says which option is wrong.
class OptionError : public InputError {
public:
  /// @p message: the text, with every `{}` replaced by the option's name when rendered.
  OptionError(std::string option, std::string message)
      : InputError(render(message, option)), option_(std::move(option)), message_(std::move(message)) {}
  const std::string& option() const noexcept { return option_; }
  /// The message with @p key in place of `{}`.
  std::string message_for(const std::string& key) const { return render(message_, key); }

private:
  static std::string render(const std::string& message, const std::string& name) {
    std::string out;
    for (std::size_t i = 0; i < message.size(); ++i) {
      if (message.compare(i, 2, "{}") == 0) {
        out += name;
        ++i;
      } else {
        out += message[i];
      }
    }
    return out;
  }
  std::string option_, message_;
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

/// Throw flexuq::OptionError(option, msg) unless cond holds; @p stream_expr builds the message with
/// `{}` where the option's name goes: FLEXUQ_REQUIRE_OPTION(n >= 0, "checkout.free_free", "{} must be >= 0").
#define FLEXUQ_REQUIRE_OPTION(cond, option, stream_expr)                                            \
  do {                                                                                              \
    if (!(cond)) throw ::flexuq::OptionError(option, FLEXUQ_MSG(stream_expr));                      \
  } while (0)

/// Throw flexuq::InputError(msg) unless cond holds.
#define FLEXUQ_REQUIRE(cond, stream_expr)                                                           \
  do {                                                                                              \
    if (!(cond)) throw ::flexuq::InputError(FLEXUQ_MSG(stream_expr));                               \
  } while (0)
