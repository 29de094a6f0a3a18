// SPDX-License-Identifier: MIT
// Euler-parameter kinematics (seed 003 V1/V2, seed 004 V19) and finite-difference checks of every
// joint's C_q, Φ_t and γ (seed 004 §2.8 library) at random configurations and velocities.
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/System.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace flexuq::mbs;

namespace {

Vec4 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> nd;
  Vec4 p(nd(rng), nd(rng), nd(rng), nd(rng));
  return p.normalized();
}

Vec3 random3(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  return Vec3(u(rng), u(rng), u(rng));
}

Vec3 axial(const Mat3& w) { return Vec3(w(2, 1) - w(1, 2), w(0, 2) - w(2, 0), w(1, 0) - w(0, 1)) / 2; }

} // namespace

TEST(MbsKinematics, EulerParameterIdentities) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec4 p = random_unit(rng);
    const Mat3 a = rotation(p);
    EXPECT_LT((a.transpose() * a - Mat3::Identity()).norm(), 1e-13);
    EXPECT_NEAR(a.determinant(), 1.0, 1e-13);
    EXPECT_LT((g_matrix(p) * p).norm(), 1e-14);
    EXPECT_LT((g_matrix(p) * g_matrix(p).transpose() - Mat3::Identity()).norm(), 1e-13);
    EXPECT_LT((e_matrix(p) * g_matrix(p).transpose() - a).norm(), 1e-13);
    // B(p, s) = ∂(A s)/∂p against central differences (A(p) is quadratic: FD exact to round-off).
    const Vec3 s = random3(rng);
    Mat34 fd;
    for (int k = 0; k < 4; ++k) {
      Vec4 dp = Vec4::Zero();
      dp(k) = 1e-6;
      fd.col(k) = (rotation(p + dp) * s - rotation(p - dp) * s) / 2e-6;
    }
    EXPECT_LT((fd - b_matrix(p, s)).norm(), 1e-9);
    // Body angular velocity: 2 G ṗ = axial(Aᵀ Ȧ), global: 2 E ṗ = axial(Ȧ Aᵀ), for ṗ ⊥ p.
    Vec4 pd = random_unit(rng);
    pd -= p * p.dot(pd);
    const double h = 1e-6;
    const Mat3 adot = (rotation(p + h * pd) - rotation(p - h * pd)) / (2 * h);
    EXPECT_LT((2 * g_matrix(p) * pd - axial(a.transpose() * adot)).norm(), 1e-8);
    EXPECT_LT((2 * e_matrix(p) * pd - axial(adot * a.transpose())).norm(), 1e-8);
    // Axis-angle and rotation-matrix round trips.
    const Vec3 u = random3(rng).normalized();
    const double th = 2.0 * trial / 20.0;
    EXPECT_LT((rotation(from_axis_angle(u, th)) * u - u).norm(), 1e-14);
    EXPECT_LT((rotation(from_rotation(a)) - a).norm(), 1e-12);
  }
}

// Seed 003 V2: the quadratic-velocity vector 8 ĠᵀJĠp equals −Ṁṗ + (∂T/∂p)ᵀ of the Lagrangian
// T = 2 ṗᵀ GᵀJG ṗ up to a component along p (absorbed by the norm-constraint multiplier).
TEST(MbsKinematics, QuadraticVelocityVectorIsLagrangian) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 10; ++trial) {
    const Vec4 p = random_unit(rng);
    Vec4 pd = random_unit(rng);
    pd -= p * p.dot(pd);
    Mat3 j = Mat3::Random();
    j = j * j.transpose() + Mat3::Identity();
    auto mpp = [&](const Vec4& x) -> Eigen::Matrix4d { return 4 * g_matrix(x).transpose() * j * g_matrix(x); };
    auto tkin = [&](const Vec4& x) { return 0.5 * pd.dot(mpp(x) * pd); };
    const double h = 1e-6;
    const Vec4 mdot_pd = (mpp(p + h * pd) - mpp(p - h * pd)) / (2 * h) * pd;
    Vec4 dt;
    for (int k = 0; k < 4; ++k) {
      Vec4 e = Vec4::Zero();
      e(k) = h;
      dt(k) = (tkin(p + e) - tkin(p - e)) / (2 * h);
    }
    const Vec4 lagrange = -mdot_pd + dt;
    const Vec4 ours = 8 * g_matrix(pd).transpose() * j * g_matrix(pd) * p;
    const Eigen::Matrix4d proj = Eigen::Matrix4d::Identity() - p * p.transpose();
    EXPECT_LT((proj * (lagrange - ours)).norm(), 1e-7 * (1 + ours.norm())) << "trial " << trial;
  }
}

namespace {

/// Two free bodies at random poses and one joint of type @p type between them (or ground).
System two_bodies(JointType type, bool to_ground, std::mt19937& rng) {
  System sys;
  for (int b = 0; b < 2; ++b) {
    RigidBody body;
    body.name = b == 0 ? "one" : "two";
    body.mass = 1.0 + b;
    body.inertia = Vec3(0.1, 0.2, 0.3).asDiagonal();
    body.position = random3(rng);
    body.orientation = random_unit(rng);
    sys.add_body(body);
  }
  JointSpec j;
  j.name = "J";
  j.type = type;
  j.body_i = to_ground ? kGround : 0;
  j.body_j = 1;
  j.point = random3(rng);
  j.axis = random3(rng).normalized();
  Vec3 w = random3(rng);
  j.axis2 = (w - j.axis * j.axis.dot(w)).normalized();
  // 2-D joints with a sliding axis: axis2 is the plane's normal (⊥ axis).
  j.has_axis2 = type == JointType::dot1 || type == JointType::universal || type == JointType::prismatic_2d ||
                type == JointType::point_on_line_2d;
  if (type == JointType::dot2 || type == JointType::distance || type == JointType::point_on_line ||
      type == JointType::translation_driver || type == JointType::point_on_line_2d) {
    j.has_point2 = true;
    if (type == JointType::dot2) j.point2 = j.point + 0.7 * j.axis2;        // ⊥ axis
    else if (type == JointType::point_on_line || type == JointType::point_on_line_2d) j.point2 = j.point + 0.8 * j.axis; // on the line
    else j.point2 = j.point + random3(rng);
  }
  j.motion = TimeFunction::harmonic(0.3, 1.7); // zero at t = 0: drivers hold at the assembly
  sys.add_joint(j);
  return sys;
}

} // namespace

class JointFd : public ::testing::TestWithParam<std::tuple<JointType, bool>> {};

TEST_P(JointFd, JacobianPhiTAndGammaMatchFiniteDifferences) {
  const auto [type, to_ground] = GetParam();
  std::mt19937 rng(100 + static_cast<int>(type) + (to_ground ? 50 : 0));
  System sys = two_bodies(type, to_ground, rng);
  const int n = sys.n();
  // A configuration away from the assembly (constraints need not hold for the identities).
  Vec q = sys.initial_q();
  for (int i = 0; i < n; ++i) q(i) += 0.1 * random3(rng)(0);
  sys.normalise(q);
  Vec v(n);
  for (int i = 0; i < n; ++i) v(i) = random3(rng)(0);
  const double t = 0.37;
  const Mat cq = sys.jacobian(q, t);
  ASSERT_EQ(cq.rows(), sys.m());
  Mat fd(sys.m(), n);
  const double h = 1e-6;
  for (int i = 0; i < n; ++i) {
    Vec dq = Vec::Zero(n);
    dq(i) = h;
    fd.col(i) = (sys.phi(q + dq, t) - sys.phi(q - dq, t)) / (2 * h);
  }
  EXPECT_LT((fd - cq).lpNorm<Eigen::Infinity>(), 1e-7 * (1 + cq.lpNorm<Eigen::Infinity>()));
  const Vec ft = (sys.phi(q, t + h) - sys.phi(q, t - h)) / (2 * h);
  EXPECT_LT((ft - sys.phi_t(q, t)).lpNorm<Eigen::Infinity>(), 1e-7);
  // γ = −d²/dτ² Φ(q + τ v, t + τ) at τ = 0 (the path has q̈ = 0).
  const double hh = 1e-4;
  const Vec d2 = (sys.phi(q + hh * v, t + hh) - 2 * sys.phi(q, t) + sys.phi(q - hh * v, t - hh)) / (hh * hh);
  const Vec g = sys.gamma(q, v, t);
  EXPECT_LT((g + d2).lpNorm<Eigen::Infinity>(), 1e-5 * (1 + g.lpNorm<Eigen::Infinity>())) << "gamma " << g.transpose()
                                                                                        << "\nfd " << -d2.transpose();
  // The integrators' one-pass residual: C_qᵀλ and φ without forming C_q.
  Vec lam(sys.m()), ctl, ph;
  for (int k = 0; k < sys.m(); ++k) lam(k) = random3(rng)(1);
  sys.constraint_residual(q, t, lam, ctl, ph);
  const Vec ctl_ref = cq.transpose() * lam;
  EXPECT_LT((ctl - ctl_ref).lpNorm<Eigen::Infinity>(), 1e-13 * (1 + ctl_ref.lpNorm<Eigen::Infinity>()));
  EXPECT_EQ(ph, sys.phi(q, t));
  // The joint's rows hold at the initial configuration it was defined in (drivers at t = 0).
  EXPECT_LT(sys.phi(sys.initial_q(), 0.0).lpNorm<Eigen::Infinity>(), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(
    AllJoints, JointFd,
    ::testing::Combine(::testing::Values(JointType::revolute, JointType::spherical, JointType::prismatic,
                                         JointType::cylindrical, JointType::universal, JointType::fixed,
                                         JointType::planar, JointType::dot1, JointType::dot2, JointType::distance,
                                         JointType::point_on_line, JointType::angle_driver,
                                         JointType::translation_driver, JointType::revolute_2d,
                                         JointType::prismatic_2d, JointType::point_on_line_2d),
                       ::testing::Bool()),
    [](const auto& info) {
      std::string s = joint_type_name(std::get<0>(info.param));
      for (auto& c : s)
        if (c == '-') c = '_';
      return s + (std::get<1>(info.param) ? "_ground" : "_bodies");
    });

TEST(MbsKinematics, JointEquationCounts) {
  std::mt19937 rng(3);
  const std::pair<JointType, int> counts[] = {
      {JointType::revolute, 5}, {JointType::spherical, 3}, {JointType::prismatic, 5}, {JointType::cylindrical, 4},
      {JointType::universal, 4}, {JointType::fixed, 6}, {JointType::planar, 3}, {JointType::dot1, 1},
      {JointType::dot2, 1}, {JointType::distance, 1}, {JointType::point_on_line, 2}, {JointType::angle_driver, 1},
      {JointType::translation_driver, 1}, {JointType::revolute_2d, 2}, {JointType::prismatic_2d, 2},
      {JointType::point_on_line_2d, 1}};
  for (const auto& [type, rows] : counts) {
    System sys = two_bodies(type, false, rng);
    EXPECT_EQ(sys.m(), rows + 2) << joint_type_name(type);
  }
}

TEST(MbsKinematics, TimeFunctionDerivatives) {
  const TimeFunction fs[] = {TimeFunction::polynomial({0.5, -1.0, 2.0, 0.3}), TimeFunction::harmonic(2.0, 3.0, 0.4, 1.0),
                             TimeFunction::table({{0.0, 1.0}, {0.5, -1.0}, {1.2, 2.0}})};
  for (const auto& f : fs)
    for (double t : {0.1, 0.3, 0.77, 1.0}) {
      const double h = 1e-5;
      const auto e = f.eval(t);
      EXPECT_NEAR(e[1], (f(t + h) - f(t - h)) / (2 * h), 1e-6);
      EXPECT_NEAR(e[2], (f.eval(t + h)[1] - f.eval(t - h)[1]) / (2 * h), 1e-5);
    }
  // Seed 004 V18: the Adams STEP is x1 at t1, x2 at t2, the mean at the midpoint, flat at both ends.
  const auto step = TimeFunction::table({{1.0, 2.0}, {3.0, -4.0}});
  EXPECT_DOUBLE_EQ(step(1.0), 2.0);
  EXPECT_DOUBLE_EQ(step(3.0), -4.0);
  EXPECT_NEAR(step(2.0), -1.0, 1e-14);
  EXPECT_NEAR(step.eval(1.0)[1], 0.0, 1e-14);
  EXPECT_NEAR(step.eval(3.0)[1], 0.0, 1e-14);
  EXPECT_THROW(TimeFunction::table({{1.0, 0.0}, {1.0, 1.0}}), flexuq::InputError);
}
