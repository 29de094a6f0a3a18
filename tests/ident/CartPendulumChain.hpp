// SPDX-License-Identifier: MIT
#pragma once
/// @file CartPendulumChain.hpp
/// @brief Seed 003's identification example (digest §3.6, V17): two carts on prismatic joints along x,
/// four pendula hinged about z on each, the carts coupled by a spring k1 and the right one tied to the
/// ground by k2, a rotational damper in every pendulum hinge, gravity −y, a 3 Hz 25 N sine on the left
/// cart; at rest in its static equilibrium at t = 0 (pendula hanging, springs unstretched). Table 10's
/// data in SI units (the digest flags the dampers' "N·m·s" as unverified); the pendulum's J about its
/// centre of mass, the centre at half its length; the hinge spacing (0.15 m) and the carts' 1 m
/// distance are not in the thesis (its figure only). 3-D joints, Euler parameters: n = 70 coordinates,
/// m = 60 active rows, 10 degrees of freedom.
/// Parameters p (9): m_C1, m_P1 … m_P4, d_P1 … d_P4 (the pendula of the left cart).
#include "flexuq/ident/Adjoint.hpp"
#include "flexuq/mbs/System.hpp"
#include "flexuq/rom/Basis.hpp"

#include <Eigen/Dense>

#include <string>

namespace flexuq::ident::test {

struct ChainData {
  double m_c2 = 4.6, m_p_right = 0.12, d_right = 0.2, k1 = 1000, k2 = 1000, j_c = 0.02, j_p = 0.00079, l_p = 0.22;
  double amplitude = 25, frequency = 3;
};

inline Eigen::VectorXd chain_start() {
  Eigen::VectorXd p(9);
  p << 2.3, 0.12, 0.12, 0.12, 0.12, 0.2, 0.2, 0.2, 0.2;
  return p;
}
inline Eigen::VectorXd chain_target() {
  Eigen::VectorXd p(9);
  p << 2.12, 0.15, 0.2, 0.19, 0.17, 0.25, 0.17, 0.24, 0.16;
  return p;
}

inline mbs::System cart_pendulum_chain(const Eigen::VectorXd& p, const ChainData& d = {}) {
  using namespace mbs;
  System s;
  int carts[2];
  for (int c = 0; c < 2; ++c) {
    RigidBody b;
    b.name = "cart" + std::to_string(c + 1);
    b.mass = c == 0 ? p(0) : d.m_c2;
    b.inertia = d.j_c * Mat3::Identity();
    b.position = Vec3(c * 1.0, 0, 0);
    carts[c] = s.add_body(b);
    JointSpec j;
    j.name = b.name + ".rail";
    j.type = JointType::prismatic;
    j.body_j = carts[c];
    j.point = b.position;
    j.axis = Vec3::UnitX();
    s.add_joint(j);
  }
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 4; ++i) {
      const int k = 4 * c + i;
      const Vec3 hinge(c * 1.0 + 0.15 * (i - 1.5), 0, 0);
      RigidBody b;
      b.name = "pendulum" + std::to_string(k + 1);
      b.mass = c == 0 ? p(1 + i) : d.m_p_right;
      b.inertia = Vec3(d.j_p, 1e-5, d.j_p).asDiagonal();
      b.position = hinge - Vec3(0, 0.5 * d.l_p, 0);
      const int pb = s.add_body(b);
      JointSpec j;
      j.name = b.name + ".hinge";
      j.body_i = carts[c];
      j.body_j = pb;
      j.point = hinge;
      j.axis = Vec3::UnitZ();
      s.add_joint(j);
      ForceSpec dmp;
      dmp.type = ForceType::rotational_damper;
      dmp.body = pb;
      dmp.body2 = carts[c];
      dmp.direction = Vec3::UnitZ();
      dmp.damping = c == 0 ? p(5 + i) : d.d_right;
      s.add_force(dmp);
    }
  ForceSpec k1;
  k1.type = ForceType::spring;
  k1.body = carts[0];
  k1.body2 = carts[1];
  k1.point = Vec3(0, 0, 0);
  k1.point2 = Vec3(1, 0, 0);
  k1.stiffness = d.k1;
  s.add_force(k1);
  ForceSpec k2 = k1;
  k2.body = carts[1];
  k2.body2 = kGround;
  k2.point = Vec3(1, 0, 0);
  k2.point2 = Vec3(2, 0, 0);
  k2.stiffness = d.k2;
  s.add_force(k2);
  ForceSpec f;
  f.type = ForceType::force;
  f.body = carts[0];
  f.direction = Vec3::UnitX();
  f.point = Vec3(0, 0, 0);
  f.value = TimeFunction::harmonic(d.amplitude, d.frequency);
  s.add_force(f);
  ForceSpec g;
  g.direction = Vec3(0, -9.81, 0);
  s.add_force(g);
  return s;
}

/// The identification problem of tests/ident and bench/ident_gradient: HHT α = −0.05 over [0, @p end]
/// at @p step, the seed's measured signals φ_P1…φ_P4, ω_P1…ω_P4 (bodies 2…5), x_C1, ẋ_C1 (body 0), zero
/// measurements (set them).
inline ident::Problem chain_problem(double end, double step = 0.01) {
  ident::Problem pr;
  pr.make = [](const Eigen::VectorXd& p) { return cart_pendulum_chain(p); };
  pr.solver.scheme = mbs::Scheme::hht;
  pr.solver.alpha = -0.05;
  pr.solver.start = 0;
  pr.solver.end = end;
  pr.solver.step = step;
  for (int i = 0; i < 4; ++i)
    pr.signals.push_back({"phi_P" + std::to_string(i + 1), 2 + i, ident::SignalKind::angle, mbs::Vec3::UnitZ(), 1.0});
  for (int i = 0; i < 4; ++i)
    pr.signals.push_back({"omega_P" + std::to_string(i + 1), 2 + i, ident::SignalKind::rate, mbs::Vec3::UnitZ(), 1.0});
  pr.signals.push_back({"x_C1", 0, ident::SignalKind::x, mbs::Vec3::UnitZ(), 1.0});
  pr.signals.push_back({"v_C1", 0, ident::SignalKind::vx, mbs::Vec3::UnitZ(), 1.0});
  pr.measured = Eigen::MatrixXd::Zero(pr.steps() + 1, static_cast<Eigen::Index>(pr.signals.size()));
  return pr;
}

/// The chain's ROM from full runs at the parameters @p ps (their whole trajectories as velocity snapshots).
inline rom::ReducedBasis chain_basis(const ident::Problem& pr, const std::vector<Eigen::VectorXd>& ps) {
  std::vector<rom::Training> runs;
  for (const auto& p : ps) {
    const auto ev = ident::cost(pr, p);
    rom::Training t;
    t.q = ev.trajectory.x;
    t.v = ev.trajectory.xd;
    t.t = ev.trajectory.t;
    runs.push_back(t);
  }
  mbs::System sys = pr.make(ps.front());
  mbs::Integrator integ(sys, pr.solver);
  mbs::State s;
  integ.initialise(s); // the active rows
  // The pendula's y velocities are second order in their angles (σ/σ₁ ≈ 6e-9 on 1 s, then a gap to
  // 1e-13); the stacked C_q V's 15 directions end at 2e-3, the next is 1e-8 … 2e-8 and the rest decay
  // without a gap: cut the POD at 1e-11 and the constraints at 1e-6.
  rom::RomOptions o;
  o.truncation = pod::Truncation::sigma_ratio(1e-11);
  o.constraint_truncation = pod::Truncation::sigma_ratio(1e-6);
  return rom::build_basis(sys, runs, o);
}

} // namespace flexuq::ident::test
