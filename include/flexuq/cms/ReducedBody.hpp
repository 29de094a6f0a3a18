// SPDX-License-Identifier: MIT
#pragma once
/// @file ReducedBody.hpp
/// @brief A reduced flexible body as a value: what `flexuq reduce` writes under `/reduced` and a
/// multibody code reads back (K̄, M̄, coordinate labels and kinds, inertia invariants, floating-frame
/// elastic coordinates, check-out). Replicated dense data only: no PETSc, no SLEPc, no FE types;
/// the basis vectors (`/reduced/basis`), the stress modes and the mesh stay in the file, read and
/// written through cms/BodyFile.hpp, which owns the layout documented in docs/hdf5-schema.md
/// (`/reduced`); cms/ReducedBodyBuild.hpp makes a ReducedBody from a reduction.

#include "flexuq/cms/Invariants.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace flexuq::io {
class H5File;
}

namespace flexuq::cms {

/// Model check-out of a reduced body (what a Nastran user expects of a CB model).
struct Checkout {
  Eigen::VectorXd rigid_residual;      ///< ‖Φξ_R − Φ_R‖_M / ‖Φ_R‖_M per rigid mode (6)
  Eigen::VectorXd rigid_energy;        ///< ξ_Rᵀ K̄ ξ_R / (λ_max(K̄,diag) ξ_Rᵀ diag(M̄) ξ_R): grounding (6)
  MassProperties full, reduced;
  Eigen::VectorXd full_hz, reduced_hz; ///< free-free elastic frequencies (Hz)
  Eigen::MatrixXd effective_mass;      ///< per normal-mode column × 6 (about the CoM), kg and kg·m²
  Eigen::VectorXd effective_fraction;  ///< Σ over the kept modes / total, per direction (6)
  std::vector<std::size_t> mode_columns; ///< the normal-mode columns (rows of effective_mass)
  /// Free body (the reduced pair has exactly 6 zero eigenvalues): its elastic free-free modes,
  /// VᵀM̄V = 1, and their eigenvalues, which are also the floating-frame elastic coordinates
  /// (cms::elastic_coordinates). Empty otherwise.
  Eigen::MatrixXd frame_V;
  Eigen::VectorXd frame_eigenvalues;
};

/// @brief The Ψ/Υ split of a body's basis (seed 002 eqs 92–96, cms/Superelement.hpp) as `flexuq reduce`
/// writes it (`/reduced/gs`): [Ψ Υ] = Φ S, Ψ the interface coordinates (Ψ_IP = 1, Υ_IP = 0), so
/// {q_IP; η} = S⁻¹ ξ. Empty S when not written; then @c refused says why when the split failed (empty
/// in files older than the split). cms/GsSplitBody.hpp turns a body into these coordinates.
struct GsSplitData {
  Eigen::MatrixXd S;                 ///< n × n (`/reduced/gs/S`)
  std::vector<std::string> labels;   ///< per split coordinate: the interface labels, then Υ̂'s column labels
  std::vector<std::int64_t> psi_hat; ///< the columns of Φ taken as Ψ̂ (n_b, 0-based)
  double psi_rcond = 0;              ///< σ_min/σ_max of the column-normalised Ψ̂_IP
  double rigid_residual = 0;         ///< M-norm residual of the rigid modes in the basis
  std::string refused;               ///< why the split was not made (`/reduced/gs/refused`)
  bool present() const { return S.size() > 0; }
};

/// @brief The `/reduced` group of a result file as one value (every rank holds all of it).
struct ReducedBody {
  std::string method;                       ///< attribute `method` (reduce.method spelling)
  std::string mode_interface = "fixed";     ///< attribute `mode_interface`: fixed, free or mixed
  Eigen::MatrixXd K, M;                     ///< K̄, M̄ (n × n)
  std::vector<std::string> dof_labels;      ///< per column
  std::vector<std::string> column_kinds;    ///< per column: boundary_dof, constraint_mode, …
  Eigen::VectorXd column_scale;             ///< per column (1 = unscaled)
  Eigen::VectorXd mode_eigenvalues;         ///< ω² of the kept normal modes
  std::vector<std::string> interface_labels; ///< boundary coordinates in canonical order
  /// RBE2/RBE3 interface (upper-case set name) → its reference point, the point the body's
  /// `REF <set>` coordinates move (`/reduced/interface_point_sets`, `/reduced/interface_points`).
  /// Empty in files written before these datasets existed: readers then take the set's centroid.
  std::map<std::string, std::array<double, 3>> interface_points;
  std::int64_t n_boundary = 0, physical_boundary = 0, dofs_per_node = 0;
  double basis_rcond = 0;
  std::map<std::string, Eigen::MatrixXd> diagnostics; ///< /reduced/diagnostics/<name>
  Invariants invariants;
  /// Check-out; its frame_V / frame_eigenvalues are `/reduced/floating_frame/{V, eigenvalues}`.
  Checkout checkout;
  /// The basis' Ψ/Υ split (`/reduced/gs`), when flexuq reduce made one.
  GsSplitData gs;

  Eigen::Index n_columns() const { return K.rows(); }
  /// Whether the body has floating-frame elastic coordinates (a free body, not MacNeal).
  bool has_floating_frame() const { return checkout.frame_V.size() > 0; }
  /// Invariants of Φ V (`/reduced/floating_frame/invariants`): S = Sr = 0, Mff = 1; use these with
  /// cms/FloatingFrame.hpp. Throws Error without floating-frame coordinates.
  Invariants frame_invariants() const;

  /// Write every `/reduced` dataset and attribute except `/reduced/basis` (the distributed basis,
  /// written by write_reduced_file): BodyFile::write_reduced. Same values from every rank.
  /// @note Collective on the file.
  void write(io::H5File& f) const;
  /// Read `/reduced` (no basis). Throws InputError naming the file and dataset when something is
  /// missing or has the wrong shape. @note Collective on the file.
  static ReducedBody read(const io::H5File& f);
  /// Open @p path read-only on @p comm and read it. @note Collective.
  static ReducedBody read(MPI_Comm comm, const std::string& path);
};

} // namespace flexuq::cms
