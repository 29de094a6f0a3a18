// SPDX-License-Identifier: MIT
#pragma once
/// @file ElementType.hpp
/// @brief Element types of a mesh and their node counts (part of io/Mesh.hpp).

#include <cstdint>

namespace flexuq::io {

/// Element types. Node order inside an element is the Abaqus/CalculiX order, which equals VTK/XDMF
/// for all of these (readers of other formats permute into it).
/// penta6/penta15 (Abaqus C3D6/C3D15, Nastran CPENTA): triangle 1-2-3 at the bottom, 4-5-6 above
/// it; penta15 mid-edge nodes 7-9 (edges 1-2, 2-3, 3-1), 10-12 (4-5, 5-6, 6-4), 13-15 (1-4, 2-5, 3-6).
enum class ElementType : std::uint8_t { tet4, tet10, hex8, hex20, beam2, penta6, penta15 };

int nodes_per_element(ElementType t);
const char* element_name(ElementType t); ///< "tet4", "tet10", "hex8", "hex20", "beam2", "penta6", "penta15"
bool is_solid(ElementType t);

} // namespace flexuq::io
