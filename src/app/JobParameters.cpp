// SPDX-License-Identifier: MIT
// Campaign parameters that set numbers of the simulate job (issue #35 item 1): the campaign's
// parameters to io::KeyPathEdits (config), and the job parsed once and copied per sample.
#include "flexuq/app/JobParameters.hpp"

#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"

namespace flexuq::app {

namespace {

std::vector<std::string> names_of(const std::vector<campaign::ParameterSpec>& params) {
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  return names;
}

} // namespace

JobEdits::JobEdits(const io::Config& cfg, const io::Config& job, const std::vector<campaign::ParameterSpec>& params)
    : io::KeyPathEdits(cfg, job, names_of(params)) {}

std::function<workflow::SimulationSpec(const std::vector<double>&)> job_at_sample(const std::string& path,
                                                                                JobEdits edits) {
  std::string why = "cannot be opened";
  auto text = io::read_text(path, &why);
  FLEXUQ_REQUIRE(text, "simulate job '" << path << "' " << why);
  // Parsed once; each sample edits a deep copy of the tree (re-parsing the text per sample was a
  // third of a reduced `flexuq identify`, whose gradient builds 2p + 1 systems). The copy keeps the
  // file lines (io::Config::copy), so a sample the parse pass refuses names its key's line from it.
  auto parsed = std::make_shared<const io::Config>(io::Config::from_string(*text, path));
  auto shared_edits = std::make_shared<const JobEdits>(std::move(edits));
  return [parsed, shared_edits](const std::vector<double>& theta) {
    const io::Config c = parsed->copy();
    shared_edits->apply(c.root(), theta);
    auto spec = parse_simulation_job(c);
    spec.rom = simulation_rom(c);
    c.mark_used("command");
    c.check_all_used();
    return spec;
  };
}

} // namespace flexuq::app
