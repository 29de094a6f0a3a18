// SPDX-License-Identifier: MIT
#pragma once
/// @file InpReader.hpp
/// @brief Reader for Abaqus/CalculiX input decks (.inp).

#include "flexuq/io/Mesh.hpp"

#include <string>

namespace flexuq::io {

/// @brief Read nodes, elements, sets, materials and sections from an Abaqus/CalculiX `.inp` file.
///
/// Understood keywords: *NODE [NSET=], *ELEMENT TYPE= (C3D4, C3D10, C3D6, C3D15, C3D8, C3D20, C3D20R, B31,
/// S4, S4R → shell4, S3, S3R → shell3, CPS4/CPS4R/CPE4/CPE4R → quad4, CPS8/CPS8R/CPE8/CPE8R → quad8,
/// CPS3/CPE3 → tri3, CPS6/CPE6 → tri6, T2D2/T3D2 → bar2) [ELSET=], *NSET/*ELSET (NSET=/ELSET=, GENERATE, members
/// given as labels or set names; *NSET also takes ELSET= for the nodes of an element set),
/// *MATERIAL NAME=, *ELASTIC (isotropic), *DENSITY, *SOLID SECTION (its data line: the thickness of
/// 2-D elements, plane stress for CPS*, plane strain for CPE*; the area of bars; default 1; one
/// section covers one kind of element and one plane state), *BEAM SECTION (RECT, CIRC),
/// *BEAM GENERAL SECTION (GENERAL), *SHELL SECTION ELSET= MATERIAL= with its thickness line (a
/// homogeneous shell about its mid-surface; COMPOSITE, NODAL THICKNESS and a non-zero OFFSET are
/// refused, as are *SHELL GENERAL SECTION and *MEMBRANE SECTION), *BOUNDARY (zero supports, model or
/// step data: "node or set, first[, last[, 0]]" or "node or set, TYPE" with ENCASTRE, PINNED, XSYMM,
/// YSYMM, ZSYMM, XASYMM, YASYMM, ZASYMM in Abaqus's meaning, a named type keeping the components a
/// node has → node set BOUNDARY with Mesh::set_components; components a node lacks, nonzero values,
/// AMPLITUDE/USER/FIXED are refused naming the line) and *INCLUDE INPUT= (relative to the including file). S4R and S3R get the same fully integrated MITC elements as S4 and S3, the
/// CP*R elements the fully integrated 2-D elements (a warning). T2D2 makes the mesh 2-D
/// (Mesh::planar); the nodes of a 2-D mesh may omit z (label, x, y). Other keywords are skipped with one
/// summary warning in Mesh::warnings. Keywords and parameter names are case-insensitive; set and
/// material names are stored upper-case. Nodes, elements and sets may appear in any order.
///
/// @param path the file; Mesh::source is set to it.
/// @return the validated mesh (Mesh::validate()).
/// @throws flexuq::InputError naming the file and line of any malformed or inconsistent input.
Mesh read_inp(const std::string& path);

} // namespace flexuq::io
