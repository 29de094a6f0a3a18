// SPDX-License-Identifier: MIT
#include "flexuq/fe/Element.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>

namespace flexuq::fe {

using io::ElementType;

namespace {

struct QPoint {
  std::array<double, 3> xi;
  double w;
};

const std::vector<QPoint>& hex_rule(int n) {
  static const std::vector<QPoint> r2 = [] {
    const double g = 1.0 / std::sqrt(3.0);
    std::vector<QPoint> q;
    for (double z : {-g, g})
      for (double y : {-g, g})
        for (double x : {-g, g}) q.push_back({{x, y, z}, 1.0});
    return q;
  }();
  static const std::vector<QPoint> r3 = [] {
    const double g = std::sqrt(0.6);
    const double p[3] = {-g, 0.0, g}, w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    std::vector<QPoint> q;
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) q.push_back({{p[i], p[j], p[k]}, w[i] * w[j] * w[k]});
    return q;
  }();
  return n == 2 ? r2 : r3;
}

/// Walkington's 14-point rule on the unit tetrahedron, exact to degree 5 (weights sum to 1/6).
const std::vector<QPoint>& tet_rule() {
  static const std::vector<QPoint> rule = [] {
    std::vector<QPoint> q;
    const double a[2] = {0.0927352503108912, 0.3108859192633006};
    const double wa[2] = {0.01224884051939366, 0.01878132095300264};
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < 4; ++i) {
        double L[4] = {a[s], a[s], a[s], a[s]};
        L[i] = 1 - 3 * a[s];
        q.push_back({{L[1], L[2], L[3]}, wa[s]});
      }
    const double b = 0.4544962958743504, wb = 0.007091003462846911;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        double L[4] = {0.5 - b, 0.5 - b, 0.5 - b, 0.5 - b};
        L[i] = L[j] = b;
        q.push_back({{L[1], L[2], L[3]}, wb});
      }
    return q;
  }();
  return rule;
}

/// 1-point (degree 1) and 4-point (degree 2) rules on the unit tetrahedron.
const std::vector<QPoint>& tet_rule_low(int npts) {
  static const std::vector<QPoint> r1 = {{{0.25, 0.25, 0.25}, 1.0 / 6.0}};
  static const std::vector<QPoint> r4 = [] {
    const double a = 0.1381966011250105, b = 1 - 3 * a;
    std::vector<QPoint> q;
    for (int i = 0; i < 4; ++i) {
      double L[4] = {a, a, a, a};
      L[i] = b;
      q.push_back({{L[1], L[2], L[3]}, 1.0 / 24.0});
    }
    return q;
  }();
  return npts == 1 ? r1 : r4;
}

/// Wedge rules: a triangle rule (area 1/2) times Gauss–Legendre in ζ. penta6: 3-point degree-2
/// triangle × 2 points (the mass integrand L_a L_b (1±ζ)(1±ζ) exactly); penta15: Radon's 7-point
/// degree-5 triangle × 3 points (mass integrand degree 4 in (r, s), 4 in ζ: exact on straight wedges).
const std::vector<QPoint>& wedge_rule(bool quadratic) {
  static const std::vector<QPoint> r6 = [] {
    const double g = 1.0 / std::sqrt(3.0);
    const double tri[3][2] = {{1.0 / 6, 1.0 / 6}, {2.0 / 3, 1.0 / 6}, {1.0 / 6, 2.0 / 3}};
    std::vector<QPoint> q;
    for (double z : {-g, g})
      for (auto& p : tri) q.push_back({{p[0], p[1], z}, 1.0 / 6.0});
    return q;
  }();
  static const std::vector<QPoint> r15 = [] {
    const double s15 = std::sqrt(15.0);
    const double a1 = (6 - s15) / 21, a2 = (6 + s15) / 21, w1 = (155 - s15) / 2400, w2 = (155 + s15) / 2400;
    std::vector<std::array<double, 3>> tri = {{1.0 / 3, 1.0 / 3, 9.0 / 80}};
    for (auto [a, w] : {std::pair{a1, w1}, std::pair{a2, w2}}) {
      tri.push_back({a, a, w});
      tri.push_back({1 - 2 * a, a, w});
      tri.push_back({a, 1 - 2 * a, w});
    }
    const double g = std::sqrt(0.6), zp[3] = {-g, 0.0, g}, zw[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    std::vector<QPoint> q;
    for (int k = 0; k < 3; ++k)
      for (auto& t : tri) q.push_back({{t[0], t[1], zp[k]}, t[2] * zw[k]});
    return q;
  }();
  return quadratic ? r15 : r6;
}

// Wedge nodes: triangle corners (r, s) = (0,0), (1,0), (0,1) at ζ = −1 (nodes 1-3) and ζ = +1 (4-6);
// penta15 mid-edge nodes in Abaqus C3D15 order.
const int kWedgeEdge[9][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}};

const int kHexCorner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                              {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
const int kHexEdge[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
const int kTetEdge[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};

} // namespace

std::vector<std::array<double, 3>> reference_nodes(ElementType type) {
  std::vector<std::array<double, 3>> x;
  switch (type) {
  case ElementType::hex8:
  case ElementType::hex20:
    for (auto& c : kHexCorner) x.push_back({double(c[0]), double(c[1]), double(c[2])});
    if (type == ElementType::hex20)
      for (auto& e : kHexEdge)
        x.push_back({0.5 * (kHexCorner[e[0]][0] + kHexCorner[e[1]][0]), 0.5 * (kHexCorner[e[0]][1] + kHexCorner[e[1]][1]),
                     0.5 * (kHexCorner[e[0]][2] + kHexCorner[e[1]][2])});
    break;
  case ElementType::tet4:
  case ElementType::tet10: {
    const std::array<double, 3> c[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (auto& p : c) x.push_back(p);
    if (type == ElementType::tet10)
      for (auto& e : kTetEdge)
        x.push_back({0.5 * (c[e[0]][0] + c[e[1]][0]), 0.5 * (c[e[0]][1] + c[e[1]][1]), 0.5 * (c[e[0]][2] + c[e[1]][2])});
    break;
  }
  case ElementType::penta6:
  case ElementType::penta15: {
    const std::array<double, 3> c[6] = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
    for (auto& p : c) x.push_back(p);
    if (type == ElementType::penta15)
      for (auto& e : kWedgeEdge)
        x.push_back({0.5 * (c[e[0]][0] + c[e[1]][0]), 0.5 * (c[e[0]][1] + c[e[1]][1]), 0.5 * (c[e[0]][2] + c[e[1]][2])});
    break;
  }
  case ElementType::beam2: x = {{-1, 0, 0}, {1, 0, 0}}; break;
  case ElementType::shell4: x = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}}; break;
  case ElementType::shell3: x = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}; break;
  case ElementType::quad4: x = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}}; break;
  case ElementType::quad8:
    x = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0, -1, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0}};
    break;
  case ElementType::tri3: x = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}; break;
  case ElementType::tri6: x = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5, 0, 0}, {0.5, 0.5, 0}, {0, 0.5, 0}}; break;
  case ElementType::bar2: x = {{-1, 0, 0}, {1, 0, 0}}; break;
  }
  return x;
}

void shape_functions(ElementType type, const std::array<double, 3>& p, double* N, double* dN) {
  const double x = p[0], y = p[1], z = p[2];
  switch (type) {
  case ElementType::hex8:
    for (int a = 0; a < 8; ++a) {
      const double xa = kHexCorner[a][0], ya = kHexCorner[a][1], za = kHexCorner[a][2];
      N[a] = 0.125 * (1 + xa * x) * (1 + ya * y) * (1 + za * z);
      dN[3 * a + 0] = 0.125 * xa * (1 + ya * y) * (1 + za * z);
      dN[3 * a + 1] = 0.125 * ya * (1 + xa * x) * (1 + za * z);
      dN[3 * a + 2] = 0.125 * za * (1 + xa * x) * (1 + ya * y);
    }
    return;
  case ElementType::hex20:
    for (int a = 0; a < 8; ++a) {
      const double xa = kHexCorner[a][0], ya = kHexCorner[a][1], za = kHexCorner[a][2];
      const double fx = 1 + xa * x, fy = 1 + ya * y, fz = 1 + za * z, s = xa * x + ya * y + za * z - 2;
      N[a] = 0.125 * fx * fy * fz * s;
      dN[3 * a + 0] = 0.125 * xa * fy * fz * (s + fx);
      dN[3 * a + 1] = 0.125 * ya * fx * fz * (s + fy);
      dN[3 * a + 2] = 0.125 * za * fx * fy * (s + fz);
    }
    for (int e = 0; e < 12; ++e) {
      const int a = 8 + e;
      double c[3];
      for (int d = 0; d < 3; ++d) c[d] = 0.5 * (kHexCorner[kHexEdge[e][0]][d] + kHexCorner[kHexEdge[e][1]][d]);
      // The coordinate along the edge has c = 0: factor (1 − ξ²); the others (1 + c ξ).
      const double q[3] = {x, y, z};
      double f[3], df[3];
      for (int d = 0; d < 3; ++d) {
        if (c[d] == 0) {
          f[d] = 1 - q[d] * q[d];
          df[d] = -2 * q[d];
        } else {
          f[d] = 1 + c[d] * q[d];
          df[d] = c[d];
        }
      }
      N[a] = 0.25 * f[0] * f[1] * f[2];
      dN[3 * a + 0] = 0.25 * df[0] * f[1] * f[2];
      dN[3 * a + 1] = 0.25 * f[0] * df[1] * f[2];
      dN[3 * a + 2] = 0.25 * f[0] * f[1] * df[2];
    }
    return;
  case ElementType::tet4:
  case ElementType::tet10: {
    const double L[4] = {1 - x - y - z, x, y, z};
    // dL_k/dξ_d
    const double dL[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    if (type == ElementType::tet4) {
      for (int a = 0; a < 4; ++a) {
        N[a] = L[a];
        for (int d = 0; d < 3; ++d) dN[3 * a + d] = dL[a][d];
      }
      return;
    }
    for (int a = 0; a < 4; ++a) {
      N[a] = L[a] * (2 * L[a] - 1);
      for (int d = 0; d < 3; ++d) dN[3 * a + d] = (4 * L[a] - 1) * dL[a][d];
    }
    for (int e = 0; e < 6; ++e) {
      const int i = kTetEdge[e][0], j = kTetEdge[e][1], a = 4 + e;
      N[a] = 4 * L[i] * L[j];
      for (int d = 0; d < 3; ++d) dN[3 * a + d] = 4 * (dL[i][d] * L[j] + L[i] * dL[j][d]);
    }
    return;
  }
  case ElementType::penta6:
  case ElementType::penta15: {
    // Triangle coordinates L = (1 − r − s, r, s), ζ through the thickness.
    const double L[3] = {1 - x - y, x, y};
    const double dL[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
    if (type == ElementType::penta6) {
      for (int a = 0; a < 6; ++a) {
        const int i = a % 3;
        const double zs = a < 3 ? -1.0 : 1.0, fz = 0.5 * (1 + zs * z);
        N[a] = L[i] * fz;
        dN[3 * a + 0] = dL[i][0] * fz;
        dN[3 * a + 1] = dL[i][1] * fz;
        dN[3 * a + 2] = L[i] * 0.5 * zs;
      }
      return;
    }
    // Serendipity wedge: corner N = ½ L (2L − 1)(1 + ζ_a ζ) − ½ L (1 − ζ²); triangle-edge mid nodes
    // N = 2 L_i L_j (1 + ζ_a ζ); vertical-edge mid nodes N = L_i (1 − ζ²). Sums to 1 identically.
    for (int a = 0; a < 6; ++a) {
      const int i = a % 3;
      const double zs = a < 3 ? -1.0 : 1.0, fz = 1 + zs * z, q = 1 - z * z;
      N[a] = 0.5 * L[i] * (2 * L[i] - 1) * fz - 0.5 * L[i] * q;
      const double dLi = 0.5 * (4 * L[i] - 1) * fz - 0.5 * q; // ∂N/∂L_i
      dN[3 * a + 0] = dLi * dL[i][0];
      dN[3 * a + 1] = dLi * dL[i][1];
      dN[3 * a + 2] = 0.5 * L[i] * (2 * L[i] - 1) * zs + L[i] * z;
    }
    for (int e = 0; e < 9; ++e) {
      const int a = 6 + e, n0 = kWedgeEdge[e][0], n1 = kWedgeEdge[e][1];
      if (e < 6) { // in a triangle face
        const int i = n0 % 3, j = n1 % 3;
        const double zs = n0 < 3 ? -1.0 : 1.0, fz = 1 + zs * z;
        N[a] = 2 * L[i] * L[j] * fz;
        for (int d = 0; d < 2; ++d) dN[3 * a + d] = 2 * (dL[i][d] * L[j] + L[i] * dL[j][d]) * fz;
        dN[3 * a + 2] = 2 * L[i] * L[j] * zs;
      } else { // vertical edge over corner i
        const int i = n0;
        N[a] = L[i] * (1 - z * z);
        for (int d = 0; d < 2; ++d) dN[3 * a + d] = dL[i][d] * (1 - z * z);
        dN[3 * a + 2] = -2 * L[i] * z;
      }
    }
    return;
  }
  case ElementType::beam2:
  case ElementType::shell4:
  case ElementType::shell3:
  case ElementType::quad4: // 2-D elements: fe/Plane.hpp
  case ElementType::quad8:
  case ElementType::tri3:
  case ElementType::tri6:
  case ElementType::bar2: break;
  }
  throw Error("shape_functions: not a solid element");
}

namespace {
/// A tet10 whose mid-edge nodes sit at the midpoints of its corners maps affinely.
bool straight_tet10(const double* X) {
  double h2 = 0, dev2 = 0;
  for (int e = 0; e < 6; ++e) {
    const int a = kTetEdge[e][0], b = kTetEdge[e][1], m = 4 + e;
    for (int k = 0; k < 3; ++k) {
      const double d = X[3 * a + k] - X[3 * b + k], mid = 0.5 * (X[3 * a + k] + X[3 * b + k]) - X[3 * m + k];
      h2 += d * d;
      dev2 += mid * mid;
    }
  }
  return dev2 <= 1e-24 * h2;
}
} // namespace

Eigen::Matrix3d solid_jacobian(ElementType type, const double* dN, const double* X, long label) {
  const int n = io::nodes_per_element(type);
  Eigen::Matrix3d J = Eigen::Matrix3d::Zero(); // J_{dk} = ∂x_k/∂ξ_d
  for (int a = 0; a < n; ++a)
    for (int d = 0; d < 3; ++d)
      for (int k = 0; k < 3; ++k) J(d, k) += dN[3 * a + d] * X[3 * a + k];
  const double detJ = J.determinant();
  FLEXUQ_REQUIRE(detJ > 0, "element " << label << " (" << io::element_name(type)
                                      << ") has a non-positive Jacobian determinant (" << detJ
                                      << "): inverted node order or a degenerate element");
  return J;
}

SolidTerms solid_terms(ElementType type, const double* X, long label) {
  const int n = io::nodes_per_element(type);
  // Full integration of every term. Hexahedra: 2³ / 3³ Gauss points for both. Tetrahedra: the
  // stiffness integrand of an affine element is a polynomial of degree 2(p−1) and the mass of
  // degree 2p, so tet4 takes 1 point for K and 4 for M, a straight-sided tet10 4 points for K and
  // the 14-point degree-5 rule for M (both exact); a curved tet10 takes 14 points for both.
  const std::vector<QPoint>* k_rule = nullptr;
  const std::vector<QPoint>* m_rule = nullptr;
  switch (type) {
  case ElementType::hex8: k_rule = m_rule = &hex_rule(2); break;
  case ElementType::hex20: k_rule = m_rule = &hex_rule(3); break;
  case ElementType::tet4: k_rule = &tet_rule_low(1); m_rule = &tet_rule_low(4); break;
  case ElementType::tet10:
    m_rule = &tet_rule();
    k_rule = straight_tet10(X) ? &tet_rule_low(4) : &tet_rule();
    break;
  case ElementType::penta6: k_rule = m_rule = &wedge_rule(false); break;
  case ElementType::penta15: k_rule = m_rule = &wedge_rule(true); break;
  case ElementType::beam2:
  case ElementType::shell4:
  case ElementType::shell3:
  case ElementType::quad4:
  case ElementType::quad8:
  case ElementType::tri3:
  case ElementType::tri6:
  case ElementType::bar2: throw Error("solid_terms: not a solid element");
  }
  SolidTerms t;
  t.K_lambda = ElemMat::Zero(3 * n, 3 * n);
  t.K_mu = ElemMat::Zero(3 * n, 3 * n);
  t.M1 = ElemMat::Zero(3 * n, 3 * n);
  std::vector<double> N(n), dN(3 * n);
  Eigen::MatrixXd G(n, 3); // physical gradients, row a = ∇N_a
  Eigen::VectorXd v(3 * n);
  auto jacobian = [&](const QPoint& q) {
    shape_functions(type, q.xi, N.data(), dN.data());
    const Eigen::Matrix3d J = solid_jacobian(type, dN.data(), X, label);
    return std::make_pair(J, J.determinant());
  };
  for (const auto& q : *k_rule) {
    const auto [J, detJ] = jacobian(q);
    const Eigen::Matrix3d Jinv = J.inverse();
    for (int a = 0; a < n; ++a) {
      const Eigen::Vector3d g = Jinv * Eigen::Vector3d(dN[3 * a], dN[3 * a + 1], dN[3 * a + 2]);
      G.row(a) = g.transpose();
      v.segment<3>(3 * a) = g;
    }
    const double w = q.w * detJ;
    // K_λ[(a,i),(b,j)] = ∂_i N_a ∂_j N_b: a rank-one update with v = (∇N_1, …, ∇N_n).
    t.K_lambda.noalias() += w * v * v.transpose();
    // K_μ block (a,b) = (∇N_a·∇N_b) I + ∇N_b ∇N_aᵀ.
    const Eigen::MatrixXd GG = G * G.transpose();
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        auto blk = t.K_mu.block<3, 3>(3 * a, 3 * b);
        blk.diagonal().array() += w * GG(a, b);
        blk.noalias() += w * G.row(b).transpose() * G.row(a);
      }
  }
  for (const auto& q : *m_rule) {
    const double w = q.w * jacobian(q).second;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const double mab = w * N[a] * N[b];
        for (int i = 0; i < 3; ++i) t.M1(3 * a + i, 3 * b + i) += mab;
      }
  }
  return t;
}

namespace {

using Mat12 = Eigen::Matrix<double, 12, 12>;

void symset(Mat12& m, int i, int j, double v) {
  m(i, j) = v;
  m(j, i) = v;
}

/// Local beam mass (element axes, ρ = 1) of a section of area @p A and polar moment @p Ix in the
/// section's mass convention (fe::beam_terms); A = 1, Ix = 0 gives the nonstructural mass per length.
Mat12 beam_local_mass(const io::BeamSection& s, double A, double Ix, double L) {
  Mat12 M = Mat12::Zero();
  const bool rod = s.shape == "ROD";
  if (s.lumped_mass) {
    // Lumped mass (Nastran's default, PARAM,COUPMASS,-1; MSC Nastran Reference Manual, "Mass
    // matrix formulations": the lumped CBAR/CBEAM/CROD mass puts half the element mass on each
    // end's translations and no rotary inertia). Isotropic per node, so invariant under rotation.
    for (int i : {0, 1, 2, 6, 7, 8}) M(i, i) = 0.5 * A * L;
    return M;
  }
  if (rod) {
    // Nastran CROD coupled mass (PARAM,COUPMASS,1; MSC Nastran Reference Manual, "Mass matrix
    // formulations"): the linear consistent mass ρAL/6 [2 1; 1 2] on each translation, no torsional
    // inertia. Isotropic per node pair, so invariant under rotation.
    for (int i = 0; i < 3; ++i) {
      symset(M, i, i, A * L / 3.0);
      symset(M, i + 6, i + 6, A * L / 3.0);
      symset(M, i, i + 6, A * L / 6.0);
    }
    return M;
  }
  // Consistent mass, factor ρ A L / 420 (ρ = 1).
  const double f = A * L / 420.0, r = A > 0 ? Ix / A : 0.0;
  symset(M, 0, 0, 140 * f); symset(M, 0, 6, 70 * f); symset(M, 6, 6, 140 * f);
  symset(M, 3, 3, 140 * r * f); symset(M, 3, 9, 70 * r * f); symset(M, 9, 9, 140 * r * f);
  symset(M, 1, 1, 156 * f); symset(M, 1, 5, 22 * L * f); symset(M, 1, 7, 54 * f); symset(M, 1, 11, -13 * L * f);
  symset(M, 5, 5, 4 * L * L * f); symset(M, 5, 7, 13 * L * f); symset(M, 5, 11, -3 * L * L * f);
  symset(M, 7, 7, 156 * f); symset(M, 7, 11, -22 * L * f); symset(M, 11, 11, 4 * L * L * f);
  symset(M, 2, 2, 156 * f); symset(M, 2, 4, -22 * L * f); symset(M, 2, 8, 54 * f); symset(M, 2, 10, 13 * L * f);
  symset(M, 4, 4, 4 * L * L * f); symset(M, 4, 8, -13 * L * f); symset(M, 4, 10, -3 * L * L * f);
  symset(M, 8, 8, 156 * f); symset(M, 8, 10, 22 * L * f); symset(M, 10, 10, 4 * L * L * f);
  if (s.coupled_mass == io::BeamSection::CoupledMass::nastran_cbar) {
    // Nastran's coupled CBAR mass (PARAM,COUPMASS,1). As measured against NX Nastran SOL 103
    // output (issue 39, item 2: a CBAR deck's fixed-interface frequencies reproduced to 1e-7 only
    // with this mass) and as MSC's training notes put it ("coupled mass ... rotations for BAR
    // (though no torsion)"): the bending part is the consistent Hermite mass above, without rotary
    // inertia; the axial part is ρAL/12 [5 1; 1 5], the mean of the lumped ρAL/2 [1 0; 0 1] and
    // the consistent ρAL/6 [2 1; 1 2]; there is no torsional inertia (the twist DOFs are massless,
    // as every rotation is with the lumped mass). CBEAM keeps the consistent mass.
    symset(M, 0, 0, 5.0 / 12.0 * A * L);
    symset(M, 0, 6, 1.0 / 12.0 * A * L);
    symset(M, 6, 6, 5.0 / 12.0 * A * L);
    symset(M, 3, 3, 0.0);
    symset(M, 3, 9, 0.0);
    symset(M, 9, 9, 0.0);
  }
  return M;
}

/// The static condensation of the released local DOFs (pin flags): C maps the 12 end DOFs the
/// beam keeps to all 12, released rows −K_cc⁻¹ K_cr, released columns zero (fe::beam_terms).
Mat12 release_map(const io::BeamSection& s, const Mat12& K, long label) {
  std::vector<int> c, r;
  for (int i = 0; i < 12; ++i) ((((i < 6 ? s.release_a : s.release_b) >> (i % 6)) & 1) ? c : r).push_back(i);
  Mat12 C = Mat12::Identity();
  if (c.empty()) return C;
  const auto nc = static_cast<Eigen::Index>(c.size());
  Eigen::MatrixXd Kcc(nc, nc), Kcr(nc, 12);
  for (Eigen::Index i = 0; i < nc; ++i) {
    for (Eigen::Index j = 0; j < nc; ++j) Kcc(i, j) = K(c[static_cast<std::size_t>(i)], c[static_cast<std::size_t>(j)]);
    for (int j = 0; j < 12; ++j) Kcr(i, j) = K(c[static_cast<std::size_t>(i)], j);
  }
  for (int j : c) Kcr.col(j).setZero();
  // Diagonally scaled (the entries mix units of length): singular when a rigid motion is left free.
  Eigen::VectorXd d = Kcc.diagonal();
  bool ok = (d.array() > 0).all();
  if (ok) {
    d = d.cwiseSqrt().cwiseInverse();
    const Eigen::MatrixXd S = d.asDiagonal() * Kcc * d.asDiagonal();
    ok = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S, Eigen::EigenvaluesOnly).eigenvalues().minCoeff() > 1e-10;
  }
  FLEXUQ_REQUIRE(ok, "beam element " << label
                                     << ": its released components (pin flags) leave it free to move as a rigid body "
                                        "(e.g. the same component released at both ends)");
  const Eigen::MatrixXd X = -Kcc.ldlt().solve(Kcr);
  for (Eigen::Index i = 0; i < nc; ++i) {
    C.row(c[static_cast<std::size_t>(i)]) = X.row(i);
  }
  return C;
}

Eigen::Matrix3d skew(const std::array<double, 3>& a) {
  Eigen::Matrix3d S;
  S << 0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0;
  return S;
}

} // namespace

BeamTerms beam_terms(const std::array<double, 3>& x1, const std::array<double, 3>& x2, const io::BeamSection& s,
                     long label) {
  // The beam runs between the offset points (rigid offsets, Nastran CBAR/CBEAM WA/WB).
  Eigen::Vector3d t(x2[0] + s.offset_b[0] - x1[0] - s.offset_a[0], x2[1] + s.offset_b[1] - x1[1] - s.offset_a[1],
                    x2[2] + s.offset_b[2] - x1[2] - s.offset_a[2]);
  const double L = t.norm();
  FLEXUQ_REQUIRE(L > 0, "beam element " << label << " has zero length");
  t /= L;
  Eigen::Vector3d n1(s.n1[0], s.n1[1], s.n1[2]);
  n1 -= n1.dot(t) * t;
  if (n1.norm() < 1e-8) {
    // n1 parallel to the beam axis: pick the global axis least aligned with t (documented choice).
    Eigen::Vector3d e = Eigen::Vector3d::Unit(0);
    if (std::abs(t.x()) > 0.9) e = Eigen::Vector3d::Unit(1);
    n1 = e - e.dot(t) * t;
  }
  n1.normalize();
  const Eigen::Vector3d n2 = t.cross(n1);
  // Local y = n1, local z = n2. Bending in the local xy-plane (v, θz) uses I_z = ∫ y² dA = I22;
  // bending in xz (w, θy) uses I_y = ∫ z² dA = I11 (Abaqus: I11 = ∫ x2² dA).
  const double A = s.A, Iy = s.I11, Iz = s.I22, J = s.J, Ix = s.I11 + s.I22;
  Mat12 KE = Mat12::Zero(), KG = KE;
  const double a = A / L, by = Iy / (L * L * L), bz = Iz / (L * L * L), c = J / L;
  // Axial.
  symset(KE, 0, 0, a); symset(KE, 0, 6, -a); symset(KE, 6, 6, a);
  // Torsion (G part).
  symset(KG, 3, 3, c); symset(KG, 3, 9, -c); symset(KG, 9, 9, c);
  // Bending in xy (v: 1, 7; θz: 5, 11).
  symset(KE, 1, 1, 12 * bz); symset(KE, 1, 5, 6 * L * bz); symset(KE, 1, 7, -12 * bz); symset(KE, 1, 11, 6 * L * bz);
  symset(KE, 5, 5, 4 * L * L * bz); symset(KE, 5, 7, -6 * L * bz); symset(KE, 5, 11, 2 * L * L * bz);
  symset(KE, 7, 7, 12 * bz); symset(KE, 7, 11, -6 * L * bz); symset(KE, 11, 11, 4 * L * L * bz);
  // Bending in xz (w: 2, 8; θy: 4, 10), rotation couplings with flipped signs.
  symset(KE, 2, 2, 12 * by); symset(KE, 2, 4, -6 * L * by); symset(KE, 2, 8, -12 * by); symset(KE, 2, 10, -6 * L * by);
  symset(KE, 4, 4, 4 * L * L * by); symset(KE, 4, 8, 6 * L * by); symset(KE, 4, 10, 2 * L * L * by);
  symset(KE, 8, 8, 12 * by); symset(KE, 8, 10, 6 * L * by); symset(KE, 10, 10, 4 * L * L * by);
  const Mat12 M = beam_local_mass(s, A, Ix, L);
  // Global = Cᵀ... : T rotates the end DOFs to the local axes, C condenses the released ones, W
  // carries the grids' motion rigidly to the offset points: K = Wᵀ Tᵀ Cᵀ K_local C T W.
  Eigen::Matrix3d R;
  R.row(0) = t.transpose();
  R.row(1) = n1.transpose();
  R.row(2) = n2.transpose();
  Mat12 T = Mat12::Zero();
  for (int b = 0; b < 4; ++b) T.block<3, 3>(3 * b, 3 * b) = R;
  Mat12 W = Mat12::Identity();
  W.block<3, 3>(0, 3) = -skew(s.offset_a);
  W.block<3, 3>(6, 9) = -skew(s.offset_b);
  const Mat12 G = release_map(s, KE + KG, label) * T * W;
  auto global = [&G](const Mat12& m) -> ElemMat {
    const Mat12 g = G.transpose() * m * G;
    return 0.5 * (g + g.transpose());
  };
  BeamTerms out;
  out.K_E = global(KE);
  out.K_G = global(KG);
  out.M1 = global(M);
  if (s.nsm > 0) out.M_nsm = global(beam_local_mass(s, 1.0, 0.0, L));
  return out;
}

} // namespace flexuq::fe
