// SPDX-License-Identifier: MIT
#include "flexuq/io/MeshReader.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/BdfReader.hpp"
#include "flexuq/io/InpReader.hpp"
#include "flexuq/io/MshReader.hpp"

#include <filesystem>

namespace flexuq::io {

Mesh read_mesh(const std::string& path, bool plane) {
  const std::string ext = upper(std::filesystem::path(path).extension().string());
  if (ext == ".INP") return read_inp(path);
  if (ext == ".MSH") return read_msh(path, plane);
  if (is_bdf_path(path)) return read_bdf(path);
  throw InputError("mesh file '" + path + "': unknown format '" + std::filesystem::path(path).extension().string() +
                   "' (supported: .inp Abaqus/CalculiX, .msh Gmsh ASCII 4.1 or 2.2, .bdf/.dat/.nas Nastran bulk data)");
}

} // namespace flexuq::io
