// SPDX-License-Identifier: MIT
#pragma once
/// @file JobParameters.hpp
/// @brief Campaign parameters that set numbers of the simulate job itself (issue #35 item 1): a
/// parameter named by a key path of the job (`parameters: {bodies.crank.mass: {dist: …}}`) takes
/// the sampled value there; `model.set: {<key path>: <expression>}` sets a number derived from the
/// parameters (`bodies.crank.position.0: "l1*cos(pi/4)"`: seed 004's link lengths move the joint
/// points, the centres of mass and the rod's angle together). Per sample the job's text is parsed
/// again, the numbers are set in its tree, and the job goes through the simulate parse pass
/// (app/SimulationOptions.hpp) as if the user had written them: same checks, same messages.
///
/// Key paths: the job's keys joined by '.', list entries by their index as `.2` or `[2]`
/// (`forces.2.value`, `joints[1].point[0]`). Every path must lead to a number of the job: a missing
/// key, an index past the end, a list, a mapping or text is refused before any sample runs,
/// naming the campaign key and the path.

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::app {

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

/// The numbers of a simulate job that campaign parameters set.
class JobEdits {
public:
  JobEdits() = default;
  /// The parameters of @p params named by a key path ('.' or '[' in the name) and `model.set` of
  /// @p cfg (marked used), checked against the simulate job @p job. @throws InputError naming
  /// @p cfg's source, the key (parameters.<path> or model.set.<path>) and what is wrong.
  JobEdits(const io::Config& cfg, const io::Config& job, const std::vector<campaign::ParameterSpec>& params);
  bool empty() const { return edits_.empty(); }
  /// The campaign parameters (indices) some edit reads.
  std::vector<std::size_t> parameters() const;
  /// Set every edited number of @p root (a tree of the same job) to its value at @p theta.
  /// @throws InputError naming the key when a value is not finite (sqrt of a negative number).
  void apply(YAML::Node root, const std::vector<double>& theta) const;

  struct Edit;

private:
  std::vector<std::shared_ptr<const Edit>> edits_;
  std::vector<std::string> names_; ///< the campaign's parameters, for messages
};

/// The simulate job @p path (its text read now) at a sample θ: the text parsed again, @p edits
/// applied, the simulate parse pass run with strict keys. Not collective; the function is safe to
/// call on any rank at any θ (it keeps no state between calls). @throws InputError if the file
/// cannot be read.
std::function<workflow::SimulationSpec(const std::vector<double>&)> job_at_sample(const std::string& path,
                                                                                JobEdits edits);

} // namespace flexuq::app
