// SPDX-License-Identifier: MIT
#pragma once
/// @file Error.hpp
/// @brief The one exception type of flexuq and the one throwing check for PETSc/SLEPc/MPI calls.

#include <petscsys.h>

#include <cctype>
#include <functional>
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
/// from, renders the message with that key (`message_for("reduce.checkout.free_free")`). A message that
/// names a second option of the same struct writes it as `{field}` ("{residual_loads}": a lower-case letter,
/// then letters, digits, '_' and '.'; any other brace is text), rendered by the same mapping. what() renders every
/// option by its field name, so a library used without the CLI still says which option is wrong.
class OptionError : public InputError {
public:
  /// @p message: the text, with every `{}` replaced by the option's name when rendered.
  OptionError(std::string option, std::string message) : OptionError(std::move(option), std::move(message), {}, {}) {}
  const std::string& option() const noexcept { return option_; }
  /// The message with @p key in place of `{}` (other `{field}` names as written).
  std::string message_for(const std::string& key) const {
    return before_ + render(message_, [&](const std::string* field) { return field ? *field : key; }) + after_;
  }
  /// The message with every option named by @p key_of: `{}` by key_of(option()), `{field}` by key_of("field").
  std::string message_for(const std::function<std::string(const std::string&)>& key_of) const {
    return before_ + render(message_, [&](const std::string* field) { return key_of(field ? *field : option_); }) + after_;
  }
  /// The same error with @p before and @p after around its message (the file or body it concerns): a
  /// caller that adds context keeps the option for the parser to render.
  OptionError wrapped(const std::string& before, const std::string& after = {}) const {
    return OptionError(option_, message_, before + before_, after_ + after);
  }

private:
  OptionError(std::string option, std::string message, std::string before, std::string after)
      : InputError(before + render(message, [&](const std::string* field) { return field ? *field : option; }) + after),
        option_(std::move(option)), message_(std::move(message)), before_(std::move(before)), after_(std::move(after)) {}
  /// @p name(nullptr) for `{}`, @p name(&field) for `{field}`.
  template <class Name> static std::string render(const std::string& message, const Name& name) {
    std::string out;
    for (std::size_t i = 0; i < message.size(); ++i) {
      if (message[i] == '{') { // `{}`, or `{field}`: a lower-case letter, then letters, digits, '_' or '.'
        std::size_t j = i + 1;
        const bool named = j < message.size() && std::islower(static_cast<unsigned char>(message[j]));
        while (j < message.size() && (std::islower(static_cast<unsigned char>(message[j])) ||
                                      std::isdigit(static_cast<unsigned char>(message[j])) || message[j] == '_' ||
                                      message[j] == '.'))
          ++j;
        if (j < message.size() && message[j] == '}' && (named || j == i + 1)) {
          if (j == i + 1) {
            out += name(nullptr);
          } else {
            const std::string field = message.substr(i + 1, j - i - 1);
            out += name(&field);
          }
          i = j;
          continue;
        }
      }
      out += message[i];
    }
    return out;
  }
  std::string option_, message_, before_, after_;
};

/// Rethrow @p e with @p before and @p after around its message, as callers that name the file or body
/// an error concerns do; an OptionError stays one (OptionError::wrapped), so the parser can still
/// name the job key.
[[noreturn]] inline void rethrow_input_error(const InputError& e, const std::string& before, const std::string& after = {}) {
  if (const auto* o = dynamic_cast<const OptionError*>(&e)) throw o->wrapped(before, after);
  throw InputError(before + e.what() + after);
}

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
