// SPDX-License-Identifier: MIT
#pragma once
/// @file GsSynthetic.hpp
/// @brief The synthetic body of point masses behind the generalised-superelement tests (gs_body_test.cpp:
/// planar, two interface points; gs3d_body_test.cpp: three in space): a reduced body whose columns are
/// those `flexuq reduce` writes for a GS basis, with a random basis Φ (no projection: any Φ is a valid
/// reduced body), so the kinetic energy is a sum over the particles (the tests' oracle).

#include "ParticleBody.hpp"
#include "flexuq/cms/ReducedBody.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace flexuq::mbs::test {

/// An interface point of the synthetic body: its name and the particle it sits on.
struct GsPoint {
  const char* name;
  int particle;
};

/// The particles (m, x, Φ) and the reduced body built on them.
struct GsSynthetic {
  Particles part; ///< m, x, Φ (3N × (6 · points + internal): REF <point> ux … rz per point, then the modes)
  cms::ReducedBody body;
};

/// N = `count` particles, masses uniform in [0.5, 1], x_i = (0.6 i/(N − 1) − 0.2, spread_y u, spread_z u)
/// with u uniform in [−1, 1], Φ uniform in ±0.2; the body's columns "REF <point> ux" … "rz"
/// (boundary_dof) per point in order, then `internal` "mode k" (fixed_interface_mode), unit column
/// scales; M = Φᵀ M_p Φ, K = 50 (AᵀA + I) with A uniform in ±1, the invariants summed over the
/// particles. All draws from one std::mt19937(seed), in that order.
inline GsSynthetic make_gs_synthetic(std::uint32_t seed, int count, double spread_y, double spread_z,
                                     const std::vector<GsPoint>& points, int internal) {
  GsSynthetic s;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const int n = 6 * static_cast<int>(points.size()) + internal;
  auto& p = s.part;
  for (int i = 0; i < count; ++i) {
    p.m.push_back(0.5 + 0.25 * (u(gen) + 1));
    p.x.push_back(Vec3(0.6 * i / (count - 1) - 0.2, spread_y * u(gen), spread_z * u(gen)));
  }
  p.phi = Mat(3 * count, n);
  for (int r = 0; r < p.phi.rows(); ++r)
    for (int c = 0; c < n; ++c) p.phi(r, c) = 0.2 * u(gen);
  auto& b = s.body;
  const char* comp[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
  for (const auto& pt : points) {
    for (const char* c : comp) {
      b.dof_labels.push_back(std::string("REF ") + pt.name + " " + c);
      b.column_kinds.push_back("boundary_dof");
    }
    const Vec3 X = p.x[static_cast<std::size_t>(pt.particle)];
    b.interface_points[pt.name] = {X.x(), X.y(), X.z()};
  }
  for (int k = 0; k < internal; ++k) {
    b.dof_labels.push_back("mode " + std::to_string(k + 1));
    b.column_kinds.push_back("fixed_interface_mode");
  }
  b.column_scale = Vec::Ones(n);
  Mat mm = Mat::Zero(3 * count, 3 * count);
  for (int i = 0; i < count; ++i) mm.block<3, 3>(3 * i, 3 * i) = p.m[static_cast<std::size_t>(i)] * Mat3::Identity();
  b.M = p.phi.transpose() * mm * p.phi;
  Mat a(n, n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) a(r, c) = u(gen);
  b.K = 50.0 * (a.transpose() * a + Mat::Identity(n, n));
  b.invariants = p.invariants();
  return s;
}

/// n values uniform in ±scale.
inline Vec random_vec(int n, std::mt19937& gen, double scale) {
  std::uniform_real_distribution<double> u(-1, 1);
  Vec v(n);
  for (int i = 0; i < n; ++i) v(i) = scale * u(gen);
  return v;
}

} // namespace flexuq::mbs::test
