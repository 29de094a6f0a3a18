// SPDX-License-Identifier: MIT
#pragma once
/// @file PlanarBody.hpp
/// @brief A rigid body in planar coordinates (seed 004 §2.3): q_b = [x, y, e0, e3], 4 coordinates and
/// one norm row e0² + e3² − 1 per body, where a 3-D body has 7 (and 6 planar-joint or norm rows to hold
/// it in a plane). The body moves in the plane z = z0 (its initial position's z) with its body z axis
/// along the global z; its 3-D pose is r = (x, y, z0), p = (e0, 0, 0, e3) (mbs/Body.hpp FrameLayout),
/// so A(p) = [[2e0² − 1, −2e0e3, 0], [2e0e3, 2e0² − 1, 0], [0, 0, 1]], ω = 2(e0ė3 − e3ė0) about z.
///
/// Its equations are the 3-D body's restricted to these coordinates (the map from q_b to (r, p) is a
/// selection plus the constant z0, so every joint row, force and output keeps its 3-D formula):
///   T = ½ m (ẋ² + ẏ²) + 2 J (e0ė3 − e3ė0)²,  J = I_zz (the other inertias act on the plane only),
///   M_b = diag(m, m) ⊕ 4J [[e3², −e0e3], [−e0e3, e0²]],
///   Q_b = [0, 0, 4Jωė3, −4Jωė0] (d/dt ∂T/∂ė − ∂T/∂e: 8 ĠᵀJĠp restricted), gravity m (g_x, g_y).
/// A load's out-of-plane part (a force's z, a torque's x and y) acts on what holds the plane and does
/// no work on the body, as on a 3-D body held in the plane by a planar joint.

#include "flexuq/mbs/Body.hpp"

namespace flexuq::mbs {

/// The planar rigid body (RigidBody::planar) as a BodyModel.
class PlanarBodyModel : public BodyModel {
public:
  /// @throws InputError naming the body when its orientation is not a rotation about z, its velocity
  /// has a z part or its angular velocity an x or y part.
  explicit PlanarBodyModel(RigidBody body);
  int n_coordinates() const override { return 4; }
  void initial_coordinates(Vec& q, int o) const override;
  void initial_rates(Vec& v, int o) const override;
  void mass_times(const Vec& q, const Vec& a, int o, Vec& out) const override;
  void mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const override;
  void add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& g_sum, bool qv_terms, Vec& f) const override;
  void add_gravity(const Vec3& g, int o, Vec& f) const override;
  double gravity_work(const Vec& q, int o, const Vec3& g) const override;
  Mat constant_mass_block() const override; ///< m 1 (2 × 2) on (x, y)
  /// I_zz: the one inertia of the plane.
  double inertia() const { return body_.inertia(2, 2); }
};

} // namespace flexuq::mbs
