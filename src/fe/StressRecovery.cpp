// SPDX-License-Identifier: MIT
#include "flexuq/fe/StressRecovery.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Element.hpp"
#include "flexuq/fe/Plane.hpp"

#include <Eigen/Dense>

#include <array>
#include <cmath>

namespace flexuq::fe {

namespace {

/// The 2-D element @p e's contribution: at each of its nodes, σ from the in-plane strain of the
/// field (plane stress: σ_zz = 0; plane strain: σ_zz = λ (ε_xx + ε_yy)), σ_yz = σ_zx = 0.
void plane_stresses(const io::Mesh& mesh, std::size_t e, double E, double nu, bool strain, const double* u, int m,
                    const std::string& who, std::vector<double>& s, std::vector<int>& count) {
  const auto type = mesh.elem_type[e];
  const int n = mesh.element_size(e);
  const int* nodes = mesh.element(e);
  const auto ref = reference_nodes(type);
  double N[8], dN[16];
  Eigen::MatrixXd G(n, 2);
  const double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu)), c = E / (1 - nu * nu);
  for (int a = 0; a < n; ++a) {
    plane_shape_functions(type, ref[static_cast<std::size_t>(a)][0], ref[static_cast<std::size_t>(a)][1], N, dN);
    Eigen::Matrix2d J = Eigen::Matrix2d::Zero(); // J(d, k) = ∂x_k/∂ξ_d
    for (int b = 0; b < n; ++b)
      for (int d = 0; d < 2; ++d)
        for (int k = 0; k < 2; ++k)
          J(d, k) += dN[2 * b + d] * mesh.coords[static_cast<std::size_t>(nodes[b])][static_cast<std::size_t>(k)];
    FLEXUQ_REQUIRE(std::abs(J.determinant()) > 0,
                   who << ": element " << mesh.elem_ids[e] << " (" << io::element_name(type) << ") is degenerate at node "
                       << mesh.node_ids[static_cast<std::size_t>(nodes[a])]);
    const Eigen::Matrix2d Ji = J.inverse();
    for (int b = 0; b < n; ++b) G.row(b) = (Ji * Eigen::Vector2d(dN[2 * b], dN[2 * b + 1])).transpose();
    const auto na = static_cast<std::size_t>(nodes[a]);
    ++count[na];
    for (int k = 0; k < m; ++k) {
      Eigen::Matrix2d grad = Eigen::Matrix2d::Zero(); // grad(i, j) = ∂u_i/∂x_j
      for (int b = 0; b < n; ++b) {
        const double* ub = u + (static_cast<std::size_t>(nodes[b]) * 2) * static_cast<std::size_t>(m);
        grad.noalias() += Eigen::Vector2d(ub[k], ub[m + k]) * G.row(b);
      }
      const double exx = grad(0, 0), eyy = grad(1, 1), gxy = grad(0, 1) + grad(1, 0);
      double* o = s.data() + na * 6 * static_cast<std::size_t>(m);
      if (strain) {
        o[0 * m + k] += lam * (exx + eyy) + 2 * mu * exx;
        o[1 * m + k] += lam * (exx + eyy) + 2 * mu * eyy;
        o[2 * m + k] += lam * (exx + eyy);
      } else {
        o[0 * m + k] += c * (exx + nu * eyy);
        o[1 * m + k] += c * (eyy + nu * exx);
      }
      o[3 * m + k] += mu * gxy;
    }
  }
}

} // namespace

std::vector<double> nodal_stresses(const io::Mesh& mesh, const std::vector<double>& E, const std::vector<double>& nu,
                                   const double* u, int dpn, int m, const std::string& who, std::vector<char>* covered,
                                   const std::vector<char>* plane_strain) {
  const std::size_t nn = mesh.num_nodes(), ne = mesh.num_elements();
  const bool two_d = dpn == 2 && mesh.is_2d();
  FLEXUQ_REQUIRE(dpn >= 3 || two_d, who << ": stress recovery needs translations (" << dpn << " DOFs per node)");
  FLEXUQ_REQUIRE(E.size() == ne && nu.size() == ne, who << ": one (E, nu) per element expected");
  std::vector<double> s(nn * 6 * static_cast<std::size_t>(m), 0.0);
  std::vector<int> count(nn, 0);
  std::size_t solids = 0;
  std::vector<double> N, dN, X;
  for (std::size_t e = 0; e < ne; ++e) {
    const auto type = mesh.elem_type[e];
    if (two_d && io::is_plane(type)) {
      FLEXUQ_REQUIRE(plane_strain && plane_strain->size() == ne,
                     who << ": stress recovery of 2-D elements needs their plane state (stress or strain)");
      plane_stresses(mesh, e, E[e], nu[e], (*plane_strain)[e] != 0, u, m, who, s, count);
      ++solids;
      continue;
    }
    if (!io::is_solid(type)) continue;
    ++solids;
    const int n = mesh.element_size(e);
    const int* nodes = mesh.element(e);
    const double lam = E[e] * nu[e] / ((1 + nu[e]) * (1 - 2 * nu[e])), mu = E[e] / (2 * (1 + nu[e]));
    const auto ref = reference_nodes(type);
    N.resize(static_cast<std::size_t>(n));
    dN.resize(static_cast<std::size_t>(3 * n));
    Eigen::MatrixXd G(n, 3);
    X.resize(static_cast<std::size_t>(3 * n));
    for (int b = 0; b < n; ++b)
      for (int k = 0; k < 3; ++k)
        X[static_cast<std::size_t>(3 * b + k)] = mesh.coords[static_cast<std::size_t>(nodes[b])][static_cast<std::size_t>(k)];
    for (int a = 0; a < n; ++a) {
      shape_functions(type, ref[static_cast<std::size_t>(a)], N.data(), dN.data());
      Eigen::Matrix3d Jinv;
      try {
        Jinv = solid_jacobian(type, dN.data(), X.data(), mesh.elem_ids[e]).inverse();
      } catch (const InputError& err) {
        throw InputError(who + ": " + err.what());
      }
      for (int b = 0; b < n; ++b)
        G.row(b) = (Jinv * Eigen::Vector3d(dN[static_cast<std::size_t>(3 * b)], dN[static_cast<std::size_t>(3 * b + 1)],
                                           dN[static_cast<std::size_t>(3 * b + 2)])).transpose();
      const auto na = static_cast<std::size_t>(nodes[a]);
      ++count[na];
      for (int k = 0; k < m; ++k) {
        Eigen::Matrix3d grad = Eigen::Matrix3d::Zero(); // grad(i, j) = ∂u_i/∂x_j
        for (int b = 0; b < n; ++b) {
          const auto nb = static_cast<std::size_t>(nodes[b]);
          const double* ub = u + (nb * static_cast<std::size_t>(dpn)) * static_cast<std::size_t>(m);
          Eigen::Vector3d ud(ub[k], ub[m + k], ub[2 * m + k]);
          if (!mesh.node_frames.empty() && mesh.node_frames[nb].system != 0) {
            // Components in the node's displacement frame (Nastran CD): u_global = axesᵀ u_local.
            const auto& A = mesh.node_frames[nb].axes;
            Eigen::Vector3d g = Eigen::Vector3d::Zero();
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) g(j) += A[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] * ud(i);
            ud = g;
          }
          grad.noalias() += ud * G.row(b);
        }
        const Eigen::Matrix3d eps = 0.5 * (grad + grad.transpose());
        const double tr = eps.trace();
        double* o = s.data() + na * 6 * static_cast<std::size_t>(m);
        o[0 * m + k] += lam * tr + 2 * mu * eps(0, 0);
        o[1 * m + k] += lam * tr + 2 * mu * eps(1, 1);
        o[2 * m + k] += lam * tr + 2 * mu * eps(2, 2);
        o[3 * m + k] += 2 * mu * eps(0, 1);
        o[4 * m + k] += 2 * mu * eps(1, 2);
        o[5 * m + k] += 2 * mu * eps(2, 0);
      }
    }
  }
  FLEXUQ_REQUIRE(solids > 0, who << ": stress recovery needs solid or 2-D elements (the mesh has none)");
  for (std::size_t i = 0; i < nn; ++i)
    if (count[i] > 1)
      for (std::size_t k = 0; k < 6 * static_cast<std::size_t>(m); ++k) s[i * 6 * static_cast<std::size_t>(m) + k] /= count[i];
  if (covered) {
    covered->assign(nn, 0);
    for (std::size_t i = 0; i < nn; ++i) (*covered)[i] = count[i] > 0;
  }
  return s;
}

std::vector<double> nodal_stresses(const Component& c, const double* u, int dpn, int m) {
  const auto& mesh = c.mesh();
  std::vector<double> E(mesh.num_elements()), nu(mesh.num_elements());
  std::vector<char> strain(mesh.num_elements(), 0);
  for (std::size_t e = 0; e < mesh.num_elements(); ++e) {
    const auto& g = c.groups()[static_cast<std::size_t>(c.element_group()[e])];
    E[e] = g.material.E;
    nu[e] = g.material.nu;
    // A plane-strain group has the solids' coefficients (neither flag), a plane-stress one the shells'.
    strain[e] = io::is_plane(mesh.elem_type[e]) && !g.shell ? 1 : 0;
  }
  return nodal_stresses(mesh, E, nu, u, dpn, m, mesh.source, nullptr, &strain);
}

} // namespace flexuq::fe
