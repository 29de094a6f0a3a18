// SPDX-License-Identifier: MIT
#pragma once
/// @file Assert.hpp
/// @brief Internal invariants: a broken one is a bug in flexuq, not bad input. FLEXUQ_ASSERT throws
/// InternalError, which `main` reports as an internal error with exit code 3 (bad input: 2, other
/// failures such as a solver that did not converge or an unwritable file: 1). Always checked (also
/// in release builds): the checks guard cheap conditions whose failure would corrupt results.

#include "flexuq/core/Error.hpp"

namespace flexuq {

/// @brief A violated internal invariant (a bug). Distinct from InputError on purpose.
class InternalError : public Error {
public:
  explicit InternalError(const std::string& what) : Error(what) {}
};

} // namespace flexuq

/// Throw flexuq::InternalError("file:line (cond): msg") unless cond holds.
#define FLEXUQ_ASSERT(cond, stream_expr)                                                            \
  do {                                                                                              \
    if (!(cond))                                                                                    \
      throw ::flexuq::InternalError(                                                               \
          FLEXUQ_MSG(__FILE__ << ":" << __LINE__ << " (" #cond "): " << stream_expr));                  \
  } while (0)
