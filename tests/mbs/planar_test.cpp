// SPDX-License-Identifier: MIT
// Planar-coordinate bodies (mbs/PlanarBody.hpp, seed 004 §2.3): q_b = [x, y, e0, e3]. Oracles: the same
// mechanisms with today's 3-D bodies held in the plane (7 coordinates each, planar joints or 3-D
// revolutes), which the planar bodies must follow to round-off with fewer coordinates; central
// differences of Φ, C_q and γ; the planar kinetic energy ½m|v|² + ½Jθ̇² written from θ; refusals.
#include "MbsTestUtil.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/System.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

using namespace flexuq;
using namespace flexuq::mbs;

namespace {

RigidBody bar(const std::string& name, double m, double len, const Vec3& centre, double angle, bool planar) {
  // I_xx, I_yy differ from I_zz on purpose: only I_zz acts in the plane (the 3-D twin's plane joint
  // takes the rest).
  const Mat3 inertia = Vec3(0.3 * m * len * len / 12, 0.7 * m * len * len / 12, m * len * len / 12).asDiagonal();
  return RigidBody{name, nullptr, m, inertia, centre, from_axis_angle(Vec3::UnitZ(), angle), Vec3::Zero(), Vec3::Zero(), planar};
}

JointSpec joint(const std::string& name, JointType type, int i, int j, const Vec3& point, const Vec3& axis = Vec3::UnitZ()) {
  return JointSpec{name, type, i, j, point, Vec3::Zero(), false, axis};
}

/// Seed 004 §3.2's slider-crank (configs/slider-crank-seed004-2d.yaml): crank 2 m, rod 3 m at z = 0.25, the
/// rod's end C on the x axis, revolute-2d at A and B, a torque schedule on the crank and gravity −y.
/// 3-D bodies are held in the plane by a planar joint each (the `plane:` of a job).
System slider_crank(bool planar) {
  System s;
  const double th1 = M_PI / 4, th2 = -0.4908826782893113, z = 0.25;
  const Vec3 b_pt(2 * std::cos(th1), 2 * std::sin(th1), z);
  const int crank = s.add_body(bar("crank", 2.0, 2.0, Vec3(std::cos(th1), std::sin(th1), z), th1, planar));
  const int rod = s.add_body(bar("rod", 3.0, 3.0, b_pt + 1.5 * Vec3(std::cos(th2), std::sin(th2), 0), th2, planar));
  if (!planar)
    for (int b : {crank, rod}) {
      JointSpec p = joint(s.bodies()[b].name + ".plane", JointType::planar, kGround, b, s.bodies()[b].position);
      s.add_joint(p);
    }
  s.add_joint(joint("A", JointType::revolute_2d, kGround, crank, Vec3(0, 0, z)));
  s.add_joint(joint("B", JointType::revolute_2d, crank, rod, b_pt));
  const Vec3 c_pt = b_pt + 3.0 * Vec3(std::cos(th2), std::sin(th2), 0);
  s.add_joint(joint("C", JointType::point_on_line_2d, kGround, rod, c_pt, Vec3::UnitX()));
  ForceSpec tq;
  tq.type = ForceType::torque;
  tq.body = crank;
  tq.direction = Vec3::UnitZ();
  tq.value = TimeFunction::table({{0.0, 5.0}, {0.5, 5.0}, {0.6, -5.0}, {1.0, -5.0}, {1.1, 0.0}});
  s.add_force(tq);
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  s.add_force(g);
  ForceSpec spring; // a spring with damping from the rod's centre to a ground point: its q- and v-terms act too
  spring.type = ForceType::spring;
  spring.body = kGround;
  spring.body2 = rod;
  spring.point = Vec3(1.0, -1.0, z);
  spring.point2 = s.bodies()[rod].position;
  spring.stiffness = 40.0;
  spring.damping = 2.0;
  spring.length = 1.5;
  s.add_force(spring);
  return s;
}

/// Two bars swinging about z under gravity (released at 60° and 20°); 3-D bodies on 3-D revolute joints
/// about z (5 rows each: they hold the plane themselves), planar bodies on revolute-2d joints.
System double_pendulum(bool planar) {
  System s;
  const double th1 = M_PI / 3, th2 = M_PI / 9, l1 = 1.0, l2 = 0.8;
  const Vec3 d1(std::sin(th1), -std::cos(th1), 0), d2(std::sin(th2), -std::cos(th2), 0);
  const int a = s.add_body(bar("upper", 1.0, l1, 0.5 * l1 * d1, th1 - M_PI / 2, planar));
  const int b = s.add_body(bar("lower", 0.6, l2, l1 * d1 + 0.5 * l2 * d2, th2 - M_PI / 2, planar));
  const JointType rev = planar ? JointType::revolute_2d : JointType::revolute;
  s.add_joint(joint("O", rev, kGround, a, Vec3::Zero()));
  s.add_joint(joint("E", rev, a, b, l1 * d1));
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  s.add_force(g);
  return s;
}

/// The other planar joints and loads: a slider S on an inclined prismatic-2d held by a spring, a pendulum L
/// on S (revolute-2d) with a rotational damper between them, a bob D hung from L's tip by a distance joint;
/// a crank K turned by an angle-driver about its revolute-2d and a block P moved along x by a
/// translation-driver on its prismatic-2d, joined to K's tip by a spring; gravity −y; a force on D with a z
/// part and a torque on D with x, y parts (which the plane takes). 3-D bodies are held by planar joints.
System joint_library(bool planar) {
  System s;
  const double z = -0.5;
  const Vec3 a(std::cos(M_PI / 6), std::sin(M_PI / 6), 0);
  const int sl = s.add_body(bar("S", 1.0, 0.4, Vec3(0, 0, z), M_PI / 6, planar));
  const int pe = s.add_body(bar("L", 0.5, 0.8, Vec3(0.4, 0, z), 0.0, planar));
  const int bob = s.add_body(bar("D", 0.3, 0.2, Vec3(1.2, -0.5, z), 0.3, planar));
  const int kr = s.add_body(bar("K", 0.7, 0.6, Vec3(-1.0, 1.3, z), 0.0, planar));
  const int bl = s.add_body(bar("P", 0.9, 0.3, Vec3(-0.4, 2.0, z), 0.0, planar));
  if (!planar)
    for (int b = 0; b < 5; ++b) s.add_joint(joint(s.bodies()[b].name + ".plane", JointType::planar, kGround, b, s.bodies()[b].position));
  s.add_joint(joint("slide", JointType::prismatic_2d, kGround, sl, Vec3(0, 0, z), a));
  s.add_joint(joint("hinge", JointType::revolute_2d, sl, pe, Vec3(0, 0, z)));
  JointSpec rod = joint("rod", JointType::distance, pe, bob, Vec3(0.8, 0, z));
  rod.point2 = Vec3(1.2, -0.4, z);
  rod.has_point2 = true;
  s.add_joint(rod);
  s.add_joint(joint("crank", JointType::revolute_2d, kGround, kr, Vec3(-1.3, 1.3, z)));
  JointSpec drive = joint("drive", JointType::angle_driver, kGround, kr, Vec3(-1.3, 1.3, z));
  drive.motion = TimeFunction::polynomial({0.0, 2.0, -0.5});
  s.add_joint(drive);
  s.add_joint(joint("guide", JointType::prismatic_2d, kGround, bl, Vec3(-0.4, 2.0, z), Vec3::UnitX()));
  JointSpec push = joint("push", JointType::translation_driver, kGround, bl, Vec3(-0.4, 2.0, z), Vec3::UnitX());
  push.motion = TimeFunction::harmonic(0.2, 1.5);
  s.add_joint(push);
  auto spring = [&](int b1, const Vec3& p1, int b2, const Vec3& p2, double k, double c, double len) {
    ForceSpec f;
    f.type = ForceType::spring;
    f.body = b1, f.body2 = b2, f.point = p1, f.point2 = p2, f.stiffness = k, f.damping = c, f.length = len;
    s.add_force(f);
  };
  spring(kGround, Vec3(-0.5, -0.3, z), sl, Vec3(0, 0, z), 30.0, 0.5, 0.2);
  spring(kr, Vec3(-0.7, 1.3, z), bl, Vec3(-0.4, 2.0, z), 20.0, 0.3, 0.5);
  ForceSpec damper;
  damper.type = ForceType::rotational_damper;
  damper.body = pe, damper.body2 = sl, damper.direction = Vec3::UnitZ(), damper.damping = 0.05;
  s.add_force(damper);
  ForceSpec push_d;
  push_d.type = ForceType::force;
  push_d.body = bob, push_d.point = Vec3(1.25, -0.5, z), push_d.direction = Vec3(1, 0.5, 2);
  push_d.value = TimeFunction::harmonic(0.8, 2.0);
  s.add_force(push_d);
  ForceSpec twist;
  twist.type = ForceType::torque;
  twist.body = bob, twist.direction = Vec3(0.5, -1, 1), twist.value = TimeFunction::constant(0.05);
  s.add_force(twist);
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  s.add_force(g);
  return s;
}

/// Largest difference over the run of every body's x, y and angle θ (from its Euler parameters),
/// relative to the largest magnitude of that quantity in the 3-D run.
double max_relative_difference(const System& s3, const test::Run& r3, const System& s2, const test::Run& r2) {
  EXPECT_EQ(r3.states.size(), r2.states.size());
  double worst = 0;
  for (int b = 0; b < static_cast<int>(s3.bodies().size()); ++b) {
    double scale[3] = {0, 0, 0}, diff[3] = {0, 0, 0};
    for (std::size_t k = 0; k < std::min(r3.states.size(), r2.states.size()); ++k) {
      EXPECT_DOUBLE_EQ(r3.states[k].t, r2.states[k].t);
      const Vec3 x3 = s3.origin(r3.states[k].q, b), x2 = s2.origin(r2.states[k].q, b);
      const Vec4 p3 = s3.euler(r3.states[k].q, b), p2 = s2.euler(r2.states[k].q, b);
      const double a3 = 2 * std::atan2(p3(3), p3(0)), a2 = 2 * std::atan2(p2(3), p2(0));
      const double v3[3] = {x3.x(), x3.y(), a3}, v2[3] = {x2.x(), x2.y(), a2};
      for (int c = 0; c < 3; ++c) {
        scale[c] = std::max(scale[c], std::abs(v3[c]));
        diff[c] = std::max(diff[c], std::abs(v3[c] - v2[c]));
      }
      EXPECT_EQ(x2.z(), s2.bodies()[b].position.z()); // a planar body never leaves its plane
    }
    for (int c = 0; c < 3; ++c) worst = std::max(worst, diff[c] / std::max(scale[c], 1e-3));
  }
  return worst;
}

/// Both systems integrated by HHT (h = 1e-3) to @p end; checks their coordinates and active rows against
/// @p counts = {n 3-D, n planar, m 3-D, m planar}; prints and returns their largest relative difference.
double run_both(System& s3, System& s2, double end, const char* what, test::Run& r3, test::Run& r2,
                const std::array<int, 4>& counts) {
  const auto o = test::hht(1e-3, end);
  r3 = test::simulate(s3, o);
  r2 = test::simulate(s2, o);
  EXPECT_EQ(s3.n(), counts[0]);
  EXPECT_EQ(s2.n(), counts[1]);
  EXPECT_EQ(s3.m(), counts[2]);
  EXPECT_EQ(s2.m(), counts[3]);
  const double d = max_relative_difference(s3, r3, s2, r2);
  std::printf("%s, planar vs 3-D bodies: max relative difference %.3g over %g s\n", what, d, end);
  return d;
}

} // namespace

TEST(MbsPlanar, SliderCrankEqualsThreeDBodiesHeldInThePlane) {
  System s3 = slider_crank(false), s2 = slider_crank(true);
  // 2 bodies: 14 coordinates and 2 norm + 6 plane + 2 + 2 + 1 joint rows against 8 and 2 + 5.
  test::Run r3, r2;
  EXPECT_LE(run_both(s3, s2, 1.5, "slider-crank", r3, r2, {14, 8, 13, 7}), 1e-10);
  EXPECT_TRUE(r3.dropped.empty());
  EXPECT_TRUE(r2.dropped.empty());
  EXPECT_EQ(r2.states.size(), 1501u);
  // The crank turns (the torque schedule swings it by 0.44 rad), so the comparison is not vacuous.
  const Vec4 p0 = s2.euler(r2.states.front().q, 0);
  double swing = 0;
  for (const State& st : r2.states) {
    const Vec4 p = s2.euler(st.q, 0);
    swing = std::max(swing, std::abs(2 * std::atan2(p(3), p(0)) - 2 * std::atan2(p0(3), p0(0))));
  }
  std::printf("crank swing %.3f rad\n", swing);
  EXPECT_GT(swing, 0.3);
  EXPECT_LT(r2.stats.max_drift, 1e-10);
}

TEST(MbsPlanar, DoublePendulumEqualsThreeDRevolutes) {
  System s3 = double_pendulum(false), s2 = double_pendulum(true);
  test::Run r3, r2; // 10 revolute rows (5 each, none redundant) + 2 norms against 4 + 2
  EXPECT_LE(run_both(s3, s2, 1.0, "double pendulum (3-D revolutes)", r3, r2, {14, 8, 12, 6}), 1e-10);
  // Energy is conserved to the integrator's accuracy by the planar run alone (HHT α = −0.05 dissipates a little).
  const double e0 = s2.kinetic_energy(r2.states.front().q, r2.states.front().v) + s2.potential_energy(r2.states.front().q);
  const double e1 = s2.kinetic_energy(r2.states.back().q, r2.states.back().v) + s2.potential_energy(r2.states.back().q);
  EXPECT_LT(std::abs(e1 - e0), 1e-3 * std::abs(e0));
}

TEST(MbsPlanar, JointLibraryAndLoadsEqualThreeDBodiesHeldInThePlane) {
  System s3 = joint_library(false), s2 = joint_library(true);
  test::Run r3, r2; // 5 norms + 2 + 2 + 1 + 2 + 1 + 2 + 1 joint rows (+ 15 plane rows in 3-D), none redundant
  EXPECT_LE(run_both(s3, s2, 1.0, "joint library", r3, r2, {35, 20, 31, 16}), 1e-10);
  EXPECT_LT(r2.stats.max_drift, 1e-10);
  // The drivers hold: K's angle is 2t − 0.5t², P's x is −0.4 + 0.2 sin(3πt).
  const State& last = r2.states.back();
  const Vec4 pk = s2.euler(last.q, 3);
  EXPECT_NEAR(2 * std::atan2(pk(3), pk(0)), 2.0 - 0.5, 1e-9);
  EXPECT_NEAR(s2.origin(last.q, 4).x(), -0.4 + 0.2 * std::sin(3 * M_PI * 1.0), 1e-9);
}

TEST(MbsPlanar, KinematicsAgainstTheAngleAndFiniteDifferences) {
  System s = slider_crank(true);
  // A state off the constraint manifold: C_q, γ and M are identities in q, v wherever the norm holds or not.
  Vec q = s.initial_q(), v(s.n());
  for (int k = 0; k < s.n(); ++k) {
    q(k) += 0.05 * std::sin(1.3 * k + 0.2);
    v(k) = std::cos(0.7 * k + 0.1);
  }
  s.normalise(q);
  // T = ½ m |ṙ|² + ½ J θ̇² with θ̇ = 2(e0ė3 − e3ė0) on the unit circle; ė along the circle.
  Vec vt = v;
  for (int b = 0; b < 2; ++b) {
    const int o = s.offset(b);
    const double w = 1.1 + b;
    vt(o + 2) = -0.5 * w * q(o + 3);
    vt(o + 3) = 0.5 * w * q(o + 2);
  }
  double t_ref = 0;
  for (int b = 0; b < 2; ++b) {
    const RigidBody& rb = s.bodies()[b];
    const int o = s.offset(b);
    t_ref += 0.5 * rb.mass * (vt(o) * vt(o) + vt(o + 1) * vt(o + 1)) + 0.5 * rb.inertia(2, 2) * std::pow(1.1 + b, 2);
    EXPECT_NEAR(s.angular_velocity(q, vt, b).z(), 1.1 + b, 1e-14);
  }
  EXPECT_NEAR(s.kinetic_energy(q, vt), t_ref, 1e-12 * t_ref);
  // C_q against central differences of Φ; γ = −(∂(C_q v)/∂q) v against central differences of Φ̇.
  const double h = 1e-6, t = 0.3;
  const Mat cq = s.jacobian_all(q, t);
  Mat fd(cq.rows(), cq.cols());
  Vec dq = Vec::Zero(s.n());
  for (int k = 0; k < s.n(); ++k) {
    dq.setZero();
    dq(k) = h;
    fd.col(k) = (s.phi_all(q + dq, t) - s.phi_all(q - dq, t)) / (2 * h);
  }
  EXPECT_LT((cq - fd).lpNorm<Eigen::Infinity>(), 1e-8);
  const Vec gfd = -(s.phi_dot_all(q + h * v, v, t) - s.phi_dot_all(q - h * v, v, t)) / (2 * h);
  s.select_independent_rows(s.initial_q(), 0.0);
  ASSERT_EQ(s.m(), s.rows_total());
  EXPECT_LT((s.gamma(q, v, t) - gfd).lpNorm<Eigen::Infinity>(), 1e-7);
  // The mass matrix in one piece and as a product agree; the force vector's quadratic-velocity part is
  // Lagrange's −(d/dt ∂T/∂q̇ − ∂T/∂q) + M q̈ by central differences of M along v.
  const Mat mm = s.mass(q);
  EXPECT_LT((s.mass_times(q, v) - mm * v).lpNorm<Eigen::Infinity>(), 1e-13);
  Vec qv_ref = Vec::Zero(s.n()); // Q = ∂T/∂q − Ṁ v = ½ (∂(vᵀMv)/∂q) − (∂M/∂q · v) v
  for (int k = 0; k < s.n(); ++k) {
    dq.setZero();
    dq(k) = h;
    qv_ref(k) = 0.5 * (v.dot(s.mass(q + dq) * v) - v.dot(s.mass(q - dq) * v)) / (2 * h);
  }
  qv_ref -= (s.mass(q + h * v) - s.mass(q - h * v)) / (2 * h) * v;
  System free; // the same bodies without loads: forces() is the quadratic-velocity vector alone
  free.add_body(s.bodies()[0]);
  free.add_body(s.bodies()[1]);
  EXPECT_LT((free.forces(q, v, 0.0) - qv_ref).lpNorm<Eigen::Infinity>(), 1e-7);
}

TEST(MbsPlanar, Refusals) {
  System s;
  RigidBody b = bar("tilted", 1.0, 1.0, Vec3::Zero(), 0.0, true);
  b.orientation = from_axis_angle(Vec3::UnitX(), 0.1);
  try {
    s.add_body(b);
    ADD_FAILURE() << "a tilted planar body was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'tilted' (planar)"), std::string::npos) << e.what();
  }
  const int k = s.add_body(bar("link", 1.0, 1.0, Vec3::Zero(), 0.0, true));
  try {
    s.add_joint(joint("S", JointType::spherical, kGround, k, Vec3::Zero()));
    ADD_FAILURE() << "a spherical joint on a planar body was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("joint 'S' (spherical): body 'link' has planar coordinates"), std::string::npos)
        << e.what();
  }
  try {
    s.add_joint(joint("R", JointType::revolute_2d, kGround, k, Vec3::Zero(), Vec3::UnitX()));
    ADD_FAILURE() << "a revolute-2d about x on a planar body was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the axis must be [0, 0, 1]"), std::string::npos) << e.what();
  }
}
