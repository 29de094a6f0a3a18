// SPDX-License-Identifier: MIT
#pragma once
/// @file Component.hpp
/// @brief One FE component: mesh, DOF map, material groups and the assembled operators
/// K(θ) = Σ_g (λ_g K_λ,g + μ_g K_μ,g) [solids], Σ_g (E_g K_E,g + G_g K_G,g) [beams] or
/// Σ_g (E_g/(1−ν_g) K_A,g + G_g K_G,g) [shells, fe/Shell.hpp; plane stress, fe/Plane.hpp; plane
/// strain and bars take the solids' and the beams' terms], M(θ) = Σ_g ρ_g M_g, kept as affine
/// sums when asked; springs, concentrated masses, shells' nonstructural mass and AUTOSPC add one
/// constant term (coefficient 1) at the end of each sum.

#include "flexuq/core/Handle.hpp"
#include "flexuq/fe/AffineOperator.hpp"
#include "flexuq/fe/DofMap.hpp"
#include "flexuq/fe/Material.hpp"
#include "flexuq/io/Mesh.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::fe {

/// Elements of one kind (solid, beam, shell, plane stress, plane strain or bar) that share one
/// material: one parameter group of the affine operators. Beams and shells of one material (a
/// stiffened panel) are two groups. The two flags select the group's coefficients: beam for (E, G),
/// shell for (E/(1−ν), G), neither for (λ, μ); bar2 groups have the beams' (E, G) (their G term is
/// zero), plane-stress groups the shells' and plane-strain groups the solids' (fe/Plane.hpp).
struct MaterialGroup {
  IsoMaterial material;
  bool beam = false;
  bool shell = false;
  /// Stiffness coefficients of the group's two K terms: (λ, μ) for solids and plane strain, (E, G)
  /// for beams and bars, (E/(1−ν), G) for shells and plane stress.
  std::array<double, 2> stiffness_coefficients() const;
};

/// Single components of a node set held fixed (the YAML form `fixed: [{set: S, dofs: [1, 2, 3]}]`).
struct FixedComponents {
  std::string set;
  std::vector<int> dofs; ///< 1-based: 1–3 translations, 4–6 rotations (beams, shells); 1–2 in 2-D
  std::string key;       ///< where it was given, for messages ("job.yaml: model.fixed[0]")
};

struct ComponentOptions {
  std::vector<std::string> fixed_sets;             ///< node sets held fixed (all DOFs eliminated, or the
                                                   ///< components the mesh's set_components give)
  std::vector<FixedComponents> fixed_components;   ///< single components of node sets held fixed
  std::optional<io::Material> default_material;    ///< for elements without a section / DEFAULT
  std::map<std::string, io::Material> set_materials; ///< element set → material (overrides the mesh)
  /// Shell section of the shell elements no mesh section covers (a gmsh mesh's 2-D elements):
  /// per element set first, then the default.
  std::optional<io::ShellSection> shell_section;
  std::map<std::string, io::ShellSection> set_shell_sections;
  /// Section of the 2-D continuum elements no mesh section covers (a gmsh mesh read as 2-D).
  std::optional<io::PlaneSection> plane_section;
  bool keep_affine = true;  ///< keep the parameter-free terms (needed for re-evaluation)
  std::string partitioner;  ///< MatPartitioning type, "" = ptscotch
};

/// The operators of a component given by matrices instead of elements (fe/MatrixComponent.hpp):
/// K = Σ_k stiffness_theta[k] K_k and M = Σ_k mass_theta[k] M_k over named terms on @p dofs.
struct ExternalOperators {
  std::unique_ptr<DofMap> dofs;
  AffineOperator stiffness, mass;
  std::vector<double> stiffness_theta, mass_theta; ///< nominal coefficients, one per term
  std::vector<std::string> fixed_sets;             ///< upper-case names of the fixed node sets
  std::size_t n_fixed_nodes = 0;
  bool coordinates = true; ///< the mesh's node coordinates are real (the label file gave them)
};

class Component {
public:
  /// Resolve materials, partition, number DOFs and assemble K and M. @note Collective.
  /// Throws InputError for missing sets, missing or invalid materials, missing beam or shell
  /// sections, bad shell thicknesses and degenerate elements.
  Component(MPI_Comm comm, io::Mesh mesh, const ComponentOptions& options);

  /// A component from external matrices: @p mesh holds nodes and node sets only (no elements, no
  /// material groups). stiffness_theta()/mass_theta() are the term coefficients, changed with
  /// set_coefficients(). Not collective (the operators are built already).
  Component(io::Mesh mesh, ExternalOperators ops);

  MPI_Comm comm() const { return dofs_->comm(); }
  /// True for a component built from external matrices (no elements, no material groups).
  bool is_external() const { return external_; }
  /// False for an external component whose label file gave no coordinates (all are 0): RBE2/RBE3
  /// interfaces, GCMS and inertia invariants cannot be built.
  bool has_coordinates() const { return coordinates_; }
  const io::Mesh& mesh() const { return mesh_; }
  const DofMap& dofs() const { return *dofs_; }
  const std::vector<MaterialGroup>& groups() const { return groups_; }
  const std::vector<int>& element_group() const { return elem_group_; }
  /// True when some DOF is fixed (a whole node or single components).
  bool has_fixed_nodes() const { return n_fixed_nodes_ > 0; }
  const std::vector<std::string>& fixed_sets() const { return fixed_sets_; }

  Mat K() const { return K_.get(); }
  Mat M() const { return M_.get(); }
  /// Affine terms (empty unless keep_affine): K terms are ordered group by group, two per group.
  const AffineOperator& stiffness_terms() const { return K_terms_; }
  const AffineOperator& mass_terms() const { return M_terms_; }
  /// Coefficients of the current K and M in terms of the affine terms.
  std::vector<double> stiffness_theta() const;
  std::vector<double> mass_theta() const;
  /// Coefficients for other materials (one per group, same order as groups()), followed by 1 for
  /// the constant term when @p constant (has_constant_stiffness()/has_constant_mass()).
  static std::vector<double> stiffness_theta(const std::vector<MaterialGroup>& groups, bool constant = false);
  static std::vector<double> mass_theta(const std::vector<MaterialGroup>& groups, bool constant = false);
  /// True when the last stiffness (mass) term is a constant, parameter-free one: springs
  /// (mesh.springs) and AUTOSPC ("constant:springs" / "constant:autospc"), concentrated masses
  /// (mesh.point_masses, "constant:point masses") and the shells' nonstructural mass
  /// (ShellSection::nsm, "constant:nonstructural mass" when there are no point masses). Its
  /// coefficient is always 1.
  bool has_constant_stiffness() const { return constant_k_; }
  bool has_constant_mass() const { return constant_m_; }

  /// A direction constrained by AUTOSPC (mesh.autospc): at @p node, in the translations
  /// (@p first_component 0) or the rotations (3), unit vector @p n in basic axes.
  struct AutospcDirection {
    int node = -1;
    int first_component = 0;
    std::array<double, 3> n{};
  };
  /// The AUTOSPC directions of the nodes this rank owns (empty unless mesh.autospc found some).
  const std::vector<AutospcDirection>& autospc_directions() const { return autospc_; }
  /// Their number over all ranks.
  long long autospc_count() const { return autospc_global_; }
  /// Re-evaluate K and M for new group materials without re-assembly (needs keep_affine).
  /// @note Collective.
  void set_materials(const std::vector<IsoMaterial>& materials);
  /// Re-evaluate K and M from new term coefficients (external components, or any component
  /// assembled with keep_affine, in the order of the affine terms). @note Collective.
  void set_coefficients(const std::vector<double>& stiffness, const std::vector<double>& mass);

  /// Merge affine terms whose coefficients stay proportional for every material this component
  /// will be given (MaterialParametrisation::proportional_terms): each set becomes one term,
  /// Σ_k (c_k/c_r) A_k with c the coefficients @p k_coefficients, @p m_coefficients of one member
  /// of that family of materials (MaterialParametrisation::coefficients(θ), not the mesh's
  /// materials, which need not be one) and r the set's largest, and the merged term's coefficient is
  /// c_r from then on (stiffness_theta()/mass_theta() return the merged ones; set_materials keeps
  /// working for materials of the family). Fewer matrices, the same K(θ), M(θ) to round-off.
  /// K and M are left as they are until the next set_materials. @note Collective.
  void merge_affine_terms(const std::vector<std::vector<std::size_t>>& stiffness,
                          const std::vector<std::vector<std::size_t>>& mass, const std::vector<double>& k_coefficients,
                          const std::vector<double>& m_coefficients);

  /// Free the affine terms (keep K and M as they are): for a caller that will not re-evaluate the
  /// materials again (set_materials and set_coefficients then throw).
  void release_affine() {
    K_terms_ = AffineOperator{};
    M_terms_ = AffineOperator{};
  }

  double assembly_seconds() const { return assembly_seconds_; }

private:
  void assemble(bool keep_affine);
  void apply_autospc();
  io::Mesh mesh_;
  std::unique_ptr<DofMap> dofs_;
  std::vector<MaterialGroup> groups_;
  std::vector<int> elem_group_;   ///< per element (global index)
  std::vector<int> elem_section_; ///< per element: index into mesh.sections or −1
  std::vector<std::string> fixed_sets_;
  std::size_t n_fixed_nodes_ = 0;
  MatH K_, M_;
  AffineOperator K_terms_, M_terms_;
  bool external_ = false, coordinates_ = true;
  bool constant_k_ = false, constant_m_ = false;
  std::vector<AutospcDirection> autospc_;
  long long autospc_global_ = 0;
  std::vector<double> external_k_theta_, external_m_theta_; ///< term coefficients (external only)
  std::vector<std::size_t> k_rep_, m_rep_; ///< merged terms: the unmerged term each one's coefficient is
  double assembly_seconds_ = 0;
};

} // namespace flexuq::fe
