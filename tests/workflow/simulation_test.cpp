// SPDX-License-Identifier: MIT
// workflow::build_simulation without the CLI: typed simulate jobs made in C++ are built and run, and
// compared with closed-form references — a rigid pendulum (small-amplitude period, energy), a
// flexible steel box read from a body file written here swinging as a pendulum (its period from the
// box's closed-form mass properties, a mesh node following the rigid rotation) — and the checks the
// build makes on body files name the job key the spec carries.
#include "../io/InputErrorOf.hpp"
#include "BoxBody.hpp"

#include "flexuq/mbs/EulerParameters.hpp"
#include "flexuq/workflow/SimulationSpec.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

using namespace flexuq;
using mbs::Vec3;

namespace {

constexpr double kG = 9.81;

/// Times at which column @p c of the n_t × k table @p data crosses zero (linear interpolation).
std::vector<double> zero_crossings(const mbs::SimulationResult& r, std::size_t output, std::size_t k, std::size_t c) {
  const auto& d = r.outputs.at(output);
  std::vector<double> t;
  for (std::size_t i = 1; i < r.time.size(); ++i) {
    const double a = d[(i - 1) * k + c], b = d[i * k + c];
    if ((a > 0) != (b > 0)) t.push_back(r.time[i - 1] + (r.time[i] - r.time[i - 1]) * a / (a - b));
  }
  return t;
}

/// Period of a pendulum of moment of inertia @p I_O about its pivot, mass @p m, pivot–CoM distance
/// @p d, amplitude @p theta0: the small-amplitude period with the first two amplitude corrections
/// (1 + θ0²/16 + 11 θ0⁴/3072).
double pendulum_period(double I_O, double m, double d, double theta0) {
  const double t2 = theta0 * theta0;
  return 2 * M_PI * std::sqrt(I_O / (m * kG * d)) * (1 + t2 / 16 + 11 * t2 * t2 / 3072);
}

workflow::OutputEntry output(const std::string& name, mbs::Quantity q, int body = mbs::kGround) {
  workflow::OutputEntry o;
  o.spec.name = name;
  o.spec.quantity = q;
  o.spec.body = body;
  return o;
}

workflow::ForceEntry gravity(const Vec3& g) {
  workflow::ForceEntry f;
  f.spec.type = mbs::ForceType::gravity;
  f.spec.direction = g;
  return f;
}

workflow::JointEntry pin(const std::string& interface_j = {}) {
  workflow::JointEntry j;
  j.spec.name = "pin";
  j.spec.type = mbs::JointType::revolute;
  j.spec.body_i = mbs::kGround;
  j.spec.body_j = 0;
  j.spec.axis = Vec3::UnitZ();
  j.spec.interface_j = interface_j;
  return j;
}

/// A point mass with a small isotropic inertia on a massless rod of length L, pinned at the origin,
/// released at rest θ0 from the downward vertical (−y).
struct RigidPendulum {
  double m = 2.0, L = 0.5, Ic = 0.01, theta0 = 0.05;
  workflow::SimulationSpec spec(double h, double end) const {
    workflow::SimulationSpec s;
    workflow::BodySpec b;
    b.body.name = "bob";
    b.body.mass = m;
    b.body.inertia = Ic * mbs::Mat3::Identity();
    b.body.position = L * Vec3(std::sin(theta0), -std::cos(theta0), 0);
    b.body.orientation = mbs::from_axis_angle(Vec3::UnitZ(), theta0);
    s.bodies.push_back(b);
    s.joints.push_back(pin());
    s.forces.push_back(gravity(Vec3(0, -kG, 0)));
    s.outputs.push_back(output("x", mbs::Quantity::position, 0));
    s.outputs.push_back(output("energy", mbs::Quantity::energy));
    s.outputs.push_back(output("angle", mbs::Quantity::angle));
    s.outputs.back().joint = "pin";
    s.solver.alpha = 0.0; // Newmark's trapezoidal rule: no numerical damping
    s.solver.step = h;
    s.solver.min_step = h;
    s.solver.end = end;
    s.solver.tol = 1e-12;
    return s;
  }
};

} // namespace

TEST(BuildSimulation, RigidPendulumPeriodAndEnergy) {
  const RigidPendulum p;
  const double h = 1e-3, I_O = p.Ic + p.m * p.L * p.L;
  const double omega = std::sqrt(p.m * kG * p.L / I_O);
  auto job = workflow::build_simulation(p.spec(h, 3.0));
  ASSERT_EQ(job.system.bodies().size(), 1u);
  ASSERT_EQ(job.outputs.size(), 3u);
  EXPECT_EQ(job.outputs[2].joint, 0); // the joint named by the angle output
  const auto r = mbs::run_simulation(job);
  // x = L sin θ crosses zero twice per period: the period between crossings two apart.
  const auto c = zero_crossings(r, 0, 3, 0);
  ASSERT_GE(c.size(), 3u);
  const double T = c[2] - c[0], T_ref = pendulum_period(I_O, p.m, p.L, p.theta0);
  // The trapezoidal rule lengthens the period by (ωh)²/12 (measured 1.6e-6 = (ωh)²/12); the
  // amplitude series is exact to θ0⁶.
  EXPECT_NEAR(T, T_ref, 2 * std::pow(omega * h, 2) / 12 * T_ref) << "period";
  EXPECT_NEAR(c[0], T_ref / 4, 1e-4 * T_ref) << "first crossing at a quarter period";
  // Energy: kinetic + potential of a conservative system, against the oscillation energy.
  const double E_osc = p.m * kG * p.L * (1 - std::cos(p.theta0));
  const auto& e = r.outputs[1]; // kinetic, potential, strain, work, balance
  double drift = 0, kinetic_max = 0;
  for (std::size_t i = 0; i < r.time.size(); ++i) {
    drift = std::max(drift, std::abs(e[i * 5] + e[i * 5 + 1] - e[1]));
    kinetic_max = std::max(kinetic_max, e[i * 5]);
  }
  EXPECT_NEAR(kinetic_max, E_osc, 1e-3 * E_osc) << "all the potential energy becomes kinetic at the bottom";
  // The trapezoidal rule conserves a linear oscillator's energy exactly: its error here comes from
  // the pendulum's nonlinearity, (ωh)² θ0² / 4 of E_osc as measured (1.3e-8); 4x that.
  EXPECT_LT(drift, std::pow(omega * h * p.theta0, 2) * E_osc) << "energy error of the trapezoidal rule";
  // The joint angle: the pin turns by −2θ0 from the release to the other side and back.
  const auto& a = r.outputs[2];
  const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
  EXPECT_NEAR(*hi - *lo, 2 * p.theta0, 1e-4 * p.theta0);
}

namespace {

/// The box pinned at the centre of its XMIN face (RBE2 reference node, the origin) swinging about z
/// under gravity along +x, released θ0 from the vertical.
workflow::SimulationSpec box_pendulum(double theta0, double h, double end) {
  workflow::SimulationSpec s;
  workflow::BodySpec b;
  b.body.name = "box";
  b.body.orientation = mbs::from_axis_angle(Vec3::UnitZ(), theta0);
  b.flexible.emplace();
  b.flexible->file = test::box_body_file("simulation");
  s.bodies.push_back(b);
  s.joints.push_back(pin("XMIN"));
  s.forces.push_back(gravity(Vec3(kG, 0, 0)));
  s.outputs.push_back(output("com", mbs::Quantity::position, 0));
  s.outputs.back().point = Vec3(test::kBoxA / 2, 0, 0);
  s.solver.step = h;
  s.solver.min_step = h;
  s.solver.end = end;
  s.solver.tol = 1e-12;
  return s;
}

/// The label and mesh position of the box's node nearest @p x.
std::pair<std::int64_t, Vec3> node_near(const Vec3& x) {
  const auto mesh = test::box_mesh();
  std::size_t best = 0;
  double dmin = INFINITY;
  for (std::size_t i = 0; i < mesh.node_ids.size(); ++i) {
    const Vec3 y(mesh.coords[i][0], mesh.coords[i][1], mesh.coords[i][2]);
    if ((y - x).norm() < dmin) {
      dmin = (y - x).norm();
      best = i;
    }
  }
  return {mesh.node_ids[best], Vec3(mesh.coords[best][0], mesh.coords[best][1], mesh.coords[best][2])};
}

} // namespace

TEST(BuildSimulation, FlexibleBoxFromABodyFileSwingsLikeTheRigidBox) {
  const double theta0 = 0.05, h = 1e-3, end = 2.0;
  auto spec = box_pendulum(theta0, h, end);
  const auto [label, x_node] = node_near(Vec3(test::kBoxA, test::kBoxB / 2, test::kBoxC / 2));
  auto tip = output("tip", mbs::Quantity::position, 0);
  tip.node = label;
  spec.outputs.push_back(tip);
  auto job = workflow::build_simulation(spec);
  // The body read from the file: the homogeneous box's mass, the file and its interfaces.
  const double m = test::kSteelRho * test::kBoxA * test::kBoxB * test::kBoxC;
  const auto& flex = job.system.bodies().at(0).flex;
  ASSERT_TRUE(flex);
  EXPECT_NEAR(flex->invariants.mass, m, 1e-9 * m);
  EXPECT_EQ(job.flexible_files.at("box"), test::box_body_file("simulation"));
  EXPECT_TRUE(flex->interfaces.count("XMAX"));
  const auto r = mbs::run_simulation(job);
  // Period: the rigid box about the XMIN face centre, I_O = m (a² + b²)/12 + m (a/2)². The steel
  // box's elastic modes (kHz) change it by ~1e-7; HHT's error is about (ωh)²/12 (measured 4.6e-6).
  const double d = test::kBoxA / 2;
  const double I_O = m * (test::kBoxA * test::kBoxA + test::kBoxB * test::kBoxB) / 12 + m * d * d;
  const double T_ref = pendulum_period(I_O, m, d, theta0);
  const auto c = zero_crossings(r, 0, 3, 1); // y of the centre of mass
  ASSERT_GE(c.size(), 3u);
  const double omega = 2 * M_PI / T_ref;
  EXPECT_NEAR(c[2] - c[0], T_ref, std::pow(omega * h, 2) / 2 * T_ref) << "period of the flexible box";
  // The tip node moves with the box's rotation θ = atan2(y_c, x_c) to within its elastic deflection
  // (ρ g a / E ~ 1e-7 relative: far below 1 µm).
  double err = 0;
  for (std::size_t i = 0; i < r.time.size(); ++i) {
    const double* com = &r.outputs[0][3 * i];
    const double th = std::atan2(com[1], com[0]);
    const Vec3 want = mbs::rotation(mbs::from_axis_angle(Vec3::UnitZ(), th)) * x_node;
    err = std::max(err, (Vec3(r.outputs[1][3 * i], r.outputs[1][3 * i + 1], r.outputs[1][3 * i + 2]) - want).norm());
  }
  EXPECT_LT(err, 1e-6) << "tip node " << label;
}

TEST(BuildSimulation, BodyFileChecksNameTheJobKey) {
  auto key = [](const std::string& k, int line) { return workflow::JobKey{"job.yaml", k, line}; };
  {
    auto spec = box_pendulum(0.05, 1e-3, 0.01);
    auto tip = output("tip", mbs::Quantity::position, 0);
    tip.node = 999999;
    tip.node_key = key("outputs[1].node", 9);
    spec.outputs.push_back(tip);
    EXPECT_EQ(test::input_error_of([&] { workflow::build_simulation(spec); }),
              "job.yaml: outputs[1].node (line 9): node 999999 is not in the mesh of " +
                  test::box_body_file("simulation"));
  }
  {
    auto spec = box_pendulum(0.05, 1e-3, 0.01);
    auto vm = output("vm", mbs::Quantity::von_mises, 0);
    vm.set = "XMAX";
    vm.key = key("outputs[1]", 8);
    spec.outputs.push_back(vm);
    // The hint names the reduce option by its field; the CLI renders its key (app/JobKeys).
    try {
      workflow::build_simulation(spec);
      ADD_FAILURE() << "von_mises of a body without stress modes was accepted";
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), "stress_modes");
      EXPECT_EQ(e.message_for("reduce.stress_modes"),
                "job.yaml: outputs[1] (line 8): " + test::box_body_file("simulation") +
                    " has no /reduced/stress_modes (reduce it with reduce.stress_modes: true; stochastic bodies carry none)");
    }
  }
  {
    auto spec = box_pendulum(0.05, 1e-3, 0.01);
    spec.bodies[0].flexible->at_parameters = true;
    spec.bodies[0].flexible->parameters_key = key("bodies.box.parameters", 4);
    EXPECT_EQ(test::input_error_of([&] { workflow::build_simulation(spec); }),
              "job.yaml: bodies.box.parameters (line 4): " + test::box_body_file("simulation") +
                  " has no /stochastic_body (a deterministic body)");
  }
  {
    auto spec = box_pendulum(0.05, 1e-3, 0.01);
    spec.joints[0].spec.interface_j = "NOPE";
    spec.joints[0].key = key("joints[0] (pin)", 6);
    const auto msg = test::input_error_of([&] { workflow::build_simulation(spec); });
    EXPECT_EQ(msg.rfind("job.yaml: joints[0] (pin) (line 6): ", 0), 0u) << msg;
    EXPECT_NE(msg.find("interface 'NOPE' is not in the body file"), std::string::npos) << msg;
  }
  {
    auto spec = box_pendulum(0.05, 1e-3, 0.01);
    spec.bodies[0].flexible->file = "/nonexistent/box.h5";
    spec.bodies[0].flexible->key = key("bodies.box.body", 3);
    EXPECT_EQ(
        test::input_error_of([&] { workflow::build_simulation(spec); }),
        "job.yaml: bodies.box.body (line 3): flexible body file '/nonexistent/box.h5' does not exist (make it with "
        "flexuq reduce)");
  }
}
