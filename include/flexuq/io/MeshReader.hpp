// SPDX-License-Identifier: MIT
#pragma once
/// @file MeshReader.hpp
/// @brief Read a mesh file of any supported format, chosen by its extension.

#include "flexuq/io/Mesh.hpp"

#include <array>
#include <string>

namespace flexuq::io {

/// @brief Read @p path with the reader its extension names (case-insensitive): `.inp`
/// (read_inp, Abaqus/CalculiX), `.msh` (read_msh, Gmsh ASCII 4.1/2.2) or `.bdf`/`.dat`/`.nas`
/// (read_bdf, Nastran bulk data). @p plane: a .msh file's 2-D elements are 2-D continuum elements,
/// not shells (read_msh); the other formats name their element types themselves and ignore it.
/// @throws flexuq::InputError for another extension (naming the file and the supported formats)
///         or whatever the reader throws.
Mesh read_mesh(const std::string& path, bool plane = false);

/// @brief Warp angle of a quadrilateral with corners @p X (in order), in degrees: the larger of
/// the angles between the normals of the two triangles either diagonal cuts it into (0 for a flat
/// quadrilateral; 60° for the unit square with one corner lifted by its side).
double quad_warp_angle_deg(const std::array<double, 3>* X);

/// Quadrilateral shells warped beyond this are reported by read_mesh (Mesh::warnings, naming the
/// worst element): shell4 takes its own bilinear surface and corner normals, so results stay
/// right, but a mesh this coarse for its curvature converges slowly.
inline constexpr double kShellWarpWarnDeg = 30.0;

} // namespace flexuq::io
