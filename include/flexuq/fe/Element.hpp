// SPDX-License-Identifier: MIT
#pragma once
/// @file Element.hpp
/// @brief Parameter-free element matrices, so that element K = λ K_λ + μ K_μ (solids) or
/// E K_E + G K_G (beams) and M = ρ M_1: the pieces of the affine operators.

#include "flexuq/io/Mesh.hpp"

#include <Eigen/Dense>

#include <array>

namespace flexuq::fe {

using ElemMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Solid element (tet4, tet10, penta6, penta15, hex8, hex20), DOF order (node a, component i) → 3a+i.
/// K_λ[(a,i),(b,j)] = ∫ ∂_i N_a ∂_j N_b, K_μ[(a,i),(b,j)] = ∫ (δ_ij ∇N_a·∇N_b + ∂_j N_a ∂_i N_b),
/// M_1[(a,i),(b,j)] = δ_ij ∫ N_a N_b. Full Gauss integration: hex8 2³, hex20 3³ points; tet4 and
/// tet10 the 14-point degree-5 rule (consistent mass exact on straight-sided tets).
/// Throws InputError if the Jacobian determinant is not positive at a quadrature point (inverted
/// or badly distorted element), naming the element label.
struct SolidTerms {
  ElemMat K_lambda, K_mu, M1;
};
SolidTerms solid_terms(io::ElementType type, const double* coords /* npe×3 row-major */, long label);

/// J_{dk} = ∂x_k/∂ξ_d of a solid element from the natural derivatives @p dN (npe×3) of its shape
/// functions at a point and its node coordinates @p coords (npe×3 row-major); physical gradients
/// are J⁻¹ ∂N/∂ξ. Throws InputError naming element @p label if det J ≤ 0.
Eigen::Matrix3d solid_jacobian(io::ElementType type, const double* dN, const double* coords, long label);

/// Two-node 3-D Euler–Bernoulli frame element (seed 000 App. E.1 as in the digest), 6 DOF per node
/// (u, v, w, θx, θy, θz), global axes. K_E holds axial and bending (E = 1), K_G torsion (G = 1),
/// M_1 the mass for ρ = 1:
/// - consistent (BeamSection::CoupledMass::consistent, the default): axial A L/6 [2 1; 1 2],
///   torsional inertia I_x L/6 [2 1; 1 2] with I_x = I11 + I22, cubic-Hermite bending
///   A L/420 [156 22L 54 −13L; …] in both planes, no rotary inertia (Nastran's coupled CBEAM mass);
/// - CoupledMass::nastran_cbar: Nastran's coupled CBAR mass, the same bending, axial
///   A L/12 [5 1; 1 5], no torsional inertia;
/// - BeamSection::lumped_mass: A L / 2 on each node's translations, nothing on rotations
///   (Nastran's default CBAR/CBEAM/CROD mass, PARAM,COUPMASS,-1). A "ROD" section (CROD)
/// has I11 = I22 = 0 (axial and torsion only) and as consistent mass the linear ρAL/6 [2 1; 1 2] on
/// each translation without torsional inertia (Nastran's coupled CROD mass).
///
/// Offsets (io::BeamSection::offset_a/b): the matrices above at the offset points, then
/// K ← Wᵀ K W with the rigid link W = diag(W_a, W_b), W_x = [[I, −skew(offset_x)], [0, I]].
/// Releases (release_a/b): the released local DOFs c are condensed out, u_c = −K_cc⁻¹ K_cr u_r
/// with K = K_E + K_G (block-diagonal between axial/bending and torsion, so the condensation is
/// the same for any E and G and the terms stay affine): K_E ← Cᵀ K_E C, K_G ← Cᵀ K_G C and
/// M_1 ← Cᵀ M_1 C (the mass of the condensed shape); a release that leaves a rigid motion of the
/// beam free (K_cc singular) throws InputError naming @p label.
/// M_nsm: the mass of a nonstructural mass of 1 per length (io::BeamSection::nsm), translations
/// only, lumped or coupled like M_1, with the same offsets and condensation; empty when nsm == 0.
struct BeamTerms {
  ElemMat K_E, K_G, M1, M_nsm;
};
BeamTerms beam_terms(const std::array<double, 3>& x1, const std::array<double, 3>& x2, const io::BeamSection& sec,
                     long label);

/// Shape functions and natural derivatives at a point (exposed for tests).
void shape_functions(io::ElementType type, const std::array<double, 3>& xi, double* N, double* dN /* npe×3 */);
/// Natural coordinates of the element's nodes (exposed for tests).
std::vector<std::array<double, 3>> reference_nodes(io::ElementType type);

} // namespace flexuq::fe
