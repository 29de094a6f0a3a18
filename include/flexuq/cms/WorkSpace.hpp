// SPDX-License-Identifier: MIT
#pragma once
/// @file WorkSpace.hpp
/// @brief Interfaces of a component for component-mode synthesis, and the "working" DOF space the
/// reduction runs in: the component's free DOFs, except that
///  - the nodes of every RBE2 interface are replaced by the 6 DOFs of its reference node (rigid
///    multipoint constraint q_b = T u_ref);
///  - every RBE3 interface adds the 6 DOFs of its reference node, whose motion is the weighted
///    least-squares average of the set's translations, u_ref = W u_set with
///    W = (Σ w_i S_iᵀS_i)⁻¹ [w_1 S_1ᵀ … w_n S_nᵀ], S_i = [1 | −(x_i − x_ref)~] (Nastran's RBE3 with
///    connected components 123). The set's nodes stay free; 6 of their DOFs (picked by column-pivoted
///    QR of W) are eliminated, u_m = W_m⁻¹(u_ref − W_r u_r), so that the constraint holds exactly and
///    adds no stiffness.
/// A 2-D component (2 DOFs per node) takes all-DOF interfaces only, and has 3 rigid-body motions
/// (rigid_count); its rigid modes are still listed as 6 (tz, rx, ry vanish on it).
/// Both are applied by congruence K_w = T̂ᵀ K T̂, M_w = T̂ᵀ M T̂. Boundary coordinates (b) are listed in
/// a canonical, partition-independent order: interfaces as given, nodes by input order, components
/// in order.

#include "flexuq/core/Handle.hpp"
#include "flexuq/fe/Component.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::cms {

enum class InterfaceKind { all_dofs, rbe2, rbe3 };

struct InterfaceSpec {
  std::string set;                          ///< node set name
  InterfaceKind kind = InterfaceKind::all_dofs;
  std::optional<std::array<double, 3>> ref; ///< RBE2/RBE3 reference point (default: the set's centroid)
  std::vector<double> weights;              ///< RBE3 weights: empty or one value (uniform), or one per node in the set's order
};

/// One boundary coordinate: a node DOF of an all-DOF interface or a DOF of an RBE2/RBE3 reference node.
struct BoundaryDof {
  int interface = 0;   ///< index into the interface list
  int node = -1;       ///< internal node index, −1 for a reference DOF
  int component = 0;   ///< 0..2 translations, 3..5 rotations
  PetscInt work = 0;   ///< index in the working space
  std::string label;   ///< "JOURNAL_END node 123 ux" or "REF PIN_END rz"
};

/// Component name: ux uy uz rx ry rz.
const char* component_name(int k);

/// @brief The working space, the b/i partition and the rigid-body modes in it.
class WorkSpace {
public:
  /// @note Collective. Throws InputError for unknown/empty/overlapping sets, fixed interface nodes,
  /// bad RBE3 weights and RBE3 sets whose nodes cannot determine the reference rotations.
  WorkSpace(const fe::Component& c, const std::vector<InterfaceSpec>& interfaces);

  const fe::Component& component() const { return *comp_; }
  MPI_Comm comm() const { return comp_->comm(); }
  /// Working operators (the component's own K, M when there is no RBE2 interface).
  Mat K() const { return Kw_ ? Kw_.get() : comp_->K(); }
  Mat M() const { return Mw_ ? Mw_.get() : comp_->M(); }
  bool transformed() const { return static_cast<bool>(T_); }
  /// Recompute the working K, M by congruence after the component's K, M changed values (same
  /// pattern, e.g. fe::MaterialParametrisation::apply): the interface maps and T̂ are kept, and so
  /// are the Mat objects K() and M() (their nonzero pattern too), so that solvers set up on them
  /// (or on submatrices of them) redo only numeric work. The first call keeps the symbolic product
  /// T̂ᵀ·T̂ (one copy of the component's pattern and one of the working one); later calls redo the
  /// numeric product only. A space without RBE2/RBE3 interfaces uses the component's matrices
  /// directly (nothing to do). @note Collective.
  void refresh_operators();
  /// T̂ᵀ A T̂ for a matrix @p A on the component's DOFs with any nonzero pattern (e.g. one term of an
  /// expansion of K); a copy of @p A when there is no RBE2/RBE3 interface. @note Collective.
  MatH to_working(Mat A) const;
  /// Physical (component) vector from a working vector: x = T̂ w. @note Collective.
  VecH to_physical(Vec w) const;
  /// A new working vector (zeroed).
  VecH new_vector() const;

  const std::vector<InterfaceSpec>& interfaces() const { return specs_; }
  const std::vector<BoundaryDof>& boundary() const { return bdofs_; }
  std::size_t n_boundary() const { return bdofs_.size(); }
  /// Owned boundary / interior working DOFs (global indices). is_b lists the owned boundary
  /// coordinates in canonical order; their position in the concatenation over ranks is b_pos().
  IS is_b() const { return is_b_.get(); }
  IS is_i() const { return is_i_.get(); }
  /// Row of canonical boundary coordinate k in matrices built with is_b (e.g. K_ib's columns).
  PetscInt b_pos(std::size_t k) const { return b_pos_[k]; }
  int dofs_per_node() const { return dpn_; }
  /// The number of rigid-body motions of the component: 6, or 3 for a 2-D component (2 DOFs per
  /// node: tx, ty and rz; fe/Plane.hpp).
  int rigid_count() const { return dpn_ == 2 ? 3 : 6; }
  /// The columns of the 6 rigid modes (tx ty tz rx ry rz) that are motions of the component, as a
  /// 6 × rigid_count() selection: the identity, or e_tx, e_ty, e_rz in 2-D.
  Eigen::MatrixXd rigid_selection() const;
  /// True when single-component supports (fe::DofMap::has_partly_fixed: a symmetry plane, a roller)
  /// restrain some of the component's rigid motions: the free-interface methods then use the
  /// motions() the supports leave instead of the rigid_count() of a free component.
  bool supported() const { return supported_; }
  /// The rigid motions the supports leave free, 6 × motion_count() (about the origin, like
  /// rigid_modes): the combinations Φ_R Z of rigid_selection()'s motions that vanish at every fixed
  /// DOF (rigid_null_space of their rigid-mode rows), or rigid_selection() itself when !supported().
  const Eigen::MatrixXd& motions() const { return motions_; }
  int motion_count() const { return static_cast<int>(motions_.cols()); }
  /// The rigid mode (0..5: tx … rz) each column of motions() is normalised on.
  const std::vector<int>& motion_picks() const { return picks_; }
  /// Working index of DOF @p k of node @p n (−1 for a fixed DOF or one eliminated by an RBE2/RBE3
  /// constraint). Not collective.
  PetscInt work_index(int n, int k) const {
    const PetscInt g = comp_->dofs().dof(n, k);
    return g < 0 || removed(g) ? -1 : work_of(g);
  }
  /// The RBE3 averaging matrix of interface @p s (6 × 3n, columns: the set's nodes in ascending
  /// internal order, components x, y, z), empty for other kinds. Replicated.
  const Eigen::MatrixXd& rbe3_matrix(std::size_t s) const { return rbe3_W_[s]; }
  /// Nodes of interface @p s, ascending internal index.
  const std::vector<int>& interface_nodes(std::size_t s) const { return nodes_[s]; }
  /// Reference point of an RBE2/RBE3 interface.
  const std::array<double, 3>& reference_point(std::size_t s) const { return refpt_[s]; }
  /// A statically determinate set: 6 working DOFs whose rigid-mode rows form an invertible 6×6
  /// matrix, picked by column-pivoted QR among the boundary coordinates (@p boundary_only) or among
  /// the boundary coordinates and a sample of nodes spread over the mesh. Fewer than 6 entries are
  /// returned when the candidates cannot determine the rigid motion. Not collective.
  std::vector<BoundaryDof> determinate_set(bool boundary_only, double* rcond = nullptr) const;

  /// The 6 geometric rigid-body modes in the working space (translations x, y, z; rotations about
  /// the axes through @p center): u = t + θ × (x − center), nodal rotations θ. @note Collective.
  std::vector<VecH> rigid_modes(const std::array<double, 3>& center = {0, 0, 0}) const;
  /// Rows of the rigid modes at the boundary coordinates, canonical order (n_b × 6), replicated.
  Eigen::MatrixXd rigid_boundary_rows(const std::array<double, 3>& center = {0, 0, 0}) const;
  /// Gives each vector of @p vs its canonical sign (docs/cms.md, "Canonical signs"): the entry of
  /// largest magnitude positive, where entries within kSignTie of that magnitude tie and the tie goes
  /// to the entry at the smallest position (x, then y, then z; then the lowest component). A rule of
  /// the geometry: independent of the DOF order, the partition and the eigensolver's round-off (a
  /// mode antisymmetric about a symmetry plane has two largest entries of equal magnitude and
  /// opposite signs, which round-off alone would order). @note Collective.
  void canonical_sign(const std::vector<VecH>& vs) const;
  static constexpr double kSignTie = 1e-6;
  /// Gives each degenerate multiplet of @p vs (M-orthonormal modes, consecutive, eigenvalues
  /// @p lambda within kMultipletTol of each other: a symmetric part's pairs) its canonical basis
  /// (docs/cms.md): V_J ← V_J Q, G = V_Jᵀ M W_J = Q R with diag(R) > 0, W_J the first m probe fields
  /// (cms::probe_field, the stochastic reference's). Q is independent of the basis the eigensolver
  /// returned inside the multiplet's span (V_J U gives UᵀG = (UᵀQ) R). Other modes are left as they
  /// are. @note Collective.
  void canonical_multiplets(const std::vector<VecH>& vs, const std::vector<double>& lambda) const;
  static constexpr double kMultipletTol = 1e-10;

private:
  const fe::Component* comp_;
  std::vector<InterfaceSpec> specs_;
  int dpn_ = 3;
  bool supported_ = false;
  Eigen::MatrixXd motions_; ///< see motions()
  std::vector<int> picks_;
  std::vector<BoundaryDof> bdofs_;
  std::vector<PetscInt> b_pos_;
  IsH is_b_, is_i_;
  MatH T_, Kw_, Mw_;
  /// refresh_operators: a matrix with the component's pattern (K's, then M's values are copied in)
  /// and its product T̂ᵀAT̂ with the product's symbolic data, kept for numeric-only refreshes. When
  /// K and M have different patterns: C_ = T̂ᵀKT̂ and CM_ = T̂ᵀMT̂ as products of the component's
  /// own matrices (A_ unused).
  MatH A_, C_, CM_;
  PetscInt wbegin_ = 0, wend_ = 0, wglobal_ = 0;
  /// Per owned working DOF: position and component (0..5), for the rigid modes.
  std::vector<std::array<double, 3>> pos_;
  std::vector<int> comp_of_;
  std::vector<char> removed_node_;   ///< per node: all DOFs eliminated (RBE2)
  std::vector<PetscInt> removed_dofs_; ///< eliminated global DOFs (RBE2 nodes, RBE3 m-DOFs), sorted
  std::vector<std::vector<int>> nodes_;
  std::vector<std::array<double, 3>> refpt_;
  std::vector<Eigen::MatrixXd> rbe3_W_;
  PetscInt work_of(PetscInt g) const;
  void congruence(); ///< Kw_, Mw_ = T̂ᵀ K T̂, T̂ᵀ M T̂ from the component's current K, M
  bool removed(PetscInt g) const { return std::binary_search(removed_dofs_.begin(), removed_dofs_.end(), g); }
  /// Per boundary coordinate: position (node coordinate or reference point).
  std::vector<std::array<double, 3>> bpos_;
};

/// Row of the rigid-body modes (6 entries) for a DOF of component @p k at point @p x.
Eigen::Matrix<double, 1, 6> rigid_row(const std::array<double, 3>& x, int k, const std::array<double, 3>& center);

/// Rigid motions Φ_R Z that vanish at some DOFs: Z (6 × n) spans the combinations of the motions
/// @p base (6 × m, columns in tx … rz coefficients about the origin) whose rigid-mode rows @p rows
/// (r × 6, about the origin) give 0, n = m − rank(rows · base); the rank test scales rotations to a
/// unit lever arm (singular values below 1e-10 of the largest are zero). Column j is normalised on
/// rigid mode picks[j]: Z(picks[j], j) = 1, Z(picks[i], j) = 0 for i ≠ j (picks ascending, rotations
/// preferred; a line or a single node leaves rotations about it). Not collective.
struct RigidNull {
  Eigen::MatrixXd Z;
  std::vector<int> picks;
};
RigidNull rigid_null_space(const Eigen::MatrixXd& rows, const Eigen::MatrixXd& base);

} // namespace flexuq::cms
