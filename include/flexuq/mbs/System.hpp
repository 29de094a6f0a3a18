// SPDX-License-Identifier: MIT
#pragma once
/// @file System.hpp
/// @brief A constrained multibody system in absolute coordinates: rigid bodies with 3 translations
/// and 4 Euler parameters each (q_b = [r, p], 7 per body, the unit-norm constraint pᵀp − 1 = 0 as
/// an explicit row), flexible floating-frame bodies with their n_e elastic coordinates appended
/// (q_b = [r, p, η], 7 + n_e), joints and drivers as scalar constraint rows, applied forces.
/// Serial Eigen code: one simulation per rank.
///
/// Flexible bodies (FFRF, seed 000 §2.1–2.3): r, p locate the body's reference frame (the mesh
/// frame of the reduced body), η are the free-free elastic coordinates of the reduced pair
/// (cms::ReducedBody floating_frame: VᵀM̄V = 1, mean-axis frame). With the body-frame velocities
/// w = T q̇_b, T = blockdiag(Aᵀ, 2G, 1) (v_O = Aᵀṙ, ω' = 2Gṗ) and cms/FloatingFrame.hpp's
/// M(η) w' = Q_v + Q_ext − [0; 0; K̄η + D̄η̇], virtual work gives
///   M_q = Tᵀ M(η) T,  Q_q = Tᵀ (Q_v + Q_grav) − [0; 0; K̄η + D̄η̇]
/// exactly, because Ġṗ = 0 makes T q̈ = [Aᵀr̈; ω̇'; η̈] (the inertial acceleration of O). Tᵀ M T
/// is singular along p like the rigid 4GᵀJG; the norm row fixes that direction.
/// A point attached to a flexible body moves with the deformation: a part of a BodyVector is
/// A(p)(s + L η) (+ r for points), with L = T_ref − (s − x_ref)~ R_ref for a point rigidly linked
/// to an interface reference node (translations T_ref, small rotations R_ref in η) and
/// L = −s~ R_ref for an axis that turns with the node; L is empty for rigid bodies.
///
/// A GCMS body (seed 001, FlexibleData::gcms) is a flexible body whose frame a fixed joint
/// `<body>.frame` holds at the global frame: η = q are the amplitudes of its whole basis (V = 1),
/// M(η) reduces to the constant M̂ on them, Q_v to zero, and K η is replaced by the co-rotated
/// Â K̂ Âᵀ q_flx + f̂_nl (Eq. 58). Its points are interface reference points (linear in q); axes on it
/// are refused (add_joint).
///
/// Every joint row has the form  Φ = Σ_k c_k(t) u_kᵀ v_k − g(t) − φ0, where u_k, v_k are global
/// vectors built from body-fixed parts (a body axis A_b a', or a separation d = r_j + A_j s_j −
/// r_i − A_i s_i). This one form covers Haug's dot-1, dot-2, spherical, distance and the
/// rotational / translational drivers (seed 004 §2.8), and gives C_q, Φ_t and γ analytically:
///   C_q = Σ c (vᵀ U_q + uᵀ V_q),
///   γ  = −Σ [c (vᵀ u_c + uᵀ v_c + 2 u̇ᵀv̇) + 2 c' (u̇ᵀ v + uᵀ v̇) + c'' uᵀ v] + g'',
/// with the convective part w_c = Σ ± B(ṗ, a') ṗ of ẅ = W_q q̈ + w_c (B is linear in p).

#include "flexuq/mbs/EulerParameters.hpp"
#include "flexuq/mbs/GcmsBody.hpp"
#include "flexuq/mbs/TimeFunction.hpp"

#include <Eigen/Dense>

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/Invariants.hpp"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::mbs {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

constexpr int kGround = -1;

/// How a named interface of a flexible body moves with η (body frame): its reference point and
/// the translation and (small) rotation of that point, both 3 × n_e.
struct Attachment {
  Vec3 ref = Vec3::Zero();
  Mat translation, rotation;
};

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
  int n_elastic() const { return static_cast<int>(K.rows()); }
  /// The interface @p name; throws InputError naming @p who and listing the interfaces.
  const Attachment& interface(const std::string& name, const std::string& who) const;
};

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
};

enum class JointType {
  revolute, spherical, prismatic, cylindrical, universal, fixed, planar, dot1, dot2, distance,
  point_on_line, angle_driver, translation_driver,
  // 2-D joints (seed 004 §2.8's planar library) for bodies held in a plane (normal n): revolute-2d
  // (axis = n; the points coincide in the plane, 2 rows), prismatic-2d (axis = the sliding direction a
  // in the plane, axis2 = n, default z: no relative turn about n and body j's point on body i's line,
  // 2 rows), point-on-line-2d (body j's point on body i's line (point, a) in the plane, 1 row).
  revolute_2d, prismatic_2d, point_on_line_2d
};
JointType parse_joint_type(const std::string& s); ///< throws InputError listing the types
const char* joint_type_name(JointType t);

/// A joint as the user gives it: points and axes in the global frame at t = 0.
struct JointSpec {
  std::string name;
  JointType type = JointType::revolute;
  int body_i = kGround, body_j = kGround;
  Vec3 point = Vec3::Zero();  ///< joint point (on body i; also on body j unless point2 is set)
  Vec3 point2 = Vec3::Zero(); ///< second point (on body j) for dot2, distance, point-on-line
  bool has_point2 = false;
  Vec3 axis = Vec3::UnitZ();  ///< joint axis (on body i)
  Vec3 axis2 = Vec3::UnitX(); ///< second axis (on body j) for universal and dot1
  bool has_axis2 = false;
  double distance = -1.0;     ///< distance joint: < 0 = the initial distance
  /// Interfaces of flexible bodies i and j the joint is attached to (empty for rigid bodies).
  std::string interface_i, interface_j;
  TimeFunction motion;        ///< drivers: relative angle / translation as a function of time
};

/// rotational_damper: torque −c (a·(ω_body − ω_body2)) a on body (the opposite on body2), a the unit
/// axis (global, or fixed in body with body_frame), c = damping.
enum class ForceType { torque, force, gravity, spring, rotational_damper };

struct ForceSpec {
  ForceType type = ForceType::gravity;
  int body = kGround, body2 = kGround; ///< torque: reaction on body2; spring: between body and body2
  Vec3 direction = Vec3::Zero();       ///< unit axis (torque/force) or g (gravity)
  bool body_frame = false;             ///< torque/force axis fixed in the body instead of global
  Vec3 point = Vec3::Zero(), point2 = Vec3::Zero(); ///< global at t = 0 (force point; spring ends)
  TimeFunction value = TimeFunction::constant(1.0);
  double stiffness = 0, damping = 0, length = -1.0; ///< spring (length < 0 = initial length); damper: damping
  /// force on a flexible body: the interface whose motion the point follows (translation and small
  /// rotation of the interface, as a joint on it); empty: the point is fixed in the floating frame.
  /// torque on a flexible body: the interface it turns (ω + A R_I η̇: Q = [0; 2Eᵀn; R_Iᵀ Aᵀ n]); empty:
  /// the floating frame (a load the elastic coordinates do not feel, which depends on the frame).
  std::string interface;
};

/// A global vector Σ sign·(r_b if point) + A_b local over its parts (ground parts are constants).
struct BodyVector {
  struct Part {
    int body;
    Vec3 local;
    double sign;
    bool point;
    Mat L = Mat(); ///< flexible bodies: 3 × n_e, the body-frame motion of the part with η
  };
  std::vector<Part> parts;
};

class System {
public:
  /// Move-only: constraint rows and force coefficients point into motions_ (a deque, whose elements
  /// keep their addresses when the container is moved, but not in a copy). To rebuild a system
  /// around other elastic data use with_flexible().
  System() = default;
  System(const System&) = delete;
  System& operator=(const System&) = delete;
  System(System&&) = default;
  System& operator=(System&&) = default;
  /// Add a body; returns its index. Ground is kGround and is never added.
  /// A GCMS body (flex->gcms): position / orientation place its mesh, velocity / angular_velocity
  /// are those of its centre of mass; they become the initial amplitudes (gcms_pose), and a fixed
  /// joint `<name>.frame` holds its frame at the global frame.
  int add_body(const RigidBody& b);
  /// Index of a body by name ("ground" → kGround); throws InputError naming @p who.
  int body_index(const std::string& name, const std::string& who) const;
  /// Add a joint given in the global frame at t = 0 (bodies at their initial poses).
  /// @throws InputError naming the joint for a zero axis, non-perpendicular axes, a body joined to itself.
  void add_joint(const JointSpec& j);
  void add_force(const ForceSpec& f);
  void set_quadratic_velocity(bool on) { qv_terms_ = on; }
  /// Replace the elastic data of flexible body @p b by @p d of the same size and interfaces (a
  /// campaign sample's stiffness); joints keep their attachments.
  void replace_flexible(int b, std::shared_ptr<const FlexibleData> d);
  /// The system built again from the same bodies, joints and forces as given, with the elastic data
  /// of body b replaced by @p flex[b] where that is set: unlike replace_flexible, the joints'
  /// attachments follow the new data's interfaces (a stochastic body's basis changes with θ).
  System with_flexible(const std::vector<std::shared_ptr<const FlexibleData>>& flex) const;

  int n() const { return n_; }
  /// First coordinate of body @p b (r, then p, then η for flexible bodies).
  int offset(int b) const { return off_[b]; }
  /// Number of elastic coordinates of body @p b (0 for rigid bodies).
  int n_elastic(int b) const { return bodies_[b].flex ? bodies_[b].flex->n_elastic() : 0; }
  /// Whether body @p b is a GCMS body (seed 001; its frame is held, η = q).
  bool gcms(int b) const { return is_gcms(b); }
  /// The body that coordinate @p k belongs to.
  int body_of_coordinate(int k) const;
  /// Rows in use (joint rows kept after the redundancy check + one norm row per body).
  int m() const { return static_cast<int>(active_.size()); }
  int rows_total() const { return static_cast<int>(rows_.size() + bodies_.size()); }
  const std::vector<RigidBody>& bodies() const { return bodies_; }
  const std::vector<JointSpec>& joints() const { return joints_; }
  const std::vector<ForceSpec>& forces() const { return forces_; }
  /// Joint of each row of the full row set (norm rows: -1 - body).
  int row_joint(int full_row) const;
  std::string row_label(int full_row) const;
  /// Active (kept) rows, indices into the full row set.
  const std::vector<int>& active_rows() const { return active_; }
  /// Rows (full set) of joint @p j: [first, first + count).
  std::pair<int, int> joint_rows(int j) const { return joint_rows_[j]; }

  Vec initial_q() const;
  Vec initial_v() const; ///< from the bodies' velocities (not yet consistent)

  /// Keep a maximal independent subset of rows at @p q (in order: norm rows, then joints in
  /// input order; a row is dropped when its C_q row lies within @p tol (relative) of the span
  /// of the rows kept before it). Returns the labels of the dropped rows.
  std::vector<std::string> select_independent_rows(const Vec& q, double t, double tol = 1e-8);

  // ---- evaluation on the active rows (m) or on all rows (the *_all variants) ----
  Vec phi(const Vec& q, double t) const;
  Vec phi_all(const Vec& q, double t) const;
  Mat jacobian(const Vec& q, double t) const;
  Mat jacobian_all(const Vec& q, double t) const;
  /// C_qᵀ λ (n) and φ (m) on the active rows in one pass, without forming C_q: what the Newton
  /// residual of the implicit integrators needs per iteration.
  /// With @p v and @p phi_dot also dΦ/dt = C_q v + Φ_t from the same pass (the stabilised integrators).
  void constraint_residual(const Vec& q, double t, const Vec& lambda, Vec& cq_t_lambda, Vec& phi,
                           const Vec* v = nullptr, Vec* phi_dot = nullptr) const;
  Vec phi_t(const Vec& q, double t) const;
  Vec gamma(const Vec& q, const Vec& v, double t) const;

  Mat mass(const Vec& q) const;
  /// M(q) a without forming M: Tᵀ (M(η) (T a)) per flexible body (the Newton residual's inertia).
  Vec mass_times(const Vec& q, const Vec& a) const;
  /// Write M(q) into the top-left n × n block of @p out scaled by @p scale (no allocation of n × n).
  void mass_into(const Vec& q, double scale, Eigen::Ref<Mat> out) const;
  /// Add ck K̄ + cd D̄ of every flexible body at its elastic coordinates, and the linear part of the
  /// springs (ck × stiffness, cd × damping along the current spring direction) to @p out (n × n):
  /// the stiff, exactly known part of −∂Q/∂q and −∂Q/∂q̇ for the Newton iteration matrix.
  void add_stiffness_damping(const Vec& q, double ck, double cd, Eigen::Ref<Mat> out) const;
  /// Applied + gravity + spring forces + quadratic-velocity vector (if on).
  Vec forces(const Vec& q, const Vec& v, double t) const;
  double kinetic_energy(const Vec& q, const Vec& v) const;
  double potential_energy(const Vec& q) const; ///< gravity + springs (strain energy apart)
  double strain_energy(const Vec& q) const;    ///< ½ ηᵀK̄η of the flexible bodies
  /// Power of the non-conservative forces (torques, forces, dampers) at (q, v, t).
  double nonconservative_power(const Vec& q, const Vec& v, double t) const;

  /// Normalise every body's Euler parameters in @p q (after a projection).
  void normalise(Vec& q) const;

  // Helpers for outputs.
  Vec4 euler(const Vec& q, int b) const { return b == kGround ? Vec4(1, 0, 0, 0) : Vec4(q.segment<4>(off_[b] + 3)); }
  Vec4 euler_rate(const Vec& v, int b) const { return b == kGround ? Vec4::Zero() : Vec4(v.segment<4>(off_[b] + 3)); }
  /// Global angular velocity ω = 2 E(p) ṗ of body @p b (zero for the ground).
  Vec3 angular_velocity(const Vec& q, const Vec& v, int b) const { return 2.0 * e_matrix(euler(q, b)) * euler_rate(v, b); }
  Vec3 origin(const Vec& q, int b) const { return b == kGround ? Vec3::Zero() : Vec3(q.segment<3>(off_[b])); }
  /// Elastic coordinates η of body @p b (empty for rigid bodies).
  Vec elastic(const Vec& q, int b) const { return q.segment(off_[b] + 7, n_elastic(b)); }
  /// Global position / velocity / acceleration of body point @p s (body frame).
  Vec3 point_position(const Vec& q, int b, const Vec3& s) const;
  Vec3 point_velocity(const Vec& q, const Vec& v, int b, const Vec3& s) const;
  Vec3 point_acceleration(const Vec& q, const Vec& v, const Vec& a, int b, const Vec3& s) const;
  /// The same for a point attached to interface @p iface of a flexible body (s + L η, L as for joints).
  Vec3 point_position(const Vec& q, int b, const Vec3& s, const Mat& L) const;
  Vec3 point_velocity(const Vec& q, const Vec& v, int b, const Vec3& s, const Mat& L) const;
  Vec3 point_acceleration(const Vec& q, const Vec& v, const Vec& a, int b, const Vec3& s, const Mat& L) const;
  /// L of a point @p s (body frame) rigidly linked to interface @p iface of flexible body @p b. On a
  /// GCMS body @p s must be the interface's reference point (InputError naming @p who otherwise).
  Mat point_map(int b, const std::string& iface, const Vec3& s, const std::string& who) const;
  /// Body-frame vector of joint @p j's frame on its body i (k = 0: f, 1: g, 2: h = axis) and j.
  Vec3 joint_axis_i(int j, int k) const { return frames_[j].ai[k]; }
  Vec3 joint_axis_j(int j, int k) const { return frames_[j].aj[k]; }
  Vec3 joint_point_j(int j) const { return frames_[j].sj; }
  /// Relative rotation of joint @p j about its axis (atan2 in (−π, π]; callers unwrap).
  double joint_angle(const Vec& q, int j) const;
  /// Reaction on body j of joint @p j at its point, global frame: [force; torque].
  Eigen::Matrix<double, 6, 1> joint_reaction(const Vec& q, const Vec& lambda_active, int j, double t) const;

private:
  struct Coef {
    enum Kind { one, cos_motion, neg_sin_motion } kind = one;
    const TimeFunction* f = nullptr;
    std::array<double, 3> eval(double t) const;
  };
  struct Term {
    Coef c;
    int u, v; ///< indices into vectors_
  };
  struct Row {
    std::vector<Term> terms;
    const TimeFunction* g = nullptr; ///< subtracted (drivers)
    double phi0 = 0.0;               ///< subtracted constant (distance²)
    int joint = -1;
    std::string label;
  };
  struct VecState {
    Vec3 w, wd, wc;
  };
  /// d/dt of one term c(t) uᵀv: c (u̇ᵀv + uᵀv̇) + c' uᵀv, with @p c = {c, c', c''}.
  static double row_rate(const std::array<double, 3>& c, const VecState& u, const VecState& v) {
    return c[0] * (u.wd.dot(v.w) + u.w.dot(v.wd)) + c[1] * u.w.dot(v.w);
  }
  struct Frame {
    Vec3 ai[3], aj[3]; ///< joint frame axes on body i and j (body frames)
    Vec3 si, sj;       ///< joint point on body i and j (body frames)
    Mat Lsj;           ///< flexible body j: L of the joint point (empty otherwise)
  };

  int add_vector(BodyVector bv);
  int body_axis(int b, const Vec3& global_axis, const Attachment* at = nullptr);
  int separation(int bi, const Vec3& pi, int bj, const Vec3& pj, const Attachment* ai = nullptr,
                 const Attachment* aj = nullptr);
  static Mat attach_point(const Attachment* at, const Vec3& s);
  static Mat attach_axis(const Attachment* at, const Vec3& a);
  int constant_vector(const Vec3& w);
  void add_dot_row(int joint, const std::string& label, int u, int v, double phi0 = 0.0);
  Vec3 to_local_point(int b, const Vec3& global) const;
  Vec3 to_local_axis(int b, const Vec3& global) const;

  void vector_states(const Vec& q, const Vec* v, std::vector<VecState>& out) const;
  void add_vector_jacobian(int vec, const Vec3& coeff, const Vec& q, Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> row) const;
  double row_value(const Row& r, const std::vector<VecState>& s, double t) const;

  std::vector<RigidBody> bodies_;
  std::vector<int> off_; ///< first coordinate per body
  int n_ = 0;
  std::vector<JointSpec> joints_;
  std::vector<Frame> frames_;
  std::vector<std::pair<int, int>> joint_rows_;
  std::vector<ForceSpec> forces_;
  std::vector<ForceSpec> force_input_; ///< as given to add_force (with_flexible adds them again)
  std::vector<Vec3> force_local_, force_local2_; ///< body-frame points of force/spring ends
  std::vector<Mat> force_L_;                     ///< per force: its point's map of η (ForceSpec::interface), else empty
  std::vector<Mat> force_R_;                     ///< per torque on an interface: its small rotation R_I (3 × n_e), else empty
  std::vector<double> spring_length_;
  std::vector<BodyVector> vectors_;
  std::vector<Row> rows_;
  std::deque<TimeFunction> motions_; ///< stable addresses for Coef/Row
  std::vector<int> active_;          ///< full-row indices in use (joint rows, then norm rows)
  bool active_set_ = false;
  bool qv_terms_ = true;
  /// GCMS bodies: initial amplitudes and rates (the pose given as position / orientation, the
  /// velocities), empty for other bodies; and the joints System adds itself (`<body>.frame`).
  std::vector<Vec> eta0_, eta_rate0_;
  std::vector<bool> internal_joint_;
  int holding_frame_ = -2;  ///< while the frame joint of this GCMS body is added: its frame is global
  std::string who_;         ///< the joint or force being added (messages)
  bool is_gcms(int b) const { return b != kGround && bodies_[b].flex && bodies_[b].flex->gcms; }
  /// A GCMS body takes points at an interface's reference point only (seed 001: node constraints
  /// linear in q); throws InputError naming @p who otherwise. Joints (separation) and point_map call it.
  void check_gcms_point(int b, const Vec3& s, const Attachment* at, const std::string& who) const;
  /// Per flexible body, the floating-frame contractions at the last η seen: a Newton iteration
  /// evaluates M(q)·a and the forces at one q, which share them (not thread-safe, as System is not).
  mutable std::vector<cms::FrameContractions> contractions_;

  void reset_active();
  const cms::FrameContractions& contractions(std::size_t b, const Vec& eta) const;
  Vec3 damper_axis(const ForceSpec& s, const Vec& q) const;                    ///< global unit axis
  double damper_rate(const ForceSpec& s, const Vec& q, const Vec& v) const; ///< a·(ω_body − ω_body2)
};

} // namespace flexuq::mbs
