// SPDX-License-Identifier: MIT
#pragma once
/// @file Subspace.hpp
/// @brief Comparing modes and subspaces: the modal assurance criterion (Allemang and Brown, 1982),
/// cosines of principal angles, and the orthogonal Procrustes alignment of one multiplet's basis to
/// a reference (Schönemann, 1966). All on small dense inner-product matrices: the caller forms the
/// (mass-weighted, distributed) inner products, e.g. with la::project or a DGEMM + reduction.

#include <Eigen/Dense>

namespace flexuq::la {

/// MAC(a, b) = (aᵀb)² / ((aᵀa)(bᵀb)) of two vectors in the Euclidean inner product; 0 if either
/// vanishes. Invariant to scaling and sign of either vector.
double mac(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

/// MAC matrix from inner products: MAC_ij = C_ij² / (a_i b_j), with C_ij = ⟨φ_i, ψ_j⟩ and the
/// squared norms a_i = ⟨φ_i, φ_i⟩, b_j = ⟨ψ_j, ψ_j⟩ in the same inner product; 0 where a norm
/// vanishes.
Eigen::MatrixXd mac_matrix(const Eigen::MatrixXd& C, const Eigen::VectorXd& a, const Eigen::VectorXd& b);

/// Cosines of the principal angles between span(Φ) and span(Ψ), descending, from the cross
/// inner products C = ⟨Φ, Ψ⟩ of two bases orthonormal in that inner product: the singular values of
/// C (min(rows, cols) of them, clamped to [0, 1]). Equal subspaces give all ones.
Eigen::VectorXd principal_cosines(const Eigen::MatrixXd& C);

/// Orthogonal Procrustes for one multiplet: with C_JS = ⟨Φ_J, Φ_S⟩ (reference modes J, the sample
/// modes S chosen for them, both orthonormal), R = V Uᵀ from C_JS = U Σ Vᵀ minimises
/// ‖Φ_S R − Φ_J‖: Φ_S R is the sample's subspace expressed in the reference basis (for a single
/// mode, R is its sign). Size |S| × |J|.
Eigen::MatrixXd procrustes_rotation(const Eigen::MatrixXd& C_js);

} // namespace flexuq::la
