// SPDX-License-Identifier: MIT
#pragma once
/// @file GsBody3d.hpp
/// @brief Seed 002's generalised superelement (digest seed-002.md §3.3–3.5, eqs 61–84) in 3-D: the
/// spatial counterpart of mbs/GsBody.hpp's planar body, on the same GsData (make_gs_data).
///
/// Coordinates g = [d_0, p_0, d_1, p_1, …, η]: per interface point i its global displacement
/// d_i = x_i − X_i (3) and the Euler parameters p_i of its frame (4, unit norm; the engine's rigid-body
/// rotation coordinates), then the internal coordinates η. Euler parameters rather than a rotation vector:
/// A(p) is quadratic in p, so the frame's and the joints' derivatives (J's frame rows, κ, the joint rows'
/// B(p, a) and γ) are closed-form polynomials with no singular angle for any large motion (only the
/// elastic relative turn goes through a rotation vector, below), and an axis at an interface point turns
/// exactly (A(p_i) a, not a linearised a + θ × a). The price is one norm row per point,
/// |A(p_i) e_x|² − 1 = |p_i|⁴ − 1 (System adds it with the body, in the `<body>.frame` joint's rows).
///
/// Kinematics (frame at interface point k, closed form):
/// * R_j = A(p_k), r_j = x_k − R_j X_k; body-frame ω' = 2 G(p_k) ṗ_k;
/// * local interface translations u_i = R_jᵀ(x_i − x_k) + X_k − X_i (recomputed, never accumulated);
/// * local interface rotations θ_i = the rotation vector (angle × axis) of R_jᵀR_i, from its Euler
///   parameters q_i = p̂_k* ⊗ p̂_i = [p̂_kᵀ; G(p̂_k)] p̂_i (bilinear): θ = 2 atan(|v|/w) v/|v| for q = [w, v],
///   w > 0 (a power series in |v|²/w² for turns below 0.1 rad: smooth through θ = 0). The body's linear basis
///   reads it as its small rotations; in the plane it is θ_i − θ_k of the planar body exactly;
/// * ξ = {u_i, θ_i (i ≠ k); η} scaled as in GsData, a material point at r_j + R_j(X + Φ ξ).
/// With w = [R_jᵀṙ_j; ω'; ξ̇] = J(g) ġ and w' = [R_jᵀr̈_j; ω̇'; ξ̈] = J g̈ + κ(g, ġ):
///   frame rows  J = [R_jᵀ (d_k), X̃_k 2G(p_k) (p_k)],  κ = −ω̃'ω̃' X_k;  ω rows J = 2G(p_k), κ = 0 (G(ṗ)ṗ = 0);
///   u_i rows    J = [R_jᵀ (d_i), −R_jᵀ (d_k), δ̃_i 2G(p_k) (p_k)] with δ_i = R_jᵀ(x_i − x_k),
///               κ = −2 ω̃' R_jᵀ(ẋ_i − ẋ_k) + ω̃'ω̃' δ_i;
///   θ_i rows    J = D [L(p̂_k) (p_i), R(p̂_i) (p_k)] with D = ∂θ/∂q, L(a) = [aᵀ; G(a)], R(b) = [bᵀ; −G(b)],
///               κ = D q_c + q̇ᵀ∇²θ q̇ (q_c the convective part of q̈); D and the second derivative come
///               from hyper-dual numbers (exact, no differences).
/// The map is written on the normalised p̂_i = p_i/|p_i| (what the formulas above read as p): the
/// p-columns of J carry Π_i/|p_i| (Π = 1 − p̂p̂ᵀ; G(p̂)Π = G(p̂)) and κ the convective part of p̂̈,
/// c_i = −2 s_i (p̂_iᵀṗ_i)/|p_i| − p̂_i|s_i|² with s_i = Π_i ṗ_i/|p_i| (ω̇' gains 2G(p̂_k)c_k, θ̈_i
/// 2G(c_k)p̂_i + 2G(p̂_k)c_i). J is then the exact Jacobian of ξ(g) for every g, and T = ½ġᵀM_GSġ the
/// kinetic energy of the body so placed, radial directions of p_i included (they carry nothing).
/// The equations are the planar body's: M_GS = Jᵀ M(ξ) J, C_GS ġ = Jᵀ(M(ξ) κ − Q_v), f_GS = Jᵀ[0; 0; K ξ].
///
/// In a System the body's own frame is held at the global frame (`<body>.frame`), g is its elastic
/// block; an interface point is at X_i + d_i (linear in g) and its frame is A(p_i) (Attachment::euler),
/// so every joint whose points are interface points acts on them exactly. p_i and p_k must stay in the
/// same hemisphere (p_kᵀp_i > 0, true from the start since all equal the body's orientation and the
/// relative turn is elastic).

#include "flexuq/mbs/GsBody.hpp"

#include <memory>
#include <string>

namespace flexuq::mbs {

/// g's size: 7 per interface point and the internal coordinates.
inline int gs3d_size(const GsData& d) { return 7 * d.n_points() + d.n_internal; }

/// The FlexibleData a System holds for a 3-D GS body (FlexibleData::gs3d set): the interfaces' translation
/// rows select d_i, their rotation is A(p_i) (Attachment::euler = 7 i + 3), K and V empty of physics.
std::shared_ptr<FlexibleData> gs3d_flexible_data(std::shared_ptr<const GsData> gs, const std::string& source);

/// The floating-frame state of a 3-D GS body at (g, ġ).
struct Gs3dKinematics {
  Mat3 R = Mat3::Identity();
  Vec3 r = Vec3::Zero();
  Vec xi, xi_dot;
  Vec3 omega = Vec3::Zero(); ///< body frame
  Mat J;                     ///< (6 + n_f) × n
  Vec kappa;                 ///< 6 + n_f
};
/// @p gd may be empty (J only; ξ̇, ω, κ zero).
Gs3dKinematics gs3d_kinematics(const GsData& d, const Vec& g, const Vec& gd);
Mat gs3d_body_mass(const GsData& d, const Vec& g);
/// C_GS(g, ġ) ġ = Jᵀ(M(ξ) κ − Q_v) (left-hand side).
Vec gs3d_quadratic_velocity(const GsData& d, const Vec& g, const Vec& gd);
/// Jᵀ[0; 0; K ξ] (left-hand side) and ½ ξᵀ K ξ.
Vec gs3d_elastic_force(const GsData& d, const Vec& g);
double gs3d_strain_energy(const GsData& d, const Vec& g);
/// g of the undeformed body at the rigid pose x ↦ @p position + A(@p p) x, and ġ for the velocity @p v of
/// the mesh origin and the global angular velocity @p omega.
Vec gs3d_pose(const GsData& d, const Vec3& position, const Vec4& p);
Vec gs3d_pose_rates(const GsData& d, const Vec4& p, const Vec3& v, const Vec3& omega);

/// A 3-D GS body in a System: the frame held (frame_held), g its elastic block (mbs/GsModelParts.hpp).
class Gs3dBodyModel : public GsBodyModelBase {
public:
  explicit Gs3dBodyModel(RigidBody body);
  int n_elastic() const override { return gs3d_size(*gs_); }
  void initial_coordinates(Vec& q, int o) const override;
  void initial_rates(Vec& v, int o) const override;

protected:
  gs_parts::FrameState frame_state(const Vec& g, const Vec& gd) const override;
};

} // namespace flexuq::mbs
