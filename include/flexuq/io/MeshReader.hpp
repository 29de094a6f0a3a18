// SPDX-License-Identifier: MIT
#pragma once
/// @file MeshReader.hpp
/// @brief Read a mesh file of any supported format, chosen by its extension.

#include "flexuq/io/Mesh.hpp"

#include <string>

namespace flexuq::io {

/// @brief Read @p path with the reader its extension names (case-insensitive): `.inp`
/// (read_inp, Abaqus/CalculiX), `.msh` (read_msh, Gmsh ASCII 4.1/2.2) or `.bdf`/`.dat`/`.nas`
/// (read_bdf, Nastran bulk data). @p plane: a .msh file's 2-D elements are 2-D continuum elements,
/// not shells (read_msh); the other formats name their element types themselves and ignore it.
/// @throws flexuq::InputError for another extension (naming the file and the supported formats)
///         or whatever the reader throws.
Mesh read_mesh(const std::string& path, bool plane = false);

} // namespace flexuq::io
