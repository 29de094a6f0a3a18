// SPDX-License-Identifier: MIT
// Modal stress recovery (fe/StressRecovery.hpp): the patch test — a linear displacement field has
// the constant stress D·sym(∇u) at every node of every solid element type, on distorted meshes —
// rigid motions carry none, von Mises (la/Mechanics.hpp) of known states, and a mesh without solids is refused.
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Element.hpp"
#include "flexuq/fe/StressRecovery.hpp"
#include "flexuq/io/Generators.hpp"
#include "flexuq/la/Mechanics.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;

namespace {

/// Fields u_k(x) = A_k x + c_k at every node (nodes × 3 × m, columns fastest).
std::vector<double> linear_fields(const io::Mesh& mesh, const std::vector<Eigen::Matrix3d>& A) {
  const auto m = A.size();
  std::vector<double> u(mesh.num_nodes() * 3 * m);
  for (std::size_t i = 0; i < mesh.num_nodes(); ++i) {
    const Eigen::Vector3d x(mesh.coords[i][0], mesh.coords[i][1], mesh.coords[i][2]);
    for (std::size_t k = 0; k < m; ++k) {
      const Eigen::Vector3d v = A[k] * x + Eigen::Vector3d(0.1 * static_cast<double>(k), -0.2, 0.05);
      for (int c = 0; c < 3; ++c) u[(i * 3 + static_cast<std::size_t>(c)) * m + k] = v(c);
    }
  }
  return u;
}

/// Voigt stress of the strain sym(A) for (E, ν).
Eigen::Matrix<double, 6, 1> hooke(const Eigen::Matrix3d& A, double E, double nu) {
  const Eigen::Matrix3d e = 0.5 * (A + A.transpose());
  const double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  Eigen::Matrix<double, 6, 1> s;
  s << lam * e.trace() + 2 * mu * e(0, 0), lam * e.trace() + 2 * mu * e(1, 1), lam * e.trace() + 2 * mu * e(2, 2),
      2 * mu * e(0, 1), 2 * mu * e(1, 2), 2 * mu * e(2, 0);
  return s;
}

void expect_patch(const io::Mesh& mesh, const std::string& what) {
  const double E = 2.1e11, nu = 0.3;
  Eigen::Matrix3d A1, A2, W;
  A1 << 1e-3, 2e-4, -3e-4, 5e-4, -2e-3, 1e-4, -1e-4, 3e-4, 7e-4;
  A2 << -4e-4, 0, 6e-4, 0, 9e-4, -2e-4, 1e-4, 0, 2e-4;
  W << 0, -3e-3, 2e-3, 3e-3, 0, -1e-3, -2e-3, 1e-3, 0; // an infinitesimal rotation: no strain
  const std::vector<Eigen::Matrix3d> A{A1, A2, W};
  const auto u = linear_fields(mesh, A);
  std::vector<char> covered;
  const std::vector<double> Ee(mesh.num_elements(), E), nue(mesh.num_elements(), nu);
  const auto S = fe::nodal_stresses(mesh, Ee, nue, u.data(), 3, 3, what, &covered);
  ASSERT_EQ(S.size(), mesh.num_nodes() * 6 * 3);
  const double scale = hooke(A1, E, nu).cwiseAbs().maxCoeff();
  double worst = 0;
  for (std::size_t i = 0; i < mesh.num_nodes(); ++i) {
    ASSERT_TRUE(covered[i]) << what << ": node " << i;
    for (std::size_t k = 0; k < 3; ++k) {
      const auto ref = hooke(A[k], E, nu);
      for (int c = 0; c < 6; ++c)
        worst = std::max(worst, std::abs(S[(i * 6 + static_cast<std::size_t>(c)) * 3 + k] - (k == 2 ? 0.0 : ref(c))));
    }
  }
  EXPECT_LT(worst, 1e-9 * scale) << what;
}

} // namespace

TEST(StressRecovery, PatchTestOnEverySolidElement) {
  for (auto t : {io::ElementType::tet4, io::ElementType::tet10, io::ElementType::penta6, io::ElementType::penta15,
                 io::ElementType::hex8, io::ElementType::hex20}) {
    io::Mesh mesh;
    mesh.source = "one element";
    const auto ref = fe::reference_nodes(t);
    std::vector<int> nodes;
    for (std::size_t a = 0; a < ref.size(); ++a) {
      // An affine map of the reference element with a smooth distortion of every node (valid Jacobian).
      const double x = ref[a][0], y = ref[a][1], z = ref[a][2];
      mesh.coords.push_back({0.8 * x + 0.1 * y + 0.03 * std::sin(3.0 * static_cast<double>(a)), -0.05 * x + 0.7 * y + 0.1 * z,
                             0.1 * x + 0.05 * y + 0.9 * z + 0.02 * std::cos(2.0 * static_cast<double>(a))});
      mesh.node_ids.push_back(static_cast<long>(a) + 1);
      nodes.push_back(static_cast<int>(a));
    }
    mesh.add_element(t, nodes, 1);
    expect_patch(mesh, std::string("element ") + io::element_name(t));
  }
  // A hex20 box whose nodes are moved by a smooth non-affine map: the nodal means over neighbouring
  // elements must keep the exact constant stress.
  io::BoxSpec b;
  b.cells = {3, 2, 2};
  b.order = 2;
  b.size = {2.0, 1.0, 0.5};
  auto box = io::generate_box(b);
  for (auto& x : box.coords) {
    x[0] += 0.05 * std::sin(2.0 * x[1] + x[2]);
    x[1] += 0.04 * std::cos(1.5 * x[0]);
  }
  expect_patch(box, "distorted hex20 box");
}

TEST(StressRecovery, VonMisesOfKnownStates) {
  const double uniaxial[6] = {-250.0, 0, 0, 0, 0, 0}, shear[6] = {0, 0, 0, 0, 40.0, 0}, hydro[6] = {7, 7, 7, 0, 0, 0};
  EXPECT_NEAR(la::von_mises(uniaxial), 250.0, 1e-12);
  EXPECT_NEAR(la::von_mises(shear), std::sqrt(3.0) * 40.0, 1e-12);
  EXPECT_NEAR(la::von_mises(hydro), 0.0, 1e-12);
}

TEST(StressRecovery, AMeshWithoutSolidsIsRefused) {
  io::BeamSpec spec;
  spec.elements = 4;
  spec.section.shape = "RECT";
  spec.section.dims = {0.01, 0.01};
  const auto beam = io::generate_beam(spec);
  const std::vector<double> u(beam.num_nodes() * 6, 0.0), E(beam.num_elements(), 1.0), nu(beam.num_elements(), 0.3);
  EXPECT_THROW(fe::nodal_stresses(beam, E, nu, u.data(), 6, 1, "beam.inp"), InputError);
}
