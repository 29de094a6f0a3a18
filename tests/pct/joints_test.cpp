// SPDX-License-Identifier: MIT
// Seed 004's planar joint library in the PCT model (issue #35 item 1): fixed, prismatic and distance joints
// and drivers (a slot whose line moves by g(t), seed 004's rheonomic Φ_d2 − g(t)). Each has a
// deterministic check (order 0 against an analytic or independent model) and a Galerkin check (the
// projected statistics against Gauss collocation of deterministic runs, or coefficient for coefficient
// against an independent Galerkin model).
#include "flexuq/core/Error.hpp"
#include "flexuq/pct/Galerkin.hpp"
#include "flexuq/pct/Models.hpp"
#include "pct_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace flexuq::pct {

using testing::collocation;
using testing::rk4;
using testing::run_at;

namespace {

constexpr double kG = 9.81;
const UncertainInput kNone{"none", uq::Distribution::normal(0, 1), {}}; // moves nothing: order 0 is deterministic

GalerkinOptions order(int p) {
  GalerkinOptions o;
  o.order = p;
  return o;
}

/// Rod a (m 2, half-length 1) pinned to the ground at its left end, body b (m @p mb) welded to it at
/// (2, 0); from rest, horizontal.
PlanarMechanism welded(double mb) {
  PlanarMechanism m;
  const int a = m.add_body({"a", 2.0, 2.0 / 3.0, 1.0, 0.0, 0.0, false, 0});
  const int b = m.add_body({"b", mb, 0.1, 2.0, 0.3, 0.0, false, 0});
  m.add_joint({"pin", PlanarJoint::Type::revolute, -1, a, {0, 0}, {-1, 0}});
  m.add_joint({"weld", PlanarJoint::Type::fixed, a, b, {1, 0}, {0, -0.3}});
  m.set_gravity(0, -kG);
  return m;
}

/// The same as one rigid body: mass, centre of mass and centroidal inertia summed.
PlanarMechanism merged(double mb) {
  const double M = 2.0 + mb, cx = (2.0 * 1.0 + mb * 2.0) / M, cy = mb * 0.3 / M;
  const double J = 2.0 / 3.0 + 2.0 * ((1 - cx) * (1 - cx) + cy * cy) + 0.1 + mb * ((2 - cx) * (2 - cx) + (0.3 - cy) * (0.3 - cy));
  PlanarMechanism m;
  const int c = m.add_body({"c", M, J, cx, cy, 0.0, false, 0});
  m.add_joint({"pin", PlanarJoint::Type::revolute, -1, c, {0, 0}, {-cx, -cy}});
  m.set_gravity(0, -kG);
  return m;
}

double angle_of(const GalerkinSystem& sys, const DaeState& s, int body) { // θ of the mean coefficients
  const int T = sys.terms();
  return 2.0 * std::atan2(s.q[(4 * body + 3) * T], s.q[(4 * body + 2) * T]);
}

} // namespace

TEST(PctJoints, FixedJointWeldsTwoBodiesIntoOne) {
  const PlanarMechanism two = welded(1.0), one = merged(1.0);
  EXPECT_EQ(two.constraint_rows(), 2 + 3 + 2);
  const GalerkinSystem s2(two, {kNone}, order(0)), s1(one, {kNone}, order(0));
  const std::vector<double> times{0.5, 1.0};
  const auto r2 = run_at(s2, times, 2.5e-4), r1 = run_at(s1, times, 2.5e-4);
  ASSERT_EQ(r2.size(), 2u);
  for (std::size_t k = 0; k < times.size(); ++k) {
    EXPECT_NEAR(angle_of(s2, r2[k], 0), angle_of(s1, r1[k], 0), 2e-6) << "t = " << times[k];
    EXPECT_NEAR(angle_of(s2, r2[k], 1), angle_of(s2, r2[k], 0), 1e-10); // no relative rotation
  }
  EXPECT_LT(angle_of(s1, r1[1], 0), -0.5); // it swings
  // Galerkin: b's mass uncertain, order 3, against 8-point Gauss–Hermite collocation of the merged body.
  const uq::Distribution mb = uq::Distribution::normal(1.0, 0.1);
  const GalerkinSystem g(two, {{"mb", mb, {{two.body_data(1, 0), 1.0}}}}, order(3));
  EXPECT_TRUE(g.exact());
  const auto rg = run_at(g, times, 2.5e-4);
  std::vector<double> mean, sd;
  collocation(mb, 8, [&](double m) {
    const PlanarMechanism mm = merged(m);
    const GalerkinSystem s(mm, {kNone}, order(0));
    std::vector<double> th;
    for (const DaeState& st : run_at(s, times, 2.5e-4)) th.push_back(angle_of(s, st, 0));
    return th;
  }, mean, sd);
  for (std::size_t k = 0; k < times.size(); ++k) {
    Vec om, os;
    Mat oc;
    g.output_moments(rg[k].q, 8, om, os, oc);
    const int th = 2; // a.angle
    EXPECT_NEAR(om[th], mean[k], 1e-6) << "t = " << times[k]; // measured 2e-8
    EXPECT_NEAR(os[th], sd[k], 1e-4 * sd[k]) << "t = " << times[k]; // measured 4e-6 relative
    EXPECT_GT(sd[k], 1e-3);
    std::printf("weld t=%g mean %.9g (colloc %.9g) std %.6e (colloc %.6e)\n", times[k], om[th], mean[k], os[th], sd[k]);
  }
}

TEST(PctJoints, PrismaticRailIsTheMassSpringDamper) {
  // A rail welded to the ground at 0.5 rad, a slider on it (prismatic along the rail's x axis) tied to the
  // rail's centre by a zero-length spring: along the rail, m s̈ + c ṡ + k s + m g sin α = 0.
  const double alpha = 0.5, m = 1.5, c = 0.3, k = 80.0;
  PlanarMechanism mech;
  const int rail = mech.add_body({"rail", 5.0, 1.0, 0.0, 0.0, alpha, false, 0});
  const int sl = mech.add_body({"slider", m, 0.2, 0.0, 0.0, alpha + 0.2, false, 0});
  mech.add_joint({"base", PlanarJoint::Type::fixed, -1, rail, {0, 0}, {0, 0}});
  mech.add_joint({"rail", PlanarJoint::Type::prismatic, rail, sl, {0, 0}, {0, 0}, {1, 0}});
  mech.add_spring({"k", rail, sl, {0, 0}, {0, 0}, k, c, 0.0});
  mech.set_gravity(0, -kG);
  EXPECT_EQ(mech.constraint_rows(), 3 + 2 + 2);
  const uq::Distribution kd = uq::Distribution::normal(k, 8.0);
  const GalerkinSystem g(mech, {{"k", kd, {{mech.spring_data(0, 0), 1.0}}}}, order(2));
  const MassSpringDamper msd(m, c, kG * std::sin(alpha), k);
  const GalerkinSystem ref(msd, {{"k", kd, {{MassSpringDamper::stiffness, 1.0}}}}, order(2));
  const std::vector<double> times{0.5, 1.0};
  const auto a = run_at(g, times, 1e-3), b = run_at(ref, times, 1e-3);
  const int T = g.terms();
  for (std::size_t i = 0; i < times.size(); ++i) {
    const Vec s = std::cos(alpha) * a[i].q.segment(4 * sl * T, T) + std::sin(alpha) * a[i].q.segment((4 * sl + 1) * T, T);
    const Vec y = b[i].q.segment(T, T);
    EXPECT_LT((s - y).cwiseAbs().maxCoeff(), 1e-10) << s.transpose() << " vs " << y.transpose();
    EXPECT_GT(y.tail(2).norm(), 1e-4);
    EXPECT_NEAR(angle_of(g, a[i], sl), alpha + 0.2, 1e-10); // the relative angle kept
  }
  // Order 0 against the closed form of the damped oscillator (the static offset −m g sin α / k).
  const GalerkinSystem d(mech, {kNone}, order(0));
  const auto r = run_at(d, {1.0}, 2.5e-4);
  const double wn = std::sqrt(k / m), z = c / (2 * std::sqrt(k * m)), wd = wn * std::sqrt(1 - z * z);
  const double st = -m * kG * std::sin(alpha) / k, t = 1.0;
  const double exact = st - st * std::exp(-z * wn * t) * (std::cos(wd * t) + z * wn / wd * std::sin(wd * t));
  const double s1 = std::cos(alpha) * r[0].q[4 * sl] + std::sin(alpha) * r[0].q[4 * sl + 1];
  EXPECT_NEAR(s1, exact, 2e-6);
}

TEST(PctJoints, DistanceJointIsAPendulum) {
  // A body on a distance joint of length L to the ground origin, started at the bottom with speed v0:
  // θ̈ = −(g/L) sin θ (the body's own spin is free and stays 0).
  const double L = 1.2, v0 = 2.0;
  auto pendulum = [&](double len) {
    PlanarMechanism m;
    const int b = m.add_body({"bob", 1.0, 0.05, 0.0, -len, 0.0, false, 0, v0, 0.0});
    m.add_joint({"rod", PlanarJoint::Type::distance, -1, b, {0, 0}, {0, 0}, {1, 0}, len});
    m.set_gravity(0, -kG);
    return m;
  };
  const PlanarMechanism mech = pendulum(L);
  EXPECT_EQ(mech.constraint_rows(), 2);
  const std::vector<double> times{0.5, 1.0};
  auto exact_x = [&](double len) {
    const std::vector<double> th = rk4([&](double, double x, double) { return -kG / len * std::sin(x); }, 0.0, v0 / len,
                                       times, 1e-4);
    std::vector<double> x;
    for (double t : th) x.push_back(len * std::sin(t));
    return x;
  };
  const GalerkinSystem d(mech, {kNone}, order(0));
  const auto r = run_at(d, times, 2.5e-4);
  const std::vector<double> ex = exact_x(L);
  for (std::size_t i = 0; i < times.size(); ++i) EXPECT_NEAR(r[i].q[0], ex[i], 5e-6) << "t = " << times[i];
  // Galerkin: L uniform on [1.1, 1.3] (Legendre), order 3, against 8-point Gauss–Legendre collocation.
  const uq::Distribution Ld = uq::Distribution::uniform(1.1, 1.3);
  const GalerkinSystem g(mech, {{"L", Ld, {{mech.joint_data(0, 4), 1.0}}}}, order(3));
  EXPECT_TRUE(g.exact());
  const auto rg = run_at(g, times, 2.5e-4);
  std::vector<double> mean, sd;
  collocation(Ld, 8, exact_x, mean, sd);
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double m0 = testing::coef_mean(rg[i].q, 0, g.terms()), s0 = testing::coef_std(rg[i].q, 0, g.terms());
    EXPECT_NEAR(m0, mean[i], 1e-6) << "t = " << times[i]; // measured 1.2e-7
    EXPECT_NEAR(s0, sd[i], 1e-4 * sd[i]) << "t = " << times[i]; // measured 2e-7 relative
    EXPECT_GT(sd[i], 1e-2);
    std::printf("distance t=%g mean %.9g (colloc %.9g) std %.6e (colloc %.6e)\n", times[i], m0, mean[i], s0, sd[i]);
  }
}

TEST(PctJoints, DriverPrescribesTheLineAndExcitesASpring) {
  // A base held on a driven horizontal line (y = g(t), a smooth bump) and a vertical line (x = 0); a bob
  // hangs from it on a zero-length spring–damper, itself on a vertical line: m z̈ = −k(z − g) − c(ż − ġ) − m grav.
  const double m = 2.0, k = 150.0, c = 1.0;
  StepSchedule bump{0.0, {{0.1, 0.3, 0.2}, {0.3, 0.5, 0.0}}};
  PlanarMechanism mech;
  const int base = mech.add_body({"base", 3.0, 0.5, 0.0, 0.0, 0.0, true, 0});
  const int bob = mech.add_body({"bob", m, 0.1, 0.0, -m * kG / k, 0.0, true, 0});
  PlanarJoint drv{"drive", PlanarJoint::Type::slot, -1, base, {0, 0}, {0, 0}, {1, 0}};
  drv.motion = bump;
  mech.add_joint(drv);
  mech.add_joint({"bx", PlanarJoint::Type::slot, -1, base, {0, 0}, {0, 0}, {0, 1}});
  mech.add_joint({"line", PlanarJoint::Type::slot, -1, bob, {0, 0}, {0, 0}, {0, 1}});
  mech.add_spring({"k", base, bob, {0, 0}, {0, 0}, k, c, 0.0});
  mech.set_gravity(0, -kG);
  ASSERT_EQ(mech.driver_values(0.2, 0).size(), static_cast<std::size_t>(mech.constraint_rows()));
  // Φ_t: started inside the bump, the assembly gives the base ġ(t0).
  {
    const GalerkinSystem d(mech, {kNone}, order(0));
    const DaeState s = d.initial_state(0.2);
    EXPECT_NEAR(s.q[1], bump(0.2), 1e-12);
    EXPECT_NEAR(s.v[1], bump(0.2, 1), 1e-12);
    EXPECT_NEAR(s.a[1], bump(0.2, 2), 1e-9);
  }
  const std::vector<double> times{0.2, 0.4, 0.8};
  auto exact_z = [&](double kk) {
    return rk4([&](double t, double z, double v) { return (-kk * (z - bump(t)) - c * (v - bump(t, 1))) / m - kG; },
               -m * kG / kk, 0.0, times, 1e-4);
  };
  const GalerkinSystem d(mech, {kNone}, order(0));
  const auto r = run_at(d, times, 2.5e-4);
  const std::vector<double> ez = exact_z(k);
  for (std::size_t i = 0; i < times.size(); ++i) {
    EXPECT_NEAR(r[i].q[1], bump(times[i]), 1e-12) << "t = " << times[i];
    EXPECT_NEAR(r[i].q[5], ez[i], 2e-6) << "t = " << times[i];
  }
  // Galerkin: k ~ N(150, 15²), order 3, against 8-point Gauss–Hermite collocation. The bob starts at the
  // mean static position (not the k-dependent one), so the data of the reference are the same.
  const uq::Distribution kd = uq::Distribution::normal(k, 15.0);
  const GalerkinSystem g(mech, {{"k", kd, {{mech.spring_data(0, 0), 1.0}}}}, order(3));
  const auto rg = run_at(g, times, 2.5e-4);
  std::vector<double> mean, sd;
  collocation(kd, 8, [&](double kk) {
    return rk4([&](double t, double z, double v) { return (-kk * (z - bump(t)) - c * (v - bump(t, 1))) / m - kG; },
               -m * kG / k, 0.0, times, 1e-4);
  }, mean, sd);
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double m0 = testing::coef_mean(rg[i].q, 5, g.terms()), s0 = testing::coef_std(rg[i].q, 5, g.terms());
    EXPECT_NEAR(m0, mean[i], 2e-6) << "t = " << times[i]; // measured 3.3e-7 (order-3 truncation)
    EXPECT_NEAR(s0, sd[i], 1.5e-3 * sd[i]) << "t = " << times[i]; // measured 5.5e-4 relative at t = 0.8
    EXPECT_NEAR(testing::coef_std(rg[i].q, 1, g.terms()), 0.0, 1e-12); // the driven base is deterministic
    std::printf("driver t=%g mean %.9g (colloc %.9g) std %.6e (colloc %.6e)\n", times[i], m0, mean[i], s0, sd[i]);
  }
  (void)ez;
}

TEST(PctJoints, BadJointsAreRefusedByName) {
  PlanarMechanism m;
  const int b = m.add_body({"b", 1, 1, 0, 0, 0, false, 0});
  PlanarJoint j{"d0", PlanarJoint::Type::distance, -1, b, {0, 0}, {0, 0}};
  EXPECT_THROW(
      {
        try {
          m.add_joint(j);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("distance joint 'd0'"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  PlanarJoint p{"p", PlanarJoint::Type::prismatic, -1, b, {0, 0}, {0, 0}, {0, 0}};
  EXPECT_THROW(m.add_joint(p), InputError);
  PlanarJoint r{"r", PlanarJoint::Type::revolute, -1, b, {0, 0}, {0, 0}};
  r.motion.steps.push_back({0, 1, 1});
  EXPECT_THROW(m.add_joint(r), InputError);
}

} // namespace flexuq::pct
