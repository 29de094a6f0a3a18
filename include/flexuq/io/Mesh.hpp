// SPDX-License-Identifier: MIT
#pragma once
/// @file Mesh.hpp
/// @brief The mesh as read from a file or made by a generator: nodes, elements, named sets,
/// materials and sections. Plain data, replicated on every rank (see docs/architecture.md for the
/// memory this costs); partitioning and DOF numbering live in fe::DofMap.
///
/// The umbrella of the mesh data: it includes the element types (ElementType.hpp), source locations
/// (SourceLocation.hpp), materials and sections (Sections.hpp) and node attachments (NodeAttachments.hpp).

#include "flexuq/io/ElementType.hpp"
#include "flexuq/io/NodeAttachments.hpp"
#include "flexuq/io/Sections.hpp"
#include "flexuq/io/SourceLocation.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace flexuq::io {

/// @brief Nodes, elements, sets, materials and sections of one component.
struct Mesh {
  std::string source;                          ///< file name or generator description
  std::vector<std::array<double, 3>> coords;   ///< node coordinates, internal index order
  std::vector<long> node_ids;                  ///< label of each node in the input file
  std::vector<ElementType> elem_type;          ///< per element
  std::vector<std::int64_t> elem_offsets{0};   ///< CSR offsets into elem_nodes (size n_elem+1)
  std::vector<int> elem_nodes;                 ///< internal node indices, Abaqus order
  std::vector<long> elem_ids;                  ///< label of each element in the input file
  std::map<std::string, std::vector<int>> node_sets;    ///< upper-case name → internal node indices
  std::map<std::string, std::vector<int>> element_sets; ///< upper-case name → element indices
  /// Supports of single components read from the input (Nastran SPC/SPC1, Abaqus *BOUNDARY): node
  /// set name (also in node_sets) → (node, fixed components: bit c = component c + 1) pairs, a node
  /// listed more than once fixing the union. Fixing a node set without an entry here fixes its
  /// nodes whole (fe::Component).
  std::map<std::string, std::vector<std::pair<int, unsigned>>> set_components;
  std::map<std::string, Material> materials;            ///< upper-case name → material
  std::vector<Section> sections;
  std::vector<std::string> warnings;           ///< e.g. unknown keywords, reported once on rank 0
  /// Output (displacement) frame per node, Nastran's CD; empty when every node uses global axes.
  std::vector<NodeFrame> node_frames;
  std::vector<ScalarSpring> springs;           ///< constant stiffness (CELAS1/CELAS2)
  std::vector<PointMass> point_masses;         ///< constant mass (CONM2)
  /// Scalar masses (CMASS1/CMASS2) between two DOFs, kinetic energy ½ m (u̇_a − u̇_b)², in the
  /// fields of a spring (k = the mass m): constant mass, with the point masses.
  std::vector<ScalarSpring> scalar_masses;
  /// Constrain the DOFs without stiffness at each node, as Nastran's PARAM,AUTOSPC,YES does
  /// (fe::Component, "AUTOSPC"). Set by the Nastran reader (its default); false for other formats.
  bool autospc = false;
  /// A 2-D component (x-y plane, 2 DOFs per node: ux, uy) even without 2-D continuum elements: set
  /// by the .inp reader for T2D2 bars. Any quad4/quad8/tri3/tri6 element makes the mesh 2-D too.
  bool planar = false;

  std::size_t num_nodes() const { return coords.size(); }
  std::size_t num_elements() const { return elem_type.size(); }
  int element_size(std::size_t e) const { return static_cast<int>(elem_offsets[e + 1] - elem_offsets[e]); }
  const int* element(std::size_t e) const { return elem_nodes.data() + elem_offsets[e]; }
  void add_element(ElementType t, const std::vector<int>& nodes, long id);

  /// Look up a node set by name (case-insensitive); throws InputError listing the known sets.
  const std::vector<int>& node_set(const std::string& name) const;
  const std::vector<int>& element_set(const std::string& name) const;
  /// 3 if all elements are solids (bars may join them), 6 if any are beams or shells (which mix with
  /// each other and with solids: solid elements then take only their nodes' translations, and fe::Component
  /// eliminates the rotations no beam or shell touches; bars join on the translations), 2 for a 2-D mesh
  /// (is_2d(): 2-D continuum elements and bars only); throws InputError for 2-D elements mixed with anything
  /// but bars (not supported).
  int dofs_per_node() const;
  /// True when the mesh is 2-D: it has a 2-D continuum element (quad4, quad8, tri3, tri6) or planar.
  bool is_2d() const;
  /// Throws InputError if an element references a node index out of range or the mesh is empty, or
  /// if a 2-D mesh has a node off the x-y plane (z ≠ 0) or springs (not supported in 2-D).
  void validate() const;
};

/// Upper-case copy (set, material and keyword names are case-insensitive, as in Abaqus).
std::string upper(std::string s);

} // namespace flexuq::io
