// SPDX-License-Identifier: MIT
#include "flexuq/fe/Shell.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>

namespace flexuq::fe {

using io::ElementType;

namespace {

using Vec3 = Eigen::Vector3d;
using Row = Eigen::RowVectorXd; ///< one strain component as a row over the element's 6·npe DOFs

/// Corner natural coordinates of shell4 (counter-clockwise in (r, s)).
const double kQuadR[4] = {-1, 1, 1, -1}, kQuadS[4] = {-1, -1, 1, 1};

/// Shape functions and their (r, s) derivatives: shell4 bilinear on [−1, 1]², shell3 linear on the
/// unit triangle (corners (0,0), (1,0), (0,1)).
void shape(int n, double r, double s, double* N, double* Nr, double* Ns) {
  if (n == 4) {
    for (int a = 0; a < 4; ++a) {
      N[a] = 0.25 * (1 + r * kQuadR[a]) * (1 + s * kQuadS[a]);
      Nr[a] = 0.25 * kQuadR[a] * (1 + s * kQuadS[a]);
      Ns[a] = 0.25 * kQuadS[a] * (1 + r * kQuadR[a]);
    }
    return;
  }
  N[0] = 1 - r - s;
  N[1] = r;
  N[2] = s;
  Nr[0] = -1, Nr[1] = 1, Nr[2] = 0;
  Ns[0] = -1, Ns[1] = 0, Ns[2] = 1;
}

Eigen::Matrix3d skew(const Vec3& v) {
  Eigen::Matrix3d S;
  S << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return S;
}

struct InPlanePoint {
  double r, s, w;
};

/// In-plane rules: 2×2 Gauss (shell4), the 3-point degree-2 rule on the unit triangle (shell3).
std::vector<InPlanePoint> in_plane_rule(int n) {
  if (n == 4) {
    const double g = 1 / std::sqrt(3.0);
    return {{-g, -g, 1}, {g, -g, 1}, {g, g, 1}, {-g, g, 1}};
  }
  return {{1.0 / 6, 1.0 / 6, 1.0 / 6}, {2.0 / 3, 1.0 / 6, 1.0 / 6}, {1.0 / 6, 2.0 / 3, 1.0 / 6}};
}

/// The element: corners, their directors and the director rotation maps.
struct Geometry {
  int n = 0;
  double h = 0;
  Vec3 X[4], V[4];
  Eigen::Matrix3d Phi[4]; ///< θ_a ↦ (h/2) θ_a × V_a = −(h/2) S(V_a) θ_a
  long label = 0;
  ElementType type = ElementType::shell4;

  /// Mid-surface tangents a_r = ∂x/∂r, a_s = ∂x/∂s at t = 0.
  void tangents(double r, double s, Vec3& ar, Vec3& as) const {
    double N[4], Nr[4], Ns[4];
    shape(n, r, s, N, Nr, Ns);
    ar.setZero();
    as.setZero();
    for (int a = 0; a < n; ++a) {
      ar += Nr[a] * X[a];
      as += Ns[a] * X[a];
    }
  }
};

[[noreturn]] void degenerate(const Geometry& g, const std::string& why) {
  throw InputError("shell element " + std::to_string(g.label) + " (" + io::element_name(g.type) + ") " + why);
}

/// Corners, directors and checks: every corner and quadrature point must see the mid-surface with
/// the orientation of the element's mean normal (no coincident corners, no concave or folded quad).
Geometry make_geometry(ElementType type, const double* coords, double h, long label) {
  Geometry g;
  g.type = type;
  g.label = label;
  g.n = io::nodes_per_element(type);
  g.h = h;
  FLEXUQ_REQUIRE(io::is_shell(type), "shell_terms: element " << label << " is not a shell");
  FLEXUQ_REQUIRE(std::isfinite(h) && h > 0, "shell element " << label << ": thickness must be positive, got " << h);
  double size2 = 0;
  for (int a = 0; a < g.n; ++a) {
    g.X[a] = Vec3(coords[3 * a], coords[3 * a + 1], coords[3 * a + 2]);
    FLEXUQ_REQUIRE(g.X[a].allFinite(), "shell element " << label << ": corner " << a + 1 << " has non-finite coordinates");
  }
  for (int a = 0; a < g.n; ++a) size2 = std::max(size2, (g.X[(a + 1) % g.n] - g.X[a]).squaredNorm());
  // Mean normal: the triangle's, or the cross product of the quadrilateral's diagonals.
  const Vec3 mean = g.n == 3 ? Vec3((g.X[1] - g.X[0]).cross(g.X[2] - g.X[0])) : Vec3((g.X[2] - g.X[0]).cross(g.X[3] - g.X[1]));
  if (!(mean.norm() > 1e-12 * size2)) degenerate(g, "is degenerate: its corners are coincident or in one line");
  const Vec3 nbar = mean.normalized();
  auto check = [&](double r, double s, const char* where) {
    Vec3 ar, as;
    g.tangents(r, s, ar, as);
    const Vec3 c = ar.cross(as);
    if (!(c.dot(nbar) > 1e-8 * size2))
      degenerate(g, std::string("is degenerate, concave or folded (the mid-surface normal reverses or vanishes at ") +
                        where + "); check its corner order and positions");
    return Vec3(c.normalized());
  };
  if (g.n == 4) {
    for (int a = 0; a < 4; ++a) g.V[a] = check(kQuadR[a], kQuadS[a], "a corner");
    const double q = 1 / std::sqrt(3.0);
    for (double r : {-q, q})
      for (double s : {-q, q}) check(r, s, "a quadrature point");
  } else {
    for (int a = 0; a < 3; ++a) g.V[a] = nbar;
  }
  for (int a = 0; a < g.n; ++a) g.Phi[a] = -0.5 * h * skew(g.V[a]);
  return g;
}

/// Covariant data at (r, s, t): the base vectors and the rows of the covariant strain tensor.
struct Covariant {
  Eigen::Matrix3d G; ///< columns g_r, g_s, g_t
  Row e[3][3];       ///< ε_ij = ½ (g_i·u,j + g_j·u,i), symmetric
};

Covariant covariant(const Geometry& g, double r, double s, double t) {
  const int n = g.n, nd = 6 * n;
  double N[4], Nr[4], Ns[4];
  shape(n, r, s, N, Nr, Ns);
  Covariant c;
  Vec3 gr = Vec3::Zero(), gs = Vec3::Zero(), gt = Vec3::Zero();
  for (int a = 0; a < n; ++a) {
    gr += Nr[a] * (g.X[a] + 0.5 * t * g.h * g.V[a]);
    gs += Ns[a] * (g.X[a] + 0.5 * t * g.h * g.V[a]);
    gt += 0.5 * g.h * N[a] * g.V[a];
  }
  c.G.col(0) = gr;
  c.G.col(1) = gs;
  c.G.col(2) = gt;
  // u,r = Σ Nr_a (u_a + t Φ_a θ_a), u,s likewise, u,t = Σ N_a Φ_a θ_a.
  Row gu[3][3]; // rows of g_i · u,j
  for (int i = 0; i < 3; ++i) {
    const Vec3 gi = c.G.col(i);
    for (int j = 0; j < 3; ++j) {
      gu[i][j] = Row::Zero(nd);
      for (int a = 0; a < n; ++a) {
        const double cu = j == 0 ? Nr[a] : j == 1 ? Ns[a] : 0.0;
        const double ct = j == 0 ? t * Nr[a] : j == 1 ? t * Ns[a] : N[a];
        gu[i][j].segment<3>(6 * a) = cu * gi.transpose();
        gu[i][j].segment<3>(6 * a + 3) = ct * gi.transpose() * g.Phi[a];
      }
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c.e[i][j] = 0.5 * (gu[i][j] + gu[j][i]);
  return c;
}

/// The MITC transverse shear fields at one thickness coordinate t: tying values, then (r, s) ↦
/// assumed ε_rt, ε_st.
struct AssumedShear {
  int n = 4;
  Row a1, a2, b1, b2; // shell4: ε_rt at (0, 1), (0, −1); ε_st at (1, 0), (−1, 0). shell3: e1, e2, c, unused
  AssumedShear(const Geometry& g, double t) : n(g.n) {
    if (n == 4) {
      a1 = covariant(g, 0, 1, t).e[0][2];
      a2 = covariant(g, 0, -1, t).e[0][2];
      b1 = covariant(g, 1, 0, t).e[1][2];
      b2 = covariant(g, -1, 0, t).e[1][2];
      return;
    }
    // MITC3 (Lee & Bathe 2004): ε_rt = e1 + c s, ε_st = e2 − c r with e1 = ε_rt(½, 0),
    // e2 = ε_st(0, ½) and c from the tangential shear (ε_st − ε_rt) at the hypotenuse's midpoint.
    const Covariant p1 = covariant(g, 0.5, 0, t), p2 = covariant(g, 0, 0.5, t), p3 = covariant(g, 0.5, 0.5, t);
    a1 = p1.e[0][2];
    a2 = p2.e[1][2];
    b1 = (p2.e[1][2] - p1.e[0][2]) - (p3.e[1][2] - p3.e[0][2]);
  }
  void at(double r, double s, Row& ert, Row& est) const {
    if (n == 4) {
      ert = 0.5 * (1 + s) * a1 + 0.5 * (1 - s) * a2;
      est = 0.5 * (1 + r) * b1 + 0.5 * (1 - r) * b2;
    } else {
      ert = a1 + s * b1;
      est = a2 - r * b1;
    }
  }
};

/// Strain rows in the local orthonormal frame (e1, e2 tangent, e3 along the director):
/// ε11, ε22, γ12 (rows 0-2), γ13, γ23 (rows 3-4); and det of the base (the volume factor).
void local_strains(const Covariant& c, Eigen::MatrixXd& B, double& detG) {
  detG = c.G.determinant();
  const Eigen::Matrix3d Gi = c.G.inverse(); // rows: contravariant base vectors g^i
  const Vec3 e3 = c.G.col(2).normalized();
  const Vec3 e1 = (c.G.col(0) - c.G.col(0).dot(e3) * e3).normalized();
  const Vec3 e2 = e3.cross(e1);
  Eigen::Matrix3d E;
  E.col(0) = e1;
  E.col(1) = e2;
  E.col(2) = e3;
  const Eigen::Matrix3d Q = Gi * E; // Q(i, k) = g^i · e_k
  auto eps = [&](int k, int l) {
    Row v = Row::Zero(c.e[0][0].size());
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double q = Q(i, k) * Q(j, l);
        if (q != 0.0) v += q * c.e[i][j];
      }
    return v;
  };
  B.resize(5, c.e[0][0].size());
  B.row(0) = eps(0, 0);
  B.row(1) = eps(1, 1);
  B.row(2) = 2 * eps(0, 1);
  B.row(3) = 2 * eps(0, 2);
  B.row(4) = 2 * eps(1, 2);
}

/// Mid-surface frame at (r, s): unit normal, tangent axes and the area factor |a_r × a_s|; the
/// physical derivatives ∂N_a/∂x_k (k = 1, 2) of the shape functions.
struct SurfacePoint {
  double N[4], dN1[4], dN2[4];
  Vec3 n, e1, e2;
  double dA = 0;
};

SurfacePoint surface_point(const Geometry& g, double r, double s) {
  SurfacePoint p;
  double Nr[4], Ns[4];
  shape(g.n, r, s, p.N, Nr, Ns);
  Vec3 ar, as;
  g.tangents(r, s, ar, as);
  const Vec3 c = ar.cross(as);
  p.dA = c.norm();
  p.n = c / p.dA;
  p.e1 = ar.normalized();
  p.e2 = p.n.cross(p.e1);
  // [Nr; Ns] = Jm [dN1; dN2], Jm = [ar·e1 ar·e2; as·e1 as·e2].
  Eigen::Matrix2d Jm;
  Jm << ar.dot(p.e1), ar.dot(p.e2), as.dot(p.e1), as.dot(p.e2);
  const Eigen::Matrix2d Ji = Jm.inverse();
  for (int a = 0; a < g.n; ++a) {
    p.dN1[a] = Ji(0, 0) * Nr[a] + Ji(0, 1) * Ns[a];
    p.dN2[a] = Ji(1, 0) * Nr[a] + Ji(1, 1) * Ns[a];
  }
  return p;
}

} // namespace

ShellTerms shell_terms(ElementType type, const double* coords, const io::ShellSection& sec, long label) {
  const Geometry g = make_geometry(type, coords, sec.thickness, label);
  const int n = g.n, nd = 6 * n;
  FLEXUQ_REQUIRE(sec.bending_ratio > 0 && sec.shear_ratio > 0,
                 "shell element " << label << ": bending and shear ratios must be positive");
  ShellTerms out;
  out.K_A = ElemMat::Zero(nd, nd);
  out.K_G = ElemMat::Zero(nd, nd);
  out.M1 = ElemMat::Zero(nd, nd);
  Eigen::Matrix3d P1, P2; // in-plane material parts: E/(1−ν) P1 + G P2 = plane-stress E/(1−ν²)[…]
  P1 << 0.5, 0.5, 0, 0.5, 0.5, 0, 0, 0, 0;
  P2 << 1, -1, 0, -1, 1, 0, 0, 0, 1;
  const double kappa = sec.shear_ratio, root_rb = std::sqrt(sec.bending_ratio);
  const double tq = 1 / std::sqrt(3.0); // Gauss points ±tq through the thickness, weight 1
  const AssumedShear shear_top(g, tq), shear_bottom(g, -tq);
  Eigen::MatrixXd Bp, Bm, Nu(3, nd);
  Row ert, est;
  for (const auto& q : in_plane_rule(n)) {
    // Strains at t = ±tq, with the MITC transverse shear.
    double det[2];
    Eigen::MatrixXd* Bs[2] = {&Bp, &Bm};
    for (int k = 0; k < 2; ++k) {
      const double t = k == 0 ? tq : -tq;
      Covariant c = covariant(g, q.r, q.s, t);
      (k == 0 ? shear_top : shear_bottom).at(q.r, q.s, ert, est);
      c.e[0][2] = c.e[2][0] = ert;
      c.e[1][2] = c.e[2][1] = est;
      local_strains(c, *Bs[k], det[k]);
      if (!(det[k] > 0)) degenerate(g, "has a non-positive volume Jacobian (thickness too large for its curvature?)");
    }
    // In-plane rows: mean (membrane) part plus √(12I/T³) times the part varying through the thickness.
    const Eigen::MatrixXd mem = 0.5 * (Bp.topRows(3) + Bm.topRows(3)), bend = 0.5 * (Bp.topRows(3) - Bm.topRows(3));
    for (int k = 0; k < 2; ++k) {
      const double t = k == 0 ? tq : -tq, w = q.w * det[k];
      const Eigen::MatrixXd in = mem + (k == 0 ? root_rb : -root_rb) * bend;
      const Eigen::MatrixXd sh = Bs[k]->bottomRows(2);
      out.K_A.noalias() += w * in.transpose() * P1 * in;
      out.K_G.noalias() += w * (in.transpose() * P2 * in + kappa * sh.transpose() * sh);
      // Mass: u = Σ N_a (u_a + t Φ_a θ_a).
      double N[4], Nr[4], Ns[4];
      shape(n, q.r, q.s, N, Nr, Ns);
      Nu.setZero();
      for (int a = 0; a < n; ++a) {
        Nu.block<3, 3>(0, 6 * a) = N[a] * Eigen::Matrix3d::Identity();
        Nu.block<3, 3>(0, 6 * a + 3) = t * N[a] * g.Phi[a];
      }
      out.M1.noalias() += w * Nu.transpose() * Nu;
    }
    // Drilling penalty and drilling inertia on the mid-surface.
    const SurfacePoint p = surface_point(g, q.r, q.s);
    Row d = Row::Zero(nd);
    for (int a = 0; a < n; ++a) {
      d.segment<3>(6 * a + 3) = p.N[a] * p.n.transpose();
      d.segment<3>(6 * a) = -0.5 * (p.dN1[a] * p.e2.transpose() - p.dN2[a] * p.e1.transpose());
    }
    const double wa = q.w * p.dA;
    out.K_G.noalias() += (kShellDrilling * g.h * wa) * d.transpose() * d;
    const double Ir = kShellDrilling * g.h * g.h * g.h / 12.0 * wa; // α ρh³/12 about the normal
    const Eigen::Matrix3d nn = p.n * p.n.transpose();
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) out.M1.block<3, 3>(6 * a + 3, 6 * b + 3) += Ir * p.N[a] * p.N[b] * nn;
  }
  // Symmetrise the round-off.
  out.K_A = (0.5 * (out.K_A + out.K_A.transpose())).eval();
  out.K_G = (0.5 * (out.K_G + out.K_G.transpose())).eval();
  out.M1 = (0.5 * (out.M1 + out.M1.transpose())).eval();
  return out;
}

ElemMat shell_area_mass(ElementType type, const double* coords, long label) {
  const Geometry g = make_geometry(type, coords, 1.0, label);
  const int n = g.n;
  ElemMat M = ElemMat::Zero(6 * n, 6 * n);
  for (const auto& q : in_plane_rule(n)) {
    const SurfacePoint p = surface_point(g, q.r, q.s);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const double m = q.w * p.dA * p.N[a] * p.N[b];
        for (int i = 0; i < 3; ++i) M(6 * a + i, 6 * b + i) += m;
      }
  }
  return M;
}

} // namespace flexuq::fe
