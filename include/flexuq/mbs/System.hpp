// SPDX-License-Identifier: MIT
#pragma once
/// @file System.hpp
/// @brief A constrained multibody system in absolute coordinates: bodies (mbs/Body.hpp: rigid
/// bodies with q_b = [r, p], flexible floating-frame bodies with q_b = [r, p, η]; mbs/GcmsBody.hpp:
/// GCMS bodies), joints and drivers as scalar constraint rows (mbs/Joint.hpp, mbs/ConstraintRows.hpp)
/// plus one Euler-parameter norm row per body, applied forces (mbs/Force.hpp). System is the facade
/// that owns them: one BodyModel per body, the joints' rows, the loads. Serial Eigen code: one
/// simulation per rank. This header includes the others (existing includes keep compiling).
///
/// Sources by concept: System.cpp (bodies, coordinates, mass, point kinematics), Joints.cpp (the
/// joint library → rows), Constraints.cpp (Φ, C_q, Φ_t, γ with the norm rows, redundancy, joint
/// outputs), ConstraintRows.cpp (the row algebra), Forces.cpp (loads, springs, dampers, energies),
/// Body.cpp / GcmsBody.cpp (the body types).

#include "flexuq/mbs/Body.hpp"
#include "flexuq/mbs/ConstraintRows.hpp"
#include "flexuq/mbs/EulerParameters.hpp"
#include "flexuq/mbs/Force.hpp"
#include "flexuq/mbs/GcmsBody.hpp"
#include "flexuq/mbs/Joint.hpp"
#include "flexuq/mbs/PlanarBody.hpp"
#include "flexuq/mbs/TimeFunction.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace flexuq::mbs {

using SpMat = Eigen::SparseMatrix<double>;
using Triplets = std::vector<Eigen::Triplet<double>>;

class System {
public:
  /// Move-only: constraint rows point into the motions their ConstraintRows keeps (which keep their
  /// addresses when it is moved, but not in a copy), and the bodies' models are unique. To rebuild a
  /// system around other elastic data use with_flexible().
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
  /// First coordinate of body @p b (r, then p, then η for flexible bodies; [x, y, e0, e3] for a planar body).
  int offset(int b) const { return off_[b]; }
  /// Where body @p b's frame coordinates are and how its pose (r, p) reads from them (mbs/Body.hpp).
  const FrameLayout& frame_layout(int b) const { return layout_[static_cast<std::size_t>(b)]; }
  /// Whether body @p b has planar coordinates (mbs/PlanarBody.hpp).
  bool planar(int b) const { return b != kGround && layout_[static_cast<std::size_t>(b)].planar; }
  /// Number of elastic coordinates of body @p b (0 for rigid bodies).
  int n_elastic(int b) const { return bodies_[b].flex ? bodies_[b].flex->n_elastic() : 0; }
  /// Whether body @p b is a GCMS body (seed 001; its frame is held, η = q).
  bool gcms(int b) const { return b != kGround && bodies_[b].flex && bodies_[b].flex->gcms; }
  /// A generalised-superelement body (flex->gs, mbs/GsBody.hpp).
  /// A generalised-superelement body, planar (mbs/GsBody.hpp) or 3-D (mbs/GsBody3d.hpp).
  bool gs(int b) const { return b != kGround && bodies_[b].flex && (bodies_[b].flex->gs || bodies_[b].flex->gs3d); }
  /// A planar one (its joints are limited to the plane).
  bool gs_planar(int b) const { return b != kGround && bodies_[b].flex && bodies_[b].flex->gs; }
  /// The model of body @p b (its type's mass, forces, energies; mbs/Body.hpp).
  const BodyModel& body_model(int b) const { return *models_[static_cast<std::size_t>(b)]; }
  /// The body that coordinate @p k belongs to.
  int body_of_coordinate(int k) const;
  /// Rows in use (joint rows kept after the redundancy check + one norm row per body).
  int m() const { return static_cast<int>(active_.size()); }
  int rows_total() const { return rows_.size() + static_cast<int>(bodies_.size()); }
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
  /// The joints' rows (full rows [0, size()); the norm rows pᵀp − 1 of the bodies follow them), for
  /// evaluators that contract them directly (rom/ReducedConstraints.hpp).
  const ConstraintRows& constraint_rows() const { return rows_; }

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

  // ---- sparse forms (SparseAssembly.cpp): the entries of jacobian(), mass_into() and
  // add_stiffness_damping() without an m × n or n × n dense matrix (large mechanisms, issue #40);
  // exact zeros are left out, so their patterns are those of the dense matrices' non-zeros ----
  /// C_q on the active rows (m × n), or on all rows (@p all: rows_total() × n, the rank test).
  SpMat jacobian_sparse(const Vec& q, double t, bool all = false) const;
  /// Append scale · M(q) (its n × n entries) to @p out, at row and column offset 0.
  void mass_triplets(const Vec& q, double scale, Triplets& out) const;
  /// Append what add_stiffness_damping(q, ck, cd, ·) adds (the same terms) to @p out.
  void stiffness_damping_triplets(const Vec& q, double ck, double cd, Triplets& out) const;

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
  Vec4 euler(const Vec& q, int b) const { return b == kGround ? Vec4(1, 0, 0, 0) : layout_[b].p(q); }
  Vec4 euler_rate(const Vec& v, int b) const { return b == kGround ? Vec4::Zero() : layout_[b].p(v); }
  /// Global angular velocity ω = 2 E(p) ṗ of body @p b (zero for the ground).
  Vec3 angular_velocity(const Vec& q, const Vec& v, int b) const { return 2.0 * e_matrix(euler(q, b)) * euler_rate(v, b); }
  Vec3 origin(const Vec& q, int b) const { return b == kGround ? Vec3::Zero() : layout_[b].r(q); }
  /// ṙ (or r̈ from accelerations) of body @p b's frame origin.
  Vec3 origin_rate(const Vec& v, int b) const { return b == kGround ? Vec3::Zero() : layout_[b].r_rate(v); }
  /// The 7 frame coordinates [r, p] of body @p b (a planar body: [x, y, z0, e0, 0, 0, e3]); with
  /// @p rate, their rates from @p q = q̇.
  Eigen::Matrix<double, 7, 1> pose(const Vec& q, int b, bool rate = false) const;
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
  /// joint_reaction of every joint, the body vectors evaluated once: O(rows) per call where one
  /// joint_reaction per joint built the whole dense C_q each (O(bodies³) per output on a 1,600-body chain).
  std::vector<Eigen::Matrix<double, 6, 1>> joint_reactions(const Vec& q, const Vec& lambda_active, double t) const;
  /// dΦ/dt = C_q q̇ + Φ_t of every row (the dropped redundant rows and the Euler-parameter norms
  /// included), row by row without forming C_q.
  Vec phi_dot_all(const Vec& q, const Vec& v, double t) const;

private:
  /// The springs' and rotational dampers' terms w gᵀg of add_stiffness_damping, one call each: g
  /// (length n) is non-zero on the coordinates of the force's bodies @p b1, @p b2 only (kGround: none).
  using RankOneSink = std::function<void(double w, const Eigen::RowVectorXd& g, int b1, int b2)>;
  void force_rank_ones(const Vec& q, double ck, double cd, const RankOneSink& add) const;
  /// joint_reaction of the joints @p which (all if empty).
  std::vector<Eigen::Matrix<double, 6, 1>> reactions_of(const Vec& q, const Vec& lambda_active, double t,
                                                         const std::vector<int>& which) const;
  /// Joint frame axes and points in the body frames of bodies i and j.
  struct Frame {
    Vec3 ai[3], aj[3]; ///< joint frame axes on body i and j (body frames)
    Vec3 si, sj;       ///< joint point on body i and j (body frames)
    Mat Lsj;           ///< flexible body j: L of the joint point (empty otherwise)
  };

  // Joints.cpp: body vectors of a joint being added.
  int body_axis(int b, const Vec3& global_axis, const Attachment* at = nullptr);
  int separation(int bi, const Vec3& pi, int bj, const Vec3& pj, const Attachment* ai = nullptr,
                 const Attachment* aj = nullptr);
  Vec3 to_local_point(int b, const Vec3& global) const;
  Vec3 to_local_axis(int b, const Vec3& global) const;
  /// A joint on a planar body: one of the planar joint types with its axes in or normal to the plane
  /// (InputError naming the joint @p who otherwise).
  void check_planar_joint(const JointSpec& spec, const std::string& who) const;
  /// The model's check of a point @p s of body @p b (none on the ground or a frame being held).
  void check_point(int b, const Vec3& s, const Attachment* at, const std::string& who) const;

  std::vector<RigidBody> bodies_;
  std::vector<std::unique_ptr<BodyModel>> models_; ///< per body: its type's mass, forces, energies
  std::vector<int> off_; ///< first coordinate per body
  std::vector<FrameLayout> layout_; ///< per body: its frame coordinates (off_ and the planar map)
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
  ConstraintRows rows_;              ///< the joints' rows (the norm rows follow them in the full row set)
  std::vector<int> active_;          ///< full-row indices in use (joint rows, then norm rows)
  bool active_set_ = false;
  bool qv_terms_ = true;
  /// The joints System adds itself (`<body>.frame` of a body whose frame is held).
  std::vector<bool> internal_joint_;
  int holding_frame_ = -2;  ///< while the frame joint of a body is added: its frame is global
  std::string who_;         ///< the joint or force being added (messages)

  void reset_active();
  Vec3 damper_axis(const ForceSpec& s, const Vec& q) const;                    ///< global unit axis
  double damper_rate(const ForceSpec& s, const Vec& q, const Vec& v) const; ///< a·(ω_body − ω_body2)
};

} // namespace flexuq::mbs
