// SPDX-License-Identifier: MIT
#pragma once
/// @file MeshOutput.hpp
/// @brief The mesh under `/mesh` of a result file, and XDMF files that let ParaView open node fields
/// stored in the same HDF5 file (schema: docs/hdf5-schema.md).

#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/Mesh.hpp"

#include <string>
#include <vector>

namespace flexuq::io {

/// Write /mesh/geometry, /mesh/node_ids, /mesh/topology/<type>, /mesh/element_ids/<type>,
/// /mesh/topology_mixed (XDMF "Mixed" stream), /mesh/node_sets/<NAME>. @note Collective.
void write_mesh(H5File& file, const Mesh& mesh);

/// A node field (nodes × components × count) in the HDF5 file; XDMF shows entry j of the last axis.
struct XdmfNodeField {
  std::string dataset;     ///< e.g. "/modes/vectors"
  std::size_t components;  ///< size of the middle axis (3 or 6)
  std::size_t count;       ///< size of the last axis (modes)
  std::string name = "mode_shape";
  std::vector<double> times; ///< value shown as time for each entry (e.g. frequency in Hz); default 1..count
};

/// Write an XDMF 2 file @p xdmf_path referencing @p h5_name (path relative to the xdmf's folder):
/// a temporal collection with one grid per entry of the field, the first three components as a
/// vector attribute (translations), and for 6-component fields the rotations as a second vector.
/// Not collective: call on one rank.
void write_xdmf(const std::string& xdmf_path, const std::string& h5_name, const Mesh& mesh, const XdmfNodeField& field);

/// The XDMF file beside an HDF5 result: "run/x.h5" → "run/x.xdmf".
std::string xdmf_path_for(const std::string& h5_path);

/// write_xdmf for the result file @p h5_path, to its xdmf_path_for, referencing it by file name.
/// Not collective: call on one rank.
void write_xdmf_beside(const std::string& h5_path, const Mesh& mesh, const XdmfNodeField& field);

/// /run/phase_names and /run/phase_seconds (wall time per phase so far). @note Collective.
void write_phase_times(H5File& file, const std::vector<std::pair<std::string, double>>& phases);

} // namespace flexuq::io
