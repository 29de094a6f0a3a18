// SPDX-License-Identifier: MIT
#pragma once
/// @file Body.hpp
/// @brief Bodies of a multibody system and their coordinates and mass: the body as given
/// (RigidBody, with FlexibleData for a flexible one) and the BodyModel of each body type, which
/// System (mbs/System.hpp) calls at the body's first coordinate.
///
/// Coordinates (absolute, one block per body): q_b = [r, p] for a rigid body, 3 translations and 4
/// Euler parameters (the unit-norm constraint pᵀp − 1 = 0 is an explicit row of System), and
/// q_b = [r, p, η] for a flexible floating-frame body with its n_e elastic coordinates appended.
///
/// Flexible bodies (FFRF, seed 000 §2.1–2.3): r, p locate the body's reference frame (the mesh
/// frame of the reduced body), η are the free-free elastic coordinates of the reduced pair
/// (cms::ReducedBody floating_frame: VᵀM̄V = 1, mean-axis frame). With the body-frame velocities
/// w = T q̇_b, T = blockdiag(Aᵀ, 2G, 1) (v_O = Aᵀṙ, ω' = 2Gṗ) and cms/FloatingFrame.hpp's
/// M(η) w' = Q_v + Q_ext − [0; 0; K̄η + D̄η̇], virtual work gives
///   M_q = Tᵀ M(η) T,  Q_q = Tᵀ (Q_v + Q_grav) − [0; 0; K̄η + D̄η̇]
/// exactly, because Ġṗ = 0 makes T q̈ = [Aᵀr̈; ω̇'; η̈] (the inertial acceleration of O). Tᵀ M T
/// is singular along p like the rigid 4GᵀJG; the norm row fixes that direction.
/// A point attached to a flexible body moves with the deformation: a part of a BodyVector
/// (mbs/ConstraintRows.hpp) is A(p)(s + L η) (+ r for points), with L = T_ref − (s − x_ref)~ R_ref
/// for a point rigidly linked to an interface reference node (translations T_ref, small rotations
/// R_ref in η) and L = −s~ R_ref for an axis that turns with the node; L is empty for rigid bodies.
///
/// A body type is a BodyModel: its mass matrix, the forces it exerts on itself (quadratic velocity,
/// elastic, the gravity of its distributed mass), its energies and the attachments it refuses. A new
/// body type (a reduced-order or a polynomial-chaos body) is a new implementation and one line of
/// make_body_model, not a branch in System. GCMS bodies (seed 001) are in mbs/GcmsBody.hpp.

#include "flexuq/mbs/EulerParameters.hpp"

#include <Eigen/Dense>

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/Invariants.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::mbs {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

constexpr int kGround = -1;

struct GcmsData;  // mbs/GcmsBody.hpp
struct GsData;    // mbs/GsBody.hpp
struct ForceSpec; // mbs/Force.hpp

/// How a named interface of a flexible body moves with η (body frame): its reference point and
/// the translation and (small) rotation of that point, both 3 × n_e.
struct Attachment {
  Vec3 ref = Vec3::Zero();
  Mat translation, rotation;
  /// ≥ 0 (a 3-D GS body, mbs/GsBody3d.hpp): the interface's frame is A(p) exactly, p = η[euler, euler + 4),
  /// and an axis there turns with it (rotation unused).
  int euler = -1;
};

/// L of a point @p s (body frame) rigidly linked to the interface @p at: T_ref − (s − x_ref)~ R_ref
/// (empty without an interface).
Mat attach_point(const Attachment* at, const Vec3& s);
/// L of an axis @p a that turns with the interface @p at: −a~ R_ref (empty without an interface).
Mat attach_axis(const Attachment* at, const Vec3& a);

/// The elastic part of a flexible body: floating-frame invariants of the elastic coordinates,
/// their stiffness and damping, the interfaces. Shared (immutable) between copies of a system.
struct FlexibleData {
  std::string source;                 ///< the reduced-body file, for messages
  cms::Invariants invariants;         ///< of Φ V (S = Sr = 0 at η = 0, Mff = 1)
  Mat K, D;                           ///< n_e × n_e
  double damping_ratio = 0.0;         ///< D = diag(2 ζ √λ) with ζ = damping_ratio (K diagonal)
  std::map<std::string, Attachment> interfaces;
  Mat V;                              ///< n × n_e: the reduced coordinates ξ = V η
  /// Stress recovery (a deterministic body file with `/reduced/stress_modes`, else null): S, nodes ×
  /// 6 × n (row-major), the nodal stresses of the basis columns; σ_node = stress_scale · S_node V η.
  std::shared_ptr<const std::vector<double>> stress_modes;
  double stress_scale = 1.0;          ///< a stiffness (Young's modulus) factor scales the stresses too
  /// Set for a GCMS body (seed 001, mbs/GcmsBody.hpp): η are the amplitudes q of the whole basis
  /// (V = 1, K = K̂), the body frame is held at the global frame by a fixed joint `<body>.frame`, and
  /// the elastic force is the co-rotated Â K̂ Âᵀ q_flx + f̂_nl instead of K η.
  std::shared_ptr<const GcmsData> gcms;
  /// Set for a generalised-superelement body (seed 002, mbs/GsBody.hpp): η are the global coordinates of
  /// its interface points and its internal coordinates, the frame is held like a GCMS body's.
  std::shared_ptr<const GsData> gs;
  /// Set for a 3-D generalised-superelement body (mbs/GsBody3d.hpp): η are the interface points' global
  /// displacements and Euler parameters and the internal coordinates, the frame held.
  std::shared_ptr<const GsData> gs3d;
  int n_elastic() const { return static_cast<int>(K.rows()); }
  /// The interface @p name; throws InputError naming @p who and listing the interfaces.
  const Attachment& interface(const std::string& name, const std::string& who) const;
};

/// A body as given: mass properties and the initial pose and velocities.
struct RigidBody {
  std::string name;
  /// Set for a flexible body: then mass and inertia are unused (the invariants hold them) and
  /// position / orientation are those of the reference (mesh) frame, not of the centre of mass.
  std::shared_ptr<const FlexibleData> flex;
  double mass = 0.0;
  Mat3 inertia = Mat3::Zero(); ///< about the centre of mass, body frame
  Vec3 position = Vec3::Zero();
  Vec4 orientation = Vec4(1, 0, 0, 0);
  Vec3 velocity = Vec3::Zero();         ///< of the centre of mass, global
  Vec3 angular_velocity = Vec3::Zero(); ///< global
  /// Planar coordinates (mbs/PlanarBody.hpp): q_b = [x, y, e0, e3], the body moving in the plane
  /// z = position.z with its body z axis along the global z (4 coordinates, one norm row).
  bool planar = false;
};

/// Where a body's frame coordinates sit in q and how its 3-D pose (r, p) reads from them: a 3-D
/// body has r at o and p at o + 3; a planar body [x, y, e0, e3] at o, r = (x, y, z), p = (e0, 0, 0,
/// e3) with z fixed. The 3-D formulas then hold for both: gather the pose, scatter a gradient with
/// respect to (r, p) onto the body's own coordinates (for a planar body: drop z, e1, e2).
struct FrameLayout {
  int o = 0;
  bool planar = false;
  double z = 0.0; ///< a planar body's fixed z
  Vec3 r(const Vec& q) const { return planar ? Vec3(q(o), q(o + 1), z) : Vec3(q.segment<3>(o)); }
  /// ṙ, r̈ (no fixed part).
  Vec3 r_rate(const Vec& v) const { return planar ? Vec3(v(o), v(o + 1), 0.0) : Vec3(v.segment<3>(o)); }
  /// p, ṗ or p̈.
  Vec4 p(const Vec& q) const { return planar ? Vec4(q(o + 2), 0.0, 0.0, q(o + 3)) : Vec4(q.segment<4>(o + 3)); }
  /// row(r's coordinates) += g (@p row: any vector or row with operator()).
  template <class Row> void add_r(Row&& row, const Vec3& g) const {
    for (int k = 0; k < (planar ? 2 : 3); ++k) row(o + k) += g(k);
  }
  /// row(p's coordinates) += g.
  template <class Row> void add_p(Row&& row, const Vec4& g) const {
    if (planar) {
      row(o + 2) += g(0);
      row(o + 3) += g(3);
    } else {
      for (int k = 0; k < 4; ++k) row(o + 3 + k) += g(k);
    }
  }
  /// The gradient with respect to the 7 pose coordinates [r, p] read back from a row over q
  /// (a planar body: zero in z, e1, e2).
  template <class Row> Eigen::Matrix<double, 7, 1> pose_part(const Row& row) const {
    Eigen::Matrix<double, 7, 1> g = Eigen::Matrix<double, 7, 1>::Zero();
    if (planar) {
      g(0) = row(o), g(1) = row(o + 1), g(3) = row(o + 2), g(6) = row(o + 3);
    } else {
      for (int k = 0; k < 7; ++k) g(k) = row(o + k);
    }
    return g;
  }
};

/// One body type in the equations of motion. Every call works on the system's vectors at the body's
/// first coordinate @p o: its block is [o, o + n_coordinates()), r at o, p at o + 3, η at o + 7.
/// Not thread-safe (a flexible body caches its floating-frame contractions), as System is not.
class BodyModel {
public:
  /// @p body as System keeps it (unit Euler parameters).
  explicit BodyModel(RigidBody body) : body_(std::move(body)) {}
  virtual ~BodyModel() = default;
  BodyModel(const BodyModel&) = delete;
  BodyModel& operator=(const BodyModel&) = delete;

  const RigidBody& body() const { return body_; }
  /// Number of the body's own coordinates after r and p (elastic coordinates η).
  virtual int n_elastic() const { return 0; }
  /// 7 + n_elastic() (a planar body: 4, mbs/PlanarBody.hpp).
  virtual int n_coordinates() const { return 7 + n_elastic(); }

  // ---- coordinates ----
  /// The body's block of q (zero on entry) at t = 0 from the pose given.
  virtual void initial_coordinates(Vec& q, int o) const;
  /// The body's block of q̇ (zero on entry) from the velocities given (not yet consistent).
  virtual void initial_rates(Vec& v, int o) const;

  // ---- mass ----
  /// The body's block of M(q) a into @p out.
  virtual void mass_times(const Vec& q, const Vec& a, int o, Vec& out) const = 0;
  /// The body's diagonal block of M(q), scaled by @p scale, at (o, o) of @p mm.
  virtual void mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const = 0;

  // ---- forces and energies of the body itself ----
  /// Add what the body exerts on itself to @p f: the quadratic-velocity vector (if @p qv_terms), the
  /// elastic and modal damping forces, and, for a body whose gravity is a distributed field, the
  /// gravity of the summed field @p g_sum of all gravity loads.
  virtual void add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& g_sum, bool qv_terms, Vec& f) const = 0;
  /// Add one gravity load @p g where add_body_forces does not (a rigid body: m g at r; loads in input order).
  virtual void add_gravity(const Vec3& /*g*/, int /*o*/, Vec& /*f*/) const {}
  /// g · (m r + A s): the work of a uniform field @p g from the global origin (minus its potential).
  virtual double gravity_work(const Vec& q, int o, const Vec3& g) const = 0;
  /// The strain energy (0 for a rigid body).
  virtual double strain_energy(const Vec& /*q*/, int /*o*/) const { return 0.0; }
  /// The power the modal damping dissipates, η̇ᵀ D η̇ ≥ 0 (0 for a rigid body).
  virtual double dissipation(const Vec& /*v*/, int /*o*/) const { return 0.0; }
  /// Add ck K + cd D of the body's own coordinates to @p out (n × n): the stiff, exactly known part
  /// of −∂Q/∂q and −∂Q/∂q̇ for the Newton iteration matrix.
  virtual void add_stiffness_damping(const Vec& /*q*/, int /*o*/, double /*ck*/, double /*cd*/,
                                     Eigen::Ref<Mat> /*out*/) const {}
  /// The amplitudes ξ of the reduced basis that strain the body at elastic coordinates @p eta (stress
  /// recovery σ = S ξ): V η; empty for a rigid body.
  virtual Vec strain_amplitudes(const Vec& /*eta*/) const { return Vec(); }

  // ---- attachments the body type refuses (InputError naming @p who) ----
  /// A point @p s (body frame) of a joint, force or output, on the interface @p at (may be null).
  virtual void check_point(const Vec3& /*s*/, const Attachment* /*at*/, const std::string& /*who*/) const {}
  /// An axis fixed in the body.
  virtual void check_axis(const std::string& /*who*/) const {}
  /// A load @p f (called for f.body and f.body2; @p acted_on: this body is f.body) named @p who.
  virtual void check_load(const ForceSpec& /*f*/, bool /*acted_on*/, const std::string& /*who*/) const {}
  /// A force or torque @p f on this body (after its axis was checked): where and how it acts.
  virtual void check_force(const ForceSpec& /*f*/) const {}
  /// Whether System holds the body's frame at the global frame by a fixed joint `<name>.frame`
  /// (the body's own coordinates carry its whole motion).
  virtual bool frame_held() const { return false; }
  /// The constant leading block C of the body's mass block where M_b(q) = blockdiag(C, N(q)): C on
  /// the body's first C.rows() coordinates, independent of q and uncoupled from the rest (a rigid
  /// body: m 1 on r; a planar one: m 1 on (x, y); a GS body: the held frame's placeholder m 1 on all
  /// 7). Empty (the default) where there is none: a floating-frame body's (FFRF, GCMS) M_rr =
  /// A m Aᵀ = m 1 is constant, but its couplings M_rp = −A s̃(η) 2G and M_rη = A S̄ vary with q (zero
  /// only for a frame at the centre of mass with exact mean-axis modes). A reduced model projects C
  /// once (rom/ReducedIntegrator.hpp).
  virtual Mat constant_mass_block() const { return Mat(); }

protected:
  RigidBody body_;
};

/// A rigid body: M_b = blockdiag(m 1, 4 GᵀJG), Q_p = 8 ĠᵀJĠ p.
class RigidBodyModel : public BodyModel {
public:
  using BodyModel::BodyModel;
  void mass_times(const Vec& q, const Vec& a, int o, Vec& out) const override;
  void mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const override;
  void add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& g_sum, bool qv_terms, Vec& f) const override;
  void add_gravity(const Vec3& g, int o, Vec& f) const override;
  double gravity_work(const Vec& q, int o, const Vec3& g) const override;
  Mat constant_mass_block() const override; ///< m 1 (3 × 3) on r
};

/// A flexible floating-frame body (FFRF, the header's equations) on its FlexibleData.
class FlexibleBodyModel : public BodyModel {
public:
  /// @throws InputError when K, D and the invariants do not fit or the body has no mass.
  explicit FlexibleBodyModel(RigidBody body);
  const FlexibleData& data() const { return *body_.flex; }
  int n_elastic() const override { return body_.flex->n_elastic(); }
  void mass_times(const Vec& q, const Vec& a, int o, Vec& out) const override;
  void mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const override;
  void add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& g_sum, bool qv_terms, Vec& f) const override;
  double gravity_work(const Vec& q, int o, const Vec3& g) const override;
  double strain_energy(const Vec& q, int o) const override;
  double dissipation(const Vec& v, int o) const override;
  void add_stiffness_damping(const Vec& q, int o, double ck, double cd, Eigen::Ref<Mat> out) const override;
  Vec strain_amplitudes(const Vec& eta) const override;

protected:
  /// Subtract the elastic and damping forces K̄η + D̄η̇ from the η block of @p f (at o + 7).
  virtual void subtract_elastic_force(const Vec& eta, const Vec& eta_d, int o, Vec& f) const;
  /// The floating-frame contractions at @p eta: a Newton iteration evaluates M(q)·a and the forces
  /// at one q, which share them.
  const cms::FrameContractions& contractions(const Vec& eta) const;

private:
  mutable cms::FrameContractions contractions_;
};

/// The model of @p body: rigid, planar (body.planar, mbs/PlanarBody.hpp), flexible, or GCMS (flex->gcms).
std::unique_ptr<BodyModel> make_body_model(const RigidBody& body);

} // namespace flexuq::mbs
