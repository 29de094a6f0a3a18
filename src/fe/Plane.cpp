// SPDX-License-Identifier: MIT
#include "flexuq/fe/Plane.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>
#include <sstream>

namespace flexuq::fe {

using io::ElementType;

namespace {

struct Point2 {
  double xi, eta, w;
};

const std::vector<Point2>& quad_rule(int n) {
  static const std::vector<Point2> r2 = [] {
    const double g = 1.0 / std::sqrt(3.0);
    std::vector<Point2> q;
    for (double y : {-g, g})
      for (double x : {-g, g}) q.push_back({x, y, 1.0});
    return q;
  }();
  static const std::vector<Point2> r3 = [] {
    const double g = std::sqrt(0.6);
    const double p[3] = {-g, 0.0, g}, w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    std::vector<Point2> q;
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) q.push_back({p[i], p[j], w[i] * w[j]});
    return q;
  }();
  return n == 2 ? r2 : r3;
}

/// Dunavant's 6-point rule of degree 4 on the unit triangle (weights sum to 1/2).
const std::vector<Point2>& tri_rule() {
  static const std::vector<Point2> r = [] {
    std::vector<Point2> q;
    const double a[2] = {0.445948490915965, 0.091576213509771};
    const double w[2] = {0.223381589678011 / 2, 0.109951743655322 / 2};
    for (int s = 0; s < 2; ++s) {
      q.push_back({a[s], a[s], w[s]});
      q.push_back({1 - 2 * a[s], a[s], w[s]});
      q.push_back({a[s], 1 - 2 * a[s], w[s]});
    }
    return q;
  }();
  return r;
}

[[noreturn]] void bad(long label, ElementType t, const std::string& what) {
  std::ostringstream os;
  os << "element " << label << " (" << io::element_name(t) << "): " << what;
  throw InputError(os.str());
}

} // namespace

void plane_shape_functions(ElementType type, double xi, double eta, double* N, double* dN) {
  switch (type) {
  case ElementType::quad4: {
    const double xa[4] = {-1, 1, 1, -1}, ya[4] = {-1, -1, 1, 1};
    for (int a = 0; a < 4; ++a) {
      N[a] = 0.25 * (1 + xi * xa[a]) * (1 + eta * ya[a]);
      dN[2 * a] = 0.25 * xa[a] * (1 + eta * ya[a]);
      dN[2 * a + 1] = 0.25 * ya[a] * (1 + xi * xa[a]);
    }
    return;
  }
  case ElementType::quad8: {
    const double xa[8] = {-1, 1, 1, -1, 0, 1, 0, -1}, ya[8] = {-1, -1, 1, 1, -1, 0, 1, 0};
    for (int a = 0; a < 8; ++a) {
      if (a < 4) {
        N[a] = 0.25 * (1 + xi * xa[a]) * (1 + eta * ya[a]) * (xi * xa[a] + eta * ya[a] - 1);
        dN[2 * a] = 0.25 * xa[a] * (1 + eta * ya[a]) * (2 * xi * xa[a] + eta * ya[a]);
        dN[2 * a + 1] = 0.25 * ya[a] * (1 + xi * xa[a]) * (xi * xa[a] + 2 * eta * ya[a]);
      } else if (xa[a] == 0) {
        N[a] = 0.5 * (1 - xi * xi) * (1 + eta * ya[a]);
        dN[2 * a] = -xi * (1 + eta * ya[a]);
        dN[2 * a + 1] = 0.5 * (1 - xi * xi) * ya[a];
      } else {
        N[a] = 0.5 * (1 + xi * xa[a]) * (1 - eta * eta);
        dN[2 * a] = 0.5 * xa[a] * (1 - eta * eta);
        dN[2 * a + 1] = -eta * (1 + xi * xa[a]);
      }
    }
    return;
  }
  case ElementType::tri3:
  case ElementType::tri6: {
    const double L[3] = {1 - xi - eta, xi, eta};
    const double dL[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
    if (type == ElementType::tri3) {
      for (int a = 0; a < 3; ++a) {
        N[a] = L[a];
        dN[2 * a] = dL[a][0];
        dN[2 * a + 1] = dL[a][1];
      }
      return;
    }
    for (int a = 0; a < 3; ++a) {
      N[a] = L[a] * (2 * L[a] - 1);
      for (int d = 0; d < 2; ++d) dN[2 * a + d] = (4 * L[a] - 1) * dL[a][d];
    }
    const int edge[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    for (int m = 0; m < 3; ++m) {
      const int i = edge[m][0], j = edge[m][1];
      N[3 + m] = 4 * L[i] * L[j];
      for (int d = 0; d < 2; ++d) dN[2 * (3 + m) + d] = 4 * (L[j] * dL[i][d] + L[i] * dL[j][d]);
    }
    return;
  }
  default: throw Error(std::string("plane_shape_functions: ") + io::element_name(type) + " is not a 2-D element");
  }
}

PlaneTerms plane_terms(ElementType type, const double* X, const io::PlaneSection& sec, long label) {
  FLEXUQ_REQUIRE(io::is_plane(type), "plane_terms: " << io::element_name(type) << " is not a 2-D element");
  if (!(std::isfinite(sec.thickness) && sec.thickness > 0)) {
    std::ostringstream os;
    os << "thickness must be positive, got " << sec.thickness;
    bad(label, type, os.str());
  }
  const int n = io::nodes_per_element(type);
  const std::vector<Point2>& rule = type == ElementType::quad4   ? quad_rule(2)
                                    : type == ElementType::quad8 ? quad_rule(3)
                                                                 : tri_rule();
  // Scale of the element (squared size of its bounding box) for the degeneracy test.
  double lo[2] = {X[0], X[1]}, hi[2] = {X[0], X[1]};
  for (int a = 1; a < n; ++a)
    for (int k = 0; k < 2; ++k) {
      lo[k] = std::min(lo[k], X[3 * a + k]);
      hi[k] = std::max(hi[k], X[3 * a + k]);
    }
  const double size2 = std::max((hi[0] - lo[0]) * (hi[0] - lo[0]), (hi[1] - lo[1]) * (hi[1] - lo[1]));
  if (!(size2 > 0)) bad(label, type, "degenerate element (all nodes coincide)");

  Eigen::Matrix3d D0, D1;
  if (sec.strain) {
    D0 << 1, 1, 0, 1, 1, 0, 0, 0, 0;
    D1 << 2, 0, 0, 0, 2, 0, 0, 0, 1;
  } else {
    D0 << 0.5, 0.5, 0, 0.5, 0.5, 0, 0, 0, 0;
    D1 << 1, -1, 0, -1, 1, 0, 0, 0, 1;
  }
  PlaneTerms out;
  out.K0 = ElemMat::Zero(2 * n, 2 * n);
  out.K1 = ElemMat::Zero(2 * n, 2 * n);
  out.M1 = ElemMat::Zero(2 * n, 2 * n);
  double N[8], dN[16];
  Eigen::MatrixXd B(3, 2 * n);
  double sign = 0;
  for (const auto& q : rule) {
    plane_shape_functions(type, q.xi, q.eta, N, dN);
    Eigen::Matrix2d J = Eigen::Matrix2d::Zero(); // J(d, k) = ∂x_k/∂ξ_d
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < 2; ++d)
        for (int k = 0; k < 2; ++k) J(d, k) += dN[2 * a + d] * X[3 * a + k];
    const double det = J.determinant();
    if (!(std::abs(det) > 1e-12 * size2))
      bad(label, type, "degenerate element: the Jacobian determinant vanishes (coincident nodes or zero area)");
    if (sign == 0) sign = det > 0 ? 1 : -1;
    if (det * sign <= 0)
      bad(label, type, "folded or concave element: the Jacobian determinant changes sign inside it");
    const Eigen::Matrix2d Ji = J.inverse();
    B.setZero();
    for (int a = 0; a < n; ++a) {
      const Eigen::Vector2d g = Ji * Eigen::Vector2d(dN[2 * a], dN[2 * a + 1]);
      B(0, 2 * a) = g(0);
      B(1, 2 * a + 1) = g(1);
      B(2, 2 * a) = g(1);
      B(2, 2 * a + 1) = g(0);
    }
    const double w = q.w * std::abs(det) * sec.thickness;
    out.K0.noalias() += w * B.transpose() * D0 * B;
    out.K1.noalias() += w * B.transpose() * D1 * B;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const double m = w * N[a] * N[b];
        out.M1(2 * a, 2 * b) += m;
        out.M1(2 * a + 1, 2 * b + 1) += m;
      }
  }
  return out;
}

BarTerms bar_terms(const std::array<double, 3>& x1, const std::array<double, 3>& x2, double area, int dpn,
                   long label) {
  FLEXUQ_REQUIRE(dpn == 2 || dpn == 3 || dpn == 6, "bar_terms: " << dpn << " DOFs per node");
  if (!(std::isfinite(area) && area > 0)) {
    std::ostringstream os;
    os << "cross-section area must be positive, got " << area;
    bad(label, ElementType::bar2, os.str());
  }
  const int dim = dpn == 2 ? 2 : 3;
  Eigen::Vector3d d(x2[0] - x1[0], x2[1] - x1[1], dim == 3 ? x2[2] - x1[2] : 0.0);
  const double L = d.norm();
  const double scale = std::max({std::abs(x1[0]), std::abs(x1[1]), std::abs(x1[2]), std::abs(x2[0]),
                                 std::abs(x2[1]), std::abs(x2[2])});
  if (!(L > 1e-12 * scale) || L == 0) bad(label, ElementType::bar2, "degenerate element: its two nodes coincide");
  const Eigen::Vector3d e = d / L;
  BarTerms out;
  out.K_E = ElemMat::Zero(2 * dpn, 2 * dpn);
  out.M1 = ElemMat::Zero(2 * dpn, 2 * dpn);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const double ks = (a == b ? 1.0 : -1.0) * area / L, ms = (a == b ? 2.0 : 1.0) * area * L / 6.0;
      for (int i = 0; i < dim; ++i) {
        out.M1(a * dpn + i, b * dpn + i) = ms;
        for (int j = 0; j < dim; ++j) out.K_E(a * dpn + i, b * dpn + j) = ks * e(i) * e(j);
      }
    }
  return out;
}

} // namespace flexuq::fe
