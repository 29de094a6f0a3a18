// SPDX-License-Identifier: MIT
#include "flexuq/mbs/GsBody3d.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/GsModelParts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

namespace flexuq::mbs {

std::shared_ptr<FlexibleData> gs3d_flexible_data(std::shared_ptr<const GsData> gs, const std::string& source) {
  const int n = gs3d_size(*gs);
  auto d = gs_parts::flexible_data(n, source);
  for (int i = 0; i < gs->n_points(); ++i) {
    Attachment at;
    at.ref = gs->X[static_cast<std::size_t>(i)];
    at.translation = Mat::Zero(3, n);
    at.translation.block(0, 7 * i, 3, 3).setIdentity();
    at.rotation = Mat::Zero(3, n); // the frame turns exactly with A(p_i): Attachment::euler
    at.euler = 7 * i + 3;
    d->interfaces[gs->points[static_cast<std::size_t>(i)]] = at;
  }
  d->gs3d = std::move(gs);
  return d;
}

namespace {

/// A hyper-dual number a + b ε1 + c ε2 + d ε1ε2 (ε1² = ε2² = 0): f(x + ε1 u + ε2 w) carries f, ∇f·u, ∇f·w
/// and uᵀ∇²f w exactly, without differences.
struct HyperDual {
  double a = 0, b = 0, c = 0, d = 0;
  HyperDual() = default;
  HyperDual(double v) : a(v) {} // NOLINT(google-explicit-constructor): constants mix in
  HyperDual(double a_, double b_, double c_, double d_) : a(a_), b(b_), c(c_), d(d_) {}
  /// f(x) from f(a), f'(a), f''(a).
  HyperDual apply(double f, double f1, double f2) const { return {f, f1 * b, f1 * c, f1 * d + f2 * b * c}; }
};
HyperDual operator+(const HyperDual& x, const HyperDual& y) { return {x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d}; }
HyperDual operator*(const HyperDual& x, const HyperDual& y) {
  return {x.a * y.a, x.a * y.b + x.b * y.a, x.a * y.c + x.c * y.a, x.a * y.d + x.b * y.c + x.c * y.b + x.d * y.a};
}
HyperDual inverse(const HyperDual& x) { return x.apply(1.0 / x.a, -1.0 / (x.a * x.a), 2.0 / (x.a * x.a * x.a)); }
HyperDual operator/(const HyperDual& x, const HyperDual& y) { return x * inverse(y); }
HyperDual sqrt(const HyperDual& x) {
  const double r = std::sqrt(x.a);
  return x.apply(r, 0.5 / r, -0.25 / (r * x.a));
}
HyperDual atan(const HyperDual& x) {
  const double q = 1.0 / (1.0 + x.a * x.a);
  return x.apply(std::atan(x.a), q, -2.0 * x.a * q * q);
}

/// The rotation vector of the unit Euler parameters q = [w, v] with w > 0: 2 atan(|v|/w) v/|v| = a v,
/// a = (2/w) atan(x)/x with x² = v·v/w² (a power series in x² for small x: smooth through v = 0).
template <class T> std::array<T, 3> rotation_vector(const std::array<T, 4>& q) {
  const T w = q[0];
  const T x2 = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) / (w * w);
  T a;
  if (x2.a < 2.5e-3) { // atan(x)/x = 1 − x²/3 + x⁴/5 − …, to x¹⁴ (x¹⁶/17 < 1e-22 here)
    T sum = T(-1.0 / 15.0);
    for (int k = 13; k >= 1; k -= 2) sum = T((k / 2) % 2 ? -1.0 / k : 1.0 / k) + x2 * sum;
    a = T(2.0) * sum / w;
  } else {
    const T x = sqrt(x2);
    a = T(2.0) * atan(x) / (x * w);
  }
  return {a * q[1], a * q[2], a * q[3]};
}

/// θ = rotation_vector(q), D = ∂θ/∂q (3 × 4) and the second derivative along q̇, q̇ᵀ∇²θ q̇.
struct RotationVector {
  Vec3 theta, second;
  Mat34 D;
  RotationVector(const Vec4& q, const Vec4& qd) {
    std::array<HyperDual, 4> h;
    for (int j = 0; j < 4; ++j) h[static_cast<std::size_t>(j)] = HyperDual(q(j), qd(j), qd(j), 0.0);
    const auto r = rotation_vector(h);
    for (int i = 0; i < 3; ++i) {
      theta(i) = r[static_cast<std::size_t>(i)].a;
      second(i) = r[static_cast<std::size_t>(i)].d;
    }
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 4; ++k) h[static_cast<std::size_t>(k)] = HyperDual(q(k), k == j ? 1.0 : 0.0, 0.0, 0.0);
      const auto rj = rotation_vector(h);
      for (int i = 0; i < 3; ++i) D(i, j) = rj[static_cast<std::size_t>(i)].b;
    }
  }
};

/// [aᵀ; G(a)] b = p_a* ⊗ b: the relative Euler parameters of A(a)ᵀA(b) (4 × 4, linear in a).
Eigen::Matrix4d relative_left(const Vec4& a) {
  Eigen::Matrix4d m;
  m.row(0) = a.transpose();
  m.bottomRows<3>() = g_matrix(a);
  return m;
}
/// [bᵀ; −G(b)]: the same product as a map of a (relative_left(a) b = relative_right(b) a).
Eigen::Matrix4d relative_right(const Vec4& b) {
  Eigen::Matrix4d m;
  m.row(0) = b.transpose();
  m.bottomRows<3>() = -g_matrix(b);
  return m;
}

/// One interface point's Euler parameters normalised, p̂ = p/|p|, with its rate s = Π ṗ/|p| = dp̂/dt,
/// the map's columns Π/|p| (Π = 1 − p̂p̂ᵀ) and the convective part c of d²p̂/dt² = Π p̈/|p| + c,
/// c = −2 s (p̂ᵀṗ)/|p| − p̂ |s|² (zero and −p̂|s|² on the unit sphere with pᵀṗ = 0).
struct UnitEuler {
  Vec4 p, s = Vec4::Zero(), c = Vec4::Zero();
  Eigen::Matrix4d map;
  double inv = 1; ///< 1/|p|
  UnitEuler(const Vec4& raw, const Vec4* rate) {
    const double len = raw.norm();
    FLEXUQ_REQUIRE(len > 0.0, "a gs body's interface Euler parameters are zero");
    inv = 1.0 / len;
    p = raw * inv;
    map = (Eigen::Matrix4d::Identity() - p * p.transpose()) * inv;
    if (!rate) return;
    s = map * *rate;
    c = -2.0 * s * (p.dot(*rate) * inv) - p * s.squaredNorm();
  }
};

/// θ_i of point i against the frame point k, with its J blocks (on p_i and p_k) and κ.
struct PointRotation {
  RotationVector rv;
  Mat34 Jp, Jk;
  Vec3 kappa;
  PointRotation(const UnitEuler& ei, const UnitEuler& ek, const std::string& name)
      : rv(checked(relative_left(ek.p) * ei.p, name), relative_left(ek.p) * ei.s + relative_right(ei.p) * ek.s) {
    // q̇ = L(p̂_k) s_i + R(p̂_i) s_k, its convective part L(c_k) p̂_i + 2 L(s_k) s_i + L(p̂_k) c_i.
    const Eigen::Matrix4d Lk = relative_left(ek.p);
    Jp = rv.D * Lk * ei.map;
    Jk = rv.D * relative_right(ei.p) * ek.map;
    kappa = rv.D * (relative_left(ek.c) * ei.p + 2.0 * relative_left(ek.s) * ei.s + Lk * ei.c) + rv.second;
  }
  static Vec4 checked(const Vec4& q, const std::string& name) {
    FLEXUQ_REQUIRE(q(0) > 0.0,
                   "gs3d body: interface point " << name << " is turned by more than π from the frame point");
    return q;
  }
};

} // namespace

Gs3dKinematics gs3d_kinematics(const GsData& d, const Vec& g, const Vec& gd) {
  const int np = d.n_points(), n = gs3d_size(d), nf = d.n_kept(), k = d.frame;
  FLEXUQ_REQUIRE(g.size() == n, "gs3d_kinematics: g has " << g.size() << " entries, the body " << n);
  const bool rates = gd.size() == n;
  Gs3dKinematics s;
  // Every point's p̂ (the map is that of the normalised parameters: J is its exact Jacobian everywhere).
  std::vector<UnitEuler> pe;
  pe.reserve(static_cast<std::size_t>(np));
  for (int i = 0; i < np; ++i) {
    const Vec4 rate = rates ? Vec4(gd.segment<4>(7 * i + 3)) : Vec4(Vec4::Zero());
    pe.emplace_back(g.segment<4>(7 * i + 3), rates ? &rate : nullptr);
  }
  const UnitEuler& ek = pe[static_cast<std::size_t>(k)];
  std::vector<std::unique_ptr<PointRotation>> rot(static_cast<std::size_t>(np)); // θ_i per point, once
  const Mat34 Gk2 = 2.0 * g_matrix(ek.p);
  const Mat34 Gk2map = Gk2 * ek.map; // ∂ω'/∂ṗ_k = 2 G(p̂_k) Π_k/|p_k| = 2 G(p̂_k)/|p_k|
  s.R = rotation(ek.p);
  s.omega = Gk2 * ek.s;
  const Vec3 alpha_c = Gk2 * ek.c; // ω̇' = ∂ω'/∂ṗ_k p̈_k + alpha_c (G(s)s = 0)
  const Mat3 W = skew(s.omega);
  const Vec3 Xk = d.X[static_cast<std::size_t>(k)];
  auto x = [&](int i) { return Vec3(d.X[static_cast<std::size_t>(i)] + g.segment<3>(7 * i)); };
  const Vec3 xk = x(k);
  s.r = xk - s.R * Xk;
  const Mat3 Rt = s.R.transpose();
  s.J = Mat::Zero(6 + nf, n);
  s.kappa = Vec::Zero(6 + nf);
  s.xi = Vec::Zero(nf);
  // Frame: v_O = Rᵀẋ_k + X̃_k ω', a_O = Rᵀr̈_j = Rᵀẍ_k + X̃_k ω̇' − ω̃'ω̃'X_k.
  s.J.block(0, 7 * k, 3, 3) = Rt;
  s.J.block(0, 7 * k + 3, 3, 4) = skew(Xk) * Gk2map;
  s.J.block(3, 7 * k + 3, 3, 4) = Gk2map;
  s.kappa.head<3>() = skew(Xk) * alpha_c - W * (W * Xk);
  s.kappa.segment<3>(3) = alpha_c;
  for (int c = 0; c < nf; ++c) {
    const int row = 6 + c, p = d.point_of[static_cast<std::size_t>(c)], m = d.component_of[static_cast<std::size_t>(c)];
    const double sc = d.scale(c);
    if (p < 0) { // internal coordinate
      const int col = 7 * np + d.internal[static_cast<std::size_t>(c)];
      s.J(row, col) = sc;
      s.xi(c) = sc * g(col);
      continue;
    }
    if (m < 3) { // u_i = Rᵀ(x_i − x_k) + X_k − X_i: u̇ = Rᵀ(ẋ_i − ẋ_k) + δ̃ ω', ü = … − 2ω̃'Rᵀ(ẋ_i − ẋ_k) + ω̃'ω̃'δ + δ̃ ω̇'
      const Vec3 dp = Rt * (x(p) - xk);
      s.xi(c) = sc * (dp + Xk - d.X[static_cast<std::size_t>(p)])(m);
      s.J.block(row, 7 * p, 1, 3) += sc * Rt.row(m);
      s.J.block(row, 7 * k, 1, 3) -= sc * Rt.row(m);
      s.J.block(row, 7 * k + 3, 1, 4) += sc * (skew(dp) * Gk2map).row(m);
      if (rates) {
        const Vec3 dv = Rt * (gd.segment<3>(7 * p) - gd.segment<3>(7 * k));
        s.kappa(row) = sc * (-2.0 * W * dv + W * (W * dp) + skew(dp) * alpha_c)(m);
      }
    } else { // θ_i = the rotation vector of q = p̂_k* ⊗ p̂_i (the relative Euler parameters of R_jᵀR_i)
      const int a = m - 3;
      auto& rp = rot[static_cast<std::size_t>(p)];
      if (!rp)
        rp =
            std::make_unique<PointRotation>(pe[static_cast<std::size_t>(p)], ek, d.points[static_cast<std::size_t>(p)]);
      s.xi(c) = sc * rp->rv.theta(a);
      s.J.block(row, 7 * p + 3, 1, 4) += sc * rp->Jp.row(a);
      s.J.block(row, 7 * k + 3, 1, 4) += sc * rp->Jk.row(a);
      if (rates) s.kappa(row) = sc * rp->kappa(a);
    }
  }
  s.xi_dot = rates ? Vec(s.J.bottomRows(nf) * gd) : Vec(Vec::Zero(nf));
  return s;
}

namespace {
gs_parts::FrameState frame(Gs3dKinematics s) {
  return {s.R, s.r, std::move(s.xi), std::move(s.xi_dot), s.omega, std::move(s.J), std::move(s.kappa)};
}
} // namespace

Mat gs3d_body_mass(const GsData& d, const Vec& g) { return gs_parts::mass(d, frame(gs3d_kinematics(d, g, Vec()))); }

Vec gs3d_quadratic_velocity(const GsData& d, const Vec& g, const Vec& gd) {
  return gs_parts::quadratic_velocity(d, frame(gs3d_kinematics(d, g, gd)));
}

Vec gs3d_elastic_force(const GsData& d, const Vec& g) {
  return gs_parts::elastic_force(d, frame(gs3d_kinematics(d, g, Vec())));
}

double gs3d_strain_energy(const GsData& d, const Vec& g) {
  const auto s = gs3d_kinematics(d, g, Vec());
  return 0.5 * s.xi.dot(d.K * s.xi);
}

Vec gs3d_pose(const GsData& d, const Vec3& position, const Vec4& p) {
  Vec g = Vec::Zero(gs3d_size(d));
  const Mat3 R = rotation(p);
  for (int i = 0; i < d.n_points(); ++i) {
    const Vec3 X = d.X[static_cast<std::size_t>(i)];
    g.segment<3>(7 * i) = position + R * X - X;
    g.segment<4>(7 * i + 3) = p;
  }
  return g;
}

Vec gs3d_pose_rates(const GsData& d, const Vec4& p, const Vec3& v, const Vec3& omega) {
  Vec gd = Vec::Zero(gs3d_size(d));
  const Mat3 R = rotation(p);
  const Vec4 pd = 0.5 * e_matrix(p).transpose() * omega; // ω = 2 E ṗ, pᵀṗ = 0
  for (int i = 0; i < d.n_points(); ++i) {
    gd.segment<3>(7 * i) = v + omega.cross(R * d.X[static_cast<std::size_t>(i)]);
    gd.segment<4>(7 * i + 3) = pd;
  }
  return gd;
}

// ---- the body in a System ----

Gs3dBodyModel::Gs3dBodyModel(RigidBody body) : GsBodyModelBase(body, body.flex ? body.flex->gs3d : nullptr) {}

void Gs3dBodyModel::initial_coordinates(Vec& q, int o) const {
  q.segment<3>(o).setZero();
  q.segment<4>(o + 3) = Vec4(1, 0, 0, 0);
  q.segment(o + 7, n_elastic()) = gs3d_pose(*gs_, body_.position, body_.orientation);
}

void Gs3dBodyModel::initial_rates(Vec& v, int o) const {
  v.segment(o, 7).setZero();
  v.segment(o + 7, n_elastic()) = gs3d_pose_rates(*gs_, body_.orientation, body_.velocity, body_.angular_velocity);
}

gs_parts::FrameState Gs3dBodyModel::frame_state(const Vec& g, const Vec& gd) const {
  return frame(gs3d_kinematics(*gs_, g, gd));
}

} // namespace flexuq::mbs
