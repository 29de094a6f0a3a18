// SPDX-License-Identifier: MIT
// workflow::simulation_campaign_factory without the CLI: a campaign whose model is the simulation of
// a flexible box pendulum (tests/workflow/BoxBody.hpp), evaluated at two samples on a one-rank group
// and on all ranks (identical outputs), against the simulation built directly at the sample's
// stiffness — a Young's-modulus parameter scaling K̄ (model.stiffness) and a Poisson's-ratio
// parameter re-reducing the body per sample (model.reduce) — and the check that every parameter
// changes something.
#include "../io/InputErrorOf.hpp"
#include "BoxBody.hpp"

#include "flexuq/mbs/EulerParameters.hpp"
#include "flexuq/workflow/SimulationCampaign.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

using namespace flexuq;
using mbs::Vec3;

namespace {

const std::vector<double> kTimes{0.1, 0.3};

/// The box pinned at its XMIN face centre, released 0.1 rad from the vertical under gravity along +x,
/// its stiffness scaled by @p scale (1e-4: an elastic sag of ~0.3 mm that the parameters change).
workflow::SimulationSpec box_pendulum(double scale) {
  workflow::SimulationSpec s;
  workflow::BodySpec b;
  b.body.name = "box";
  b.body.orientation = mbs::from_axis_angle(Vec3::UnitZ(), 0.1);
  b.flexible.emplace();
  b.flexible->file = test::box_body_file("campaign");
  b.flexible->options.stiffness_scale = scale;
  s.bodies.push_back(b);
  workflow::JointEntry j;
  j.spec.name = "pin";
  j.spec.type = mbs::JointType::revolute;
  j.spec.body_j = 0;
  j.spec.interface_j = "XMIN";
  s.joints.push_back(j);
  workflow::ForceEntry g;
  g.spec.type = mbs::ForceType::gravity;
  g.spec.direction = Vec3(9.81, 0, 0);
  s.forces.push_back(g);
  workflow::OutputEntry o; // a point of the far face, moving with its interface
  o.spec.name = "tip";
  o.spec.quantity = mbs::Quantity::position;
  o.spec.body = 0;
  o.spec.interface = "XMAX";
  o.point = Vec3(test::kBoxA, 0, 0);
  s.outputs.push_back(o);
  s.solver.step = 1e-3;
  s.solver.end = kTimes.back();
  return s;
}

workflow::SimulationCampaignSpec campaign_spec(const std::string& parameter, double mean, double std) {
  workflow::SimulationCampaignSpec c;
  c.source = "uq.yaml";
  c.simulation_path = "pendulum.yaml";
  c.simulation = box_pendulum(1e-4);
  campaign::ParameterSpec p;
  p.name = parameter;
  p.dist = uq::Distribution::normal(mean, std);
  c.params = {p};
  c.material = {parameter};
  c.outputs = {"tip"};
  c.times = kTimes;
  return c;
}

/// The tip at kTimes of the simulation built from @p spec directly.
std::vector<double> direct(const workflow::SimulationSpec& spec) {
  auto job = workflow::build_simulation(spec);
  const auto r = mbs::run_simulation(job);
  std::vector<double> out;
  for (double t : kTimes)
    for (double v : mbs::sample_at(r.time, r.outputs[0], 3, t)) out.push_back(v);
  return out;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

/// The factory's outputs at @p samples on a one-rank group and on every rank: identical up to
/// @p tol (0: bitwise).
std::vector<std::vector<double>> evaluate(const ModelFactory& f, const std::vector<std::vector<double>>& samples,
                                          double tol) {
  auto one = f(MPI_COMM_SELF);
  auto all = f(MPI_COMM_WORLD);
  EXPECT_EQ(one->output_sizes().at("tip"), kTimes.size() * 3);
  std::vector<std::vector<double>> out;
  for (const auto& theta : samples) {
    const auto a = one->evaluate(theta).at("tip"), b = all->evaluate(theta).at("tip");
    if (tol == 0)
      EXPECT_EQ(a, b) << "one rank and all ranks at θ = " << theta[0];
    else
      EXPECT_LT(max_diff(a, b), tol) << "one rank and all ranks at θ = " << theta[0];
    out.push_back(a);
  }
  return out;
}

} // namespace

TEST(SimulationCampaign, StiffnessParameterScalesTheBodyPerSample) {
  auto spec = campaign_spec("E", test::kSteelE, 0.1 * test::kSteelE);
  spec.stiffness.push_back({0, test::kSteelE, {"box"}});
  const auto factory = workflow::simulation_campaign_factory(spec);
  const std::vector<std::vector<double>> samples{{test::kSteelE}, {0.5 * test::kSteelE}};
  const auto out = evaluate(factory, samples, 0.0);
  for (std::size_t s = 0; s < samples.size(); ++s) {
    // The same simulation with the body's stiffness scaled in its options (FlexibleOptions).
    const auto ref = direct(box_pendulum(1e-4 * samples[s][0] / test::kSteelE));
    EXPECT_LT(max_diff(out[s], ref), 1e-12) << "sample " << s;
  }
  EXPECT_GT(max_diff(out[0], out[1]), 1e-5) << "halving E must move the tip (its sag doubles)";
}

TEST(SimulationCampaign, ModelReduceReReducesTheBodyPerSample) {
  auto spec = campaign_spec("nu", test::kSteelNu, 0.01);
  workflow::ReduceBodySpec r;
  r.body = "box";
  r.path = "box-cb.yaml";
  r.mesh = std::make_shared<const io::Mesh>(test::box_mesh());
  r.component = test::steel();
  r.options.interfaces = test::box_interfaces();
  r.options.reducer = test::box_reducer();
  r.options.free_free = 0;
  r.options.basis = false;
  spec.reduce.push_back(r);
  const auto factory = workflow::simulation_campaign_factory(spec);
  const auto out = evaluate(factory, {{test::kSteelNu}, {0.45}}, 1e-10);
  // At the mean the body reduced again is the file's (same mesh, materials and reduction).
  EXPECT_LT(max_diff(out[0], direct(box_pendulum(1e-4))), 1e-9);
  EXPECT_GT(max_diff(out[0], out[1]), 1e-5) << "ν = 0.45 stiffens the box and changes its sag";
}

TEST(SimulationCampaign, JobAtSampleBuildsTheSimulationPerSample) {
  // A parameter that sets a number of the job itself (app: a key path, model.set): the release
  // angle. Per sample the job at θ is built and simulated, equal to building it directly.
  auto spec = campaign_spec("angle", 0.1, 0.02);
  auto at = [](const std::vector<double>& theta) {
    auto s = box_pendulum(1e-4);
    s.bodies[0].body.orientation = mbs::from_axis_angle(Vec3::UnitZ(), theta.at(0));
    return s;
  };
  spec.at_sample = at;
  spec.job_parameters = {0};
  const auto factory = workflow::simulation_campaign_factory(spec);
  const std::vector<std::vector<double>> samples{{0.1}, {0.2}};
  const auto out = evaluate(factory, samples, 0.0);
  for (std::size_t s = 0; s < samples.size(); ++s)
    EXPECT_LT(max_diff(out[s], direct(at(samples[s]))), 1e-12) << "sample " << s;
  EXPECT_GT(max_diff(out[0], out[1]), 1e-3) << "released from 0.2 rad, the tip is elsewhere";
  // A job at a sample that cannot be built fails that sample (the campaign records it).
  spec.at_sample = [](const std::vector<double>&) -> workflow::SimulationSpec { throw InputError("job.yaml: bad"); };
  EXPECT_EQ(test::input_error_of([&] { workflow::simulation_campaign_factory(spec)(MPI_COMM_SELF)->evaluate({0.1}); }),
            "job.yaml: bad");
}

TEST(SimulationCampaign, EveryParameterMustChangeSomething) {
  // A spec made in code: the messages name its fields (issue #33 item 2); app/ModelFactory sets the
  // job keys, which the messages then name.
  auto spec = campaign_spec("thickness", 1.0, 0.1);
  EXPECT_EQ(test::input_error_of([&] { workflow::simulation_campaign_factory(spec); }),
            "uq.yaml: parameter 'thickness' changes nothing in the simulation model (stiffness.thickness: "
            "{reference, bodies}, a stochastic body with a parameter of that name, reduce: {<body>: <its "
            "reduce job>}, or at_sample)");
  spec.simulation_key = "model.simulation";
  spec.reduce_key = "model.reduce";
  spec.stiffness_key = "model.stiffness";
  spec.job_key = "model.set";
  EXPECT_EQ(test::input_error_of([&] { workflow::simulation_campaign_factory(spec); }),
            "uq.yaml: parameter 'thickness' changes nothing in the simulation model (model.stiffness.thickness: "
            "{reference, bodies}, a stochastic body with a parameter of that name, model.reduce: {<body>: <its "
            "reduce job>}, or model.set)");
  auto wrong = campaign_spec("E", test::kSteelE, 1e10);
  wrong.stiffness.push_back({0, test::kSteelE, {"box"}});
  wrong.outputs = {"x_A"};
  const auto msg = test::input_error_of([&] { workflow::simulation_campaign_factory(wrong); });
  EXPECT_EQ(msg.rfind("uq.yaml: simulation (pendulum.yaml): ", 0), 0u) << msg;
  EXPECT_NE(msg.find("x_A"), std::string::npos) << msg;
  // SimulationModel names its arguments (OptionError): kept through the factory's context, so that the
  // CLI names the job key (app/JobKeys: outputs -> outputs.simulation).
  wrong.outputs.clear();
  try {
    workflow::simulation_campaign_factory(wrong);
    ADD_FAILURE() << "no outputs accepted";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "outputs");
    EXPECT_STREQ(e.what(), "uq.yaml: simulation (pendulum.yaml): simulation model: no outputs (outputs: [names of the "
                           "job's outputs])");
    EXPECT_EQ(e.message_for("outputs.simulation"), "uq.yaml: simulation (pendulum.yaml): simulation model: no outputs "
                                                   "(outputs.simulation: [names of the job's outputs])");
  }
}
