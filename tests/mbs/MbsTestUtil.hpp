// SPDX-License-Identifier: MIT
#pragma once
/// @file MbsTestUtil.hpp
/// @brief Shared by the mbs tests: run a System to the end recording every output state, and HHT
/// options with a tight Newton tolerance.

#include "flexuq/mbs/Integrator.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace flexuq::mbs::test {

struct Run {
  std::vector<State> states;
  std::vector<double> work; ///< non-conservative work up to each state
  RunStats stats;
  std::vector<std::string> dropped; ///< redundant rows found at t = 0
};

inline Run simulate(System& sys, const SolverOptions& o) {
  Integrator integ(sys, o);
  State s;
  Run r;
  r.dropped = integ.initialise(s);
  r.stats = integ.run(s, [&](const State& st, double w) {
    r.states.push_back(st);
    r.work.push_back(w);
  });
  return r;
}

inline SolverOptions hht(double h, double end, double alpha = -0.05) {
  SolverOptions o;
  o.scheme = Scheme::hht;
  o.alpha = alpha;
  o.step = h;
  o.min_step = std::min(1e-12, h);
  o.end = end;
  o.tol = 1e-12;
  return o;
}

/// Two bars on revolute joints about global z (the upper one at the origin), released at angles
/// @p th1, @p th2 from the downward vertical under gravity −9.81 y; body x along each bar. 3-D joints:
/// 14 coordinates, 12 active rows, two degrees of freedom.
inline System double_pendulum_system(double l1, double l2, double m1, double m2, double th1, double th2) {
  System s;
  const Vec3 d1(std::sin(th1), -std::cos(th1), 0), d2(std::sin(th2), -std::cos(th2), 0);
  auto bar = [&](const std::string& name, double m, double len, const Vec3& centre, double th) {
    RigidBody b;
    b.name = name;
    b.mass = m;
    b.inertia = Vec3(1e-4, m * len * len / 12, m * len * len / 12).asDiagonal();
    b.position = centre;
    b.orientation = from_axis_angle(Vec3::UnitZ(), th - M_PI / 2); // body x along the bar
    return s.add_body(b);
  };
  const int a = bar("upper", m1, l1, 0.5 * l1 * d1, th1), b = bar("lower", m2, l2, l1 * d1 + 0.5 * l2 * d2, th2);
  JointSpec j;
  j.name = "O";
  j.body_j = a;
  s.add_joint(j);
  j.name = "E";
  j.body_i = a;
  j.body_j = b;
  j.point = l1 * d1;
  s.add_joint(j);
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  s.add_force(g);
  return s;
}

} // namespace flexuq::mbs::test
