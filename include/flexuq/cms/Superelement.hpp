// SPDX-License-Identifier: MIT
#pragma once
/// @file Superelement.hpp
/// @brief The generalised superelement (GS) algebra of seed 002 ch. 3 (Wevers 2024, digest §3.3–3.6):
/// the Ψ/Υ split of a reduction basis (interface-point columns Ψ with Ψ_IP = 1, internal columns Υ with
/// Υ_IP = 0, eqs 92–96), the floating-frame transformation Z, Z_int, T, T_int (eqs 78–80), the GS
/// mass and stiffness of one body (eq 83; the mass also at a deformed state, from the inertia
/// invariants), and the position-level map from
/// the global poses of the interface points to the frame and the local interface DOFs q_IP^{j,j}.
/// Everything here is dense and replicated (reduced size), except the two collective helpers that
/// read the pieces off a Reducer. Theory, defaults and tests: docs/cms.md (section "Generalised
/// superelement").

#include "flexuq/cms/Invariants.hpp"
#include "flexuq/cms/Reduction.hpp"

#include <Eigen/Dense>

#include <array>
#include <vector>

namespace flexuq::cms {

/// @brief The interface points of a working space: one per node of an all-DOF interface (2, 3 or 6
/// coordinates) and one per RBE2/RBE3 reference point (6 coordinates), with, per boundary coordinate
/// (canonical order), its point and component (0..2 translations, 3..5 rotations).
struct GsLayout {
  std::vector<std::array<double, 3>> points; ///< reference positions X_i of the interface points
  std::vector<int> point_of;                 ///< per boundary coordinate
  std::vector<int> component_of;             ///< per boundary coordinate
  Eigen::MatrixXd rigid_selection;           ///< 6 × n_R: the rigid motions of the component (WorkSpace)
  Eigen::Index n_boundary() const { return static_cast<Eigen::Index>(point_of.size()); }
  Eigen::Index n_rigid() const { return rigid_selection.cols(); }
  /// The boundary coordinates of point @p p, ascending.
  std::vector<Eigen::Index> dofs_of(int p) const;
};
/// The interface points of @p ws. Not collective.
GsLayout gs_layout(const WorkSpace& ws);

/// Φ_r (n_b × n_R, digest eq 76): the interface rigid-body modes with the points at @p positions
/// (local positions X_i + u_i; the reference positions when empty), rows [1, −x̃_i] for translations
/// and [0, 1] for rotations, restricted to the component's rigid motions.
Eigen::MatrixXd interface_rigid_modes(const GsLayout& layout, const std::vector<Eigen::Vector3d>& positions = {});

/// @brief A basis split into Ψ and Υ, in the basis' own coordinates: [Ψ Υ] = Φ S.
struct GsSplit {
  Eigen::Index n_b = 0;               ///< columns of Ψ (= boundary coordinates)
  std::vector<Eigen::Index> psi_hat;  ///< the columns of Φ taken as the preliminary boundary basis Ψ̂
  Eigen::MatrixXd S;                  ///< n_c × n_c, invertible
  Eigen::MatrixXd K, M;               ///< SᵀK̄S, SᵀM̄S: the pair in the split coordinates {q_IP; η}
  /// Φ_R in the split coordinates (n_c × n_R): [Ψ Υ] c = Φ_R. Its first n_b rows are Φ_r (Ψ_IP = 1,
  /// Υ_IP = 0), its last ones c_η = the M-projection of Φ_R − ΨΦ_r on Υ (0 for bases whose Ψ are the
  /// constraint modes: Guyan, CB, Herting, whose ΨΦ_r = Φ_R).
  Eigen::MatrixXd rigid;
  double rigid_residual = 0;          ///< max over the rigid modes of ‖[Ψ Υ]c − Φ_R‖_M / ‖Φ_R‖_M
  double psi_rcond = 0;               ///< σ_min/σ_max of Ψ̂_IP, columns normalised (refused below 1e-8)
  Eigen::Index n_eta() const { return S.cols() - n_b; }
};

/// The default Ψ̂ of a basis from its column kinds (digest §3.6): the physical boundary coordinates
/// (Guyan, CB, Herting, Rubin–Martinez, MacNeal), else the residual attachment modes Gʳ_b
/// (Craig–Chang), the attachment modes G_b (Hintz AMM), the constraint modes (Hintz CMM), the rigid and
/// excess constraint modes (Hurty, the only columns nonzero on the boundary); a basis with none of
/// these (GCMS, POD, ...) gets the n_b columns picked by column-pivoted QR of its boundary rows @p Phi_b.
std::vector<Eigen::Index> default_psi_hat(const std::vector<ColumnKind>& kinds, const Eigen::MatrixXd& Phi_b);

/// Split a basis: Ψ = Ψ̂ Ψ̂_IP⁻¹, Υ = Υ̂ − Ψ̂ Ψ̂_IP⁻¹ Υ̂_IP (eqs 92–96; Υ̂ = the other columns, in order).
/// @param K, M the reduced pair (n_c); @param Phi_b the boundary rows of Φ (n_b × n_c);
/// @param rigid_boundary Φ_r, the boundary rows of Φ_R (n_b × n_R); @param rigid_coupling Φ_RᵀMΦ (n_R × n_c); @param rigid_mass Φ_RᵀMΦ_R (n_R × n_R);
/// @param psi_hat n_b distinct column indices. Throws InputError when Ψ̂_IP is singular, σ_min/σ_max of
/// its column-normalised block ≤ 1e-8 (the basis
/// cannot describe the interface DOFs independently) or the basis cannot describe rigid motion
/// (residual > 1e-6): the GS needs both (digest §3.3, §7.2 item 10).
GsSplit split_basis(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, const Eigen::MatrixXd& Phi_b,
                    const Eigen::MatrixXd& rigid_boundary, const Eigen::MatrixXd& rigid_coupling, const Eigen::MatrixXd& rigid_mass,
                    const std::vector<Eigen::Index>& psi_hat);
/// The split of a basis built by @p r, with default_psi_hat unless @p psi_hat is given (Φ_b, Φ_RᵀMΦ and
/// Φ_RᵀMΦ_R read off the Reducer, restricted to the component's rigid motions). @note Collective.
GsSplit split_basis(Reducer& r, const ReducedBasis& b, const std::vector<Eigen::Index>& psi_hat = {});

/// @brief The floating-frame transformation of eq 78–80: {δq_j; δq_IP^{j,j}} = [[Z, Z_int], [T, T_int]]
/// {δq_IP; δη} (frame components, rotations included).
struct GsFrame {
  Eigen::MatrixXd Z, Z_int, T, T_int;
  double rcond = 0; ///< σ_min/σ_max of Ψ_FF Φ_r (refused below 1e-12)
};
/// Z = (Ψ_FFΦ_r)⁻¹Ψ_FF, Z_int = (Ψ_FFΦ_r)⁻¹Υ_FF, T = 1 − Φ_r Z, T_int = −Φ_r Z_int, for the frame rows
/// @p psi_ff (n_R × n_b) and @p ups_ff (n_R × n_η) of the split basis. Throws InputError when Ψ_FFΦ_r
/// is singular (the frame location cannot carry a frame).
GsFrame gs_frame(const Eigen::MatrixXd& phi_r, const Eigen::MatrixXd& psi_ff, const Eigen::MatrixXd& ups_ff);
/// Frame rows with the frame at interface point @p p (its coordinates must determine the n_R rigid
/// motions): Ψ_FF = the rows of 1 at its coordinates (n_R of them, picked by column-pivoted QR of its
/// Φ_r rows), Υ_FF = 0.
void frame_at_point(const GsLayout& layout, int p, Eigen::Index n_eta, Eigen::MatrixXd& psi_ff,
                    Eigen::MatrixXd& ups_ff);

/// The map from {q_IP; η} to the coefficients of B A_loc = [Ψ_GS Υ_GS] in the split coordinates:
/// L = 1 + (c − [Φ_r; 0])[Z, Z_int] (digest §3.4: Ψ_GS = Ψ + (Φ_R − ΨΦ_r)Z, Υ_GS = Υ + (Φ_R − ΨΦ_r)Z_int).
Eigen::MatrixXd gs_coefficients(const GsSplit& s, const GsFrame& f, const Eigen::MatrixXd& phi_r);
/// M_GS^j at the undeformed state (eq 83): Lᵀ M_s L.
Eigen::MatrixXd gs_mass(const GsSplit& s, const GsFrame& f, const Eigen::MatrixXd& phi_r);
/// M_GS^j at a deformed state (eq 83 with B = [Φ_R(q) Ψ Υ], Φ_R at the deformed local positions):
/// A_locᵀ M_FF(ξ) A_loc, M_FF = generalized_mass (cms/FloatingFrame.hpp) of @p split_invariants (those of
/// [Ψ Υ] = ΦS: transform_invariants(invariants of Φ, S)) at ξ = @p xi = {q_IP^{j,j}; η}, restricted to the
/// component's rigid motions; Z, Z_int, T, T_int from Φ_r at the deformed interface points X_i + q_IP.
/// At ξ = 0 it is gs_mass. Exact for solids (consistent mass); beams as their invariants (lumped I5–I7).
Eigen::MatrixXd gs_mass_at(const Invariants& split_invariants, const GsLayout& layout, const Eigen::MatrixXd& psi_ff,
                           const Eigen::MatrixXd& ups_ff, const Eigen::VectorXd& xi);
/// The deformed local positions X_i + u_i of the interface points from the local interface DOFs.
std::vector<Eigen::Vector3d> deformed_points(const GsLayout& layout, const Eigen::VectorXd& q_ip);
/// K_GS^j (eq 83): [[Tᵀ, 0], [T_intᵀ, 1]] K_s, acting on the local {q_IP^{j,j}; η}.
Eigen::MatrixXd gs_stiffness(const GsSplit& s, const GsFrame& f);
/// The stiffness linearised about the undeformed state: K_GS^j [[T, T_int], [0, 1]] (symmetric).
Eigen::MatrixXd gs_stiffness_linearised(const GsSplit& s, const GsFrame& f);

/// @brief The frame pose and the local interface DOFs of a body at position level.
struct GsLocalState {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity(); ///< R_j^o
  Eigen::Vector3d r = Eigen::Vector3d::Zero();     ///< r_j^{o,o}
  Eigen::VectorXd q_ip;                            ///< q_IP^{j,j} (n_b)
  int iterations = 0;
  double residual = 0;                             ///< ‖Ψ_FF q_IP^{j,j} + Υ_FF η‖ at the end
};
/// Frame and local interface DOFs from the global interface-point poses: positions @p x (n_points) and
/// rotations @p rot (n_points; identity for points without rotational coordinates), and the internal
/// coordinates @p eta. Local DOFs q_i = [R_jᵀ(x_i − r_j) − X_i; log(R_jᵀR_i)] (recomputed, never
/// accumulated: digest §7.2 item 5); the frame solves Ψ_FF q_IP + Υ_FF η = 0 by Newton with the
/// Jacobian −Ψ_FF Φ_r(X + q) (eq 74), from a least-squares rigid fit of the points. At an interface
/// point this is the closed form (one step). Throws Error when it does not converge.
GsLocalState gs_local_state(const GsLayout& layout, const Eigen::MatrixXd& psi_ff, const Eigen::MatrixXd& ups_ff,
                            const std::vector<Eigen::Vector3d>& x, const std::vector<Eigen::Matrix3d>& rot,
                            const Eigen::VectorXd& eta, double tol = 1e-13, int max_iterations = 50);

} // namespace flexuq::cms
