// SPDX-License-Identifier: MIT
#include "flexuq/app/JobKeys.hpp"

namespace flexuq::app {

std::string JobKeys::key_of(const std::string& field) const {
  const std::pair<std::string, std::string>* best = nullptr;
  for (const auto& p : prefixes_) {
    const std::string& f = p.first;
    const bool covers = field.compare(0, f.size(), f) == 0 && (field.size() == f.size() || field[f.size()] == '.');
    if (covers && (!best || f.size() > best->first.size())) best = &p;
  }
  return best ? best->second + field.substr(best->first.size()) : field;
}

std::string JobKeys::message(const std::exception& e) const {
  if (const auto* o = dynamic_cast<const OptionError*>(&e))
    return o->message_for([this](const std::string& field) { return key_of(field); });
  return e.what();
}

namespace {

using Table = std::vector<std::pair<std::string, std::string>>;

Table operator+(Table a, const Table& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// fe::ComponentOptions, fe::MatrixModelSpec, the mesh generators (io) and the analytic models (uq): the
/// model section, in every verb.
const Table kModelSection{{"component.fixed_sets", "model.fixed"},
                          {"component.default_material", "model.material"},
                          {"component.set_materials", "model.materials"},
                          {"component.shell_section", "model.shell"},
                          {"component.plane_section", "model.plane"},
                          {"component.keep_affine", "model.keep_affine"},
                          {"generator", "model.generator"},
                          {"matrices", "model.matrices"},
                          {"function", "model.function"}};

/// cms options (InterfaceSpec, ReducerOptions, BuildOptions, StochasticBodyOptions): the reduce section
/// of a reduce job (a simulation campaign's model.reduce.<body> files are reduce jobs too).
const Table kReduceSection{{"interfaces", "reduce.interfaces"},
                           {"method", "reduce.method"},
                           {"modes", "reduce.modes"},
                           {"residual_vectors", "reduce.residual_vectors"},
                           {"residual_loads", "reduce.residual_loads"},
                           {"checkout", "reduce.checkout"},
                           {"matrix_market", "reduce.matrix_market"},
                           {"scaling", "reduce.scaling"},
                           {"stochastic", "reduce.stochastic"},
                           {"stress_modes", "reduce.stress_modes"},
                           {"op4", "reduce.op4"}};

/// campaign::Plan and the layouts made from it (sg::StochasticLayout's ranks_per_group): the campaign
/// section of a campaign or stochastic reduce job. sg::EigenOptions::n_modes: outputs.frequencies (as
/// the message said before, in a stochastic reduce job too).
const Table kCampaignSection{{"ranks_per_sample", "campaign.ranks_per_sample"},
                             {"ranks_per_group", "campaign.ranks_per_sample"},
                             {"checkpoint_every", "campaign.checkpoint_every"},
                             {"checkpoint_seconds", "campaign.checkpoint_seconds"},
                             {"n_modes", "outputs.frequencies"}};

/// fe::FrequencyModelOptions: the campaign's frequency model.
const Table kFrequencyModel{{"frequencies", "outputs.frequencies"}};

/// The reduce options that make what a body file offers (cms::BodyFile, mbs::FlexibleBody,
/// workflow::build_simulation name them in hints when a simulation or body-at needs them).
const Table kBodyFileMaker{{"stress_modes", "reduce.stress_modes"},
                           {"interfaces", "reduce.interfaces"},
                           {"method", "reduce.method"},
                           {"stochastic", "reduce.stochastic"}};

/// mbs::SimulationModel's arguments in a simulation campaign (model.simulation).
const Table kSimulationModel{
    {"providers", "model.reduce"}, {"outputs", "outputs.simulation"}, {"times", "outputs.times"}};

} // namespace

const JobKeys& modes_keys() {
  static const JobKeys k{kModelSection};
  return k;
}

const JobKeys& reduce_keys() {
  static const JobKeys k{kModelSection + kReduceSection + kCampaignSection};
  return k;
}

const JobKeys& campaign_keys() {
  static const JobKeys k{kModelSection + kCampaignSection + kReduceSection + kFrequencyModel + kSimulationModel +
                         Table{{"solver", "solver"}}};
  return k;
}

const JobKeys& simulate_keys() {
  static const JobKeys k{kModelSection + kBodyFileMaker + Table{{"solver", "solver"}}};
  return k;
}

} // namespace flexuq::app
