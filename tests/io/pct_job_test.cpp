// SPDX-License-Identifier: MIT
// config's io::parse_pct_job (the planar PCT simulate job, moved out of app for issue #33) without
// the CLI: seed 004's mass-spring-damper job as pct's typed job (the data the parameter moves, its
// distribution, the solver, the outputs), and refusals naming file, key and line.
#include "InputErrorOf.hpp"

#include "flexuq/config/PctJob.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

namespace {

const char* kJob = R"(command: simulate
planar:
  gravity: [0, -9.81]
  bodies: {mass: {mass: 1.0, inertia: 1.0, position: [0, 0], specified: true}}
  joints: [{name: line, type: slot, bodies: [ground, mass], points: [[0, 0], [0, 0]], axis: [0, 1]}]
  springs: [{name: k, bodies: [ground, mass], stiffness: 100.0, damping: 0.4}]
uncertainty:
  method: galerkin
  order: 2
  parameters:
    k: {dist: normal, mean: 100.0, std: 3.5, moves: {springs.k.stiffness: 1, bodies.mass.inertia: 0.5}}
solver: {step: 1.0e-4, end: 2.0, output_step: 0.5}
outputs: [mass.y, line.x]
output: msd.h5
)";

pct::PctJob parse(const std::string& text) { return io::parse_pct_job(io::Config::from_string(text, "job.yaml")); }

std::string with(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

} // namespace

TEST(PctJob, TheMassSpringDamperJob) {
  const pct::PctJob job = parse(kJob);
  const pct::PlanarMechanism& m = job.mechanism;
  ASSERT_EQ(m.bodies().size(), 1u);
  ASSERT_EQ(m.joints().size(), 1u);
  EXPECT_EQ(m.joints()[0].type, pct::PlanarJoint::Type::slot);
  ASSERT_EQ(job.inputs.size(), 1u);
  EXPECT_EQ(job.inputs[0].name, "k");
  EXPECT_DOUBLE_EQ(job.inputs[0].distribution.mean(), 100.0);
  const std::vector<std::pair<int, double>> targets{{m.spring_data(0, 0), 1.0}, {m.body_data(0, 1), 0.5}};
  EXPECT_EQ(job.inputs[0].targets, targets);
  EXPECT_EQ(job.distributions, (std::vector<std::string>{"normal"}));
  EXPECT_EQ(job.galerkin.order, 2);
  EXPECT_EQ(job.galerkin.route, pct::Route::traditional);
  EXPECT_EQ(job.output_points, 8);
  EXPECT_EQ(job.solver.step, 1e-4);
  EXPECT_EQ(job.solver.end, 2.0);
  EXPECT_EQ(job.solver.output_step, 0.5);
  EXPECT_EQ(job.start, 0.0);
  // outputs: per body x, y, angle, then per joint x, y
  EXPECT_EQ(job.outputs, (std::vector<int>{1, 3}));
  EXPECT_NE(job.output_path.find("msd.h5"), std::string::npos);
  EXPECT_EQ(job.source, "job.yaml");
}

TEST(PctJob, RefusalsNameFileKeyAndLine) {
  EXPECT_EQ(test::input_error_of([&] { parse(with(kJob, "method: galerkin", "method: pce")); }),
            "job.yaml: uncertainty.method (line 8): only 'galerkin' (intrusive PCT) is a simulate method; sample "
            "the parameters in a campaign for the non-intrusive ones");
  EXPECT_EQ(test::input_error_of([&] { parse(with(kJob, "bodies.mass.inertia", "bodies.rod.inertia")); })
                .rfind("job.yaml: uncertainty.parameters.k.moves.bodies.rod.inertia (line 11): ", 0),
            0u);
  EXPECT_EQ(test::input_error_of([&] { parse(with(kJob, "[mass.y, line.x]", "[mass.z]")); }),
            "job.yaml: outputs[0] (line 13): 'mass.z' is not an output (mass.x, mass.y, mass.angle, line.x, line.y, "
            "k.length)");
  EXPECT_EQ(test::input_error_of([&] { parse(with(kJob, "order: 2", "order: 9")); }),
            "job.yaml: uncertainty.order (line 9): must be an integer in [0, 8]");
}

// Issue #35's joints, drivers, contacts and initial conditions: the typed data they give and the refusals.
TEST(PctJob, JointsDriversContactsAndInitialConditions) {
  const std::string job = with(with(kJob, "axis: [0, 1]}]",
                                    "axis: [0, 1]},\n    {name: d, type: distance, bodies: [ground, mass], points: [[0, 0], [0, 0]]},\n"
                                    "    {name: up, type: slot, bodies: [ground, mass], at: [0, 0], axis: [1, 0], "
                                    "motion: [[0.1, 0.2, 0.05]]}]\n  contacts: [{name: floor, body: mass, radius: 0.5, "
                                    "stiffness: 1.0e5}]"),
                               "bodies.mass.inertia: 0.5", "bodies.mass.velocity.y: 1, contacts.floor.radius: 2");
  const std::string moved = with(job, "position: [0, 0]", "position: [0, -1.5], velocity: [0.25, 0]");
  const pct::PctJob j = parse(moved);
  const pct::PlanarMechanism& m = j.mechanism;
  ASSERT_EQ(m.joints().size(), 3u);
  EXPECT_EQ(m.joints()[1].type, pct::PlanarJoint::Type::distance);
  EXPECT_DOUBLE_EQ(m.joints()[1].length, 1.5); // from the initial pose
  EXPECT_DOUBLE_EQ(m.joints()[2].sj[1], 1.5);  // at: the ground origin in the body frame
  EXPECT_DOUBLE_EQ(m.joints()[2].motion(0.3), 0.05);
  EXPECT_DOUBLE_EQ(m.driver_values(0.3, 0)[2], 0.05); // rows: line 1, d 1, up 1, norm 1
  ASSERT_EQ(m.contacts().size(), 1u);
  EXPECT_DOUBLE_EQ(m.contacts()[0].radius, 0.5);
  EXPECT_DOUBLE_EQ(m.bodies()[0].vx, 0.25);
  const std::vector<std::pair<int, double>> targets{
      {m.spring_data(0, 0), 1.0}, {m.initial_data(0, 3), 1.0}, {m.contact_data(0, 1), 2.0}};
  EXPECT_EQ(j.inputs[0].targets, targets);
  EXPECT_EQ(test::input_error_of([&] { parse(with(moved, "type: distance", "type: hinge")); }),
            "job.yaml: planar.joints[1].type (line 6): 'hinge' is not revolute, slot, fixed, prismatic or distance");
  EXPECT_EQ(test::input_error_of([&] { parse(with(moved, "type: slot, bodies: [ground, mass], at", "type: revolute, bodies: [ground, mass], at")); }),
            "job.yaml: planar.joints[2].motion (line 7): only a slot takes a motion (a driver)");
  EXPECT_EQ(test::input_error_of([&] { parse(with(moved, "at: [0, 0], axis", "at: [0, 0], points: [[0, 0], [0, 0]], axis")); })
                .rfind("job.yaml: planar.joints[2].at (line 7): give either points", 0),
            0u);
  EXPECT_EQ(test::input_error_of([&] { parse(with(moved, "stiffness: 1.0e5", "stiffness: -1")); })
                .rfind("job.yaml: planar.contacts[0] (line 8): pct: contact 'floor' needs stiffness > 0", 0),
            0u);
}
