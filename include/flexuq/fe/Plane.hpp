// SPDX-License-Identifier: MIT
#pragma once
/// @file Plane.hpp
/// @brief Parameter-free matrices of the 2-D continuum elements quad4, quad8, tri3, tri6 (plane
/// stress and plane strain) and of the 2-node axial bar bar2: the pieces of the affine operators.
///
/// 2-D continuum elements (isoparametric, in the x-y plane, 2 DOFs per node: ux, uy; DOF order
/// (node a, component i) → 2a + i). Strains ε = (ε_xx, ε_yy, γ_xy) = B u, stiffness
/// K = t ∫ Bᵀ D B dA, consistent mass M = ρ t ∫ Nᵀ N dA, t the section's thickness. D splits
/// exactly into two parameter-free terms:
/// - plane stress (σ_zz = 0): D = E/(1−ν²)[1 ν 0; ν 1 0; 0 0 (1−ν)/2]
///   = E/(1−ν) · ½[1 1 0; 1 1 0; 0 0 0] + G · [1 −1 0; −1 1 0; 0 0 1]: K_0 for E/(1−ν), K_1 for G
///   (the coefficients of the shells' membrane part, fe/Shell.hpp);
/// - plane strain (ε_zz = 0): D = λ [1 1 0; 1 1 0; 0 0 0] + μ [2 0 0; 0 2 0; 0 0 1]: K_0 for λ,
///   K_1 for μ (the coefficients of the solids).
/// Shape functions: quad4 bilinear, quad8 serendipity (corners, then the mid-side nodes of edges
/// 1-2, 2-3, 3-4, 4-1), tri3 linear, tri6 quadratic (mid-sides of 1-2, 2-3, 3-1). Full integration:
/// quad4 2×2 and quad8 3×3 Gauss points, triangles the 6-point rule of degree 4 (Dunavant), which
/// integrates K and M of straight-sided elements exactly. Corners may run either way round (the
/// area element is |det J|); the sign of det J must not change inside the element.
///
/// bar2: axial stiffness and consistent mass of a 2-node bar, translations only, in @p dim = 2 or
/// 3 dimensions: K = E A/L (e eᵀ) ⊗ [1 −1; −1 1], M = ρ A L/6 [2 1; 1 2] ⊗ I_dim, e the unit vector
/// from node 1 to node 2. The matrices are laid out for @p dofs_per_node DOFs per node (2, 3 or 6;
/// the rotations of a 6-DOF node get nothing), so that a bar joins 2-D, solid and beam/shell meshes.
///
/// Throws InputError naming element @p label for a non-positive thickness or area, a degenerate
/// element (coincident nodes, zero area) and a folded or concave (det J changes sign) element.

#include "flexuq/fe/Element.hpp"

namespace flexuq::fe {

struct PlaneTerms {
  ElemMat K0; ///< stiffness for E/(1−ν) = 1 (plane stress) or λ = 1 (plane strain)
  ElemMat K1; ///< stiffness for G = 1 (plane stress) or μ = 1 (plane strain)
  ElemMat M1; ///< mass for ρ = 1
};
PlaneTerms plane_terms(io::ElementType type, const double* coords /* npe×3 row-major, z ignored */,
                       const io::PlaneSection& sec, long label);

/// Shape functions N (npe) and their natural derivatives dN (npe×2 row-major, ∂/∂ξ, ∂/∂η) of a 2-D
/// element at (ξ, η): quad4/quad8 on [−1, 1]², tri3/tri6 on the unit triangle (area coordinates
/// L2 = ξ, L3 = η).
void plane_shape_functions(io::ElementType type, double xi, double eta, double* N, double* dN);

struct BarTerms {
  ElemMat K_E; ///< stiffness for E = 1
  ElemMat M1;  ///< mass for ρ = 1
};
BarTerms bar_terms(const std::array<double, 3>& x1, const std::array<double, 3>& x2, double area, int dofs_per_node,
                   long label);

} // namespace flexuq::fe
