// SPDX-License-Identifier: MIT
#pragma once
/// @file EulerParameters.hpp
/// @brief Rotation kinematics in Euler parameters p = [e0, e1, e2, e3] (unit quaternion), Haug's
/// notation, as in seed 003 §2.1 and seed 004 §2.7:
///   A(p) = (e0² − eᵀe) I + 2 e eᵀ + 2 e0 ẽ            (global ← body)
///   G(p) = [−e, −ẽ + e0 I],  E(p) = [−e, ẽ + e0 I]     (3×4), A = E Gᵀ
///   ω' = 2 G ṗ (body frame), ω = 2 E ṗ (global frame)
///   B(p, a') = ∂(A(p) a')/∂p = 2 [(e0 I + ẽ) a', e a'ᵀ − (e0 I + ẽ) ã']   (3×4, linear in p)
/// Seed 003 writes G with the factor 2 inside (G_seed = 2 G); its quadratic-velocity vector
/// 2 Ġ_seedᵀ J Ġ_seed p is therefore 8 ĠᵀJĠp here (the thesis' Eq. 2.18 term ½GĠᵀJĠqʳ is 3×1; −Ṁq̇ + ∂T/∂q of T = ½ṗᵀ4GᵀJGṗ gives this one).

#include <Eigen/Dense>

#include <cmath>

namespace flexuq::mbs {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Mat3 = Eigen::Matrix3d;
using Mat34 = Eigen::Matrix<double, 3, 4>;

inline Mat3 skew(const Vec3& a) {
  Mat3 s;
  s << 0, -a(2), a(1), a(2), 0, -a(0), -a(1), a(0), 0;
  return s;
}

inline Mat3 rotation(const Vec4& p) {
  const double e0 = p(0);
  const Vec3 e = p.tail<3>();
  return (e0 * e0 - e.dot(e)) * Mat3::Identity() + 2.0 * e * e.transpose() + 2.0 * e0 * skew(e);
}

inline Mat34 g_matrix(const Vec4& p) {
  Mat34 g;
  g.col(0) = -p.tail<3>();
  g.rightCols<3>() = -skew(p.tail<3>()) + p(0) * Mat3::Identity();
  return g;
}

inline Mat34 e_matrix(const Vec4& p) {
  Mat34 g;
  g.col(0) = -p.tail<3>();
  g.rightCols<3>() = skew(p.tail<3>()) + p(0) * Mat3::Identity();
  return g;
}

/// ∂(A(p) a)/∂p; linear in p, so d/dt (B(p,a) ṗ) = B(ṗ,a) ṗ + B(p,a) p̈.
inline Mat34 b_matrix(const Vec4& p, const Vec3& a) {
  const Mat3 c = p(0) * Mat3::Identity() + skew(p.tail<3>());
  Mat34 b;
  b.col(0) = 2.0 * c * a;
  b.rightCols<3>() = 2.0 * (p.tail<3>() * a.transpose() - c * skew(a));
  return b;
}

/// Unit Euler parameters of a rotation by @p angle about the unit @p axis.
inline Vec4 from_axis_angle(const Vec3& axis, double angle) {
  const Vec3 u = axis.normalized();
  Vec4 p;
  p(0) = std::cos(0.5 * angle);
  p.tail<3>() = u * std::sin(0.5 * angle);
  return p;
}

/// Euler parameters of a rotation matrix (Shepperd's method), e0 ≥ 0.
inline Vec4 from_rotation(const Mat3& a) {
  Eigen::Quaterniond q(a);
  q.normalize();
  Vec4 p(q.w(), q.x(), q.y(), q.z());
  if (p(0) < 0) p = -p;
  return p;
}

} // namespace flexuq::mbs
