// SPDX-License-Identifier: MIT
// Sample run (seed 000 T19, PCE of x_A(0.1 s) over an uncertain Young's modulus):
//   mpirun -n 2 build/bin/flexuq reduce configs/rod-cb.yaml
//   mpirun -n 2 build/bin/flexuq reduce configs/slider-crank-bar1-cb.yaml
//   mpirun -n 2 build/bin/flexuq campaign configs/slider-crank-uq.yaml
#include "flexuq/app/SimulationModel.hpp"

#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/SimulationModel.hpp"

#include <memory>

namespace flexuq::app {

ModelFactory simulation_factory(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params) {
  const std::string path = cfg.resolve_path(cfg.get<std::string>("model.simulation"));
  auto sim_cfg = std::make_shared<io::Config>(io::Config::load(MPI_COMM_SELF, path));
  std::vector<mbs::StiffnessParameter> stiffness;
  std::vector<bool> used(params.size(), false);
  if (cfg.has("model.stiffness")) {
    const YAML::Node s = cfg.node("model.stiffness");
    FLEXUQ_REQUIRE(s.IsMap(), cfg.source() << ": model.stiffness must map parameter names to {reference, bodies}");
    for (const auto& kv : s) {
      const auto name = kv.first.as<std::string>();
      const std::string key = "model.stiffness." + name;
      std::size_t k = 0;
      while (k < params.size() && params[k].name != name) ++k;
      FLEXUQ_REQUIRE(k < params.size(), cfg.source() << ": " << key << ": '" << name << "' is not a campaign parameter");
      for (const auto& sub : kv.second)
        FLEXUQ_REQUIRE(sub.first.as<std::string>() == "reference" || sub.first.as<std::string>() == "bodies",
                       cfg.source() << ": unknown key '" << key << "." << sub.first.as<std::string>() << "' (reference, bodies)");
      mbs::StiffnessParameter sp;
      sp.parameter = k;
      sp.reference = cfg.get<double>(key + ".reference");
      sp.bodies = cfg.get<std::vector<std::string>>(key + ".bodies");
      used[k] = true;
      stiffness.push_back(sp);
    }
  }
  const auto outputs = cfg.get<std::vector<std::string>>("outputs.simulation");
  const auto times = cfg.get<std::vector<double>>("outputs.times");
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  // Read and check the job (and the body files) once now, so bad input fails before the campaign.
  try {
    mbs::SimulationModel check(read_simulation_job(*sim_cfg), stiffness, outputs, times, names);
    for (std::size_t k : check.stochastic_parameters()) used[k] = true;
    sim_cfg->mark_used("command");
    sim_cfg->check_all_used();
  } catch (const InputError& e) {
    throw InputError(cfg.source() + ": model.simulation (" + path + "): " + e.what());
  }
  for (std::size_t k = 0; k < params.size(); ++k)
    FLEXUQ_REQUIRE(used[k], cfg.source() << ": parameter '" << params[k].name
                                         << "' changes nothing in the simulation model (model.stiffness." << params[k].name
                                         << ": {reference, bodies}, or a stochastic body with a parameter of that name)");
  return [sim_cfg, stiffness, outputs, times, names](MPI_Comm) -> std::unique_ptr<Model> {
    return std::make_unique<mbs::SimulationModel>(read_simulation_job(*sim_cfg), stiffness, outputs, times, names);
  };
}

} // namespace flexuq::app
