// SPDX-License-Identifier: MIT
#pragma once
/// @file ReducedBody.hpp
/// @brief What a multibody code needs from a reduced flexible body: floating-frame invariants
/// (Shabana's inertia shape integrals, body frame = mesh frame, origin O), the model check-out a
/// Nastran user expects of a CB model, and the result file (`/reduced`, docs/hdf5-schema.md).

#include "flexuq/cms/Reduction.hpp"

#include <Eigen/Dense>

#include <array>
#include <string>
#include <vector>

namespace flexuq::cms {

/// Inertia invariants of u = x₀ + Φ ξ (Φ: the basis, n columns), integrals over the body with ρ.
struct Invariants {
  double mass = 0;                 ///< I1 = ∫ρ dV
  Eigen::Vector3d com;             ///< I2 / m = ∫ρ x₀ dV / m
  Eigen::Matrix3d inertia_origin;  ///< J_O = ∫ρ (|x₀|² 1 − x₀x₀ᵀ) dV (+ nodal rotary inertia of beams)
  Eigen::Matrix3d inertia_com;     ///< J_C = J_O − m(|c|² 1 − c cᵀ)
  Eigen::MatrixXd S;               ///< I3 = ∫ρ Φ dV (3 × n): M_rf translational block
  Eigen::MatrixXd Sr;              ///< I4 = ∫ρ x̃₀ Φ dV (3 × n): M_rf rotational block at ξ = 0
  std::array<Eigen::MatrixXd, 9> Skl;  ///< I5 = ∫ρ Φ_kᵀ Φ_l dV (n × n), k,l = x,y,z, index 3k+l
  Eigen::MatrixXd Sbar;            ///< I6 = ∫ρ x₀_k Φ_l dV (9 × n), row 3k+l
  Eigen::Matrix3d Ikl;             ///< I7 = ∫ρ x₀_k x₀_l dV
  Eigen::MatrixXd Mff;             ///< ΦᵀMΦ
  bool lumped = false;             ///< beams: I5–I7 with lumped translational nodal masses
};

/// @note Collective. Solids: exact with the consistent mass (M = M_s ⊗ 1₃). Beams: I5–I7 from the
/// lumped translational masses (row sums), the rest exact.
Invariants compute_invariants(const WorkSpace& ws, const ReducedBasis& rb);
/// The general path (one mass application per column and component, lifted into slot 0), used for
/// beams; for solids it gives the same numbers as compute_invariants and serves as its test oracle.
/// @note Collective.
Invariants compute_invariants_by_lifting(const WorkSpace& ws, const ReducedBasis& rb);

/// Mass properties from a 6×6 rigid-body mass matrix about O.
struct MassProperties {
  double mass = 0;
  Eigen::Vector3d com;
  Eigen::Matrix3d inertia_com;
};
MassProperties mass_properties(const Eigen::Matrix<double, 6, 6>& Mrr);

struct Checkout {
  Eigen::VectorXd rigid_residual;      ///< ‖Φξ_R − Φ_R‖_M / ‖Φ_R‖_M per rigid mode (6)
  Eigen::VectorXd rigid_energy;        ///< ξ_Rᵀ K̄ ξ_R / (λ_max(K̄,diag) ξ_Rᵀ diag(M̄) ξ_R): grounding (6)
  MassProperties full, reduced;
  Eigen::VectorXd full_hz, reduced_hz; ///< free-free elastic frequencies (Hz)
  Eigen::MatrixXd effective_mass;      ///< per normal-mode column × 6 (about the CoM), kg and kg·m²
  Eigen::VectorXd effective_fraction;  ///< Σ over the kept modes / total, per direction (6)
  std::vector<std::size_t> mode_columns;
  /// Free body (the reduced pair has exactly 6 zero eigenvalues): its elastic free-free modes,
  /// VᵀM̄V = 1, and their eigenvalues, which are also the floating-frame elastic coordinates
  /// (cms::elastic_coordinates). Empty otherwise.
  Eigen::MatrixXd frame_V;
  Eigen::VectorXd frame_eigenvalues;
};

/// @param free_free number of full-model free-free elastic modes to compare (0: skip; costs one
/// factorization of the free component). @note Collective.
Checkout checkout(Reducer& r, const ReducedBasis& rb, int free_free);
std::string checkout_summary(const ReducedBasis& rb, const Checkout& c);

/// Write /reduced (K, M, labels, basis, invariants, checkout), /mesh and an .xdmf. @note Collective.
void write_reduced_file(const std::string& path, const WorkSpace& ws, const ReducedBasis& rb, const Invariants& inv,
                        const Checkout& chk, const std::vector<std::pair<std::string, double>>& phase_seconds);
/// <prefix>_K.mtx and <prefix>_M.mtx (MatrixMarket, dense array, symmetric). Rank 0 writes.
void write_matrix_market(MPI_Comm comm, const std::string& prefix, const ReducedBasis& rb);

} // namespace flexuq::cms
