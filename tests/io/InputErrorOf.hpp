// SPDX-License-Identifier: MIT
#pragma once
/// @file InputErrorOf.hpp
/// @brief The message of the InputError a call throws (io tests).
#include "flexuq/core/Error.hpp"

#include <gtest/gtest.h>

#include <exception>
#include <string>

namespace flexuq::test {

/// The message of the InputError @p f throws; fails the test if it throws nothing or another type.
template <class F> std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected flexuq::InputError, got another exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected flexuq::InputError, nothing was thrown";
  return {};
}

} // namespace flexuq::test
