// SPDX-License-Identifier: MIT
#pragma once
/// @file GsModelParts.hpp
/// @brief What the planar (mbs/GsBody.hpp) and the 3-D (mbs/GsBody3d.hpp) generalised superelement bodies
/// share once their kinematics are known: the floating-frame equations of the kept columns pulled back by
/// J (M_GS = Jᵀ M(ξ) J, C_GS ġ = Jᵀ(M(ξ)κ − Q_v), Jᵀ[0; 0; K ξ], gravity), and the BodyModel built on them
/// (the frame held, g the elastic block, the attachments refused).

#include "flexuq/mbs/Body.hpp"

#include <memory>
#include <string>

namespace flexuq::mbs {

namespace gs_parts {

/// A GS body's floating-frame state at (g, ġ): frame pose, ξ, ξ̇, body-frame ω, w = J ġ, w' = J g̈ + κ.
struct FrameState {
  Mat3 R = Mat3::Identity();
  Vec3 r = Vec3::Zero();
  Vec xi, xi_dot;
  Vec3 omega = Vec3::Zero();
  Mat J;
  Vec kappa;
};

/// The FlexibleData of a GS body with @p n coordinates before its interfaces: K, D zero (the body's
/// forces are its own), V empty.
std::shared_ptr<FlexibleData> flexible_data(int n, const std::string& source);
/// M_GS = Jᵀ M(ξ) J, symmetrised.
Mat mass(const GsData& d, const FrameState& s);
/// C_GS ġ = Jᵀ(M(ξ) κ − Q_v) (left-hand side).
Vec quadratic_velocity(const GsData& d, const FrameState& s);
/// Jᵀ[0; 0; K ξ] (left-hand side).
Vec elastic_force(const GsData& d, const FrameState& s);

} // namespace gs_parts

/// A GS body in a System: its frame held (frame_held, `<body>.frame`), g its elastic block; the derived
/// class gives g's size and the kinematics.
class GsBodyModelBase : public BodyModel {
public:
  GsBodyModelBase(RigidBody body, std::shared_ptr<const GsData> gs);
  const GsData& gs() const { return *gs_; }
  void mass_times(const Vec& q, const Vec& a, int o, Vec& out) const override;
  void mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const override;
  void add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& g_sum, bool qv_terms, Vec& f) const override;
  double gravity_work(const Vec& q, int o, const Vec3& g) const override;
  double strain_energy(const Vec& q, int o) const override;
  void add_stiffness_damping(const Vec& q, int o, double ck, double cd, Eigen::Ref<Mat> out) const override;
  void check_point(const Vec3& s, const Attachment* at, const std::string& who) const override;
  void check_load(const ForceSpec& f, bool acted_on, const std::string& who) const override;
  void check_force(const ForceSpec& f) const override;
  bool frame_held() const override { return true; }
  Mat constant_mass_block() const override; ///< the held frame's placeholder m 1 (7 × 7)

protected:
  /// The kinematics at (g, ġ) (@p gd may be empty: ξ̇, ω, κ zero).
  virtual gs_parts::FrameState frame_state(const Vec& g, const Vec& gd) const = 0;
  std::shared_ptr<const GsData> gs_;
};

} // namespace flexuq::mbs
