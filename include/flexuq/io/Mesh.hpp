// SPDX-License-Identifier: MIT
#pragma once
/// @file Mesh.hpp
/// @brief The mesh as read from a file or made by a generator: nodes, elements, named sets,
/// materials and sections. Plain data, replicated on every rank (see docs/architecture.md for the
/// memory this costs); partitioning and DOF numbering live in fe::DofMap.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::io {

/// Element types. Node order inside an element is the Abaqus/CalculiX order, which equals VTK/XDMF
/// for all of these (readers of other formats permute into it).
/// penta6/penta15 (Abaqus C3D6/C3D15, Nastran CPENTA): triangle 1-2-3 at the bottom, 4-5-6 above
/// it; penta15 mid-edge nodes 7-9 (edges 1-2, 2-3, 3-1), 10-12 (4-5, 5-6, 6-4), 13-15 (1-4, 2-5, 3-6).
enum class ElementType : std::uint8_t { tet4, tet10, hex8, hex20, beam2, penta6, penta15 };

int nodes_per_element(ElementType t);
const char* element_name(ElementType t); ///< "tet4", "tet10", "hex8", "hex20", "beam2", "penta6", "penta15"
bool is_solid(ElementType t);

/// Where something came from, for error messages: "crank.inp:123".
struct SourceLocation {
  std::string file;
  int line = 0;
  std::string str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

/// Isotropic linear-elastic material as given in the input. Any field may be missing; fe checks
/// completeness and ranges and names the material and its source on error. (G, C) is the seed-000
/// parametrisation (shear and bulk modulus): E = 9CG/(3C+G), ν = (3C−2G)/(6C+2G).
struct Material {
  std::string name;
  std::optional<double> E, nu, G, C, rho;
  SourceLocation where;
};

/// Beam cross-section (Abaqus *BEAM SECTION / *BEAM GENERAL SECTION conventions).
/// Local axes: t along the element (node 1 → node 2), n1 the first section axis (given, default
/// (0,0,−1) as in Abaqus, orthogonalised against t), n2 = t × n1.
/// I11 = ∫ x2² dA (bending about n1), I22 = ∫ x1² dA (bending about n2), J torsion constant.
struct BeamSection {
  /// "RECT" (dims a, b), "CIRC" (dims r), "GENERAL" (A, I11, I12, I22, J), "ROD" (A, J: Nastran
  /// CROD/PROD, axial and torsion only, no bending stiffness and no rotary or torsional inertia)
  std::string shape;
  std::vector<double> dims;     ///< as written in the input
  std::array<double, 3> n1{0.0, 0.0, -1.0};
  double A = 0, I11 = 0, I22 = 0, I12 = 0, J = 0;
  /// Lumped translational mass ρAL/2 per node and no rotary inertia instead of the consistent mass
  /// (Nastran CBAR/CBEAM/CROD with PARAM,COUPMASS absent or negative; see io/BdfReader.hpp).
  bool lumped_mass = false;
  /// Which coupled mass a beam gets when lumped_mass is false (fe::beam_terms states both):
  /// - consistent: the textbook consistent mass — axial ρAL/6 [2 1; 1 2], torsional inertia
  ///   ρ(I11 + I22)L/6 [2 1; 1 2], cubic-Hermite bending without rotary inertia. Every beam of the
  ///   .inp reader and the generators, and Nastran CBEAM with PARAM,COUPMASS,1.
  /// - nastran_cbar: Nastran's coupled CBAR mass (PARAM,COUPMASS,1): axial ρAL/12 [5 1; 1 5] (the
  ///   mean of the lumped and the consistent axial mass), the same Hermite bending, no rotary and
  ///   no torsional inertia. Not used for "ROD" sections (CROD has its own coupled mass).
  enum class CoupledMass { consistent, nastran_cbar };
  CoupledMass coupled_mass = CoupledMass::consistent;
  /// Fill A, I11, I22, I12, J from shape and dims; throws InputError naming @p where on bad data.
  void compute_properties(const SourceLocation& where);
};

/// A rectangular coordinate frame at a point: Nastran's CD system of a grid, as a rotation from
/// global (basic) components. Row k of @p axes is the k-th local axis in global coordinates, so
/// u_local = axes · u_global. For cylindrical/spherical systems the frame is the local one at the grid.
struct NodeFrame {
  long system = 0; ///< Nastran coordinate system id (0 = basic)
  std::array<std::array<double, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
};

/// A section assigns a material (and for beams a cross-section) to an element set.
struct Section {
  std::string elset;    ///< upper-case set name
  std::string material; ///< upper-case material name
  bool beam = false;
  BeamSection beam_section;
  SourceLocation where;
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
  std::map<std::string, Material> materials;            ///< upper-case name → material
  std::vector<Section> sections;
  std::vector<std::string> warnings;           ///< e.g. unknown keywords, reported once on rank 0
  /// Output (displacement) frame per node, Nastran's CD; empty when every node uses global axes.
  std::vector<NodeFrame> node_frames;
  std::vector<ScalarSpring> springs;           ///< constant stiffness (CELAS1/CELAS2)
  std::vector<PointMass> point_masses;         ///< constant mass (CONM2)
  /// Constrain the DOFs without stiffness at each node, as Nastran's PARAM,AUTOSPC,YES does
  /// (fe::Component, "AUTOSPC"). Set by the Nastran reader (its default); false for other formats.
  bool autospc = false;

  std::size_t num_nodes() const { return coords.size(); }
  std::size_t num_elements() const { return elem_type.size(); }
  int element_size(std::size_t e) const { return static_cast<int>(elem_offsets[e + 1] - elem_offsets[e]); }
  const int* element(std::size_t e) const { return elem_nodes.data() + elem_offsets[e]; }
  void add_element(ElementType t, const std::vector<int>& nodes, long id);

  /// Look up a node set by name (case-insensitive); throws InputError listing the known sets.
  const std::vector<int>& node_set(const std::string& name) const;
  const std::vector<int>& element_set(const std::string& name) const;
  /// 3 if all elements are solids, 6 if all are beams; throws InputError for a mix (not supported).
  int dofs_per_node() const;
  /// Throws InputError if an element references a node index out of range or the mesh is empty.
  void validate() const;
};

/// Upper-case copy (set, material and keyword names are case-insensitive, as in Abaqus).
std::string upper(std::string s);

} // namespace flexuq::io
