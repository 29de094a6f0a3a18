// SPDX-License-Identifier: MIT
#pragma once
/// @file ElementType.hpp
/// @brief Element types of a mesh and their node counts (part of io/Mesh.hpp).

#include "flexuq/core/EnumNames.hpp"

#include <cstdint>

namespace flexuq::io {

/// Element types. Node order inside an element is the Abaqus/CalculiX order, which equals VTK/XDMF
/// for all of these (readers of other formats permute into it).
/// penta6/penta15 (Abaqus C3D6/C3D15, Nastran CPENTA): triangle 1-2-3 at the bottom, 4-5-6 above
/// it; penta15 mid-edge nodes 7-9 (edges 1-2, 2-3, 3-1), 10-12 (4-5, 5-6, 6-4), 13-15 (1-4, 2-5, 3-6).
/// shell4/shell3 (Abaqus S4/S4R, S3/S3R; Nastran CQUAD4, CTRIA3; gmsh quadrangle/triangle): corners
/// in order around the element (either sense), 6 DOFs per node like beam2 (fe/Shell.hpp).
/// quad4/quad8/tri3/tri6 (Abaqus CPS4/CPE4, CPS8/CPE8, CPS3/CPE3, CPS6/CPE6; gmsh types 3, 16, 2, 9
/// with model.plane): plane stress or plane strain continuum elements in the x-y plane, 2 DOFs per
/// node (fe/Plane.hpp); corners in order around the element (either sense), then the mid-side nodes
/// of edges 1-2, 2-3, ... . bar2 (Abaqus T2D2, T3D2): a 2-node axial bar (translations only).
enum class ElementType : std::uint8_t {
  tet4, tet10, hex8, hex20, beam2, penta6, penta15, shell4, shell3, quad4, quad8, tri3, tri6, bar2
};

/// The names of the element types (messages, the mesh output's /mesh/topology/<name> groups).
inline constexpr EnumNames<ElementType, 14> kElementNames{{{{ElementType::tet4, "tet4"},
                                                          {ElementType::tet10, "tet10"},
                                                          {ElementType::hex8, "hex8"},
                                                          {ElementType::hex20, "hex20"},
                                                          {ElementType::beam2, "beam2"},
                                                          {ElementType::penta6, "penta6"},
                                                          {ElementType::penta15, "penta15"},
                                                          {ElementType::shell4, "shell4"},
                                                          {ElementType::shell3, "shell3"},
                                                          {ElementType::quad4, "quad4"},
                                                          {ElementType::quad8, "quad8"},
                                                          {ElementType::tri3, "tri3"},
                                                          {ElementType::tri6, "tri6"},
                                                          {ElementType::bar2, "bar2"}}}};

int nodes_per_element(ElementType t);
/// "tet4" for ElementType::tet4 (kept for its many callers).
inline const char* element_name(ElementType t) { return enum_name(kElementNames, t); }
bool is_solid(ElementType t); ///< a 3-D continuum element (3 DOFs per node)
bool is_shell(ElementType t); ///< shell4 or shell3
bool is_plane(ElementType t); ///< a 2-D continuum element: quad4, quad8, tri3 or tri6

} // namespace flexuq::io
