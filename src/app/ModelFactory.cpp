// SPDX-License-Identifier: MIT
#include "flexuq/app/ModelFactory.hpp"

#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/app/JobKeys.hpp"
#include "flexuq/app/JobParameters.hpp"
#include "flexuq/app/MatrixModel.hpp"
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/campaign/DelayedModel.hpp"
#include "flexuq/cms/StochasticBodyModel.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/FrequencyModel.hpp"
#include "flexuq/uq/AnalyticModels.hpp"
#include "flexuq/workflow/MatrixFrequencyCampaign.hpp"
#include "flexuq/workflow/SimulationCampaign.hpp"

#include <memory>

namespace flexuq::app {

namespace {

ModelFactory analytic_factory(const io::Config& cfg, std::size_t dim) {
  const auto fn = cfg.get<std::string>("model.function");
  FLEXUQ_REQUIRE(uq::is_analytic_model(fn),
                 cfg.source() << ": unknown model.function '" << fn << "' (ishigami, oscillator, polynomial, failing)");
  const double threshold = cfg.get<double>("model.threshold", 1.0);
  return [fn, dim, threshold](MPI_Comm) { return uq::make_analytic_model(fn, dim, threshold); };
}

ModelFactory frequency_factory(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params) {
  fe::FrequencyModelOptions fo;
  fo.frequencies = cfg.get<int>("outputs.frequencies", 10);
  FLEXUQ_REQUIRE(fo.frequencies >= 1, cfg.source() << ": outputs.frequencies must be at least 1");
  fo.mode_shapes = cfg.get<bool>("outputs.mode_shapes", false);
  fo.tol = cfg.get<double>("modes.tol", 1e-10);
  if (has_matrix_model(cfg)) // parameters scale terms
    return workflow::matrix_frequency_factory(parse_matrix_frequency(cfg, params, fo));
  fo.parameters = material_parameters(cfg, params);
  auto component = app::component_options(cfg);
  auto mesh = std::make_shared<const io::Mesh>(app::load_mesh(cfg));
  return [fo, component, mesh](MPI_Comm comm) {
    return std::make_unique<fe::FrequencyModel>(comm, *mesh, component, fo);
  };
}

/// `model.reduce.<body>`: the deterministic reduce job of a flexible body of the simulation.
workflow::ReduceBodySpec parse_reduce_body(const io::Config& cfg, const std::string& body, const std::string& file) {
  workflow::ReduceBodySpec rb;
  rb.body = body;
  rb.path = cfg.resolve_path(file);
  try {
    const io::Config rc = io::Config::load(MPI_COMM_SELF, rb.path);
    FLEXUQ_REQUIRE(!rc.has("reduce.stochastic"), "a stochastic reduce job; give the deterministic job of the body");
    const ReduceJob job = parse_reduce_job(rc);
    rb.component = component_options(rc);
    rb.mesh = std::make_shared<const io::Mesh>(load_mesh(rc));
    check_reduce_supports(rc, rb.mesh.get());
    rb.options.interfaces = job.interfaces;
    rb.options.reducer = job.reducer;
    rb.options.build = job.build;
    rb.options.free_free = 0;
    rb.options.basis = false;
    rb.options.section = "reduce";
    cms::validate_stochastic(rb.options, rb.path); // what the path re-reducing it per sample cannot do
  } catch (const InputError& e) { // the reduce job's own keys
    throw InputError(cfg.source() + ": model.reduce." + body + " (" + rb.path + "): " + reduce_keys().message(e));
  }
  return rb;
}

/// `model.simulation` of a campaign job (the simulate job, relative to this file), `model.stiffness`
/// (per parameter: K̄ of these bodies ← θ / reference · K̄), `model.reduce` (bodies reduced again per
/// sample), parameters named by key paths of the simulate job and `model.set` (numbers of the job
/// set per sample: app/JobParameters.hpp), `outputs.simulation` and `outputs.times`:
///   model:
///     simulation: slider-crank-flexible.yaml
///     stiffness: {E: {reference: 1.99953e11, bodies: [crank, rod]}}
///     reduce: {rod: rod-cb.yaml}
///   outputs: {simulation: [x_A], times: [0.1]}
workflow::SimulationCampaignSpec simulation_campaign(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params) {
  workflow::SimulationCampaignSpec spec;
  spec.source = cfg.source();
  spec.simulation_key = "model.simulation";
  spec.reduce_key = "model.reduce";
  spec.stiffness_key = "model.stiffness";
  spec.job_key = "a number of the simulate job: the parameter named by its key path, or model.set";
  spec.params = params;
  spec.simulation_path = cfg.resolve_path(cfg.get<std::string>("model.simulation"));
  const io::Config sim_cfg = io::Config::load(MPI_COMM_SELF, spec.simulation_path);
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
      spec.stiffness.push_back(sp);
    }
  }
  spec.outputs = cfg.get<std::vector<std::string>>("outputs.simulation");
  spec.times = cfg.get<std::vector<double>>("outputs.times");
  std::vector<std::pair<std::string, std::string>> reduce_files;
  if (cfg.has("model.reduce")) {
    const YAML::Node r = cfg.node("model.reduce");
    FLEXUQ_REQUIRE(r.IsMap() && r.size() > 0, cfg.source() << ": model.reduce must map flexible body names to their "
                                                               "reduce jobs, e.g. {rod: rod-cb.yaml}");
    for (const auto& kv : r) reduce_files.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
  }
  try {
    spec.simulation = parse_simulation_job(sim_cfg);
    spec.simulation.rom = simulation_rom(sim_cfg);
    sim_cfg.mark_used("command");
    sim_cfg.check_all_used();
  } catch (const InputError& e) { // the simulate job's own keys (its solver section)
    throw InputError(cfg.source() + ": model.simulation (" + spec.simulation_path + "): " + simulate_keys().message(e));
  }
  // Parameters named by a key path of the simulate job, and model.set: the job parsed again per
  // sample with those numbers set (app/JobParameters.hpp); `simulation` is the job at the means.
  JobEdits edits(cfg, sim_cfg, params);
  if (!edits.empty()) {
    spec.job_parameters = edits.parameters();
    spec.at_sample = job_at_sample(spec.simulation_path, std::move(edits));
    std::vector<double> means;
    for (const auto& p : params) means.push_back(p.dist.mean());
    try {
      spec.simulation = spec.at_sample(means);
    } catch (const InputError& e) {
      throw InputError(cfg.source() + ": model.simulation (" + spec.simulation_path +
                       ") at the parameter means: " + simulate_keys().message(e));
    }
  }
  for (const auto& [body, file] : reduce_files) spec.reduce.push_back(parse_reduce_body(cfg, body, file));
  for (const auto& p : params) { // what a parameter left to the model.reduce bodies sets
    const std::string key = "parameters." + p.name + ".param";
    spec.material.push_back(cfg.has(key) ? cfg.get<std::string>(key) : p.name);
  }
  return spec;
}

} // namespace

std::vector<fe::MaterialParameter> material_parameters(const io::Config& cfg,
                                                       const std::vector<campaign::ParameterSpec>& params) {
  std::vector<fe::MaterialParameter> out;
  for (const auto& p : params) {
    const std::string key = "parameters." + p.name + ".param";
    fe::MaterialParameter mp;
    mp.name = p.name;
    mp.property = fe::material_property(cfg.has(key) ? cfg.get<std::string>(key) : p.name,
                                        cfg.source() + ": parameter '" + p.name + "'");
    if (!p.set.empty()) mp.element_set = p.set;
    out.push_back(mp);
  }
  return out;
}

ModelFactory make_model_factory(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params) {
  return with_delay(cfg, cfg.has("model.function")     ? analytic_factory(cfg, params.size())
                         : cfg.has("model.simulation") ? workflow::simulation_campaign_factory(simulation_campaign(cfg, params))
                                                       : frequency_factory(cfg, params));
}

ModelFactory with_delay(const io::Config& cfg, ModelFactory f) {
  return campaign::with_delay(std::move(f), cfg.get<double>("model.delay_seconds", 0.0));
}

} // namespace flexuq::app
