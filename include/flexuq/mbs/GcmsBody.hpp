// SPDX-License-Identifier: MIT
#pragma once
/// @file GcmsBody.hpp
/// @brief Seed 001's GCMS body in motion (Zwölfer & Gerstmayr, Eqs. 34–59): the body's coordinates
/// are the amplitudes q = [q_t; q_r; q_f] of the basis Φ = B ⊗ I₃ written by `flexuq reduce` with
/// `method: gcms`, node positions are linear in q (x + Φ q), the mass matrix M̂ = ΦᵀMΦ is constant,
/// and the elastic force is the co-rotated Â K̂ Âᵀ q_flx plus f̂_nl (Eq. 58).
///
/// Conventions (digest seed-001 §2.2–2.4, checked here):
/// * column c of Φ is field j = c / 3 of B times e_l, l = c % 3; every field is a triple of columns.
/// * the rotation field x_k (mesh coordinate k minus the origin o) in direction l has the amplitude
///   q_r[3k + l] = (A − I)_{lk}; so d_k = q_r[3k..3k+2] + e_k is column k of A for a rigid motion.
///   This is the digest's row-wise Q_r reading of Eq. 38 ((Q_r + I)ᵀ = [d₁ d₂ d₃] = A), which I
///   followed: it is the only one that makes Eq. 38 and Eq. 11 agree.
/// * A (the "proper" rotation q_r*) is the Gram–Schmidt orthonormalisation of d_0, d_1, d_2 in that
///   order (footnote 3 of the seed). q_rig = [q_t; q_r*; 0], q_flx = q − q_rig (Eqs. 34–35).
/// * Â = I ⊗ A acts on every triple; the strain energy is V = ½ q_flxᵀ Â K̂ Âᵀ q_flx (Eq. 44) and its
///   gradient Â K̂ Âᵀ q_flx + f̂_nl with f̂_nl = Dᵀ K̂ Âᵀ q_flx, D_{:,m} = (∂Âᵀ/∂q_m) q_flx (Eq. 59):
///   the third term of Eq. 48 vanishes (Eq. 57) because Âᵀ δq_rig is a rigid motion, which K̂ does not
///   strain. gcms_eq57_residual() measures that.
/// * Translation fields may be scaled (Φ_t column = s_t · 1 ⊗ e_l) by the preconditioning; rotation
///   fields never are (seed 001 §2.9 step 3).
///
/// In a System (GcmsBodyModel, FlexibleData::gcms) a GCMS body is a flexible body whose frame a
/// fixed joint `<body>.frame` holds at the global frame: η = q are the amplitudes of its whole basis
/// (V = 1), M(η) reduces to the constant M̂ on them, Q_v to zero, and K η is replaced by the
/// co-rotated Â K̂ Âᵀ q_flx + f̂_nl (Eq. 58). Its points are interface reference points (linear in q);
/// axes on it are refused (System::add_joint).

#include "flexuq/mbs/Body.hpp"
#include "flexuq/mbs/EulerParameters.hpp"

#include <Eigen/Dense>

#include <array>
#include <string>
#include <vector>

namespace flexuq::mbs {

/// The stiffness and the coordinate layout of a GCMS body.
struct GcmsData {
  Eigen::MatrixXd K;               ///< K̂ = ΦᵀKΦ (n × n, n = 3 × fields)
  std::array<int, 3> translation{{-1, -1, -1}}; ///< columns of t_x, t_y, t_z
  double translation_scale = 1.0;  ///< s_t: a translation column is s_t · 1 ⊗ e_l
  std::array<int, 9> rotation{};   ///< column of q_r[3k + l] (field x_k, direction l)
  Vec3 origin = Vec3::Zero();      ///< o: the rotation fields are x − o (mesh frame)
  int n() const { return static_cast<int>(K.rows()); }
};

/// Read the layout from a GCMS basis: @p labels ("t_x", "r_xy", "f3_zx", …), the basis rows of one
/// node @p rows (3 × n, the node's translations) at mesh position @p x. Throws InputError naming
/// @p source when the columns are not triples of fields in x, y, z order, a translation or rotation
/// field is missing, or the rows do not show the constant translation and the x − o rotation fields.
GcmsData gcms_layout(const std::vector<std::string>& labels, const Eigen::MatrixXd& K, const Eigen::MatrixXd& rows,
                     const Vec3& x, const std::string& source);

/// A (Gram–Schmidt of the columns d_k = q_r[3k..3k+2] + e_k) and dA[m] = ∂A/∂q_r[m].
struct GcmsRotation {
  Mat3 A = Mat3::Identity();
  std::array<Mat3, 9> dA;
};
/// @throws Error when d_0, d_1, d_2 are (nearly) dependent: the body has collapsed.
GcmsRotation gcms_rotation(const Eigen::Ref<const Eigen::VectorXd>& q, const GcmsData& g);

/// q_rig = [q_t; q_r*; 0] at @p q (A from @p rot).
Eigen::VectorXd gcms_rigid_part(const Eigen::VectorXd& q, const GcmsData& g, const GcmsRotation& rot);
/// ½ q_flxᵀ Â K̂ Âᵀ q_flx.
double gcms_strain_energy(const Eigen::VectorXd& q, const GcmsData& g);
/// The elastic force Â K̂ Âᵀ q_flx + f̂_nl (Eq. 58's second and third terms; the gradient of the
/// strain energy).
Eigen::VectorXd gcms_internal_force(const Eigen::VectorXd& q, const GcmsData& g);
/// Âᵀ q_flx: the amplitudes of the co-rotated displacement A_bdᵀ Φ q_flx = Φ Âᵀ q_flx, which strains
/// the body (recovered stresses: S Âᵀ q_flx, in the axes of A).
Eigen::VectorXd gcms_corotated(const Eigen::VectorXd& q, const GcmsData& g);
/// Â K̂ Âᵀ: the part of the tangent stiffness the Newton iteration uses (Eq. 69's approximation).
Eigen::MatrixXd gcms_tangent(const Eigen::VectorXd& q, const GcmsData& g);
/// ‖q_flxᵀ Â K̂ Âᵀ ∂q_rig/∂q‖ / (‖K̂‖ ‖q_flx‖²) (Eq. 57; ‖·‖ Frobenius / Euclidean); 0 for q_flx = 0.
double gcms_eq57_residual(const Eigen::VectorXd& q, const GcmsData& g);

/// The amplitudes of the rigid pose x ↦ R0 + A0 x of the mesh: q_t = (R0 + (A0 − I) o) / s_t,
/// q_r = (A0 − I) column-wise, q_f = 0.
Eigen::VectorXd gcms_pose(const GcmsData& g, const Vec3& R0, const Mat3& A0);
/// Their rates for a rigid motion with velocity @p v_com of the centre of mass @p com (mesh frame)
/// and angular velocity @p omega (global): ṡ_t q̇_t = v + ω × A0 (o − c), q̇_r = ω̃ A0 column-wise.
Eigen::VectorXd gcms_pose_rates(const GcmsData& g, const Mat3& A0, const Vec3& com, const Vec3& v_com, const Vec3& omega);

/// A GCMS body in a System: the floating-frame body with its frame held (frame_held), the
/// co-rotated elastic force, strain energy and tangent, and the attachments a body whose rotation is
/// not linear in its coordinates takes (points at interface reference points, no axes, no torques).
class GcmsBodyModel : public FlexibleBodyModel {
public:
  /// The pose given (position / orientation place the mesh, velocity / angular_velocity are those of
  /// its centre of mass) becomes the initial amplitudes (gcms_pose, gcms_pose_rates).
  /// @throws Error when the GCMS layout does not match the elastic data.
  explicit GcmsBodyModel(RigidBody body);
  const GcmsData& gcms() const { return *body_.flex->gcms; }
  void initial_coordinates(Vec& q, int o) const override;
  void initial_rates(Vec& v, int o) const override;
  double strain_energy(const Vec& q, int o) const override;
  void add_stiffness_damping(const Vec& q, int o, double ck, double cd, Eigen::Ref<Mat> out) const override;
  Vec strain_amplitudes(const Vec& eta) const override; ///< Âᵀ q_flx (gcms_corotated)
  void check_point(const Vec3& s, const Attachment* at, const std::string& who) const override;
  void check_axis(const std::string& who) const override;
  void check_load(const ForceSpec& f, bool acted_on, const std::string& who) const override;
  void check_force(const ForceSpec& f) const override;
  bool frame_held() const override { return true; }

protected:
  void subtract_elastic_force(const Vec& eta, const Vec& eta_d, int o, Vec& f) const override;

private:
  Vec eta0_, eta_rate0_; ///< the initial amplitudes and their rates
};

} // namespace flexuq::mbs
