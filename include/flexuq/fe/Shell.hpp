// SPDX-License-Identifier: MIT
#pragma once
/// @file Shell.hpp
/// @brief Parameter-free matrices of the shell elements shell4 (MITC4) and shell3 (MITC3), so that
/// element K = E/(1−ν) K_A + G K_G and M = ρ M_1: the pieces of the affine operators.
///
/// Formulation (a degenerated continuum with a straight director, Dvorkin & Bathe 1984):
/// - geometry x(r,s,t) = Σ N_a(r,s) (X_a + t h/2 V_a), t ∈ [−1, 1], h the thickness, V_a the unit
///   normal of the element's own mid-surface at corner a (a warped shell4 has four different ones;
///   shell3 is flat). No offset: the nodes lie on the mid-surface;
/// - displacement u = Σ N_a (u_a + t h/2 θ_a × V_a), 6 DOFs per node (u, v, w, θx, θy, θz in basic
///   axes, the order of beam2), so a rigid motion u_a = c + ω × X_a, θ_a = ω strains nothing,
///   whatever the warping;
/// - covariant strains ε_ij = ½ (g_i·u,j + g_j·u,i) of the natural coordinates, the transverse
///   shear ones replaced by the MITC assumed fields (Bathe–Dvorkin, shell4: ε_rt tied at the edge
///   midpoints (0, ±1), ε_st at (±1, 0); Lee–Bathe MITC3, shell3: ε_rt = e1 + c s, ε_st = e2 − c r
///   tied to the tangential shear at the three edge midpoints), then rotated to an orthonormal
///   frame with e3 along the director; plane stress σ33 = 0;
/// - material: membrane and bending E/(1−ν²) [1 ν 0; ν 1 0; 0 0 (1−ν)/2] =
///   E/(1−ν) · ½[1 1 0; 1 1 0; 0 0 0] + G · [1 −1 0; −1 1 0; 0 0 1], transverse shear κ G with
///   κ = ShellSection::shear_ratio; bending_ratio scales the part of the in-plane strains that
///   varies through the thickness (Nastran's 12I/T³). The split is exact for any ν, so K is affine
///   in (E/(1−ν), G) and a sampled ν needs no re-assembly;
/// - integration: shell4 2×2 Gauss points in plane, shell3 the 3-point rule of degree 2, both × 2
///   Gauss points through the thickness (exact for the flat element's stiffness and mass);
/// - drilling: the rotation about the normal has no stiffness of its own in this theory. A
///   Hughes–Brezzi-type penalty ties it to the in-plane rotation of the mid-surface,
///   ½ α G h ∫ (θ·n − ½ (∂u₂/∂x₁ − ∂u₁/∂x₂))² dA with α = kShellDrilling (10⁻⁴) at the in-plane
///   Gauss points (n and x₁, x₂ the true tangent frame of the mid-surface), in the G term. It
///   vanishes for every rigid motion, so a free shell keeps exactly 6 zero-energy modes, and it adds
///   no stiffness to the flat plate's bending;
/// - mass: consistent, ρ ∫ uᵀu dV of the displacement above (translations ρh, rotary inertia
///   ρh³/12 about the in-plane axes), plus α ρh³/12 about the normal: the drilling rotation has no
///   inertia in this theory; this keeps M positive definite and puts the drilling modes near the
///   thickness-shear frequency √(12G/ρ)/h, above the shell's spectrum (with ρh³/12 they would fall
///   at about √(12αG/ρ)/h, 1.8 kHz for 10 mm of steel). Nonstructural mass (ShellSection::nsm) is
///   not included here: see shell_area_mass.
/// DOF order (node a, component c) → 6a + c.
/// Throws InputError naming element @p label for a non-positive thickness, a degenerate element
/// (coincident corners, zero area) or a concave or folded quadrilateral.

#include "flexuq/fe/Element.hpp"

namespace flexuq::fe {

/// Drilling penalty factor α (see above).
inline constexpr double kShellDrilling = 1e-4;

struct ShellTerms {
  ElemMat K_A; ///< stiffness for E/(1−ν) = 1 (membrane and bending, volumetric part)
  ElemMat K_G; ///< stiffness for G = 1 (in-plane deviatoric part, transverse shear, drilling)
  ElemMat M1;  ///< mass for ρ = 1
};
ShellTerms shell_terms(io::ElementType type, const double* coords /* npe×3 row-major */, const io::ShellSection& sec,
                       long label);

/// ∫ N_a N_b dA on the translations (6npe × 6npe, zero on the rotations): the element's mass for a
/// unit mass per area, e.g. nsm · shell_area_mass for a nonstructural mass.
ElemMat shell_area_mass(io::ElementType type, const double* coords, long label);

} // namespace flexuq::fe
