// SPDX-License-Identifier: MIT
#pragma once
/// @file ParticleBody.hpp
/// @brief A synthetic flexible body for the mbs tests: N point masses m_i at x_i with an elastic basis
/// Φ M-orthogonal to the rigid modes, so the floating-frame invariants are exact sums and the kinetic
/// energy and momenta are sums over particles (independent oracles). Shared by flexible_test.cpp and
/// integrator_order_test.cpp.

#include "flexuq/mbs/FlexibleBody.hpp"
#include "flexuq/mbs/System.hpp"

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace flexuq::mbs::test {

/// A lumped body: particles, an elastic basis with the rigid motion projected out, K = diag.
struct Particles {
  std::vector<double> m;
  std::vector<Vec3> x;
  Mat phi; ///< 3N × n
  Vec k;   ///< stiffness per elastic coordinate

  int n() const { return static_cast<int>(phi.cols()); }
  Mat rows(int i) const { return phi.middleRows(3 * i, 3); }

  static Particles make(int count, int modes, double length, std::uint32_t seed) {
    Particles p;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < count; ++i) {
      p.m.push_back(0.5 + 0.25 * (u(gen) + 1));
      p.x.push_back(Vec3(length * i / (count - 1), 0.05 * u(gen), 0.03 * u(gen)));
    }
    Mat phi(3 * count, modes), rig = Mat::Zero(3 * count, 6), mm = Mat::Zero(3 * count, 3 * count);
    for (int r = 0; r < phi.rows(); ++r)
      for (int c = 0; c < modes; ++c) phi(r, c) = 0.1 * u(gen);
    for (int i = 0; i < count; ++i) {
      rig.block<3, 3>(3 * i, 0).setIdentity();
      rig.block<3, 3>(3 * i, 3) = -skew(p.x[i]);
      mm.block<3, 3>(3 * i, 3 * i) = p.m[i] * Mat3::Identity();
    }
    // Φ ← Φ − R (RᵀMR)⁻¹ RᵀMΦ, then M-orthonormal columns.
    phi -= rig * (rig.transpose() * mm * rig).ldlt().solve(rig.transpose() * mm * phi);
    Eigen::SelfAdjointEigenSolver<Mat> es(phi.transpose() * mm * phi);
    p.phi = phi * es.eigenvectors() * es.eigenvalues().cwiseSqrt().cwiseInverse().asDiagonal();
    p.k = Vec(modes);
    for (int c = 0; c < modes; ++c) p.k(c) = 400.0 * (c + 1) * (c + 1);
    return p;
  }

  flexuq::cms::Invariants invariants() const {
    flexuq::cms::Invariants inv;
    const int nc = n();
    inv.S = Mat::Zero(3, nc);
    inv.Sr = Mat::Zero(3, nc);
    inv.Sbar = Mat::Zero(9, nc);
    inv.Mff = Mat::Zero(nc, nc);
    for (auto& s : inv.Skl) s = Mat::Zero(nc, nc);
    for (std::size_t i = 0; i < m.size(); ++i) {
      const Mat f = rows(static_cast<int>(i));
      inv.mass += m[i];
      inv.com += m[i] * x[i];
      inv.inertia_origin += m[i] * (x[i].squaredNorm() * Mat3::Identity() - x[i] * x[i].transpose());
      inv.S += m[i] * f;
      inv.Sr += m[i] * skew(x[i]) * f;
      inv.Mff += m[i] * f.transpose() * f;
      inv.Ikl += m[i] * x[i] * x[i].transpose();
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          inv.Skl[3 * a + b] += m[i] * f.row(a).transpose() * f.row(b);
          inv.Sbar.row(3 * a + b) += m[i] * x[i](a) * f.row(b);
        }
    }
    inv.com /= inv.mass;
    const Vec3 c = inv.com;
    inv.inertia_com = inv.inertia_origin - inv.mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
    return inv;
  }

  /// FlexibleData with one interface per particle, "P<i>" (translation only: point masses turn nothing).
  std::shared_ptr<FlexibleData> data(double stiffness_factor = 1.0, double zeta = 0.0) const {
    auto d = std::make_shared<FlexibleData>();
    d->source = "synthetic";
    d->invariants = invariants();
    d->K = (stiffness_factor * k).asDiagonal();
    d->D = Mat::Zero(n(), n());
    for (int c = 0; c < n(); ++c) d->D(c, c) = 2 * zeta * std::sqrt(stiffness_factor * k(c));
    for (std::size_t i = 0; i < m.size(); ++i) {
      Attachment a;
      a.ref = x[i];
      a.translation = rows(static_cast<int>(i));
      a.rotation = Mat::Zero(3, n());
      d->interfaces["P" + std::to_string(i)] = a;
    }
    return d;
  }

  /// Global velocity of particle i and T, L_O, H_O summed over the particles (the oracle).
  Vec3 velocity(const System& s, const Vec& q, const Vec& v, int b, int i) const {
    const int o = s.offset(b);
    const Vec4 p = q.segment<4>(o + 3);
    const Vec eta = q.segment(o + 7, n());
    return v.segment<3>(o) + b_matrix(p, x[i] + rows(i) * eta) * v.segment<4>(o + 3) +
           rotation(p) * rows(i) * v.segment(o + 7, n());
  }
  Vec3 position(const System& s, const Vec& q, int b, int i) const {
    const int o = s.offset(b);
    return q.segment<3>(o) + rotation(q.segment<4>(o + 3)) * (x[i] + rows(i) * q.segment(o + 7, n()));
  }
  double kinetic(const System& s, const Vec& q, const Vec& v, int b) const {
    double t = 0;
    for (std::size_t i = 0; i < m.size(); ++i) t += 0.5 * m[i] * velocity(s, q, v, b, static_cast<int>(i)).squaredNorm();
    return t;
  }
};

inline RigidBody flexible_body(const std::string& name, std::shared_ptr<const FlexibleData> d, const Vec3& r, const Vec4& p) {
  RigidBody b;
  b.name = name;
  b.flex = std::move(d);
  b.position = r;
  b.orientation = p;
  return b;
}

} // namespace flexuq::mbs::test
