// SPDX-License-Identifier: MIT
#pragma once
/// @file GsBody.hpp
/// @brief Seed 002's generalised superelement (GS, Wevers 2024 ch. 3; digest seed-002.md §3.3–3.5) in
/// motion, in the plane: the body's coordinates are the global coordinates of its interface points
/// (in-plane displacement dx, dy and rotation θ about z of each, the seed's 2-D slider-crank with the
/// interface points "constrained out of plane") and its internal coordinates η, so joints act on the
/// interface-point coordinates directly (primal coupling at the interface points: a point joint there
/// is linear in the coordinates).
///
/// Kinematics (digest eqs 74–81, frame at interface point k, the closed form of §3.3):
/// * the floating frame is point k's pose: R_j = R_z(θ_k), r_j = x_k − R_j X_k (x_i = X_i + [dx_i, dy_i, 0]);
/// * the local interface DOFs are recomputed at position level, never accumulated (§7.2 item 5):
///   u_i = R_jᵀ(x_i − x_k) + X_k − X_i, θ_i^{jj} = θ_i − θ_k (z), the out-of-plane ones 0;
/// * a material point is at r_j + R_j (X + [Ψ Υ] ξ) with ξ = {q_IP^{jj}; η}: every column of the basis
///   but point k's six (Ψ_IP = 1 and Υ_IP = 0 make them vanish at k: the frame condition of eq 77), in
///   the basis' own coordinates (a column scale s_c divides the physical DOF).
/// The equations are the floating-frame body's (cms/FloatingFrame.hpp) on those columns, M(ξ) w' =
/// Q_v + Q_ext − [0; 0; K ξ], with w = [R_jᵀṙ_j; ω; ξ̇] = J(g) ġ and w' = J g̈ + κ(g, ġ), pre-multiplied
/// by Jᵀ (virtual work, δw = J δg):
///   M_GS = Jᵀ M(ξ) J,   C_GS ġ = Jᵀ (M(ξ) κ − Q_v),   f_GS = Jᵀ (Q_ext − [0; 0; K ξ]).
/// J is eq 78's A (A_loc with the frame rotation) for this coordinate choice; κ = Ȧ ġ, so C_GS ġ is
/// eq 84's Aᵀ([R̃]M_FF[R̃]ᵀȦ + [R̃]C_FF[R̃]ᵀA) ġ, with C_FF ġ = −Q_v the floating frame's quadratic
/// velocity vector (the thesis leaves both out; digest §7.2 item 3).
///
/// In a System (GsBodyModel, FlexibleData::gs) the body's own frame (r, p) is held at the global frame
/// by a fixed joint `<body>.frame` (as a GCMS body's), and its elastic block is g. Its interface points
/// are at X_i + L g (linear: FlexibleData::interfaces in g); an axis a turns as a + θ_i ẑ × a, exact for
/// the plane's normal and for the in-plane relative rotation of two GS bodies' interface points (the
/// joints System::add_joint accepts on a GS body, docs/mbs.md).
///
/// The body must stay in the plane z = 0 (its pose: position z = 0, a rotation about z); the reduced
/// body must keep its interfaces as physical coordinates (6 per point: an RBE2/RBE3 reference or a
/// one-node set) with the other columns zero there (Craig–Bampton, Guyan, Herting, Rubin–Martinez), or
/// carry the Ψ/Υ split of its basis (`/reduced/gs`: Hurty, Hintz, Craig–Chang), whose coordinates
/// {q_IP; η} have this form (cms/GsSplitBody.hpp; make_gs_data takes the body in them).

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/mbs/Body.hpp"
#include "flexuq/mbs/GsModelParts.hpp"

#include <memory>
#include <string>
#include <vector>

namespace flexuq::mbs {

/// The GS layout and the floating-frame data of the columns it keeps.
struct GsData {
  std::vector<std::string> points; ///< interface names, in coordinate order (g[3i..3i+2] = dx, dy, θ)
  std::vector<Vec3> X;             ///< their reference positions X_i (mesh frame)
  int frame = 0;                   ///< k: the interface point that carries the frame
  /// Per kept column c of the basis: its interface point and component (0..5: ux … rz), or point −1 for
  /// an internal column, whose coordinate is g[3 n_points + internal[c]]; ξ_c = scale[c] · (local DOF).
  std::vector<int> point_of, component_of, internal;
  Vec scale;
  int n_internal = 0;
  std::vector<int> columns;        ///< the kept columns in the body file's column order
  cms::Invariants invariants;      ///< of the kept columns (Φ P)
  Mat K;                           ///< PᵀK̄P (n_f × n_f)
  int n_points() const { return static_cast<int>(points.size()); }
  int n() const { return 3 * n_points() + n_internal; } ///< coordinates g
  int n_kept() const { return static_cast<int>(columns.size()); }
};

/// The GS data of a reduced body with its frame at interface @p frame, the stiffness times
/// @p stiffness_scale. Throws InputError naming @p source when an interface is not one 6-DOF point, a
/// column other than point k's does not vanish at the interfaces (a basis that is not split), the
/// frame interface is unknown, or with k held the body keeps a zero-energy mode. A body without physical
/// interface coordinates is taken in the coordinates of its file's split (cms::gs_split_body; refused,
/// naming the file, when the reduction could not split it).
std::shared_ptr<GsData> make_gs_data(const cms::ReducedBody& body, const std::string& frame, const std::string& source,
                                     double stiffness_scale = 1.0);
/// The FlexibleData a System holds for a GS body: n_elastic = g's size, the interfaces as selections of
/// g (translation rows dx, dy; rotation row θ about z), K and V empty of physics (zero, 0 × n), gs set.
std::shared_ptr<FlexibleData> gs_flexible_data(std::shared_ptr<const GsData> gs, const std::string& source);

/// @brief The floating-frame state of a GS body at (g, ġ): frame pose, ξ, ξ̇, and the maps w = J ġ,
/// w' = J g̈ + κ (w = [R_jᵀṙ_j; ω; ξ̇], body-frame components, 6 + n_f).
struct GsKinematics {
  Mat3 R = Mat3::Identity();
  Vec3 r = Vec3::Zero();
  Vec xi, xi_dot;
  double omega = 0; ///< θ̇_k
  Mat J;            ///< (6 + n_f) × n
  Vec kappa;        ///< 6 + n_f
};
/// @p gd may be empty (J only; ξ̇, κ zero).
GsKinematics gs_kinematics(const GsData& d, const Vec& g, const Vec& gd);
/// M_GS = Jᵀ M(ξ) J (n × n).
Mat gs_body_mass(const GsData& d, const Vec& g);
/// C_GS(g, ġ) ġ = Jᵀ (M(ξ) κ − Q_v(ξ, ξ̇, ω)): the fictitious (quadratic-velocity) forces of eq 84, on
/// the left-hand side.
Vec gs_quadratic_velocity(const GsData& d, const Vec& g, const Vec& gd);
/// The elastic force Jᵀ [0; 0; K ξ] (left-hand side) and the strain energy ½ ξᵀ K ξ.
Vec gs_elastic_force(const GsData& d, const Vec& g);
double gs_strain_energy(const GsData& d, const Vec& g);
/// g of the undeformed body at the rigid pose x ↦ @p position + R_z(@p angle) x, and ġ for the
/// velocity @p v of the mesh origin and the angular velocity @p omega about z.
Vec gs_pose(const GsData& d, const Vec3& position, double angle);
Vec gs_pose_rates(const GsData& d, const Vec3& position, double angle, const Vec3& v, double omega);

/// A GS body in a System: the frame held (frame_held), g its elastic block (mbs/GsModelParts.hpp).
class GsBodyModel : public GsBodyModelBase {
public:
  /// @throws InputError when the pose leaves the plane z = 0.
  explicit GsBodyModel(RigidBody body);
  int n_elastic() const override { return gs_->n(); }
  void initial_coordinates(Vec& q, int o) const override;
  void initial_rates(Vec& v, int o) const override;

protected:
  gs_parts::FrameState frame_state(const Vec& g, const Vec& gd) const override;

private:
  double angle0_ = 0; ///< the pose's rotation about z
};

} // namespace flexuq::mbs
