// SPDX-License-Identifier: MIT
// workflow::run_stochastic_body with method pod (the POD of the journaled point bases, pod_basis and
// pod_project) and body-at of the POD body (pod_body_at) without the CLI, on the two-set steel box
// (StochasticBox.hpp): the affine terms reproduce the projection of K(θ), M(θ); V is M-orthonormal
// at the means; at a point off the design the POD body's free-free frequencies lie above the full
// model's (Rayleigh–Ritz) and below the Craig–Bampton body's but for the truncation the file
// reports, both computed here by the cms chain on the box built at θ.
#include "../io/InputErrorOf.hpp"
#include "StochasticBox.hpp"

#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/workflow/BodyAt.hpp"
#include "flexuq/workflow/PodBody.hpp"

#include <gtest/gtest.h>

using namespace flexuq;
using namespace flexuq::test;

namespace {

std::string output(const std::string& name) { return shared_scratch_dir("workflow-pod") + "/" + name; }

/// The POD body of the box from 10 points of a Latin hypercube (written once per rank count).
/// @note Collective.
const std::string& pod_body() {
  static const std::string path = [] {
    const auto o = regression_design(output("pod.h5"), 1, 10);
    auto job = two_set_job(workflow::StochasticMethod::pod, o);
    job.truncation = pod::Truncation::energy(1e-10);
    remove_body_file(o.output);
    workflow::run_stochastic_body(MPI_COMM_WORLD, job);
    MPI_Barrier(MPI_COMM_WORLD);
    return o.output;
  }();
  return path;
}

} // namespace

TEST(PodBodyWorkflow, AffineTermsAndTheFileLayout) {
  const auto& path = pod_body();
  EXPECT_TRUE(workflow::is_pod_body(MPI_COMM_WORLD, path));
  const io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
  EXPECT_LT(f.read_attribute_double("/stochastic_body/pod", "affine_check"), 1e-12);
  const auto rank = f.read_attribute_int("/stochastic_body/pod", "rank");
  const auto shape = f.shape("/stochastic_body/pod/basis");
  ASSERT_EQ(shape.size(), 3u);
  EXPECT_EQ(shape[0], two_set_box().num_nodes());
  EXPECT_EQ(shape[1], 3u);
  EXPECT_EQ(static_cast<std::int64_t>(shape[2]), rank);
  // More columns than one Craig–Bampton body (12 boundary + 4 modes): the points' bases differ.
  EXPECT_GT(rank, 16);
  const auto points = f.read_all_int("/stochastic_body/pod/points");
  EXPECT_EQ(points.size(), 10u);
  // /reduced: the reference Craig–Bampton body at the means.
  const auto reference = cms::ReducedBody::read(MPI_COMM_WORLD, path);
  EXPECT_LT(max_relative_difference(reference.checkout.reduced_hz, craig_bampton_at({kSteelE, kSteelRho}).reduced_hz,
                                    kFreeFree),
            1e-8);
  // The POD body at the means (body-at, no settings): V is M(θ̄)-orthonormal.
  const std::string at = output("pod-mean.h5");
  workflow::run_body_at(MPI_COMM_WORLD, {path, {}, at});
  const auto mean = cms::ReducedBody::read(MPI_COMM_WORLD, at);
  ASSERT_EQ(mean.M.rows(), rank);
  EXPECT_LT((mean.M - Eigen::MatrixXd::Identity(rank, rank)).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(PodBodyWorkflow, BodyAtLiesBetweenTheFullModelAndCraigBampton) {
  const auto& path = pod_body();
  const std::vector<double> theta{2.1e11, 7700};
  const std::string at = output("pod-at.h5");
  workflow::run_body_at(MPI_COMM_WORLD, {path, {{"E_left", 2.1e11, false, ""}, {"rho_right", 7700, false, ""}}, at});
  const auto body = cms::ReducedBody::read(MPI_COMM_WORLD, at);
  EXPECT_EQ(body.method, "pod");
  double above = 0;
  {
    const io::H5File f(MPI_COMM_WORLD, path, io::H5File::Mode::read);
    above = std::max(0.0, f.read_attribute_double("/stochastic_body/pod", "max_free_free_above_cb"));
  }
  EXPECT_LT(above, 1e-6);
  const auto cb = craig_bampton_at(theta);
  const auto& fp = body.checkout.reduced_hz;
  ASSERT_GE(fp.size(), kFreeFree);
  ASSERT_GE(cb.full_hz.size(), kFreeFree);
  for (Eigen::Index i = 0; i < kFreeFree; ++i) {
    EXPECT_GE(fp(i), cb.full_hz(i) * (1 - 1e-9)) << "mode " << i << ": the POD body is softer than the full model";
    EXPECT_LE(fp(i), cb.reduced_hz(i) * (1 + above + 1e-8)) << "mode " << i << ": the POD body is stiffer than CB";
    EXPECT_LT(fp(i) - cb.full_hz(i), 0.02 * cb.full_hz(i)) << "mode " << i;
  }
  // The mass of the body moved with ρ of RIGHT (the invariants are affine in θ as M is).
  EXPECT_NEAR(body.checkout.reduced.mass, cb.full.mass, 1e-9 * cb.full.mass);
  // A POD body is exact at every θ: there is no germ to give.
  const std::string msg =
      input_error_of([&] { workflow::run_body_at(MPI_COMM_WORLD, {path, {{"E_left", 0.5, true, ""}}, output("pod-xi.h5")}); });
  EXPECT_NE(msg.find("is a POD body (exact at every θ, no germ)"), std::string::npos) << msg;
}
