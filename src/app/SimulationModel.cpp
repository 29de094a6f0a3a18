// SPDX-License-Identifier: MIT
// Sample run (seed 000 T19, PCE of x_A(0.1 s) over an uncertain Young's modulus):
//   mpirun -n 2 build/bin/flexuq reduce configs/rod-cb.yaml
//   mpirun -n 2 build/bin/flexuq reduce configs/slider-crank-bar1-cb.yaml
//   mpirun -n 2 build/bin/flexuq campaign configs/slider-crank-uq.yaml
#include "flexuq/app/SimulationModel.hpp"

#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/cms/StochasticBodyModel.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"
#include "flexuq/mbs/SimulationModel.hpp"

#include <cmath>
#include <memory>

namespace flexuq::app {

namespace {

/// `model.reduce.<body>`: the reduce job of a flexible body, re-run per sample at the campaign
/// parameters that act on materials (the group's solvers kept: cms::StochasticBodyModel::body_at).
struct ReduceBody {
  std::string body, path;
  std::shared_ptr<const io::Mesh> mesh;
  fe::ComponentOptions component;
  cms::StochasticReduceOptions options;
  std::vector<std::size_t> index; ///< campaign index of each material parameter
};

ReduceBody parse_reduce_body(const io::Config& cfg, const std::string& body, const std::string& file,
                             const std::vector<campaign::ParameterSpec>& params, const std::vector<std::size_t>& index) {
  ReduceBody rb;
  rb.body = body;
  rb.path = cfg.resolve_path(file);
  const std::string key = "model.reduce." + body;
  try {
    const io::Config rc = io::Config::load(MPI_COMM_SELF, rb.path);
    FLEXUQ_REQUIRE(!rc.has("reduce.stochastic"), "a stochastic reduce job; give the deterministic job of the body");
    const ReduceJob job = parse_reduce_job(rc);
    rb.component = component_options(rc);
    rb.mesh = std::make_shared<const io::Mesh>(load_mesh(rc));
    rb.options.interfaces = job.interfaces;
    rb.options.reducer = job.reducer;
    rb.options.build = job.build;
    rb.options.free_free = 0;
    rb.options.basis = false;
    std::vector<campaign::ParameterSpec> mine;
    for (std::size_t k : index) {
      mine.push_back(params[k]);
      rb.options.nominal.push_back(params[k].dist.mean());
    }
    rb.options.parameters = material_parameters(cfg, mine);
    for (const auto& q : rb.options.parameters)
      if (q.element_set) (void)rb.mesh->element_set(*q.element_set);
    cms::validate_stochastic(rb.options, rb.path);
    rb.index = index;
  } catch (const InputError& e) {
    throw InputError(cfg.source() + ": " + key + " (" + rb.path + "): " + e.what());
  }
  return rb;
}

/// The maker of @p rb's body on @p group: the group's reduction model (its nominal reduction now),
/// checked against the body file the simulate job reads, then body_at(θ) per sample.
/// @note Collective on @p group.
mbs::BodyProvider make_provider(MPI_Comm group, const ReduceBody& rb, const mbs::SimulationJob& job) {
  auto model = std::make_shared<cms::StochasticBodyModel>(group, *rb.mesh, rb.component, rb.options);
  const auto src = job.sources.at(rb.body);
  const auto& mine = model->nominal_body().checkout.reduced_hz;
  const auto& file = src->nominal.checkout.reduced_hz;
  double diff = mine.size() == file.size() && mine.size() > 0 ? 0.0 : INFINITY;
  for (Eigen::Index i = 0; i < mine.size() && i < file.size(); ++i)
    diff = std::max(diff, std::abs(mine(i) - file(i)) / file(i));
  FLEXUQ_REQUIRE(diff < 1e-6, "model.reduce." << rb.body << ": " << rb.path << " at the parameter means does not "
                              "reproduce the body file " << src->path << " (reduced free-free frequencies differ by "
                              << diff << " relative): give the reduce job that wrote it, and parameter means equal to "
                              "its materials");
  const auto options = job.flexible_options.at(rb.body);
  const auto index = rb.index;
  return {rb.body, [model, src, options, index](const std::vector<double>& theta) -> std::shared_ptr<const mbs::FlexibleData> {
            std::vector<double> th;
            for (std::size_t k : index) th.push_back(theta.at(k));
            return mbs::make_flexible_data(model->body_at(th), src->path + " (reduced again at the sample)", src->coords,
                                           src->ids, src->sets, options);
          }};
}

} // namespace

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
  std::vector<mbs::BodyProvider> names_only; // the bodies of model.reduce, checked by the model
  std::vector<std::pair<std::string, std::string>> reduce_files;
  if (cfg.has("model.reduce")) {
    const YAML::Node r = cfg.node("model.reduce");
    FLEXUQ_REQUIRE(r.IsMap() && r.size() > 0, cfg.source() << ": model.reduce must map flexible body names to their "
                                                               "reduce jobs, e.g. {rod: rod-cb.yaml}");
    for (const auto& kv : r) {
      reduce_files.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
      names_only.push_back({reduce_files.back().first, nullptr});
    }
  }
  try {
    auto job0 = read_simulation_job(*sim_cfg);
    // Stress modes are those of the body file: a body reduced again per sample has none.
    for (const auto& os : job0.outputs)
      if (os.quantity == mbs::Quantity::stress || os.quantity == mbs::Quantity::von_mises)
        for (const auto& rf : reduce_files)
          FLEXUQ_REQUIRE(job0.system.bodies()[static_cast<std::size_t>(os.body)].name != rf.first,
                         "output '" << os.name << "': the stresses of a body reduced again per sample (model.reduce."
                                    << rf.first << ") are not recovered");
    mbs::SimulationModel check(std::move(job0), stiffness, outputs, times, names, names_only);
    for (std::size_t k : check.stochastic_parameters()) used[k] = true;
    sim_cfg->mark_used("command");
    sim_cfg->check_all_used();
  } catch (const InputError& e) {
    throw InputError(cfg.source() + ": model.simulation (" + path + "): " + e.what());
  }
  // The parameters left act on the materials of every model.reduce body.
  std::vector<std::size_t> material;
  for (std::size_t k = 0; k < params.size(); ++k)
    if (!used[k] && !reduce_files.empty()) material.push_back(k);
  std::vector<ReduceBody> reduce;
  for (const auto& [body, file] : reduce_files) reduce.push_back(parse_reduce_body(cfg, body, file, params, material));
  for (std::size_t k : material) used[k] = true;
  FLEXUQ_REQUIRE(reduce.empty() || !material.empty(),
                 cfg.source() << ": model.reduce: no parameter is left for the re-reduced bodies (every one is a "
                                 "model.stiffness or stochastic-body parameter)");
  for (std::size_t k = 0; k < params.size(); ++k)
    FLEXUQ_REQUIRE(used[k], cfg.source() << ": parameter '" << params[k].name
                                         << "' changes nothing in the simulation model (model.stiffness." << params[k].name
                                         << ": {reference, bodies}, a stochastic body with a parameter of that name, "
                                            "or model.reduce: {<body>: <its reduce job>})");
  const std::string source = cfg.source();
  return [sim_cfg, stiffness, outputs, times, names, reduce, source](MPI_Comm group) -> std::unique_ptr<Model> {
    auto job = read_simulation_job(*sim_cfg);
    std::vector<mbs::BodyProvider> providers;
    try {
      for (const auto& rb : reduce) providers.push_back(make_provider(group, rb, job));
    } catch (const InputError& e) {
      throw InputError(source + ": " + e.what());
    }
    return std::make_unique<mbs::SimulationModel>(std::move(job), stiffness, outputs, times, names, std::move(providers));
  };
}

} // namespace flexuq::app
