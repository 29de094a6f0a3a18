// SPDX-License-Identifier: MIT
#pragma once
/// @file Expression.hpp
/// @brief The arithmetic of a job file's `model.set` (docs/config.md): text compiled once against
/// the names of the campaign's parameters, evaluated per sample. It lives in `config`, the job-file
/// module, because its messages quote the job's text (io::shorten) and name the job key that holds
/// it; only `app` uses it (docs/architecture.md).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::io {

/// An arithmetic expression of named variables: numbers, + - * / ^ (right-associative), unary
/// minus, parentheses, pi, and sqrt, exp, log, sin, cos, tan, asin, acos, atan, atan2(y, x), abs,
/// min(a, b), max(a, b). Compiled once, evaluated per sample.
class Expression {
public:
  /// @throws InputError "<where>: '<text>': <what> at character <k>" for a syntax error or a name
  /// that is neither a variable of @p names nor pi.
  Expression(const std::string& text, const std::vector<std::string>& names, const std::string& where);
  /// The value at @p values (indexed as @p names). Not checked for finiteness.
  double operator()(const std::vector<double>& values) const;
  /// Indices of the variables the expression reads, ascending, once each.
  std::vector<std::size_t> variables() const;

  struct Op;

private:
  std::vector<std::shared_ptr<const Op>> code_; ///< postfix
};

} // namespace flexuq::io
