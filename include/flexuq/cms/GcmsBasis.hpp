// SPDX-License-Identifier: MIT
#pragma once
/// @file GcmsBasis.hpp
/// @brief The generalized component mode synthesis (GCMS) reduction basis of seed 001 §2.2 in its
/// compact Kronecker form Φ = B ⊗ I₃, B = [1 | x₁ x₂ x₃ | ¹ψ₁ ¹ψ₂ ¹ψ₃ | ²ψ₁ … ] (n_nodes × (4 + 3 n_m)).
///
/// Column c of Φ is field j = c / 3 of B times the unit vector e_l, l = c % 3, so the column order
/// is exactly [Φ_t Φ_r Φ_f] with index l + 3(k−1) + 9(m−1) inside each block (seed-001 Eq. 24).
/// Rows of B are nodes, split over the ranks of an explicit communicator (each rank holds the rows of
/// its own nodes); row (node i, direction l) of Φ is 3i + l (node-major).

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Handle.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::fe {
class Component;
}

namespace flexuq::cms {

/// What a column of B (a "field") is: the constant 1, a coordinate x_k, or component k of mode m.
enum class GcmsFieldKind { translation, rotation, flexible };

struct GcmsField {
  GcmsFieldKind kind = GcmsFieldKind::flexible;
  int k = 0;     ///< coordinate / mode component 0..2 (rotation, flexible)
  int mode = 0;  ///< 1-based mode number (flexible)
  double scale = 1.0;        ///< factor applied since construction (column scaling)
  bool orthogonalized = false; ///< replaced by its shortened Gram–Schmidt output
  /// "t", "r_x", "f3_z" (mode 3, component z); a column label appends the direction: "f3_zx".
  std::string label() const;
};

/// Label of column (field, direction l = 0..2): "t_x", "r_xy", "f3_zx".
std::string column_label(const GcmsField& f, int l);

/// @brief Φ = B ⊗ I₃ with the generating data (node coordinates, ψ^m as n_nodes × 3) kept beside B.
/// Structural edits (removing or scaling fields, replacing flexible fields) act on whole fields, i.e.
/// on l-triples of Φ, so the Kronecker structure (and Eq. 43) survives every preconditioning step.
class GcmsBasis {
public:
  /// From node data of this rank's nodes: @p coords (n_local × 3), one n_local × 3 block per mode.
  /// @p origin: body-frame origin subtracted from the coordinates (default: the global nodal centroid).
  /// @note Collective on @p comm.
  GcmsBasis(MPI_Comm comm, const Eigen::MatrixXd& coords, const std::vector<Eigen::MatrixXd>& modes,
            const std::optional<std::array<double, 3>>& origin = std::nullopt);

  /// From a free-free solid component and its mode vectors (component DOF layout). Rows are the
  /// component's owned nodes, so column vectors and products come back in the component's layout.
  /// With @p unit_norm every mode is first scaled to unit Euclidean norm (seed-001 §5 convention).
  /// Throws InputError for a component with fixed nodes or with beam elements (6 DOF per node).
  /// @note Collective.
  static GcmsBasis from_component(const fe::Component& c, const std::vector<Vec>& modes, bool unit_norm,
                                  const std::optional<std::array<double, 3>>& origin = std::nullopt);

  MPI_Comm comm() const { return comm_.get(); }
  long long num_nodes() const { return n_global_; }
  int num_local_nodes() const { return static_cast<int>(B_.rows()); }
  int num_modes() const { return static_cast<int>(modes_.size()); }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  int num_columns() const { return 3 * num_fields(); }
  /// Fields of each kind currently in the basis.
  int num_flexible_fields() const;
  const std::vector<GcmsField>& fields() const { return fields_; }
  std::vector<std::string> column_labels() const;
  /// Indices (into fields()) of the flexible fields, in basis order.
  std::vector<int> flexible_fields() const;
  std::array<double, 3> origin() const { return origin_; }

  /// Local rows of B (this rank's nodes × fields).
  const Eigen::MatrixXd& local_fields() const { return B_; }
  /// Local rows of S (the flexible fields only), in basis order.
  Eigen::MatrixXd local_flexible() const;
  /// Generating data: coordinates relative to origin(), and mode m (0-based) as n_local × 3.
  const Eigen::MatrixXd& local_coords() const { return X_; }
  const Eigen::MatrixXd& local_mode(int m) const { return modes_.at(static_cast<std::size_t>(m)); }

  /// @name Products without forming Φ.
  /// @{
  /// Local rows of Φ q (3 n_local, node-major). Not collective.
  Eigen::VectorXd apply(const Eigen::VectorXd& q) const;
  /// Φᵀ y for the local rows @p y_local (3 n_local); the result is the same on every rank. @note Collective.
  Eigen::VectorXd apply_transpose(const Eigen::VectorXd& y_local) const;
  /// BᵀB (Φᵀ Φ = BᵀB ⊗ I₃); the same on every rank. @note Collective.
  Eigen::MatrixXd field_gram() const;
  /// Euclidean norm of each field (= of each of its three Φ columns). @note Collective.
  Eigen::VectorXd field_norms() const;
  /// @}

  /// Local rows of the explicit Φ (3 n_local × 3 n_fields). Not collective.
  Eigen::MatrixXd local_matrix() const;
  /// Φ as a PETSc MATDENSE, rows distributed like the basis (component DOF layout when built from
  /// a component). @note Collective.
  MatH materialize() const;
  /// Column @p c of Φ as a distributed Vec (component DOF layout when built from a component).
  /// @note Collective.
  VecH column(int c) const;
  /// Φ q as a distributed Vec. @note Collective.
  VecH apply_vec(const Eigen::VectorXd& q) const;

  /// @name Edits on whole fields (l-triples).
  /// @{
  /// Remove fields by index; only flexible fields may be removed (InputError otherwise).
  void remove_fields(std::vector<int> idx);
  /// Multiply field @p j by @p s (rotation fields may not be scaled: seed-001 §2.6).
  void scale_field(int j, double s);
  /// Replace the local values of flexible field @p j (e.g. by its Gram–Schmidt output).
  void set_field_values(int j, const Eigen::VectorXd& local_values, bool orthogonalized);
  /// Replace the generating modes @p modes (0-based) by the combinations
  /// new_i = Σ_j old_j · R(j, i) (R is d × d, d = modes.size()) and rebuild their fields (times any
  /// scale applied so far). Fields already removed stay removed; a field replaced by its Gram–Schmidt
  /// output is an InputError (rotate before orthogonalising). Not collective.
  void rotate_modes(const std::vector<int>& modes, const Eigen::MatrixXd& R);
  /// @}

private:
  GcmsBasis(MPI_Comm comm);
  void build_fields();
  Comm comm_;
  long long n_global_ = 0;
  std::array<double, 3> origin_{0, 0, 0};
  Eigen::MatrixXd X_;                  ///< local coordinates relative to origin_
  std::vector<Eigen::MatrixXd> modes_; ///< generating ψ^m blocks (n_local × 3)
  Eigen::MatrixXd B_;
  std::vector<GcmsField> fields_;
  // Row layout of Φ: local row (node r, direction l) has local index row_offset_[r] + l in a
  // Vec of local size local_size_ and global size global_size_ starting at row_begin_.
  std::vector<PetscInt> row_offset_;
  PetscInt local_size_ = 0, global_size_ = 0, row_begin_ = 0;
};

/// Proper rotational coordinates q_r* from q_r (seed-001 §2.3): Q_r is filled row-wise, the columns
/// d_k = q_r[3k..3k+2] + e_k of (Q_r + I)ᵀ are orthonormalised by Gram–Schmidt and q_r* = d_k* − e_k.
std::array<double, 9> proper_rotation_coordinates(const std::array<double, 9>& q_r);

} // namespace flexuq::cms
