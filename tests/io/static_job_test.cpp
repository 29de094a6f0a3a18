// SPDX-License-Identifier: MIT
// config's io::parse_static_job and io::static_job_key (the `flexuq static` job file, moved out of app
// for issue #33) and nl::static_report (its log text) without the CLI: the typed problem of a small
// quad4 cantilever job against the job's numbers, refusals naming file and key, nl fields mapped to
// the job's keys, and the report of a hand-made two-step result, byte for byte.
#include "InputErrorOf.hpp"

#include "flexuq/config/StaticJob.hpp"
#include "flexuq/nl/StaticReport.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

namespace {

const char* kJob = R"(command: static
static:
  mesh: {generator: cantilever, element: quad4, length: 1.0, height: 0.1, cells: [4, 1]}
  material: {E: 1.0e6, nu: 0.3, thickness: 0.01}
  supports:
    - {set: root}
  loads:
    - {type: force, set: tip_mid, value: [0, -10]}
  steps: 3
)";

io::StaticJob parse(const std::string& text) { return io::parse_static_job(io::Config::from_string(text, "job.yaml")); }

} // namespace

TEST(StaticJob, TheCantileverJob) {
  const io::StaticJob job = parse(kJob);
  EXPECT_EQ(job.mesh.dim(), 2);
  EXPECT_EQ(job.mesh.num_nodes(), 10); // 5 x 2 corner nodes
  EXPECT_EQ(job.mesh.elements.size(), 4u);
  ASSERT_EQ(job.supports.size(), 1u);
  EXPECT_EQ(job.supports[0].components, (std::vector<bool>{true, true})); // no fix: every component
  ASSERT_EQ(job.loads.size(), 1u);
  EXPECT_EQ(job.loads[0].force(1), -10.0);
  EXPECT_EQ(job.options.steps, 3);
  EXPECT_EQ(job.options.material.E, 1.0e6);
  EXPECT_EQ(job.options.material.thickness, 0.01);
  EXPECT_EQ(job.report, "tip_mid");
  EXPECT_NE(job.output.find("static.h5"), std::string::npos);
}

TEST(StaticJob, RefusalsAndKeys) {
  std::string bad = kJob;
  bad.replace(bad.find("quad4"), 5, "tri3");
  EXPECT_EQ(test::input_error_of([&] { parse(bad); }),
            "job.yaml: static.mesh.element 'tri3' is not one of bar2, hex8, quad4, quad8");
  EXPECT_EQ(test::input_error_of([&] { parse(std::string(kJob) + "  report: nowhere\n"); }).rfind(
                "job.yaml: static.report: no node set 'nowhere' (", 0),
            0u);
  EXPECT_EQ(io::static_job_key("cells"), "static.mesh.cells");
  EXPECT_EQ(io::static_job_key("rtol"), "static.solver.rtol");
  EXPECT_EQ(io::static_job_key("loads[0].force"), "static.loads[0].value");
  EXPECT_EQ(io::static_job_key("loads[1].follower"), "static.loads[1].type");
  EXPECT_EQ(io::static_job_key("material.E"), "static.material.E");
}

TEST(StaticJob, ReportOfAHandMadeResult) {
  const io::StaticJob job = parse(kJob);
  nl::StaticResult res;
  res.seconds = 0.25;
  const int node = job.mesh.sets.at("tip_mid").front();
  for (int k = 1; k <= 2; ++k) {
    nl::StaticStep s;
    s.lambda = 0.5 * k;
    s.newton_iterations = 2 + k;
    s.cuts = k - 1;
    s.u = Eigen::VectorXd::Zero(2 * job.mesh.num_nodes());
    s.u(2 * node) = 1e-3 * k;
    s.u(2 * node + 1) = -2e-2 * k;
    res.steps.push_back(s);
  }
  const std::string n = std::to_string(node);
  EXPECT_EQ(nl::static_report(job.mesh, job.options, res, node, "tip_mid", "out.h5"),
            "  nfe, 4 quad4 elements, 20 DOFs\n"
            "   step    lambda   Newton  halvings   displacement of node " + n + " (tip_mid)\n"
            "      1    0.5000       3         0    1.000000e-03  -2.000000e-02\n"
            "      2    1.0000       4         1    2.000000e-03  -4.000000e-02\n"
            "  load path: 0.250 s; results: out.h5");
}
