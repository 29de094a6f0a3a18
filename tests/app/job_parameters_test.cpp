// SPDX-License-Identifier: MIT
// app/JobParameters: the expressions of model.set against hand-computed values, key paths in both
// index forms, the numbers set exactly (17 digits) and the job parsed again per sample (issue #35 item 1).
#include "flexuq/app/JobParameters.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

using namespace flexuq;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<campaign::ParameterSpec> params(const std::vector<std::string>& names) {
  std::vector<campaign::ParameterSpec> out;
  for (const auto& n : names) {
    campaign::ParameterSpec p;
    p.name = n;
    p.dist = uq::Distribution::uniform(0.5, 1.5);
    out.push_back(p);
  }
  return out;
}

const char* kJob = R"(command: simulate
bodies:
  crank: {type: rigid, mass: 2.0, inertia: [1, 1, 1], position: [0.5, 0, 0]}
joints:
  - {name: A, type: revolute, bodies: [ground, crank], point: [0, 0, 0], axis: [0, 0, 1]}
forces:
  - {type: torque, body: crank, axis: [0, 0, 1], value: 1.0}
solver: {step: 1.0e-3, end: 0.01}
outputs:
  - {name: theta, joint: A, quantity: angle}
)";

} // namespace

TEST(JobParameters, ExpressionsFollowTheUsualPrecedence) {
  const std::vector<std::string> names{"a", "b"};
  auto at = [&](const std::string& text, std::vector<double> v) { return app::Expression(text, names, "k")(v); };
  EXPECT_EQ(at("1 + 2*3", {0, 0}), 7.0);
  EXPECT_EQ(at("-2^2", {0, 0}), -4.0);          // the power binds tighter than the sign
  EXPECT_EQ(at("2^3^2", {0, 0}), 512.0);        // right-associative
  EXPECT_EQ(at("(1 + 2)*3 - 4/2", {0, 0}), 7.0);
  EXPECT_EQ(at("a - b - 1", {5, 2}), 2.0);      // left-associative
  EXPECT_EQ(at("2^-1", {0, 0}), 0.5);
  EXPECT_EQ(at("1.5e1 + .5", {0, 0}), 15.5);
  EXPECT_DOUBLE_EQ(at("atan2(1, 1)*4", {0, 0}), M_PI);
  EXPECT_DOUBLE_EQ(at("sqrt(a^2 - (b*sin(pi/4))^2)", {1.5, 1}), std::sqrt(2.25 - 0.5));
  EXPECT_DOUBLE_EQ(at("-asin(b*sin(pi/4)/a)", {1.5, 1}), -std::asin(std::sin(M_PI / 4) / 1.5));
  EXPECT_EQ(at("min(a, b) + max(a, b) + abs(-1)", {3, 4}), 8.0);
  EXPECT_EQ(app::Expression("b*b + 1", names, "k").variables(), std::vector<std::size_t>{1});
  EXPECT_TRUE(app::Expression("pi", names, "k").variables().empty());
  EXPECT_EQ(error_of([&] { app::Expression("2*c", names, "job.yaml: model.set.x"); }),
            "job.yaml: model.set.x: '2*c' names 'c', which is not a campaign parameter (parameters: a, b; constant: pi) at "
            "character 3");
  EXPECT_EQ(error_of([&] { app::Expression("(a", names, "k"); }), "k: '(a' misses a ')'");
  EXPECT_EQ(error_of([&] { app::Expression("a b", names, "k"); }), "k: 'a b' unexpected 'b' at character 3");
  EXPECT_EQ(error_of([&] { app::Expression("atan2(a)", names, "k"); }), "k: 'atan2(a)' needs two arguments for atan2(a, b) at character 8");
  EXPECT_EQ(error_of([&] { app::Expression(" ", names, "k"); }), "k: ' ' is empty");
}

TEST(JobParameters, KeyPathsSetTheJobPerSample) {
  const io::Config job = io::Config::from_string(kJob, "job.yaml");
  // A parameter named by a key path ([i] and .i alike) and an expression of a named parameter.
  const io::Config cfg = io::Config::from_string(
      "model: {set: {'joints[0].point[0]': 2*l - 1, forces.0.value: l^2}}\n", "uq.yaml");
  const app::JobEdits edits(cfg, job, params({"bodies.crank.position.0", "l", "unused"}));
  EXPECT_EQ(edits.parameters(), (std::vector<std::size_t>{0, 1}));
  const std::string path = testing::TempDir() + "job_parameters_job.yaml";
  std::ofstream(path) << kJob;
  const auto at = app::job_at_sample(path, edits);
  const double x = 0.1 + 0.2; // not a short decimal: the 17-digit text must give it back exactly
  const auto spec = at({x, 0.7, 0.0});
  EXPECT_EQ(spec.bodies.at(0).body.position.x(), x);
  EXPECT_EQ(spec.joints.at(0).spec.point.x(), 2 * 0.7 - 1);
  EXPECT_EQ(spec.forces.at(0).spec.value(0.0), std::pow(0.7, 2.0));
  EXPECT_EQ(spec.bodies.at(0).body.mass, 2.0); // untouched
  // The same number set twice, by a parameter and by model.set.
  const io::Config twice = io::Config::from_string("model: {set: {joints.0.point.0: l}}\n", "uq.yaml");
  EXPECT_EQ(error_of([&] { app::JobEdits(twice, job, params({"joints[0].point[0]", "l"})); }),
            "uq.yaml: model.set.joints.0.point.0 and parameters.joints[0].point[0] both set 'joints.0.point.0' of the "
            "simulate job");
  EXPECT_EQ(error_of([&] { app::JobEdits(cfg, job, params({"bodies..mass", "l"})); }),
            "uq.yaml: parameters.bodies..mass: the key path 'bodies..mass' has an empty step");
  EXPECT_EQ(error_of([&] { app::JobEdits(cfg, job, params({"solver.step.0", "l"})); }),
            "uq.yaml: parameters.solver.step.0: 'solver.step' of the simulate job job.yaml is a single value: "
            "'solver.step.0' goes past it");
  // A sample whose job the parse refuses fails with the parse's message (file, key, line).
  const io::Config mass = io::Config::from_string("model: {set: {bodies.crank.mass: l - 1}}\n", "uq.yaml");
  const auto negative = app::job_at_sample(path, app::JobEdits(mass, job, params({"l"})));
  EXPECT_EQ(negative({1.5}).bodies.at(0).body.mass, 0.5);
  EXPECT_EQ(error_of([&] { negative({0.5}); }),
            path + ": bodies.crank.mass (line 3): must be finite and >= 0, got -0.500000");
}
