// SPDX-License-Identifier: MIT
#pragma once
/// @file KeyPathEdits.hpp
/// @brief Campaign parameters that set numbers of a simulate job's YAML tree (issue #35 item 1): a
/// parameter named by a key path of the job (`parameters: {bodies.crank.mass: {dist: …}}`) takes the
/// sampled value there; `model.set: {<key path>: <expression>}` sets a number derived from the
/// parameters (io::Expression). The job's own parse pass (app/SimulationOptions) then reads the
/// tree as if the user had written the numbers: same checks, same messages.
///
/// Key paths: the job's keys joined by '.', list entries by their index as `.2` or `[2]`
/// (`forces.2.value`, `joints[1].point[0]`). Every path must lead to a number of the job: a missing
/// key, an index past the end, a list, a mapping or text is refused before any sample runs,
/// naming the campaign key and the path.

#include "flexuq/config/Config.hpp"
#include "flexuq/config/Expression.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::io {

/// The numbers of a simulate job that campaign parameters set.
class KeyPathEdits {
public:
  KeyPathEdits() = default;
  /// The campaign parameters @p names (in order) named by a key path ('.' or '[' in the name) and
  /// `model.set` of @p cfg (marked used), checked against the simulate job @p job. @throws InputError
  /// naming @p cfg's source, the key (parameters.<path> or model.set.<path>) and what is wrong.
  KeyPathEdits(const Config& cfg, const Config& job, std::vector<std::string> names);
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

} // namespace flexuq::io
