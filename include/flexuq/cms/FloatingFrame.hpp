// SPDX-License-Identifier: MIT
#pragma once
/// @file FloatingFrame.hpp
/// @brief Floating-frame equations of motion of a reduced flexible body, evaluated from its
/// inertia invariants (I1–I7, Mff of `Invariants`): generalized mass M(ξ), quadratic-velocity
/// vector Q_v, gravity force and kinetic energy. Pure dense algebra on replicated data (no MPI, no
/// PETSc/SLEPc in this header: a multibody code includes it with cms/ReducedBody.hpp alone).
///
/// Formulation (docs/cms.md, "Floating-frame invariants"):
/// - Body frame = mesh frame: origin O, mesh axes, no mean-axis condition. A rotates body-frame
///   components to inertial ones; a material point is at r = r_O + A x, x = x₀ + Φξ.
/// - Everything is expressed in the body frame: ω is the body-frame angular velocity (Ȧ = A ω̃),
///   v_O = Aᵀṙ_O is the velocity of O and a_O = Aᵀr̈_O its *inertial* acceleration, both with
///   body-frame components. (a_O = v̇_O + ω × v_O; with a_O as the unknown no ω × v_O term appears.)
/// - Body-frame velocity and acceleration of a material point:
///     Aᵀṙ = v_O + ω × x + Φξ̇ = J v,         J = [1, −x̃, Φ],  v = [v_O; ω; ξ̇]  (6 + n),
///     Aᵀr̈ = a_O + ω̇ × x + Φξ̈ + ω × (ω × x) + 2 ω × Φξ̇ = J [a_O; ω̇; ξ̈] + g_v.
/// - Virtual work with δ(body-frame displacement) = J [Aᵀδr_O; δπ; δξ] gives
///     M(ξ) [a_O; ω̇; ξ̈] = Q_v(ξ, ξ̇, ω) + Q_ext − [0; 0; K̄ξ]      (+ damping, if any: −[0; 0; D̄ξ̇])
///   with M(ξ) = ∫ρ JᵀJ dV, Q_v = −∫ρ Jᵀ g_v dV and Q_ext = Σ J(x_p)ᵀ f_p for forces f_p (body-frame
///   components) at points x_p; the rotational rows are moments about O in the body frame.
///   The same M(ξ) gives the kinetic energy T = ½ vᵀ M(ξ) v.
/// - Blocks, with s = ∫ρ x dV = m c + Sξ and I′ = ∫ρ x xᵀ dV:
///     M_rr = m 1, M_rθ = −s̃, M_rf = S, M_θθ = J(ξ) = J_O + tr(ΔI)1 − ΔI (ΔI = I′ − I7),
///     M_θf = ∫ρ x̃Φ = Sr + [ε_akl ξᵀ S_kl]_a, M_ff = Mff;
///     Q_v,r = −(ω̃ω̃ s + 2 ω̃ S ξ̇),  Q_v,θ = −ω̃ J(ξ) ω − 2 (tr(P)1 − P) ω  with P = ∫ρ (Φξ̇) xᵀ dV,
///     Q_v,f = −Σ_kl [(ω̃ω̃)_kl (I6_lkᵀ + S_kl ξ) + 2 ω̃_kl S_kl ξ̇],
///   where S_kl = I5_kl = ∫ρ Φ_kᵀΦ_l, I6_kl = ∫ρ x₀_k Φ_l (1 × n), I′_kl = I7_kl + (I6_kl + I6_lk) ξ +
///   ξᵀS_kl ξ and P_kl = I6_lk ξ̇ + ξ̇ᵀ S_kl ξ.
/// - Exact for solids with the consistent mass (M = M_s ⊗ 1₃). Beams (`Invariants::lumped`): I5–I7
///   come from lumped translational masses, J_O, Sr and Mff include rotary inertia; the ξ-dependent
///   terms are then the lumped-mass approximation.
/// - The basis must not contain rigid-body motion for M(ξ) to be invertible (a Craig–Bampton basis
///   with all interface DOFs does: Φ_C Φ_Rb = Φ_R); constrain the frame (e.g. remove six boundary
///   coordinates) or project the rigid motion out before using Φ in a floating frame.

#include "flexuq/cms/Invariants.hpp"

#include <Eigen/Dense>

#include <array>

namespace flexuq::cms {

/// Index of the blocks in the (6 + n) generalized vectors: [0, 3) translation, [3, 6) rotation, 6… ξ.
inline constexpr Eigen::Index kFrameDofs = 6;

/// I′ = ∫ρ x xᵀ dV of the deformed body, x = x₀ + Φξ (body frame, about O), symmetrized.
Eigen::Matrix3d second_moment(const Invariants& inv, const Eigen::VectorXd& xi);
/// J(ξ) = ∫ρ (|x|²1 − x xᵀ) dV about O (J_O at ξ = 0, beams' rotary inertia included), symmetrized.
Eigen::Matrix3d inertia_tensor(const Invariants& inv, const Eigen::VectorXd& xi);
/// ∫ρ x̃ Φ dV (3 × n): the M_θf block.
Eigen::MatrixXd rotation_coupling(const Invariants& inv, const Eigen::VectorXd& xi);

/// M(ξ) ((6 + n) × (6 + n)) for v = [v_O; ω; ξ̇] and for [a_O; ω̇; ξ̈]; exactly symmetric (I′, J and
/// Mff are symmetrized, so rounding in the stored invariants cannot make it asymmetric).
Eigen::MatrixXd generalized_mass(const Invariants& inv, const Eigen::VectorXd& xi);
/// The ξ-dependent contractions of the invariants that M(ξ) and Q_v share: Y_kl = I5_kl ξ (nine
/// n-vectors, one pass over I5), the first moment s, J(ξ) and the M_θf block. A multibody Newton
/// iteration evaluates M(ξ)·a and Q_v at one ξ: computing these once per ξ instead of inside each
/// function cuts the I5 passes from ~48 to 15 per iteration (docs/performance.md).
struct FrameContractions {
  Eigen::VectorXd xi;                 ///< the ξ they were computed at
  std::array<Eigen::VectorXd, 9> Y;   ///< Y_kl = I5_kl ξ, index 3k+l
  Eigen::Vector3d s;                  ///< ∫ρ x dV = m c + Sξ
  Eigen::Matrix3d I;                  ///< second_moment(inv, ξ)
  Eigen::Matrix3d J;                  ///< inertia_tensor(inv, ξ)
  Eigen::MatrixXd C;                  ///< rotation_coupling(inv, ξ) (3 × n)
};
FrameContractions contract(const Invariants& inv, const Eigen::VectorXd& xi);
/// In place: reuses @p out's storage (no allocation when n is unchanged).
void contract(const Invariants& inv, const Eigen::VectorXd& xi, FrameContractions& out);
/// As above, from precomputed contractions (bitwise the same results as the ξ overloads).
Eigen::MatrixXd generalized_mass(const Invariants& inv, const FrameContractions& c);
/// M(ξ) a without forming M(ξ) (a of size 6 + n).
Eigen::VectorXd generalized_mass_times(const Invariants& inv, const FrameContractions& c, const Eigen::VectorXd& a);
Eigen::VectorXd quadratic_velocity(const Invariants& inv, const FrameContractions& c, const Eigen::VectorXd& xi_dot,
                                   const Eigen::Vector3d& omega);
/// Q_v = −∫ρ Jᵀ (ω × (ω × x) + 2 ω × Φξ̇) dV (6 + n), on the right-hand side of the equations of motion.
Eigen::VectorXd quadratic_velocity(const Invariants& inv, const Eigen::VectorXd& xi, const Eigen::VectorXd& xi_dot,
                                   const Eigen::Vector3d& omega);
/// Generalized force of a uniform acceleration field g (gravity, body-frame components, g_b = Aᵀg):
/// ∫ρ Jᵀ g_b dV = [m g_b; s × g_b; Sᵀ g_b].
Eigen::VectorXd gravity_force(const Invariants& inv, const Eigen::VectorXd& xi, const Eigen::Vector3d& g_body);
/// T = ½ vᵀ M(ξ) v, v = [v_O; ω; ξ̇].
double kinetic_energy(const Invariants& inv, const Eigen::VectorXd& xi, const Eigen::VectorXd& v);

/// @brief Elastic coordinates for a floating frame: a basis whose span holds the rigid-body motion
/// (Craig–Bampton, Herting, … keep the interface DOFs, so Φ_C Φ_Rb = Φ_R) makes M(ξ) singular.
/// V (n × n_e) holds the eigenvectors of the reduced pair (K̄, M̄) without the n_rigid zero ones,
/// mass-normalised (VᵀM̄V = 1, VᵀK̄V = diag λ). Because eigenvectors of distinct eigenvalues are
/// M̄-orthogonal, Φ V is M-orthogonal to the rigid modes: the Tisserand (mean-axis) conditions
/// S V = 0 and Sr V = 0 hold at ξ = 0 and the body frame follows the mean motion of the body.
struct ElasticCoordinates {
  Eigen::MatrixXd V;           ///< n × n_e
  Eigen::VectorXd eigenvalues; ///< λ = ω² of the kept (elastic) columns, ascending
  int rigid = 0;               ///< zero eigenvalues dropped
};
/// @param rigid_tol eigenvalues below rigid_tol·λ_max count as rigid. Throws when the pair has a
/// number of zero eigenvalues other than 0 or 6 (a mechanism or a partly grounded basis).
ElasticCoordinates elastic_coordinates(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, double rigid_tol = 1e-10);
/// Invariants of the basis Φ V from those of Φ (I1, I2, I7 unchanged; S, Sr, I6 → ·V; I5, Mff → Vᵀ·V).
Invariants transform_invariants(const Invariants& inv, const Eigen::MatrixXd& V);

} // namespace flexuq::cms
