// SPDX-License-Identifier: MIT
// Craig–Bampton of a mixed mesh (issue #37 item 1): a shell plate embedded in a hex8 block, RBE2
// interfaces on the block's face ROOT (nodes only solids touch: their translations join the RBE2, their
// eliminated rotations do not) and on the plate's free edge TIP. The fixed-interface eigenvalues equal
// the modes of the component with ROOT and TIP held whole; the reduced pencil has exactly six rigid
// motions; its mass is the closed form ρ (h a (a + d) + 2 c d a) (the embedded shell rows overlap the
// block); 1 rank = 2 ranks.
#include "CmsTestUtil.hpp"
#include "MixedMeshUtil.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

namespace {

constexpr int kNx = 8, kNs = 2;
constexpr double kA = 1.0, kH = 0.01, kC = 0.05;

std::unique_ptr<fe::Component> plate_on_block(MPI_Comm comm, std::vector<std::string> fixed = {}) {
  fe::ComponentOptions o;
  o.default_material = test::material("BLOCK", test::kE, test::kNu, test::kRho);
  o.fixed_sets = std::move(fixed);
  return std::make_unique<fe::Component>(comm, test::plate_on_block(kNx, kNs, kA, kH, kC, true), o);
}

cms::ReducedBasis craig_bampton(MPI_Comm comm) {
  test::CmsFixture f(plate_on_block(comm), test::interfaces({"ROOT", "TIP"}, cms::InterfaceKind::rbe2), 6);
  cms::BuildOptions b;
  b.method = cms::Method::craig_bampton;
  return f.red->build(b);
}

} // namespace

TEST(CmsMixed, RigidInterfacesOnSolidOnlyAndShellNodes) {
  const auto rb = craig_bampton(MPI_COMM_WORLD);
  auto held = plate_on_block(MPI_COMM_WORLD, {"ROOT", "TIP"});
  fe::ModeOptions o;
  o.count = 6;
  o.constrained = true;
  o.progress = false;
  const auto ref = fe::solve_modes(held->K(), held->M(), o);
  ASSERT_EQ(rb.mode_eigenvalues.size(), ref.eigenvalues.size());
  for (std::size_t i = 0; i < ref.eigenvalues.size(); ++i)
    EXPECT_NEAR(rb.mode_eigenvalues[i] / ref.eigenvalues[i], 1.0, 1e-9) << i;
  // 2 reference nodes × 6 boundary coordinates + 6 modes.
  EXPECT_EQ(rb.n_columns(), 18);
  const Eigen::VectorXd lam = test::pencil_eigenvalues(rb.K, rb.M);
  int zeros = 0;
  for (Eigen::Index i = 0; i < lam.size(); ++i) zeros += std::abs(lam(i)) < 1e-8 * ref.eigenvalues[0];
  EXPECT_EQ(zeros, 6);
  // Translational mass: the reduced M on the rigid translation of both reference nodes (the RBE2
  // coordinates are the references' 6 DOFs, the first 12 columns).
  const double d = kNs * kA / kNx, mass = test::kRho * (kH * kA * (kA + d) + 2 * kC * d * kA);
  for (int k = 0; k < 3; ++k) {
    Eigen::VectorXd t = Eigen::VectorXd::Zero(rb.M.rows());
    t(k) = t(6 + k) = 1.0;
    EXPECT_NEAR(t.dot(rb.M * t), mass, 1e-10 * mass) << "direction " << k;
  }
  const auto one = craig_bampton(MPI_COMM_SELF);
  for (std::size_t i = 0; i < rb.mode_eigenvalues.size(); ++i)
    EXPECT_NEAR(one.mode_eigenvalues.at(i) / rb.mode_eigenvalues[i], 1.0, 1e-10) << i;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("[CmsMixed] CB, rbe2 ROOT (block) + TIP (plate): omega_1^2 %.6e (held %.6e), %d zero eigenvalues, "
                "mass %.6f kg\n",
                rb.mode_eigenvalues[0], ref.eigenvalues[0], zeros, mass);
}
