// SPDX-License-Identifier: MIT
#pragma once
/// @file Force.hpp
/// @brief Applied loads as the user gives them: torques, forces, gravity, springs and rotational
/// dampers between bodies. System::add_force keeps them in body frames; System::forces, the
/// energies and the Newton matrix's stiffness / damping part evaluate them (src/mbs/Forces.cpp).

#include "flexuq/mbs/Body.hpp"
#include "flexuq/mbs/TimeFunction.hpp"

#include <string>

namespace flexuq::mbs {

/// rotational_damper: torque −c (a·(ω_body − ω_body2)) a on body (the opposite on body2), a the unit
/// axis (global, or fixed in body with body_frame), c = damping.
enum class ForceType { torque, force, gravity, spring, rotational_damper };

struct ForceSpec {
  ForceType type = ForceType::gravity;
  int body = kGround, body2 = kGround; ///< torque: reaction on body2; spring: between body and body2
  Vec3 direction = Vec3::Zero();       ///< unit axis (torque/force) or g (gravity)
  bool body_frame = false;             ///< torque/force axis fixed in the body instead of global
  Vec3 point = Vec3::Zero(), point2 = Vec3::Zero(); ///< global at t = 0 (force point; spring ends)
  TimeFunction value = TimeFunction::constant(1.0);
  double stiffness = 0, damping = 0, length = -1.0; ///< spring (length < 0 = initial length); damper: damping
  /// force on a flexible body: the interface whose motion the point follows (translation and small
  /// rotation of the interface, as a joint on it); empty: the point is fixed in the floating frame.
  /// torque on a flexible body: the interface it turns (ω + A R_I η̇: Q = [0; 2Eᵀn; R_Iᵀ Aᵀ n]); empty:
  /// the floating frame (a load the elastic coordinates do not feel, which depends on the frame).
  std::string interface;
};

} // namespace flexuq::mbs
