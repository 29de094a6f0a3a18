// SPDX-License-Identifier: MIT
#pragma once
/// @file JobParameters.hpp
/// @brief Campaign parameters that set numbers of the simulate job itself (issue #35 item 1): a
/// parameter named by a key path of the job (`parameters: {bodies.crank.mass: {dist: …}}`) takes
/// the sampled value there; `model.set: {<key path>: <expression>}` sets a number derived from the
/// parameters (`bodies.crank.position.0: "l1*cos(pi/4)"`: seed 004's link lengths move the joint
/// points, the centres of mass and the rod's angle together). Per sample the job's text is parsed
/// again, the numbers are set in its tree, and the job goes through the simulate parse pass
/// (app/SimulationOptions.hpp) as if the user had written them: same checks, same messages. The key
/// paths and expressions are config's (config/KeyPathEdits.hpp, config/Expression.hpp).

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/config/KeyPathEdits.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

#include <functional>
#include <string>
#include <vector>

namespace flexuq::app {

using io::Expression;

/// The numbers of a simulate job that campaign parameters set (io::KeyPathEdits of the parameters'
/// names).
class JobEdits : public io::KeyPathEdits {
public:
  JobEdits() = default;
  /// @throws InputError naming @p cfg's source, the key (parameters.<path> or model.set.<path>) and
  /// what is wrong.
  JobEdits(const io::Config& cfg, const io::Config& job, const std::vector<campaign::ParameterSpec>& params);
};

/// The simulate job @p path (read and parsed now; InputError on a YAML syntax error) at a sample θ:
/// a deep copy of the parsed tree, @p edits applied, the simulate parse pass run with strict keys. Not collective; the function is safe to
/// call on any rank at any θ (it keeps no state between calls). @throws InputError if the file
/// cannot be read.
std::function<workflow::SimulationSpec(const std::vector<double>&)> job_at_sample(const std::string& path,
                                                                                JobEdits edits);

} // namespace flexuq::app
