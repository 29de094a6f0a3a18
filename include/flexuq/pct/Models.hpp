// SPDX-License-Identifier: MIT
#pragma once
/// @file Models.hpp
/// @brief The LagrangianModels of seed 004's examples: the mass–spring–damper (§3.1, V5–V8) and planar
/// mechanisms of bodies in planar coordinates q_b = [x, y, e0, e3] (§2.7: A = [[2e0²−1, −2e0e3],
/// [2e0e3, 2e0²−1]], ω = 2(e0 ė3 − e3 ė0), one norm row e0² + e3² − 1 per body) with revolute, fixed,
/// prismatic and distance joints, slots (a body point on a ground line) and drivers (a slot whose line
/// moves by a prescribed g(t)), gravity, body torques, springs and dampers, and one-sided contacts (the
/// slider-crank §3.2–3.3, V13–V17; the motorcycle §3.5, V21–V22; the bouncing ball §3.6, V23–V24).

#include "flexuq/pct/Galerkin.hpp"
#include "flexuq/pct/Model.hpp"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace flexuq::pct {

/// MSC.Adams STEP (seed 004 Eq. 5.2, with x1 as corrected): x1 for t ≤ t1, x2 for t ≥ t2, in between
/// x1 + (x2 − x1)Δ²(3 − 2Δ), Δ = (t − t1)/(t2 − t1).
double smooth_step(double t, double t1, double x1, double t2, double x2);
/// d/dt (derivative 1) and d²/dt² (2) of smooth_step (0: the value).
double smooth_step(double t, double t1, double x1, double t2, double x2, int derivative);

/// A function of time that starts at @p start and goes through each step [t1, t2, value] by a smooth step
/// (steps in order, not overlapping): a torque history or a prescribed motion, with its derivatives.
struct StepSchedule {
  double start = 0;
  std::vector<std::array<double, 3>> steps;
  double operator()(double t, int derivative = 0) const;
};

/// Seed 004 §3.1: one body with q = [x, y], gravity along −y, a spring k y and a damper c ẏ along y,
/// x held by Φ = x. Data [m, c, g, k, y(0), ẏ(0)]. T = ½m(ẋ² + ẏ²), V = m g y + ½ k y², δW = −c ẏ δy.
/// The initial y and ẏ are data too (an uncertain initial condition moves them).
class MassSpringDamper : public LagrangianModel {
public:
  enum Data { mass = 0, damping = 1, gravity = 2, stiffness = 3, initial_y = 4, initial_velocity = 5 };
  MassSpringDamper(double m, double c, double g, double k, double y0 = 0, double v0 = 0)
      : data_{m, c, g, k, y0, v0} {}
  int coordinates() const override { return 2; }
  int constraint_rows() const override { return 1; }
  std::string coordinate_name(int k) const override { return k == 0 ? "x" : "y"; }
  std::vector<double> nominal_data() const override { return {data_.begin(), data_.end()}; }
  std::string data_name(int j) const override;
  HyperDual kinetic_energy(const HyperDual* q, const HyperDual* v, const double* p) const override;
  HyperDual potential_energy(const HyperDual* q, const double* p) const override;
  HyperDual virtual_work(const HyperDual* q, const HyperDual* v, const HyperDual* dq, double t,
                         const double* p) const override;
  void constraints(const HyperDual* q, const double* p, HyperDual* phi) const override;
  ModelDegrees degrees() const override { return {{2, 1}, {2, 1}, {2, 1}, {1, 0}}; }
  std::vector<double> initial_positions() const override { return {0.0, data_[initial_y]}; }
  std::vector<double> initial_velocities() const override { return {0.0, data_[initial_velocity]}; }
  std::vector<double> initial_positions_at(const double* p) const override { return {0.0, p[initial_y]}; }
  std::vector<double> initial_velocities_at(const double* p) const override { return {0.0, p[initial_velocity]}; }
  std::vector<int> specified_positions() const override { return {1}; }
  std::vector<int> specified_velocities() const override { return {1}; }
  std::vector<std::string> output_names() const override { return {"y"}; }
  std::vector<double> outputs(const double* q, const double*) const override { return {q[1]}; }

private:
  std::array<double, 6> data_;
};

struct PlanarBody {
  std::string name;
  double mass = 1, inertia = 1;    ///< centroidal inertia J
  double x = 0, y = 0, angle = 0;  ///< initial guess of the pose (the assembly makes it consistent)
  bool specified = false;          ///< angle and angular velocity given (kept by the assembly)
  double angular_velocity = 0;
  double vx = 0, vy = 0;           ///< initial velocity of the centre of mass (a guess unless uncertain)
};

/// Joints between body i and body j (−1: the ground, r = 0, A = I); p_i = r_i + A_i s_i, p_j = r_j + A_j s_j.
///  * revolute: p_i − p_j = 0 (2 rows);
///  * slot: p_j stays on the ground line through s_i along @p axis: n·(p_j − s_i) = g(t), n ⊥ axis (1 row;
///    seed 004's dot-2 with a ground frame); with a @p motion the line moves along n by g(t): a driver
///    (seed 004's rheonomic Φ_d2 − g(t), Φ_t = −ġ);
///  * fixed: p_i − p_j = 0 and no relative rotation (3 rows);
///  * prismatic: p_j on the line through p_i along @p axis fixed in body i, n_i·(p_j − p_i) = 0 with
///    n_i = A_i R(π/2) axis, and no relative rotation (2 rows; seed 004 erratum 6);
///  * distance: (p_j − p_i)·(p_j − p_i) − L² = 0 (1 row, seed 004's "RevoluteRevolute2D"), L = @p length,
///    or, when @p length ≤ 0 at add_joint, the distance at the initial pose (the bodies' x, y, angle).
/// "No relative rotation" keeps θ_j − θ_i at its initial-pose value θ0 by the half-angle row
/// (e0_i e3_j − e3_i e0_j) cos(θ0/2) − (e0_i e0_j + e3_i e3_j) sin(θ0/2) = sin((θ_j − θ_i − θ0)/2) = 0,
/// quadratic in the quaternions (no atan2).
struct PlanarJoint {
  enum class Type { revolute, slot, fixed, prismatic, distance };
  std::string name;
  Type type = Type::revolute;
  int body_i = -1, body_j = -1;
  std::array<double, 2> si{0, 0}, sj{0, 0};
  std::array<double, 2> axis{1, 0};
  double length = 0;       ///< distance joint: L (≤ 0: from the initial pose)
  StepSchedule motion;     ///< slot: the prescribed offset g(t) of its line (none: g = 0)
  double angle = 0;        ///< fixed / prismatic: θ0, set by add_joint from the initial pose
};

/// A spring and damper between point s_i of body i and s_j of body j (−1: the ground), d = p_j − p_i:
/// V = ½k(|d| − L)², δW = −c ḋ·δd (the damper on the whole relative velocity, as seed 004's motorcycle).
/// A zero free length L keeps V = ½k dᵀd polynomial; L ≠ 0 needs |d| = √(dᵀd), a non-polynomial term
/// (refused, or projected pseudo-spectrally: seed 004 V22).
struct PlanarSpring {
  std::string name;
  int body_i = -1, body_j = -1;
  std::array<double, 2> si{0, 0}, sj{0, 0};
  double stiffness = 0, damping = 0, length = 0;
};

/// A torque τ(t) on a body: δW = τ · 2(e0 δe3 − e3 δe0).
struct PlanarTorque {
  int body = 0;
  std::function<double(double)> value;
};

/// A one-sided (unilateral, frictionless) contact of the point s of a body with the ground half-plane
/// n·(x − x0) ≥ 0: gap g = n·(r + A s − x0) − radius, V = ½k g² while g < 0 (0 otherwise), δW = −c ġ δg
/// while g < 0. The switch is not a polynomial (seed 004 L5, the bouncing ball V23–V24): listed by
/// non_polynomial_terms(), so a Galerkin projection is refused unless made pseudo-spectral on purpose —
/// each quadrature node then switches by its own gap (not the seed's mean switch).
struct PlanarContact {
  std::string name;
  int body = 0;
  std::array<double, 2> point{0, 0};  ///< s in the body frame
  std::array<double, 2> normal{0, 1}; ///< n (normalised by add_contact)
  std::array<double, 2> origin{0, 0}; ///< x0 on the ground line
  double radius = 0, stiffness = 0, damping = 0;
};

/// Planar mechanism. Data: per body [mass, inertia], then per joint [s_i.x, s_i.y, s_j.x, s_j.y, length],
/// then per spring [stiffness, damping], per contact [stiffness, radius, damping], and last per
/// body its initial [x, y, vx, vy] (body_data(), joint_data(), spring_data(), contact_data(),
/// initial_data(): take indices once the mechanism is complete). Rows: the joints' rows in order, then one
/// norm row per body. Outputs: per body x, y and angle θ = 2 atan2(e3, e0); per joint x and y of its point
/// on body j (on body i when j is the ground); per spring its length |d|.
///
/// Initial conditions: the bodies' positions are guesses the assembly makes consistent, except a body
/// position or velocity component that an uncertain input moves (initial_data): GalerkinSystem then
/// projects it and holds it (seed 004's "dedicated random variable for an uncertain IC").
class PlanarMechanism : public LagrangianModel {
public:
  int add_body(const PlanarBody& b);
  void add_joint(const PlanarJoint& j); ///< throws InputError naming the joint for a bad body or axis
  void add_torque(const PlanarTorque& t) { torques_.push_back(t); }
  void add_spring(const PlanarSpring& s); ///< throws InputError naming the spring for a bad body or value
  void set_gravity(double gx, double gy) { g_ = {gx, gy}; }
  int body_index(const std::string& name) const; ///< −1 for "ground"; throws InputError otherwise
  int joint_index(const std::string& name) const;
  /// Data entry of body @p b's mass (what = 0) or inertia (1); of joint @p j's s_i.x, s_i.y, s_j.x, s_j.y (0..3).
  int body_data(int b, int what) const { return 2 * b + what; }
  /// what = 4: the distance joint's length.
  int joint_data(int j, int what) const { return 2 * static_cast<int>(bodies_.size()) + 5 * j + what; }
  /// Data entry of spring @p s's stiffness (what = 0) or damping (1).
  int spring_data(int s, int what) const { return joint_data(static_cast<int>(joints_.size()), 0) + 2 * s + what; }
  /// Data entry of contact @p c's stiffness (what = 0), radius (1) or damping (2).
  int contact_data(int c, int what) const { return spring_data(static_cast<int>(springs_.size()), 0) + 3 * c + what; }
  /// Data entry of body @p b's initial x (what = 0), y (1), vx (2) or vy (3).
  int initial_data(int b, int what) const { return contact_data(static_cast<int>(contacts_.size()), 0) + 4 * b + what; }
  int spring_index(const std::string& name) const;
  int contact_index(const std::string& name) const;
  /// @throws InputError naming the contact for a bad body, normal or value.
  void add_contact(const PlanarContact& c);
  const std::vector<PlanarSpring>& springs() const { return springs_; }
  const std::vector<PlanarContact>& contacts() const { return contacts_; }
  /// Point s of body b (−1: the ground) at the initial pose (x, y, angle of the bodies).
  std::array<double, 2> initial_point(int b, const std::array<double, 2>& s) const;
  /// The body-frame coordinates of the global point @p x at the initial pose (the inverse of initial_point).
  std::array<double, 2> body_frame_point(int b, const std::array<double, 2>& x) const;
  const std::vector<PlanarBody>& bodies() const { return bodies_; }
  const std::vector<PlanarJoint>& joints() const { return joints_; }

  int coordinates() const override { return 4 * static_cast<int>(bodies_.size()); }
  int constraint_rows() const override;
  std::string coordinate_name(int k) const override;
  std::vector<double> nominal_data() const override;
  std::string data_name(int j) const override;
  HyperDual kinetic_energy(const HyperDual* q, const HyperDual* v, const double* p) const override;
  HyperDual potential_energy(const HyperDual* q, const double* p) const override;
  HyperDual virtual_work(const HyperDual* q, const HyperDual* v, const HyperDual* dq, double t,
                         const double* p) const override;
  void constraints(const HyperDual* q, const double* p, HyperDual* phi) const override;
  /// Closed forms of Lagrange's residual (bodies, gravity, springs with or without free length and
  /// damping, torques, contacts) and of Φ, Φ_q (every joint type, norm rows): the same numbers as the
  /// automatic differentiation of the energies to round-off (tests/pct/analytic_test.cpp), without it.
  bool lagrange_analytic(const double* q, const double* v, const double* a, double t, const double* p,
                         double* out) const override;
  bool constraints_analytic(const double* q, const double* p, double* phi, double* jac) const override;
  /// Springs raise V and δW to degree 4 in the states (d is quadratic in them); prismatic and distance
  /// joints raise Φ to degree 4 (A_i n times p_j − p_i; dᵀd) and distance joints to degree 2 in the data.
  ModelDegrees degrees() const override;
  std::vector<std::string> non_polynomial_terms() const override;
  std::vector<double> initial_positions() const override;
  std::vector<double> initial_velocities() const override;
  std::vector<int> specified_positions() const override;
  std::vector<int> specified_velocities() const override { return specified_positions(); }
  std::vector<double> initial_positions_at(const double* p) const override;
  std::vector<double> initial_velocities_at(const double* p) const override;
  std::vector<double> driver_values(double t, int derivative) const override;
  std::vector<std::string> output_names() const override;
  std::vector<double> outputs(const double* q, const double* p) const override;

private:
  std::vector<PlanarBody> bodies_;
  std::vector<PlanarJoint> joints_;
  std::vector<PlanarTorque> torques_;
  std::vector<PlanarSpring> springs_;
  std::vector<PlanarContact> contacts_;
  std::array<double, 2> g_{0, 0};
};

/// Seed 004's slider-crank (§3.2, l̄1 = 1, l̄2 = 1.5 half-lengths, m = 2, 3, J = m l²/3, θ1(0) = π/4 specified,
/// the torque +1 / −1 / 0 switched at t = 1 and 2 by smooth steps over ±@p window): bodies crank and rod,
/// joints A (crank–ground), B (rod–crank), C (rod end on the x axis).
PlanarMechanism seed004_slider_crank(double window = 0.01);
/// Its uncertain link lengths l1 ~ N(1, σ1²), l2 ~ N(1.5, σ2²) (σ = 0.05, 0.075: 5 % CoV), each moving the
/// two joint points on its link.
std::vector<UncertainInput> seed004_link_lengths(const PlanarMechanism& crank, double sigma1 = 0.05,
                                                 double sigma2 = 0.075);

} // namespace flexuq::pct
