// SPDX-License-Identifier: MIT
// workflow::run_pct without the CLI: a body pinned at its centre of mass to a ground point whose x is
// normal and y uniform, turned by a constant torque. Its position is the pin's point, linear in the
// inputs, so the order-1 chaos is exact: mean and std of x and y are the inputs' (closed form), each
// output's Sobol' indices are 1 for its own input and 0 for the other; the angle is τt²/(2J) with no
// spread. The result file is read back; its layout is docs/hdf5-schema.md's "simulate with
// uncertainty". workflow::sobol_from_chaos against shares computed by hand.
#include "../io/ScratchFile.hpp"

#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/workflow/Pct.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;

namespace {

constexpr double kTorque = 0.1, kInertia = 0.5, kPx = 0.3, kPy = -0.2, kSx = 0.02, kLow = -0.25, kHigh = -0.15;

workflow::PctJob pinned_body(const std::string& path) {
  workflow::PctJob job;
  pct::PlanarMechanism& m = job.mechanism;
  pct::PlanarBody b;
  b.name = "b";
  b.mass = 2;
  b.inertia = kInertia;
  b.x = kPx;
  b.y = kPy;
  m.add_body(b);
  pct::PlanarJoint pin;
  pin.name = "pin";
  pin.body_i = -1;
  pin.body_j = 0;
  pin.si = {kPx, kPy};
  m.add_joint(pin);
  m.add_torque({0, [](double) { return kTorque; }});
  pct::UncertainInput px{"px", uq::Distribution::normal(kPx, kSx), {{m.joint_data(0, 0), 1.0}}};
  pct::UncertainInput py{"py", uq::Distribution::uniform(kLow, kHigh), {{m.joint_data(0, 1), 1.0}}};
  job.inputs = {px, py};
  job.distributions = {"normal", "uniform"};
  job.galerkin.order = 1;
  job.solver.step = 1e-3;
  job.solver.end = 0.5;
  job.solver.output_step = 0.1;
  job.outputs = {0, 1, 2}; // b.x, b.y, b.angle
  job.output_path = path;
  job.source = "pinned.yaml";
  return job;
}

} // namespace

TEST(PctWorkflow, PinnedBodyAgainstClosedForm) {
  const std::string path = test::shared_scratch_dir("workflow-pct") + "/pinned.h5";
  workflow::run_pct(MPI_COMM_WORLD, pinned_body(path));
  const io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
  const std::vector<double> t = f.read_all("/time");
  ASSERT_EQ(t.size(), 6u); // 0, 0.1, …, 0.5
  EXPECT_NEAR(t.back(), 0.5, 1e-12);
  EXPECT_EQ(f.read_strings("/parameters/names"), (std::vector<std::string>{"px", "py"}));
  EXPECT_EQ(f.read_attribute_int("/galerkin", "terms"), 3);
  const double sy = (kHigh - kLow) / std::sqrt(12.0);
  const std::vector<double> xm = f.read_all("/statistics/b.x/mean"), xs = f.read_all("/statistics/b.x/std");
  const std::vector<double> ym = f.read_all("/statistics/b.y/mean"), ys = f.read_all("/statistics/b.y/std");
  const std::vector<double> am = f.read_all("/statistics/b.angle/mean"), as = f.read_all("/statistics/b.angle/std");
  // (d, n_t): row i is parameter i
  const std::vector<double> xf = f.read_all("/statistics/b.x/sobol_first"), yt = f.read_all("/statistics/b.y/sobol_total");
  const std::vector<double> xc = f.read_all("/pce/b.x/coefficients"); // (P, n_t)
  ASSERT_EQ(xf.size(), 12u);
  ASSERT_EQ(xc.size(), 18u);
  for (std::size_t k = 0; k < t.size(); ++k) {
    EXPECT_NEAR(xm[k], kPx, 1e-10) << "t = " << t[k];
    EXPECT_NEAR(xs[k], kSx, 1e-10);
    EXPECT_NEAR(ym[k], 0.5 * (kLow + kHigh), 1e-10);
    EXPECT_NEAR(ys[k], sy, 1e-10);
    EXPECT_NEAR(am[k], kTorque * t[k] * t[k] / (2 * kInertia), 1e-7);
    EXPECT_NEAR(as[k], 0.0, 1e-9);
    EXPECT_NEAR(xf[k], 1.0, 1e-9);          // px explains x
    EXPECT_NEAR(xf[t.size() + k], 0.0, 1e-9); // py does not
    EXPECT_NEAR(yt[k], 0.0, 1e-9);
    EXPECT_NEAR(yt[t.size() + k], 1.0, 1e-9);
    EXPECT_NEAR(xc[k], kPx, 1e-10); // the constant term is the mean
    EXPECT_NEAR(std::hypot(xc[t.size() + k], xc[2 * t.size() + k]), kSx, 1e-10);
  }
}

TEST(PctWorkflow, SobolSharesByHand) {
  const uq::MultiIndexSet basis = uq::MultiIndexSet::total_degree(2, 2);
  ASSERT_EQ(basis.size(), 6);
  std::vector<double> c(6, 0.0);
  for (int a = 0; a < 6; ++a) {
    const int i = basis(a, 0), j = basis(a, 1);
    c[static_cast<std::size_t>(a)] = i == 0 && j == 0 ? 5.0 : i == 1 && j == 0 ? 1.0 : i == 0 && j == 1 ? 2.0 : i == 1 && j == 1 ? 3.0 : 0.0;
  }
  const workflow::SobolShares s = workflow::sobol_from_chaos(basis, c.data());
  // variance 1 + 4 + 9 = 14: x alone 1, y alone 4, the mixed term 9 in both totals
  EXPECT_NEAR(s.first[0], 1.0 / 14, 1e-15);
  EXPECT_NEAR(s.first[1], 4.0 / 14, 1e-15);
  EXPECT_NEAR(s.total[0], 10.0 / 14, 1e-15);
  EXPECT_NEAR(s.total[1], 13.0 / 14, 1e-15);
  const std::vector<double> constant{7.0, 0, 0, 0, 0, 0};
  const workflow::SobolShares z = workflow::sobol_from_chaos(basis, constant.data());
  EXPECT_EQ(z.first, (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(z.total, (std::vector<double>{0.0, 0.0}));
}
