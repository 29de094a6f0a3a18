// SPDX-License-Identifier: MIT
// config's io::Expression and io::KeyPathEdits without the campaign or the simulate parse (moved from
// app/JobParameters, issue #33): values against hand-computed ones, the numbers set in a YAML tree
// exactly (17 digits, read back as the same double), both index forms, the refusals naming key and path.
#include "InputErrorOf.hpp"

#include "flexuq/config/KeyPathEdits.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;

namespace {

const char* kJob = R"(bodies:
  crank: {mass: 2.0, position: [0.5, 0, 0]}
joints:
  - {name: A, point: [0, 0, 0]}
name: text
)";

} // namespace

TEST(KeyPathEdits, ExpressionValues) {
  const std::vector<std::string> names{"a", "b"};
  const io::Expression e("-a^2 + atan2(b, a)*max(a, 2)/sqrt(b) - 3*(a - b)", names, "k");
  const double a = 1.5, b = 0.25;
  EXPECT_DOUBLE_EQ(e({a, b}), -a * a + std::atan2(b, a) * 2 / std::sqrt(b) - 3 * (a - b));
  EXPECT_EQ(e.variables(), (std::vector<std::size_t>{0, 1}));
  EXPECT_DOUBLE_EQ(io::Expression("2^3^2", names, "k")({0, 0}), 512.0); // right-associative
  EXPECT_EQ(test::input_error_of([&] { io::Expression("a + q", names, "f.yaml: model.set.x"); }),
            "f.yaml: model.set.x: 'a + q' names 'q', which is not a campaign parameter (parameters: a, b; "
            "constant: pi) at character 5");
}

TEST(KeyPathEdits, SetsTheNumbersOfTheTree) {
  const io::Config job = io::Config::from_string(kJob, "job.yaml");
  const io::Config cfg = io::Config::from_string("model:\n  set: {\"joints[0].point.1\": \"l*sin(pi/6)\"}\n", "c.yaml");
  const io::KeyPathEdits edits(cfg, job, {"bodies.crank.mass", "l"});
  EXPECT_FALSE(edits.empty());
  EXPECT_EQ(edits.parameters(), (std::vector<std::size_t>{0, 1}));
  const io::Config copy = io::Config::from_string(kJob, "job.yaml");
  const double l = 0.1 + 0.2; // not a short decimal: 17 digits must carry it
  edits.apply(copy.root(), {3.25, l});
  EXPECT_EQ(copy.root()["bodies"]["crank"]["mass"].as<double>(), 3.25);
  EXPECT_EQ(copy.root()["joints"][0]["point"][1].as<double>(), l * std::sin(M_PI / 6));
  EXPECT_EQ(copy.root()["joints"][0]["point"][0].as<double>(), 0.0); // untouched
}

TEST(KeyPathEdits, RefusalsNameKeyAndPath) {
  const io::Config job = io::Config::from_string(kJob, "job.yaml");
  const io::Config none = io::Config::from_string("command: campaign\n", "c.yaml");
  EXPECT_EQ(test::input_error_of([&] { io::KeyPathEdits(none, job, {"joints[3].point.0"}); }),
            "c.yaml: parameters.joints[3].point.0: 'joints' of the simulate job job.yaml has 1 entry: no index 3");
  EXPECT_NE(test::input_error_of([&] { io::KeyPathEdits(none, job, {"name.x"}); }).find("is a single value"),
            std::string::npos);
  EXPECT_NE(test::input_error_of([&] { io::KeyPathEdits(none, job, {"bodies.crank.position"}); })
                .find("is a list of 3 entries, not a number"),
            std::string::npos);
  const io::KeyPathEdits root(none, job, {"bodies.crank.mass"});
  const io::Config copy = io::Config::from_string(kJob, "job.yaml");
  EXPECT_EQ(test::input_error_of([&] { root.apply(copy.root(), {NAN}); }),
            "parameters.bodies.crank.mass is nan at bodies.crank.mass = nan (not a finite number)");
}
