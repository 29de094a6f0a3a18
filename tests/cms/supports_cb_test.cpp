// SPDX-License-Identifier: MIT
// Craig–Bampton next to a symmetry plane (issue #37 item 3): a box whose interface XMIN meets the
// plane y = 0 held by u_y = 0 (YSYMM on solid nodes), so the nodes on their common edge are partly
// fixed and partly boundary coordinates. The fixed-interface eigenvalues equal the modes of the
// component with XMIN and the symmetry fixed; the reduced pencil keeps exactly the three rigid
// motions the symmetry plane leaves (t_x, t_z, r_y); 1 rank = 2 ranks; an RBE2 interface on a
// partly fixed node is refused.
#include "CmsTestUtil.hpp"

#include "flexuq/core/Error.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

namespace {

const std::string kSym = test::steel_box_yaml(2) + "  fixed: [{set: YMIN, dofs: [2]}]\n";

std::vector<double> cb_eigenvalues(MPI_Comm comm, cms::ReducedBasis* out = nullptr) {
  test::CmsFixture f(test::component_from_yaml(comm, kSym), test::interfaces({"XMIN"}), 6);
  cms::BuildOptions b;
  b.method = cms::Method::craig_bampton;
  auto rb = f.red->build(b);
  const auto ev = rb.mode_eigenvalues;
  if (out) *out = std::move(rb);
  return ev;
}

} // namespace

TEST(CmsSupports, CraigBamptonNextToASymmetryPlane) {
  cms::ReducedBasis rb;
  const auto ev = cb_eigenvalues(MPI_COMM_WORLD, &rb);
  auto held = test::component_from_yaml(MPI_COMM_WORLD, test::steel_box_yaml(2) + "  fixed: [XMIN, {set: YMIN, dofs: [2]}]\n");
  fe::ModeOptions o;
  o.count = 6;
  o.constrained = true;
  o.progress = false;
  const auto ref = fe::solve_modes(held->K(), held->M(), o);
  ASSERT_EQ(ev.size(), ref.eigenvalues.size());
  for (std::size_t i = 0; i < ev.size(); ++i) EXPECT_NEAR(ev[i] / ref.eigenvalues[i], 1.0, 1e-9) << i;

  // Boundary coordinates: 3 per XMIN node less u_y of the 3 nodes on the edge x = 0, y = 0 (the
  // 8 × 2 × 2 box: XMIN has 3 × 3 nodes).
  const auto& mesh = held->mesh();
  std::size_t shared = 0;
  for (int v : mesh.node_set("XMIN"))
    for (int w : mesh.node_set("YMIN")) shared += v == w;
  ASSERT_EQ(shared, 3u);
  EXPECT_EQ(rb.n_columns() - ev.size(), 3 * mesh.node_set("XMIN").size() - shared);

  // The reduced pencil's zero eigenvalues: the rigid motions with u_y = 0 on y = 0 (t_x, t_z, r_y).
  const Eigen::VectorXd lam = test::pencil_eigenvalues(rb.K, rb.M);
  int zeros = 0;
  for (Eigen::Index i = 0; i < lam.size(); ++i) zeros += std::abs(lam(i)) < 1e-8 * ref.eigenvalues[0];
  EXPECT_EQ(zeros, 3);
  EXPECT_GT(lam(3), 1e-3 * ref.eigenvalues[0]);

  // 1 rank = 2 ranks.
  const auto one = cb_eigenvalues(MPI_COMM_SELF);
  for (std::size_t i = 0; i < ev.size(); ++i) EXPECT_NEAR(one[i] / ev[i], 1.0, 1e-10) << i;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("[CmsSupports] CB next to YSYMM: %zu boundary coordinates, omega_1^2 %.6e (held component %.6e), "
                "%d zero eigenvalues of the reduced pencil\n",
                rb.n_columns() - ev.size(), ev[0], ref.eigenvalues[0], zeros);
}

TEST(CmsSupports, RigidInterfaceOnAFixedComponentIsRefused) {
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, kSym);
  try {
    cms::WorkSpace ws(*comp, test::interfaces({"XMIN"}, cms::InterfaceKind::rbe2));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("XMIN"), std::string::npos) << w;
    EXPECT_NE(w.find("a DOF both fixed and interface"), std::string::npos) << w;
  }
}
