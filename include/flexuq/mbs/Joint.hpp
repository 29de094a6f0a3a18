// SPDX-License-Identifier: MIT
#pragma once
/// @file Joint.hpp
/// @brief The joint library as the user gives it: joint types, their names, and a joint's points
/// and axes in the global frame at t = 0. System::add_joint turns a joint into constraint rows
/// (mbs/ConstraintRows.hpp).

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/mbs/Body.hpp"
#include "flexuq/mbs/TimeFunction.hpp"

#include <string>

namespace flexuq::mbs {

enum class JointType {
  revolute, spherical, prismatic, cylindrical, universal, fixed, planar, dot1, dot2, distance,
  point_on_line, angle_driver, translation_driver,
  // 2-D joints (seed 004 §2.8's planar library) for bodies held in a plane (normal n): revolute-2d
  // (axis = n; the points coincide in the plane, 2 rows), prismatic-2d (axis = the sliding direction a
  // in the plane, axis2 = n, default z: no relative turn about n and body j's point on body i's line,
  // 2 rows), point-on-line-2d (body j's point on body i's line (point, a) in the plane, 1 row).
  revolute_2d, prismatic_2d, point_on_line_2d
};
/// The names of `joints[].type`; "perpendicular" is another name of dot1.
inline constexpr EnumNames<JointType, 17> kJointTypeNames{{{{JointType::revolute, "revolute"},
                                                           {JointType::spherical, "spherical"},
                                                           {JointType::prismatic, "prismatic"},
                                                           {JointType::cylindrical, "cylindrical"},
                                                           {JointType::universal, "universal"},
                                                           {JointType::fixed, "fixed"},
                                                           {JointType::planar, "planar"},
                                                           {JointType::dot1, "dot1"},
                                                           {JointType::dot2, "dot2"},
                                                           {JointType::distance, "distance"},
                                                           {JointType::point_on_line, "point-on-line"},
                                                           {JointType::angle_driver, "angle-driver"},
                                                           {JointType::translation_driver, "translation-driver"},
                                                           {JointType::revolute_2d, "revolute-2d"},
                                                           {JointType::prismatic_2d, "prismatic-2d"},
                                                           {JointType::point_on_line_2d, "point-on-line-2d"},
                                                           {JointType::dot1, "perpendicular"}}}};
/// "revolute" for JointType::revolute (messages; kept for its many callers).
inline const char* joint_type_name(JointType t) { return enum_name(kJointTypeNames, t); }

/// A joint as the user gives it: points and axes in the global frame at t = 0.
struct JointSpec {
  std::string name;
  JointType type = JointType::revolute;
  int body_i = kGround, body_j = kGround;
  Vec3 point = Vec3::Zero();  ///< joint point (on body i; also on body j unless point2 is set)
  Vec3 point2 = Vec3::Zero(); ///< second point (on body j) for dot2, distance, point-on-line
  bool has_point2 = false;
  Vec3 axis = Vec3::UnitZ();  ///< joint axis (on body i)
  Vec3 axis2 = Vec3::UnitX(); ///< second axis (on body j) for universal and dot1
  bool has_axis2 = false;
  double distance = -1.0;     ///< distance joint: < 0 = the initial distance
  /// Interfaces of flexible bodies i and j the joint is attached to (empty for rigid bodies).
  std::string interface_i, interface_j;
  TimeFunction motion;        ///< drivers: relative angle / translation as a function of time
};

} // namespace flexuq::mbs
