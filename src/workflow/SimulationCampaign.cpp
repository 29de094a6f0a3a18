// SPDX-License-Identifier: MIT
// Sample run (seed 000 T19, PCE of x_A(0.1 s) over an uncertain Young's modulus):
//   mpirun -n 2 build/bin/flexuq reduce configs/rod-cb.yaml
//   mpirun -n 2 build/bin/flexuq reduce configs/slider-crank-bar1-cb.yaml
//   mpirun -n 2 build/bin/flexuq campaign configs/slider-crank-uq.yaml
#include "flexuq/workflow/SimulationCampaign.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"
#include "flexuq/workflow/Rom.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>

namespace flexuq::workflow {

namespace {

/// A model.reduce body with the campaign index of each of its material parameters and its job key.
struct ReduceBody {
  ReduceBodySpec spec;
  std::vector<std::size_t> index;
  std::string key; ///< "<reduce_key>.<body>"
};

/// @p spec's reduce body @p r acting on the campaign parameters @p index: its material parameters
/// (at their means for the reference reduction), checked against its mesh (the parser checked its
/// options against the stochastic path: cms::validate_stochastic).
ReduceBody reduce_body(const SimulationCampaignSpec& spec, const ReduceBodySpec& r,
                       const std::vector<std::size_t>& index) {
  ReduceBody rb{r, index, spec.reduce_key + "." + r.body};
  auto& o = rb.spec.options;
  try {
    for (std::size_t k : index) {
      const auto& p = spec.params[k];
      fe::MaterialParameter mp;
      mp.name = p.name;
      mp.property = fe::material_property(spec.material.at(k), spec.source + ": parameter '" + p.name + "'");
      if (!p.set.empty()) mp.element_set = p.set;
      o.parameters.push_back(mp);
      o.nominal.push_back(p.dist.mean());
    }
    for (const auto& q : o.parameters)
      if (q.element_set) (void)rb.spec.mesh->element_set(*q.element_set);
  } catch (const InputError& e) { // a cms option keeps its field: the CLI names its key in the reduce job
    rethrow_input_error(e, spec.source + ": " + rb.key + " (" + r.path + "): ");
  }
  return rb;
}

/// The maker of @p rb's body on @p group: the group's reduction model (its nominal reduction now),
/// checked against the body file the simulate job reads, then body_at(θ) per sample.
/// @note Collective on @p group.
mbs::BodyProvider make_provider(MPI_Comm group, const ReduceBody& rb, const mbs::SimulationJob& job) {
  const ReduceBodySpec& r = rb.spec;
  auto model = std::make_shared<cms::StochasticBodyModel>(group, *r.mesh, r.component, r.options);
  const auto src = job.sources.at(r.body);
  const auto& mine = model->nominal_body().checkout.reduced_hz;
  const auto& file = src->nominal.checkout.reduced_hz;
  double diff = mine.size() == file.size() && mine.size() > 0 ? 0.0 : INFINITY;
  for (Eigen::Index i = 0; i < mine.size() && i < file.size(); ++i)
    diff = std::max(diff, std::abs(mine(i) - file(i)) / file(i));
  FLEXUQ_REQUIRE(diff < 1e-6, rb.key << ": " << r.path
                                     << " at the parameter means does not "
                                        "reproduce the body file "
                                     << src->path << " (reduced free-free frequencies differ by " << diff
                                     << " relative): give the reduce job that wrote it, and parameter means equal to "
                                        "its materials");
  const auto options = job.flexible_options.at(r.body);
  const auto index = rb.index;
  return {r.body,
          [model, src, options, index](const std::vector<double>& theta) -> std::shared_ptr<const mbs::FlexibleData> {
            std::vector<double> th;
            for (std::size_t k : index) th.push_back(theta.at(k));
            return mbs::make_flexible_data(model->body_at(th), src->path + " (reduced again at the sample)",
                                           src->coords, src->ids, src->sets, options);
          }};
}

/// What a simulation model takes besides its job: the same for every sample.
struct ModelArgs {
  std::vector<mbs::StiffnessParameter> stiffness;
  std::vector<std::string> outputs;
  std::vector<double> times;
  std::vector<std::string> names;
  mbs::SimulationModel::Runner runner; ///< empty: the full model; set: the ROM of the job's `rom:`
};

/// A ROM (`rom:` of the simulate job) holds a sample when its consistent initial state lies on the
/// ROM's affine space: q0 − R0 and q̇0 in span V (docs/rom.md "Campaigns"). A parameter that moves
/// the start off it (a body's position, a joint's point, a velocity across the trained motion)
/// would be projected silently: refused, naming the offsets. Throws InputError.
void check_rom_start(const rom::ReducedBasis& b, const mbs::State& s, const std::string& rom_path) {
  FLEXUQ_REQUIRE(s.q.size() == b.R0.size(), "rom: " << rom_path << " has " << b.R0.size()
                                                    << " coordinates, this sample's model " << s.q.size());
  const auto& V = b.V;
  const double dq = (V * (V.transpose() * (s.q - b.R0)) + b.R0 - s.q).lpNorm<Eigen::Infinity>();
  const double dv = (V * (V.transpose() * s.v) - s.v).lpNorm<Eigen::Infinity>();
  const double tq = 1e-8 * std::max(1.0, s.q.lpNorm<Eigen::Infinity>());
  const double tv = 1e-8 * std::max(1.0, s.v.lpNorm<Eigen::Infinity>());
  FLEXUQ_REQUIRE(dq <= tq && dv <= tv,
                 "rom: " << rom_path << " does not hold this sample: its initial "
                         << (dq > tq ? "configuration" : "velocity") << " lies off the ROM's affine space q = V q_r + R0 (q by "
                         << dq << ", its velocity by " << dv
                         << "): a parameter moves a body, a joint or the start velocity out of the training runs' "
                            "span; train the ROM on runs that cover it, or run the full model (no rom:)");
}

/// The simulation built again per sample from the job at θ (SimulationCampaignSpec::at_sample): a
/// changed mass, joint point, spring or load enters the system as if the user had written it, and
/// the initial configuration is assembled again. The outputs depend on θ only (Model's contract).
class SampledJobModel final : public Model {
public:
  SampledJobModel(std::function<SimulationSpec(const std::vector<double>&)> at_sample, mbs::SimulationJob nominal,
                  ModelArgs args, std::vector<mbs::BodyProvider> providers)
      : at_sample_(std::move(at_sample)), args_(std::move(args)), providers_(std::move(providers)),
        sizes_(mbs::SimulationModel(std::move(nominal), args_.stiffness, args_.outputs, args_.times, args_.names,
                                    providers_)
                   .output_sizes()) {}
  std::map<std::string, std::size_t> output_sizes() const override { return sizes_; }
  Outputs evaluate(const std::vector<double>& theta) override {
    mbs::SimulationModel model(build_simulation(at_sample_(theta)), args_.stiffness, args_.outputs, args_.times,
                               args_.names, providers_);
    if (args_.runner) model.set_runner(args_.runner);
    auto out = model.evaluate(theta);
    for (const auto& entry : sizes_) { // a job whose edited numbers change an output's columns
      const std::string& name = entry.first; // not a structured binding: clang cannot capture a structured binding in FLEXUQ_MSG's lambda
      FLEXUQ_REQUIRE(out.count(name) && out.at(name).size() == entry.second,
                     "output '" << name << "' has another size at this sample than at the parameter means");
    }
    return out;
  }

private:
  std::function<SimulationSpec(const std::vector<double>&)> at_sample_;
  ModelArgs args_;
  std::vector<mbs::BodyProvider> providers_;
  std::map<std::string, std::size_t> sizes_;
};

} // namespace

ModelFactory simulation_campaign_factory(const SimulationCampaignSpec& spec) {
  const auto& params = spec.params;
  FLEXUQ_REQUIRE(spec.material.size() == params.size(), spec.source << ": " << spec.material.size()
                                                                    << " material properties for " << params.size()
                                                                    << " parameters");
  std::vector<bool> used(params.size(), false);
  for (const auto& sp : spec.stiffness) used.at(sp.parameter) = true;
  for (std::size_t k : spec.job_parameters) used.at(k) = true;
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  // Build the job (and read the body files) once now, so bad input fails before the campaign.
  std::vector<mbs::BodyProvider> names_only; // the bodies of model.reduce, checked by the model
  for (const auto& r : spec.reduce) names_only.push_back({r.body, nullptr});
  std::shared_ptr<const rom::ReducedBasis> basis; // read once, shared by every sample
  try {
    if (!spec.simulation.rom.empty())
      basis = std::make_shared<const rom::ReducedBasis>(rom::read_basis(spec.simulation.rom));
    auto job0 = build_simulation(spec.simulation);
    // Stress modes are those of the body file: a body reduced again per sample has none.
    for (const auto& os : job0.outputs)
      if (os.quantity == mbs::Quantity::stress || os.quantity == mbs::Quantity::von_mises)
        for (const auto& r : spec.reduce)
          FLEXUQ_REQUIRE(job0.system.bodies()[static_cast<std::size_t>(os.body)].name != r.body,
                         "output '" << os.name << "': the stresses of a body reduced again per sample ("
                                    << spec.reduce_key << "." << r.body << ") are not recovered");
    if (!spec.simulation.rom.empty()) { // the ROM's start at the parameter means, before the campaign
      FLEXUQ_REQUIRE(spec.reduce.empty(), "rom: " << spec.simulation.rom << " with " << spec.reduce_key
                                                  << ": a body reduced again per sample changes the meaning of its "
                                                     "elastic coordinates, which the ROM's basis V is made of");
      mbs::Integrator full(job0.system, job0.solver);
      mbs::State s;
      (void)full.initialise(s);
      check_rom_start(*basis, s, spec.simulation.rom);
      (void)rom::ReducedIntegrator(job0.system, job0.solver, *basis); // its scheme and active rows
    }
    mbs::SimulationModel check(std::move(job0), spec.stiffness, spec.outputs, spec.times, names, names_only);
    for (std::size_t k : check.stochastic_parameters()) used[k] = true;
    FLEXUQ_REQUIRE(spec.simulation.rom.empty() || check.stochastic_parameters().empty(),
                   "rom: " << spec.simulation.rom
                           << " with a stochastic body: its modes change per sample, and with them the meaning "
                              "of the elastic coordinates the ROM's basis V is made of");
  } catch (const InputError& e) { // SimulationModel names its arguments (OptionError): the CLI names their keys
    rethrow_input_error(e, spec.source + ": " + spec.simulation_key + " (" + spec.simulation_path + "): ");
  }
  // The parameters left act on the materials of every model.reduce body.
  std::vector<std::size_t> material;
  for (std::size_t k = 0; k < params.size(); ++k)
    if (!used[k] && !spec.reduce.empty()) material.push_back(k);
  std::vector<ReduceBody> reduce;
  for (const auto& r : spec.reduce) reduce.push_back(reduce_body(spec, r, material));
  for (std::size_t k : material) used[k] = true;
  FLEXUQ_REQUIRE(reduce.empty() || !material.empty(),
                 spec.source << ": " << spec.reduce_key
                             << ": no parameter is left for the re-reduced bodies (every one is a "
                             << spec.stiffness_key << " or stochastic-body parameter)");
  for (std::size_t k = 0; k < params.size(); ++k)
    FLEXUQ_REQUIRE(used[k], spec.source << ": parameter '" << params[k].name
                                        << "' changes nothing in the simulation model (" << spec.stiffness_key << "."
                                        << params[k].name
                                        << ": {reference, bodies}, a stochastic body with a parameter "
                                        << "of that name, " << spec.reduce_key
                                        << ": {<body>: <its reduce job>}, or " << spec.job_key << ")");
  auto simulation = std::make_shared<const SimulationSpec>(spec.simulation);
  mbs::SimulationModel::Runner runner;
  if (basis) {
    const std::string rom_path = spec.simulation.rom;
    runner = [basis, rom_path](mbs::SimulationJob& job) {
      rom::ReducedStats stats;
      return run_reduced_simulation(job, *basis, stats, {},
                                    [&](const mbs::State& s) { check_rom_start(*basis, s, rom_path); });
    };
  }
  const ModelArgs args{spec.stiffness, spec.outputs, spec.times, names, runner};
  const std::string source = spec.source;
  const auto at_sample = spec.at_sample;
  return [simulation, args, reduce, source, at_sample](MPI_Comm group) -> std::unique_ptr<Model> {
    auto job = build_simulation(*simulation);
    std::vector<mbs::BodyProvider> providers;
    try {
      for (const auto& rb : reduce) providers.push_back(make_provider(group, rb, job));
    } catch (const InputError& e) {
      rethrow_input_error(e, source + ": ");
    }
    if (at_sample) return std::make_unique<SampledJobModel>(at_sample, std::move(job), args, std::move(providers));
    auto model = std::make_unique<mbs::SimulationModel>(std::move(job), args.stiffness, args.outputs, args.times,
                                                        args.names, std::move(providers));
    if (args.runner) model->set_runner(args.runner);
    return model;
  };
}

} // namespace flexuq::workflow
