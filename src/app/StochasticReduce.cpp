// SPDX-License-Identifier: MIT
// Sample runs:
//   mpirun -n 4 build/bin/flexuq reduce configs/crank-scb.yaml            # 2 groups of 2 ranks
//   mpirun -n 4 build/bin/flexuq reduce configs/crank-scb.yaml --resume   # after a kill / time-out
// The job file → workflow::StochasticBodyJob; the run: workflow/StochasticBody.cpp.
#include "flexuq/app/StochasticReduce.hpp"

#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/app/EnumOptions.hpp"
#include "flexuq/app/GalerkinJob.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/config/ConfigCounts.hpp"

#include <limits>
#include <memory>

namespace flexuq::app {

pod::Truncation pod_truncation(const io::Config& cfg) {
  return truncation_at(cfg, "reduce.stochastic.pod", pod::Truncation::energy(1e-10));
}

pod::Truncation truncation_at(const io::Config& cfg, const std::string& P, const pod::Truncation& fallback) {
  if (!cfg.has(P)) return fallback;
  const YAML::Node n = cfg.node(P);
  FLEXUQ_REQUIRE(n.IsMap(), cfg.source() << ": " << P << " must be a map with one of energy, sigma_ratio, rank "
                                                         "(e.g. {energy: 1.0e-10})");
  std::vector<std::string> keys;
  for (const auto& kv : n) keys.push_back(kv.first.as<std::string>());
  for (const auto& k : keys)
    FLEXUQ_REQUIRE(k == "energy" || k == "sigma_ratio" || k == "rank",
                   cfg.source() << ": " << P << "." << k << " is not a truncation (known: energy, sigma_ratio, rank)");
  FLEXUQ_REQUIRE(keys.size() == 1, cfg.source() << ": " << P << " takes exactly one of energy, sigma_ratio, rank, got "
                                                << keys.size());
  double v = 0;
  try {
    v = n[keys[0]].as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(cfg.source() + ": " + P + "." + keys[0] + " must be a number");
  }
  try {
    return pod::Truncation::of(*parse_enum(pod::kTruncationRuleNames, keys[0]), v);
  } catch (const InputError& e) {
    throw InputError(cfg.source() + ": " + P + "." + keys[0] + ": " + e.what());
  }
}

namespace {

std::string node_text(const YAML::Node& n) {
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

/// `reduce.stochastic.*` → the campaign's method (collocation: projection on a sparse/tensor grid;
/// regression: least squares on a drawn design with LOO order choice).
void stochastic_method(const io::Config& cfg, campaign::CampaignOptions& o) {
  const std::string S = "reduce.stochastic.";
  FLEXUQ_REQUIRE(!cfg.has("method"), cfg.source() << ": a stochastic reduce job takes its method from "
                                                     "reduce.stochastic.method, not from 'method:'");
  const auto method = cfg.get<std::string>(S + "method");
  FLEXUQ_REQUIRE(method == "collocation" || method == "regression" || method == "pod" || method == "galerkin",
                 cfg.source() << ": reduce.stochastic.method must be collocation, regression, pod or galerkin, got '"
                              << method << "'");
  // reduce.stochastic.pod (energy, sigma_ratio, rank) belongs to method pod (read by pod_truncation);
  // the example job carries it beside method regression, so it is accepted and unused there.
  if (method != "pod" && cfg.has(S + "pod")) cfg.mark_used(S + "pod");
  // Method pod runs the points of the regression design (reduce.stochastic.sampling, samples); the
  // campaign's statistics of the point outputs are fitted as for regression.
  auto& m = o.method;
  // Method galerkin evaluates its Galerkin expansions at the nodes of a Gauss rule and projects the
  // body there (sg/StochasticCb.hpp): a collocation design, tensor by default, two points more per
  // input than the body's order, which defaults to the Galerkin order p_β.
  const bool nodes = method == "collocation" || method == "galerkin";
  m.type = nodes ? campaign::MethodType::collocation : campaign::MethodType::pce;
  m.fit = nodes ? uq::FitMethod::projection : uq::FitMethod::regression;
  if (method == "galerkin") {
    const int p = cfg.get<int>(S + "galerkin.order", 2);
    FLEXUQ_REQUIRE(p >= 1 && p <= 12, cfg.source() << ": reduce.stochastic.galerkin.order must be in [1, 12], got " << p);
    if (!cfg.has(S + "pce.order")) m.order = p;
  }
  // Integers as integers (2.7 is refused, not truncated to 2), sizes bounded by make_plan.
  o.method_keys = S;
  if (cfg.has(S + "pce.order")) m.order = static_cast<int>(io::get_count_or(cfg, S + "pce.order", "auto", 1, 12).value_or(-1));
  if (cfg.has(S + "pce.max_order")) m.max_order = static_cast<int>(io::get_count(cfg, S + "pce.max_order", 1, 12));
  constexpr long long int_max = std::numeric_limits<int>::max();
  if (!nodes) {
    const std::string sampling = cfg.get<std::string>(S + "sampling", "lhs");
    m.sampling = in_job(cfg, [&] { return parse_sampling(sampling); });
    if (cfg.has(S + "samples")) m.samples = static_cast<int>(io::get_count(cfg, S + "samples", 2, int_max));
  } else {
    const std::string grid = cfg.get<std::string>(S + "grid", method == "galerkin" ? "tensor" : "sparse");
    m.grid = in_job(cfg, [&] { return parse_grid(grid, S + "grid"); });
    using campaign::Grid;
    if (method == "galerkin" && m.grid == Grid::tensor && !cfg.has(S + "points")) m.points = m.resolved_max_order() + 2;
    if (m.grid == Grid::sparse && cfg.has(S + "level")) m.level = static_cast<int>(io::get_count(cfg, S + "level", 0, 29));
    if (m.grid == Grid::tensor && cfg.has(S + "points")) m.points = static_cast<int>(io::get_count(cfg, S + "points", 1, 256));
  }
}

} // namespace

workflow::StochasticBodyJob stochastic_reduce_job(MPI_Comm c, const io::Config& cfg) {
  const ReduceJob job = parse_reduce_job(cfg);
  FLEXUQ_REQUIRE(job.matrix_market.empty() && job.op4.empty(),
                 cfg.source() << ": reduce.matrix_market and reduce.op4 export one deterministic body: with "
                                 "reduce.stochastic, export a body from flexuq body-at instead");
  FLEXUQ_REQUIRE(!job.stress_modes, cfg.source() << ": reduce.stress_modes is for a deterministic body (flexuq reduce "
                                                    "without reduce.stochastic)");
  auto o = campaign_options(cfg);
  stochastic_method(cfg, o);
  const auto method = cfg.get<std::string>("reduce.stochastic.method");
  const bool pod = method == "pod", galerkin = method == "galerkin";
  workflow::StochasticBodyJob j;
  j.source = cfg.source();
  j.method = pod                      ? workflow::StochasticMethod::pod
             : galerkin               ? workflow::StochasticMethod::galerkin
             : method == "collocation" ? workflow::StochasticMethod::collocation
                                       : workflow::StochasticMethod::regression;
  if (pod) j.truncation = pod_truncation(cfg);
  o.model_description = "model:" + node_text(cfg.root()["model"]) + ";reduce:" + node_text(cfg.root()["reduce"]);
  j.plan = campaign::make_plan(o);
  check_job_output(c, cfg, j.plan.output, "output"); // before any work

  auto& so = j.body;
  so.interfaces = job.interfaces;
  so.reducer = job.reducer;
  so.build = job.build;
  so.free_free = job.free_free;
  so.section = "reduce"; // the messages of a point name reduce.stochastic.min_mac, reduce.checkout.free_free
  so.basis = cfg.get<bool>("reduce.stochastic.basis", true);
  FLEXUQ_REQUIRE(so.basis || !pod, cfg.source() << ": reduce.stochastic.basis: false cannot be used with method pod "
                                                   "(the point bases are its snapshots)");
  so.min_mac = cfg.get<double>("reduce.stochastic.min_mac", so.min_mac);
  so.exact_scaling = cfg.get<bool>("reduce.stochastic.exact_scaling", so.exact_scaling);
  so.parameters = material_parameters(cfg, j.plan.params);
  so.nominal = j.plan.nominal();
  cms::validate_stochastic(so, cfg.source());
  if (pod)
    for (const auto& q : so.parameters)
      FLEXUQ_REQUIRE(q.property == fe::MaterialProperty::E || q.property == fe::MaterialProperty::rho,
                     cfg.source() << ": parameters." << q.name << ": reduce.stochastic.method: pod needs K(θ), M(θ) "
                                  << "proportional to the parameters (E or rho), got " << fe::to_string(q.property));
  j.component = app::component_options(cfg);
  j.mesh = std::make_shared<const io::Mesh>(app::load_mesh(cfg));
  check_reduce_supports(cfg, j.mesh.get());
  // A parameter acting on an element set the mesh does not have: an error before any work.
  for (const auto& p : so.parameters)
    if (p.element_set) {
      try {
        (void)j.mesh->element_set(*p.element_set);
      } catch (const InputError& e) {
        throw InputError(cfg.source() + ": parameters." + p.name + ".set: " + e.what());
      }
    }
  for (const auto& w : j.mesh->warnings) log::warn(c, j.mesh->source + ": " + w);
  if (galerkin) {
    const std::string& src = cfg.source();
    FLEXUQ_REQUIRE(job.build.method == cms::Method::craig_bampton,
                   src << ": reduce.stochastic.method: galerkin expands a Craig-Bampton body (fixed-interface modes "
                          "and constraint modes by stochastic Galerkin); reduce.method is "
                       << cms::method_name(job.build.method));
    FLEXUQ_REQUIRE(!job.build.residual_vectors,
                   src << ": reduce.residual_vectors cannot be used with reduce.stochastic.method: galerkin");
    FLEXUQ_REQUIRE(!cfg.has("reduce.stochastic.min_mac"),
                   src << ": reduce.stochastic.min_mac does not apply to method galerkin (no alignment)");
    FLEXUQ_REQUIRE(!cfg.has("reduce.stochastic.exact_scaling"),
                   src << ": reduce.stochastic.exact_scaling does not apply to method galerkin (it has no points)");
    galerkin_keys(cfg, "reduce.stochastic.galerkin", o.seed, j.galerkin_eigen, j.galerkin_expansion);
  } else {
    // model.delay_seconds (a test knob) is read now, so that check_all_used knows it; the workflow
    // hands its point-model factory through here.
    auto slot = std::make_shared<ModelFactory>();
    const ModelFactory delayed = with_delay(cfg, [slot](MPI_Comm group) { return (*slot)(group); });
    j.wrap_model = [slot, delayed](ModelFactory f) {
      *slot = std::move(f);
      return delayed;
    };
  }
  cfg.check_all_used();
  return j;
}

void run_stochastic_reduce(MPI_Comm comm, const io::Config& cfg, bool resume) {
  workflow::run_stochastic_body(comm, stochastic_reduce_job(comm, cfg), resume);
}

} // namespace flexuq::app
