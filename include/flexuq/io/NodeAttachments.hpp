// SPDX-License-Identifier: MIT
#pragma once
/// @file NodeAttachments.hpp
/// @brief What a mesh attaches to single nodes besides elements: output frames (Nastran CD),
/// scalar springs (CELAS1/CELAS2) and point masses (CONM2) (part of io/Mesh.hpp).

#include "flexuq/io/SourceLocation.hpp"

#include <array>

namespace flexuq::io {

/// A rectangular coordinate frame at a point: Nastran's CD system of a grid, as a rotation from
/// global (basic) components. Row k of @p axes is the k-th local axis in global coordinates, so
/// u_local = axes · u_global. For cylindrical/spherical systems the frame is the local one at the grid.
struct NodeFrame {
  long system = 0; ///< Nastran coordinate system id (0 = basic)
  std::array<std::array<double, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
};

/// A scalar spring between two DOFs (Nastran CELAS1/CELAS2): energy ½ k (u_a − u_b)², u_a the
/// component @p comp_a (1–3: translation along the node's displacement frame axis, 4–6: rotation)
/// of @p node_a; @p node_b = −1 grounds the spring. A constant (parameter-free) stiffness term.
struct ScalarSpring {
  long id = 0;
  int node_a = -1, comp_a = 1, node_b = -1, comp_b = 1;
  double k = 0;
  SourceLocation where;
};

/// A concentrated mass at a node (Nastran CONM2): mass m, centre of mass at node + offset (basic
/// axes), inertia tensor J about the centre of mass (basic axes, J = [[I11, −I21, −I31], …]). On
/// beam meshes it adds the rigid-body 6×6 mass [[m I, −m S], [m S, J − m S²]] (S = skew(offset))
/// to the node's DOFs; on solid meshes (3 DOFs per node) only m I (offset and inertia need
/// rotations). A constant (parameter-free) mass term.
struct PointMass {
  long id = 0;
  int node = -1;
  double m = 0;
  std::array<double, 3> offset{};
  std::array<std::array<double, 3>, 3> inertia{};
  SourceLocation where;
};

} // namespace flexuq::io
