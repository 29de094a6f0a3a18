// SPDX-License-Identifier: MIT
// Integrator verification suite (issue "The index-3 integrators lose their order on fast
// mechanisms"): each mechanism is run by flexuq's index-3 schemes in absolute coordinates (Euler
// parameters, redundant joint rows) and compared with a reference derived here, never with flexuq's
// own output:
//   * a fast rigid slider-crank (3-D joints, 3 redundant rows dropped, torque + gravity, spinning up
//     to ≈ 80 rad/s in 1 s) against its 1-DOF Lagrangian integrated by RK4 with a tiny step;
//   * a torque-free symmetric body tumbling at ≈ 50 rad/s against its closed form (regular precession);
//   * a double pendulum released from large angles against its 2-DOF Lagrangian;
//   * a flexible case: a spinning hub carrying point masses on an elastic radial mode (a floating-frame
//     body whose equations are exact for point masses) against its 2-DOF Lagrangian.
// For every scheme (hht α = −0.05, generalized-α ρ∞ = 0.8, newmark = hht α = 0): errors at steps
// spanning 10×, the observed order in positions (≥ 1.8), the error at h = 1e-4 within 5× of the same
// scheme applied to the minimal-coordinate equations, constraint drift (positions and velocities) and
// energy balance. The full table down to h = 2.5e-5 is bench/integrator_order.sh.
#include "flexuq/mbs/Integrator.hpp"
#include "IntegratorReference.hpp"
#include "MbsTestUtil.hpp"
#include "ParticleBody.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

using namespace flexuq::mbs;
using namespace flexuq::mbs::test;

namespace {

constexpr double kG = 9.81;

/// The three index-3 schemes the suite verifies, with the textbook parameters they correspond to.
struct SchemeCase {
  const char* name;
  Scheme scheme;
  double alpha, rho_inf;
  /// generalized-α parameters (α_m, α_f, β, γ) of the same scheme for the minimal-coordinate reference.
  void parameters(double& am, double& af, double& beta, double& gamma) const {
    if (scheme == Scheme::hht) {
      am = 0;
      af = -alpha;
      gamma = 0.5 - alpha;
      beta = 0.25 * (1 - alpha) * (1 - alpha);
    } else {
      am = (2 * rho_inf - 1) / (rho_inf + 1);
      af = rho_inf / (rho_inf + 1);
      gamma = 0.5 - am + af;
      beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);
    }
  }
  SolverOptions options(double h, double end) const {
    SolverOptions o = hht(h, end, scheme == Scheme::hht ? alpha : -0.05);
    o.scheme = scheme;
    o.rho_inf = rho_inf;
    o.output_step = end; // one output at the end: the error is measured there
    return o;
  }
};
const SchemeCase kSchemes[] = {{"hht", Scheme::hht, -0.05, 0.8},
                               {"generalized-alpha", Scheme::generalized_alpha, 0.0, 0.8},
                               {"newmark", Scheme::hht, 0.0, 0.8}};

/// Wraps an angle difference into (−π, π].
double wrap(double d) { return std::remainder(d, 2 * M_PI); }

/// The slider-crank's slider (mass @p m3 at x = @p xb on the x axis), its revolutes O (ground–crank at
/// the origin), A (crank–rod at @p a) and B (rod–slider at the slider), the prismatic guide along x, the
/// crank torque and gravity: shared by the rigid and the flexible crank. @p at_a, @p at_b name the
/// rod's interfaces at A and B (empty: a rigid rod).
void add_slider_joints_loads(System& s, int crank, int rod, const Vec3& a, double xb, double m3, double torque,
                             const std::string& at_a = "", const std::string& at_b = "") {
  RigidBody sl;
  sl.name = "slider";
  sl.mass = m3;
  sl.inertia = Vec3(2e-4, 3e-4, 4e-4).asDiagonal();
  sl.position = Vec3(xb, 0, 0);
  const int slider = s.add_body(sl);
  const Vec3 b(xb, 0, 0);
  auto joint = [&](const std::string& name, JointType t, int i, int j, const Vec3& at, const Vec3& axis,
                   const std::string& ii = "", const std::string& ij = "") {
    JointSpec js;
    js.name = name;
    js.type = t;
    js.body_i = i;
    js.body_j = j;
    js.point = at;
    js.axis = axis;
    js.interface_i = ii;
    js.interface_j = ij;
    s.add_joint(js);
  };
  joint("O", JointType::revolute, kGround, crank, Vec3::Zero(), Vec3::UnitZ());
  joint("A", JointType::revolute, crank, rod, a, Vec3::UnitZ(), "", at_a);
  joint("B", JointType::revolute, rod, slider, b, Vec3::UnitZ(), at_b, "");
  joint("guide", JointType::prismatic, kGround, slider, b, Vec3::UnitX());
  ForceSpec t;
  t.type = ForceType::torque;
  t.body = crank;
  t.direction = Vec3::UnitZ();
  t.value = TimeFunction::constant(torque);
  s.add_force(t);
  ForceSpec g;
  g.direction = Vec3(0, -kG, 0);
  s.add_force(g);
}

// ---------------------------------------------------------------------------------------------
// Fast slider-crank: crank OA (r) about z at the origin, rod AB (l), slider B on the x axis.
// Crank angle θ is the coordinate; the rod angle φ = asin(−r sin θ / l).
struct SliderCrank {
  double r = 0.2, l = 0.5, m1 = 0.5, m2 = 1.0, m3 = 0.6, torque = 3.5, theta0 = 0.3;
  double j1() const { return m1 * r * r / 12; }
  double j2() const { return m2 * l * l / 12; }

  /// Positions of the three centres of mass and the rod angle as jets in θ.
  void kinematics(double theta, Jet pos[3][2], Jet& phi) const {
    const Jet th = Jet::variable(theta);
    const Jet c = cos(th), s = sin(th);
    phi = asin((-r / l) * s);
    const Jet cp = cos(phi), sp = sin(phi);
    pos[0][0] = (0.5 * r) * c;
    pos[0][1] = (0.5 * r) * s;
    pos[1][0] = r * c + (0.5 * l) * cp;
    pos[1][1] = r * s + (0.5 * l) * sp;
    pos[2][0] = r * c + l * cp;
    pos[2][1] = Jet::constant(0);
  }
  /// Lagrange's equation M(θ) θ̈ + c(θ) θ̇² = T + Q_g(θ) (virtual work of the Newton–Euler forces).
  Ode ode() const {
    Ode o;
    o.accel = [this](double, const RVec& y, const RVec& yd) {
      Jet pos[3][2], phi;
      kinematics(y(0), pos, phi);
      const double mass[3] = {m1, m2, m3};
      double mm = j1() + j2() * phi.d1 * phi.d1, cc = j2() * phi.d1 * phi.d2, q = torque;
      for (int b = 0; b < 3; ++b) {
        mm += mass[b] * (pos[b][0].d1 * pos[b][0].d1 + pos[b][1].d1 * pos[b][1].d1);
        cc += mass[b] * (pos[b][0].d1 * pos[b][0].d2 + pos[b][1].d1 * pos[b][1].d2);
        q -= mass[b] * kG * pos[b][1].d1;
      }
      RVec a(1);
      a(0) = (q - cc * yd(0) * yd(0)) / mm;
      return a;
    };
    return o;
  }
  /// The same mechanism in 3-D bodies and joints (revolutes about z at O, A, B; a prismatic guide
  /// along x: the planar loop repeats 3 rows, which the system drops).
  System system() const {
    Jet pos[3][2], phi;
    kinematics(theta0, pos, phi);
    System s;
    auto bar = [&](const std::string& name, double m, double len, int k, double angle) {
      RigidBody b;
      b.name = name;
      b.mass = m;
      b.inertia = Vec3(1e-4, m * len * len / 12, m * len * len / 12).asDiagonal();
      b.position = Vec3(pos[k][0].v, pos[k][1].v, 0);
      b.orientation = from_axis_angle(Vec3::UnitZ(), angle);
      return s.add_body(b);
    };
    const int crank = bar("crank", m1, r, 0, theta0), rod = bar("rod", m2, l, 1, phi.v);
    add_slider_joints_loads(s, crank, rod, Vec3(r * std::cos(theta0), r * std::sin(theta0), 0), pos[2][0].v, m3, torque);
    return s;
  }
};

/// A mechanism with a reference solution: flexuq's system, its minimal coordinates read back from a
/// state, and the reference at t (RK4 on the minimal ODE or a closed form).
struct Problem {
  virtual ~Problem() = default;
  virtual const char* name() const = 0;
  virtual System system() const = 0;
  /// The minimal coordinates of a flexuq state (angles unwrapped near @p near).
  virtual RVec observe(const System& sys, const State& s, const RVec& near) const = 0;
  /// The reference at t: RK4 with 1e5 steps on the minimal ODE (cached), unless overridden.
  virtual RVec reference(double t) const {
    auto it = cache_.find(t);
    if (it == cache_.end()) it = cache_.emplace(t, flexuq::mbs::test::reference(ode(), y0(), v0(), 0, t, 100000, nullptr)).first;
    return it->second;
  }
  /// The minimal ODE and its initial state, for the same scheme on the minimal equations (empty
  /// accel: no minimal ODE, e.g. the closed-form tumbling body).
  virtual Ode ode() const { return {}; }
  virtual RVec y0() const { return {}; }
  virtual RVec v0() const { return {}; }
  /// Largest error over the minimal coordinates, each scaled by its length (1 for angles).
  virtual RVec scale() const = 0;

private:
  mutable std::map<double, RVec> cache_;
};

double distance(const Problem& p, const RVec& a, const RVec& b) {
  return (a - b).cwiseAbs().cwiseQuotient(p.scale()).maxCoeff();
}

/// Angle @p a brought to within π of @p near.
double unwrap(double a, double near) { return near + wrap(a - near); }

struct SliderCrankProblem : Problem {
  SliderCrank sc;
  const char* name() const override { return "fast slider-crank"; }
  System system() const override { return sc.system(); }
  RVec observe(const System& sys, const State& s, const RVec& near) const override {
    RVec y(1);
    y << unwrap(sc.theta0 + sys.joint_angle(s.q, 0), near(0));
    return y;
  }
  RVec y0() const override { return RVec::Constant(1, sc.theta0); }
  RVec v0() const override { return RVec::Zero(1); }
  Ode ode() const override { return sc.ode(); }
  RVec scale() const override { return RVec::Ones(1); }
};

// ---------------------------------------------------------------------------------------------
// Double pendulum of two bars (revolutes about z at the origin and at the first bar's end), absolute
// angles θ1, θ2 from the downward vertical, released from large angles: Lagrange's equations
// M(θ) θ̈ = Σ J_iᵀ m_i (g − c_i) with the centres' Jacobians J_i and convective accelerations c_i.
struct DoublePendulum : Problem {
  double l1 = 0.5, l2 = 0.4, m1 = 1.0, m2 = 0.8, th1 = 2.0, th2 = 2.6;
  const char* name() const override { return "double pendulum"; }
  Ode ode() const override {
    Ode o;
    o.accel = [this](double, const RVec& y, const RVec& yd) {
      const double s1 = std::sin(y(0)), c1 = std::cos(y(0)), s2 = std::sin(y(1)), c2 = std::cos(y(1));
      Eigen::Matrix<double, 2, 2> j1 = Eigen::Matrix<double, 2, 2>::Zero(), j2;
      j1.col(0) << 0.5 * l1 * c1, 0.5 * l1 * s1;
      j2.col(0) << l1 * c1, l1 * s1;
      j2.col(1) << 0.5 * l2 * c2, 0.5 * l2 * s2;
      const Eigen::Vector2d cv1 = 0.5 * l1 * Eigen::Vector2d(-s1, c1) * yd(0) * yd(0);
      const Eigen::Vector2d cv2 = l1 * Eigen::Vector2d(-s1, c1) * yd(0) * yd(0) + 0.5 * l2 * Eigen::Vector2d(-s2, c2) * yd(1) * yd(1);
      const Eigen::Vector2d g(0, -kG);
      Eigen::Matrix2d mm = m1 * j1.transpose() * j1 + m2 * j2.transpose() * j2;
      mm(0, 0) += m1 * l1 * l1 / 12;
      mm(1, 1) += m2 * l2 * l2 / 12;
      const Eigen::Vector2d f = m1 * j1.transpose() * (g - cv1) + m2 * j2.transpose() * (g - cv2);
      return RVec(mm.lu().solve(f));
    };
    return o;
  }
  RVec y0() const override { return Eigen::Vector2d(th1, th2); }
  RVec v0() const override { return RVec::Zero(2); }
  System system() const override { return test::double_pendulum_system(l1, l2, m1, m2, th1, th2); }
  RVec observe(const System& sys, const State& s, const RVec& near) const override {
    const double a = unwrap(th1 + sys.joint_angle(s.q, 0), near(0));
    const double b = unwrap(a + (th2 - th1) + sys.joint_angle(s.q, 1), near(1));
    return Eigen::Vector2d(a, b);
  }
  RVec scale() const override { return RVec::Ones(2); }
};

// ---------------------------------------------------------------------------------------------
// A torque-free symmetric body (J1 = J2 ≠ J3) tumbling at ≈ 50 rad/s, in closed form (regular
// precession): A(t) = Rot(L̂, |L| t / J1) A0 Rot(e3, ψ̇ t), ψ̇ = ω3 (1 − J3/J1), L = A0 J ω'0.
// Minimal coordinates: the rotation vector of A_ref(t)ᵀ A(t) (zero on the reference).
struct TumblingBody : Problem {
  double j1 = 0.02, j3 = 0.035;
  Vec3 w0 = Vec3(20, 12, 40); // body frame, rad/s
  Vec4 p0 = from_axis_angle(Vec3(1, 2, 3).normalized(), 0.7);
  const char* name() const override { return "tumbling body"; }
  Mat3 attitude(double t) const {
    const Mat3 a0 = rotation(p0);
    const Vec3 l = a0 * Vec3(j1 * w0(0), j1 * w0(1), j3 * w0(2));
    const double psi = w0(2) * (1 - j3 / j1) * t;
    return Eigen::AngleAxisd(l.norm() * t / j1, l.normalized()).toRotationMatrix() * a0 *
           Eigen::AngleAxisd(psi, Vec3::UnitZ()).toRotationMatrix();
  }
  System system() const override {
    System s;
    RigidBody b;
    b.name = "top";
    b.mass = 1.5;
    b.inertia = Vec3(j1, j1, j3).asDiagonal();
    b.position = Vec3(0.1, 0.2, 0.3);
    b.orientation = p0;
    b.angular_velocity = rotation(p0) * w0;
    s.add_body(b);
    return s;
  }
  /// Observed: the attitude error's rotation vector, stored after the state's time so that
  /// reference(t) below can be zero.
  RVec observe(const System& sys, const State& s, const RVec&) const override {
    const Mat3 e = attitude(s.t).transpose() * rotation(sys.euler(s.q, 0));
    const Eigen::AngleAxisd aa(e);
    return aa.angle() * aa.axis();
  }
  RVec reference(double) const override { return RVec::Zero(3); }
  RVec scale() const override { return RVec::Ones(3); }
};

// ---------------------------------------------------------------------------------------------
// A flexible case: the fast slider-crank with a flexible rod. The rod is a floating-frame body of
// point masses (ends m_e at ∓L/2, centre m_c, two m_w at (0, ±w) across it) whose one elastic mode
// stretches it: the ends move ∓u along the rod (φ = ∓e_x/√(2 m_e), K̄ = ω_e²), so the joints, attached
// at the ends, are L + 2u apart. Point masses make the floating frame exact, so the reference is
// Lagrange's equations in (θ, u) with the positions written out below (jets along a direction give
// the Jacobian's columns and the convective terms), strain energy K̄ m_e u².
struct FlexibleSliderCrank : Problem {
  double r = 0.2, l = 0.5, m1 = 0.5, m3 = 0.6, torque = 3.5, theta0 = 0.3;
  double me = 0.3, mc = 0.3, mw = 0.05, w = 0.02, kbar = std::pow(2 * M_PI * 120, 2), zeta = 0.05;
  const char* name() const override { return "flexible crank"; }
  /// Crank CoM, the rod's five particles and the slider (x, y) as jets along (dθ, du); crank angle.
  void kinematics(const RVec& y, const RVec& dir, Jet pos[7][2], Jet& th) const {
    th = Jet::along(y(0), dir(0));
    const Jet u = Jet::along(y(1), dir(1));
    const Jet len = Jet::constant(l) + 2.0 * u;
    const Jet phi = asin(Jet::constant(-r) * sin(th) / len);
    const Jet ax = r * cos(th), ay = r * sin(th), dx = cos(phi), dy = sin(phi);
    pos[0][0] = (0.5 * r) * cos(th);
    pos[0][1] = (0.5 * r) * sin(th);
    pos[1][0] = ax; // rod end at A
    pos[1][1] = ay;
    pos[2][0] = ax + len * dx; // rod end at B
    pos[2][1] = ay + len * dy;
    pos[3][0] = ax + 0.5 * len * dx; // rod centre
    pos[3][1] = ay + 0.5 * len * dy;
    pos[4][0] = pos[3][0] - w * dy;
    pos[4][1] = pos[3][1] + w * dx;
    pos[5][0] = pos[3][0] + w * dy;
    pos[5][1] = pos[3][1] - w * dx;
    pos[6][0] = pos[2][0]; // slider
    pos[6][1] = Jet::constant(0);
  }
  Ode ode() const override {
    Ode o;
    o.accel = [this](double, const RVec& y, const RVec& yd) {
      const double mass[7] = {m1, me, me, mc, mw, mw, m3};
      Jet pos[7][2], th;
      Eigen::Matrix2d mm = Eigen::Matrix2d::Zero();
      Eigen::Vector2d f(torque, -2 * me * (kbar * y(1) + 2 * zeta * std::sqrt(kbar) * yd(1)));
      Eigen::Matrix<double, 7, 2> jx, jy;
      for (int k = 0; k < 2; ++k) {
        kinematics(y, RVec::Unit(2, k), pos, th);
        for (int b = 0; b < 7; ++b) {
          jx(b, k) = pos[b][0].d1;
          jy(b, k) = pos[b][1].d1;
        }
        mm(0, k) += m1 * r * r / 12 * th.d1; // the crank turns with θ
      }
      kinematics(y, yd, pos, th); // d2: the convective accelerations
      for (int b = 0; b < 7; ++b) {
        const Eigen::Vector2d jxb = jx.row(b).transpose(), jyb = jy.row(b).transpose();
        mm += mass[b] * (jxb * jxb.transpose() + jyb * jyb.transpose());
        f -= mass[b] * (jxb * pos[b][0].d2 + jyb * (pos[b][1].d2 + kG));
      }
      return RVec(mm.lu().solve(f));
    };
    return o;
  }
  RVec y0() const override { return Eigen::Vector2d(theta0, 0); }
  RVec v0() const override { return RVec::Zero(2); }
  System system() const override {
    Jet pos[7][2], th;
    kinematics(y0(), RVec::Zero(2), pos, th);
    const double phi = std::asin(-r * std::sin(theta0) / l);
    System s;
    RigidBody crank;
    crank.name = "crank";
    crank.mass = m1;
    crank.inertia = Vec3(1e-4, m1 * r * r / 12, m1 * r * r / 12).asDiagonal();
    crank.position = Vec3(pos[0][0].v, pos[0][1].v, 0);
    crank.orientation = from_axis_angle(Vec3::UnitZ(), theta0);
    s.add_body(crank);
    Particles p;
    p.m = {me, me, mc, mw, mw};
    p.x = {Vec3(-l / 2, 0, 0), Vec3(l / 2, 0, 0), Vec3::Zero(), Vec3(0, w, 0), Vec3(0, -w, 0)};
    p.phi = Mat::Zero(15, 1);
    p.phi(0, 0) = -1 / std::sqrt(2 * me);
    p.phi(3, 0) = 1 / std::sqrt(2 * me);
    p.k = RVec::Constant(1, kbar);
    s.add_body(flexible_body("rod", p.data(1.0, zeta), Vec3(pos[3][0].v, pos[3][1].v, 0), from_axis_angle(Vec3::UnitZ(), phi)));
    add_slider_joints_loads(s, 0, 1, Vec3(pos[1][0].v, pos[1][1].v, 0), pos[6][0].v, m3, torque, "P0", "P1");
    return s;
  }
  RVec observe(const System& sys, const State& s, const RVec& near) const override {
    return Eigen::Vector2d(unwrap(theta0 + sys.joint_angle(s.q, 0), near(0)), sys.elastic(s.q, 1)(0) / std::sqrt(2 * me));
  }
  RVec scale() const override { return Eigen::Vector2d(1.0, l); }
};

struct Measured {
  double error = 0;      ///< largest error of the minimal coordinates at the end (scaled)
  double drift = 0;      ///< max ‖C(q)‖∞ over the run (every row)
  double vdrift = 0;     ///< ‖C_q q̇ + C_t‖∞ at the end
  double energy = 0;     ///< |T + V + U − W − E₀| at the end, relative to the kinetic energy there
  long steps = 0, rejected = 0;
  bool ok = true;
  std::string what;
};

Measured measure(const Problem& p, const SolverOptions& o) {
  System sys = p.system();
  Measured m;
  try {
    const auto r = simulate(sys, o);
    const State& s = r.states.back();
    const RVec ref = p.reference(s.t);
    m.error = distance(p, p.observe(sys, s, ref), ref);
    m.drift = r.stats.max_drift;
    m.vdrift = (sys.jacobian(s.q, s.t) * s.v + sys.phi_t(s.q, s.t)).lpNorm<Eigen::Infinity>();
    auto energy = [&](const State& st) { return sys.kinetic_energy(st.q, st.v) + sys.potential_energy(st.q) + sys.strain_energy(st.q); };
    m.energy = std::abs(energy(s) - r.work.back() - energy(r.states.front())) / sys.kinetic_energy(s.q, s.v);
    m.steps = r.stats.steps;
    m.rejected = r.stats.rejected;
  } catch (const std::exception& e) {
    m.ok = false;
    m.what = e.what();
  }
  return m;
}

bool verbose() { return std::getenv("FLEXUQ_ORDER_VERBOSE") != nullptr; }

/// Runs every scheme on @p p at @p steps to t = 1 and checks the order, the error at the finest
/// step against the same scheme on the minimal ODE, the drift and the energy balance.
void check_problem(const Problem& p, const std::vector<double>& steps, double min_order = 1.8) {
  for (const auto& c : kSchemes) {
    std::vector<double> err;
    for (double h : steps) {
      const Measured m = measure(p, c.options(h, 1.0));
      ASSERT_TRUE(m.ok) << p.name() << ", " << c.name << " at h = " << h << ": " << m.what;
      err.push_back(m.error);
      if (verbose())
        std::printf("%-18s %-18s h = %-8g error %.3e  drift %.1e  vdrift %.1e  energy %.1e  steps %ld rejected %ld\n",
                    p.name(), c.name, h, m.error, m.drift, m.vdrift, m.energy, m.steps, m.rejected);
      EXPECT_LT(m.drift, 1e-9) << p.name() << ", " << c.name << " h = " << h;
      EXPECT_EQ(m.rejected, 0) << p.name() << ", " << c.name << " h = " << h << ": Newton failed on a smooth problem";
      EXPECT_LT(m.vdrift, 1e-11) << p.name() << ", " << c.name << " h = " << h;
      // The energy balance T + V + U − W at the end, relative to T there (measured at h = 1e-4:
      // 2e-11 … 6.4e-6).
      if (h <= 1e-4) EXPECT_LT(m.energy, 5e-5) << p.name() << ", " << c.name << " h = " << h;
    }
    const double order = std::log(err.front() / err.back()) / std::log(steps.front() / steps.back());
    EXPECT_GE(order, min_order) << p.name() << ", " << c.name << ": errors " << err.front() << " … " << err.back();
    for (std::size_t i = 1; i < err.size(); ++i)
      EXPECT_GE(std::log(err[i - 1] / err[i]) / std::log(steps[i - 1] / steps[i]), 1.5)
          << p.name() << ", " << c.name << " between h = " << steps[i - 1] << " and " << steps[i];
    if (p.ode().accel) {
      double am, af, beta, gamma;
      c.parameters(am, af, beta, gamma);
      const RVec y = generalized_alpha(p.ode(), p.y0(), p.v0(), 0, 1, steps.back(), am, af, beta, gamma);
      const double minimal = distance(p, y, p.reference(1.0));
      if (verbose()) std::printf("%-18s %-18s minimal-coordinate error at h = %g: %.3e (order %.2f)\n", p.name(), c.name,
                                 steps.back(), minimal, order);
      EXPECT_LT(err.back(), 5 * minimal) << p.name() << ", " << c.name;
    }
  }
}

const std::vector<double> kSteps = {1e-3, 5e-4, 2.5e-4, 1e-4};

} // namespace

TEST(IntegratorOrder, ReferencesAreAccurate) {
  SliderCrankProblem sc;
  DoublePendulum dp;
  FlexibleSliderCrank flex;
  for (const Problem* p : std::initializer_list<const Problem*>{&sc, &dp, &flex}) {
    double acc = 0;
    RVec vend;
    const RVec y = reference(p->ode(), p->y0(), p->v0(), 0, 1, 100000, &acc, &vend);
    EXPECT_LT(acc, 1e-10) << p->name(); // the smallest error measured below is 3e-7
    if (verbose()) std::printf("%-18s reference y(1) = %.12g, speed %.4g, RK4 accuracy %.2e\n", p->name(), y(0), vend(0), acc);
  }
  RVec vend;
  reference(sc.ode(), sc.y0(), sc.v0(), 0, 1, 100000, nullptr, &vend);
  EXPECT_GT(vend(0), 50.0) << "the slider-crank must spin above 50 rad/s";
}

TEST(IntegratorOrder, FastSliderCrank) { check_problem(SliderCrankProblem(), kSteps); }
TEST(IntegratorOrder, TumblingBody) { check_problem(TumblingBody(), kSteps); }
TEST(IntegratorOrder, DoublePendulum) { check_problem(DoublePendulum(), kSteps); }
TEST(IntegratorOrder, FlexibleSliderCrank) { check_problem(FlexibleSliderCrank(), kSteps); }

// Adaptive hht / generalized-α / newmark (solver.adaptive) meet rtol: the global error of the
// minimal coordinates at t = 1 within 10× of rtol on every problem.
TEST(IntegratorOrder, AdaptiveStepsMeetTheTolerance) {
  SliderCrankProblem sc;
  TumblingBody tb;
  DoublePendulum dp;
  FlexibleSliderCrank fc;
  for (const Problem* p : std::initializer_list<const Problem*>{&sc, &tb, &dp, &fc})
    for (const auto& c : kSchemes)
      for (double rtol : {1e-3, 1e-4}) {
        SolverOptions o = c.options(1e-3, 1.0);
        o.adaptive = true;
        o.rtol = rtol;
        o.atol = rtol * 1e-2;
        o.max_step = 1e-2;
        o.tol = 1e-12;
        const Measured m = measure(*p, o);
        ASSERT_TRUE(m.ok) << p->name() << ", " << c.name << ": " << m.what;
        if (verbose())
          std::printf("%-18s %-18s adaptive rtol %g: error %.3e (%.2f rtol), %ld steps, %ld rejected\n", p->name(), c.name,
                      rtol, m.error, m.error / rtol, m.steps, m.rejected);
        EXPECT_LT(m.error, 10 * rtol) << p->name() << ", " << c.name << " rtol " << rtol;
        EXPECT_LT(m.drift, 1e-9) << p->name() << ", " << c.name;
      }
}

// The full table for docs/performance.md (bench/integrator_order.sh runs it with
// --gtest_also_run_disabled_tests): every problem and scheme from h = 1e-3 to 2.5e-5, the factor by
// which the error falls per halving of h, both formulations (index-3: C = 0 only).
TEST(IntegratorOrder, DISABLED_Table) {
  SliderCrankProblem sc;
  TumblingBody tb;
  DoublePendulum dp;
  FlexibleSliderCrank fc;
  const std::vector<double> steps = {1e-3, 5e-4, 2.5e-4, 1e-4, 5e-5, 2.5e-5};
  for (int formulation : {0, 1, 2})
    for (const Problem* p : std::initializer_list<const Problem*>{&sc, &tb, &dp, &fc})
      for (const auto& c : kSchemes) {
        const bool stabilized = formulation == 0;
        std::printf("| %s | %s | %s |", p->name(), c.name, stabilized ? "stabilized" : formulation == 1 ? "index-3" : "index-3 + projected q̇");
        double prev = 0, prev_h = 0;
        for (double h : steps) {
          SolverOptions o = c.options(h, 1.0);
          o.stabilized = stabilized;
          o.project_velocities = formulation == 2;
          const Measured m = measure(*p, o);
          if (!m.ok) {
            std::printf(" fails |");
            break;
          }
          if (prev > 0) std::printf(" %.2e (%.2f×/halving) |", m.error, std::pow(prev / m.error, std::log(2.0) / std::log(prev_h / h)));
          else std::printf(" %.2e |", m.error);
          prev = m.error;
          prev_h = h;
        }
        if (p->ode().accel) {
          double am, af, beta, gamma;
          c.parameters(am, af, beta, gamma);
          std::printf(" minimal at 1e-4: %.2e |", distance(*p, generalized_alpha(p->ode(), p->y0(), p->v0(), 0, 1, 1e-4, am, af, beta, gamma), p->reference(1.0)));
        }
        std::printf("\n");
        std::fflush(stdout);
      }
}
