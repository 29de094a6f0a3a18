// SPDX-License-Identifier: MIT
#pragma once
/// @file MshReader.hpp
/// @brief Reader for Gmsh ASCII meshes (.msh, format versions 4.1 and 2.2).

#include "flexuq/io/Mesh.hpp"

#include <string>

namespace flexuq::io {

/// @brief Read a Gmsh ASCII `.msh` file, format 4.1 or 2.2 (detected from $MeshFormat).
///
/// 3-D elements (gmsh types 4 tet4, 11 tet10, 5 hex8, 17 hex20) become mesh elements, with their
/// nodes permuted from gmsh order into the Abaqus/VTK order used by Mesh. Without 3-D elements,
/// 2-D elements (2 triangle, 3 quadrangle) become shell3/shell4 elements (their shell section comes
/// from the job file: model.shell), and without those 2-node lines (type 1) become beam2 elements.
/// Other element types are only used for sets; any other 3-D type (prisms, pyramids, 27-node
/// hexahedra, ...) or, in a shell mesh, any other 2-D type (second-order triangles, quadrangles) is
/// an error.
/// With @p plane (the job's model.plane) the 2-D elements become 2-D continuum elements instead:
/// 2 triangle → tri3, 9 6-node triangle → tri6, 3 quadrangle → quad4, 16 8-node quadrangle →
/// quad8 (2 DOFs per node, fe/Plane.hpp; nodes in the x-y plane); a mesh with 3-D elements or
/// without 2-D ones is then refused, and so is any other 2-D type (9-node quadrangles).
/// Every physical group becomes a node set (all nodes of its elements, any dimension) and, when
/// its elements are kept, an element set. The set name is the physical name (upper-case) or
/// "PHYS_<tag>" when unnamed ("PHYS_<tag>_DIM<d>" if unnamed groups of several dimensions share
/// the tag). Node and element tags may be sparse; Mesh::node_ids/elem_ids keep them.
///
/// @param path the file; Mesh::source is set to it.
/// @return the validated mesh (Mesh::validate()).
/// @throws flexuq::InputError naming the file and line: binary or other format versions,
///         partitioned meshes, malformed lines, undefined node tags, unsupported 3-D types.
Mesh read_msh(const std::string& path, bool plane = false);

} // namespace flexuq::io
