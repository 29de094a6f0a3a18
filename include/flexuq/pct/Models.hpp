// SPDX-License-Identifier: MIT
#pragma once
/// @file Models.hpp
/// @brief The LagrangianModels of seed 004's examples: the mass–spring–damper (§3.1, V5–V8) and planar
/// mechanisms of bodies in planar coordinates q_b = [x, y, e0, e3] (§2.7: A = [[2e0²−1, −2e0e3],
/// [2e0e3, 2e0²−1]], ω = 2(e0 ė3 − e3 ė0), one norm row e0² + e3² − 1 per body) with revolute joints,
/// slots (a body point on a ground line), gravity and body torques (the slider-crank, §3.2–3.3, V13–V17).

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

/// Seed 004 §3.1: one body with q = [x, y], gravity along −y, a spring k y and a damper c ẏ along y,
/// x held by Φ = x. Data [m, c, g, k]. T = ½m(ẋ² + ẏ²), V = m g y + ½ k y², δW = −c ẏ δy.
class MassSpringDamper : public LagrangianModel {
public:
  enum Data { mass = 0, damping = 1, gravity = 2, stiffness = 3 };
  MassSpringDamper(double m, double c, double g, double k, double y0 = 0, double v0 = 0)
      : data_{m, c, g, k}, y0_(y0), v0_(v0) {}
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
  std::vector<double> initial_positions() const override { return {0.0, y0_}; }
  std::vector<double> initial_velocities() const override { return {0.0, v0_}; }
  std::vector<int> specified_positions() const override { return {1}; }
  std::vector<int> specified_velocities() const override { return {1}; }
  std::vector<std::string> output_names() const override { return {"y"}; }
  std::vector<double> outputs(const double* q, const double*) const override { return {q[1]}; }

private:
  std::array<double, 4> data_;
  double y0_, v0_;
};

struct PlanarBody {
  std::string name;
  double mass = 1, inertia = 1;    ///< centroidal inertia J
  double x = 0, y = 0, angle = 0;  ///< initial guess of the pose (the assembly makes it consistent)
  bool specified = false;          ///< angle and angular velocity given (kept by the assembly)
  double angular_velocity = 0;
};

/// Revolute: r_i + A_i s_i − r_j − A_j s_j = 0 (2 rows). Slot: the point s_j of body j stays on the
/// ground line through s_i with direction @p axis: n·(r_j + A_j s_j − s_i) = 0, n ⊥ axis (1 row).
/// Body −1 is the ground (r = 0, A = I).
struct PlanarJoint {
  enum class Type { revolute, slot };
  std::string name;
  Type type = Type::revolute;
  int body_i = -1, body_j = -1;
  std::array<double, 2> si{0, 0}, sj{0, 0};
  std::array<double, 2> axis{1, 0};
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

/// Planar mechanism. Data: per body [mass, inertia], then per joint [s_i.x, s_i.y, s_j.x, s_j.y], then
/// per spring [stiffness, damping] (body_data(), joint_data(), spring_data(): take indices after the
/// last joint is added). Rows: the joints' rows in order, then one norm row per body. Outputs: per body
/// x, y and angle θ = 2 atan2(e3, e0); per joint x and y of its point on body j (on body i when j is the
/// ground).
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
  int joint_data(int j, int what) const { return 2 * static_cast<int>(bodies_.size()) + 4 * j + what; }
  /// Data entry of spring @p s's stiffness (what = 0) or damping (1).
  int spring_data(int s, int what) const { return joint_data(static_cast<int>(joints_.size()), 0) + 2 * s + what; }
  int spring_index(const std::string& name) const;
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
  /// Springs raise V and δW to degree 4 in the states (d is quadratic in them).
  ModelDegrees degrees() const override {
    return springs_.empty() ? ModelDegrees{{4, 1}, {1, 1}, {2, 0}, {2, 1}} : ModelDegrees{{4, 1}, {4, 1}, {4, 1}, {2, 1}};
  }
  std::vector<std::string> non_polynomial_terms() const override;
  std::vector<double> initial_positions() const override;
  std::vector<double> initial_velocities() const override;
  std::vector<int> specified_positions() const override;
  std::vector<int> specified_velocities() const override { return specified_positions(); }
  std::vector<std::string> output_names() const override;
  std::vector<double> outputs(const double* q, const double* p) const override;

private:
  std::vector<PlanarBody> bodies_;
  std::vector<PlanarJoint> joints_;
  std::vector<PlanarTorque> torques_;
  std::vector<PlanarSpring> springs_;
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
