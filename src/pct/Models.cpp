// SPDX-License-Identifier: MIT
#include "flexuq/pct/Models.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>
#include <sstream>

namespace flexuq::pct {

double smooth_step(double t, double t1, double x1, double t2, double x2) {
  if (t <= t1) return x1;
  if (t >= t2) return x2;
  const double d = (t - t1) / (t2 - t1);
  return x1 + (x2 - x1) * d * d * (3.0 - 2.0 * d);
}

// ---- mass–spring–damper ----

std::string MassSpringDamper::data_name(int j) const {
  static const char* names[] = {"mass", "damping", "gravity", "stiffness"};
  return names[j];
}

HyperDual MassSpringDamper::kinetic_energy(const HyperDual* /*q*/, const HyperDual* v, const double* p) const {
  return 0.5 * p[mass] * (v[0] * v[0] + v[1] * v[1]);
}

HyperDual MassSpringDamper::potential_energy(const HyperDual* q, const double* p) const {
  return p[mass] * p[gravity] * q[1] + 0.5 * p[stiffness] * q[1] * q[1];
}

HyperDual MassSpringDamper::virtual_work(const HyperDual* /*q*/, const HyperDual* v, const HyperDual* dq,
                                         double /*t*/, const double* p) const {
  return -p[damping] * v[1] * dq[1];
}

void MassSpringDamper::constraints(const HyperDual* q, const double* /*p*/, HyperDual* phi) const { phi[0] = q[0]; }

// ---- planar mechanism ----

namespace {
// A(e) s for planar Euler parameters (seed 004 Eq. 3.14).
void rotate(const HyperDual& e0, const HyperDual& e3, const HyperDual& sx, const HyperDual& sy, HyperDual& ox,
            HyperDual& oy) {
  const HyperDual c = 2.0 * e0 * e0 - 1.0, s = 2.0 * e0 * e3;
  ox = c * sx - s * sy;
  oy = s * sx + c * sy;
}
// Position of body point s (ground: s itself) and its rate along a coordinate rate r (q̇ or δq):
// δ(A s) = [[4e0δe0, −2(δe0e3 + e0δe3)], [2(δe0e3 + e0δe3), 4e0δe0]] s.
void body_point(const HyperDual* q, int b, double sx, double sy, HyperDual& x, HyperDual& y) {
  if (b < 0) {
    x = sx;
    y = sy;
    return;
  }
  const HyperDual* qb = q + 4 * b;
  rotate(qb[2], qb[3], sx, sy, x, y);
  x += qb[0];
  y += qb[1];
}
void point_rate(const HyperDual* q, const HyperDual* r, int b, double sx, double sy, HyperDual& x, HyperDual& y) {
  if (b < 0) {
    x = 0.0;
    y = 0.0;
    return;
  }
  const HyperDual *qb = q + 4 * b, *rb = r + 4 * b;
  const HyperDual dc = 4.0 * qb[2] * rb[2], ds = 2.0 * (rb[2] * qb[3] + qb[2] * rb[3]);
  x = rb[0] + dc * sx - ds * sy;
  y = rb[1] + ds * sx + dc * sy;
}
} // namespace

void PlanarMechanism::add_spring(const PlanarSpring& s) {
  const int nb = static_cast<int>(bodies_.size());
  if (s.body_i < -1 || s.body_i >= nb || s.body_j < -1 || s.body_j >= nb || s.body_i == s.body_j)
    throw InputError("pct: spring '" + s.name + "' joins unknown bodies or a body to itself");
  if (!(s.stiffness >= 0) || !(s.damping >= 0) || !(s.length >= 0))
    throw InputError("pct: spring '" + s.name + "' needs stiffness, damping and length >= 0");
  springs_.push_back(s);
}

int PlanarMechanism::spring_index(const std::string& name) const {
  for (std::size_t s = 0; s < springs_.size(); ++s)
    if (springs_[s].name == name) return static_cast<int>(s);
  throw InputError("pct: unknown spring '" + name + "'");
}

std::vector<std::string> PlanarMechanism::non_polynomial_terms() const {
  std::vector<std::string> out;
  for (const PlanarSpring& s : springs_)
    if (s.length != 0.0) {
      std::ostringstream os;
      os << "spring '" << s.name << "' (free length " << s.length << ": its length sqrt(d.d))";
      out.push_back(os.str());
    }
  return out;
}

int PlanarMechanism::add_body(const PlanarBody& b) {
  if (b.name.empty() || b.name == "ground") throw InputError("pct: a planar body needs a name other than 'ground'");
  for (const PlanarBody& o : bodies_)
    if (o.name == b.name) throw InputError("pct: body '" + b.name + "' is defined twice");
  bodies_.push_back(b);
  return static_cast<int>(bodies_.size()) - 1;
}

void PlanarMechanism::add_joint(const PlanarJoint& j) {
  const int nb = static_cast<int>(bodies_.size());
  if (j.body_i < -1 || j.body_i >= nb || j.body_j < -1 || j.body_j >= nb || j.body_i == j.body_j)
    throw InputError("pct: joint '" + j.name + "' joins unknown bodies or a body to itself");
  if (j.type == PlanarJoint::Type::slot && (j.body_i != -1 || std::hypot(j.axis[0], j.axis[1]) == 0.0))
    throw InputError("pct: slot '" + j.name + "' needs the ground as body i and a non-zero axis");
  joints_.push_back(j);
}

int PlanarMechanism::body_index(const std::string& name) const {
  if (name == "ground") return -1;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (bodies_[b].name == name) return static_cast<int>(b);
  throw InputError("pct: unknown body '" + name + "'");
}

int PlanarMechanism::joint_index(const std::string& name) const {
  for (std::size_t j = 0; j < joints_.size(); ++j)
    if (joints_[j].name == name) return static_cast<int>(j);
  throw InputError("pct: unknown joint '" + name + "'");
}

int PlanarMechanism::constraint_rows() const {
  int m = static_cast<int>(bodies_.size());
  for (const PlanarJoint& j : joints_) m += j.type == PlanarJoint::Type::revolute ? 2 : 1;
  return m;
}

std::string PlanarMechanism::coordinate_name(int k) const {
  static const char* c[] = {"x", "y", "e0", "e3"};
  return bodies_[static_cast<std::size_t>(k / 4)].name + "." + c[k % 4];
}

std::vector<double> PlanarMechanism::nominal_data() const {
  std::vector<double> d;
  for (const PlanarBody& b : bodies_) d.insert(d.end(), {b.mass, b.inertia});
  for (const PlanarJoint& j : joints_) d.insert(d.end(), {j.si[0], j.si[1], j.sj[0], j.sj[1]});
  for (const PlanarSpring& s : springs_) d.insert(d.end(), {s.stiffness, s.damping});
  return d;
}

std::string PlanarMechanism::data_name(int j) const {
  const int nb = static_cast<int>(bodies_.size());
  if (j < 2 * nb) return bodies_[static_cast<std::size_t>(j / 2)].name + (j % 2 ? ".inertia" : ".mass");
  static const char* w[] = {".point_i.x", ".point_i.y", ".point_j.x", ".point_j.y"};
  const int nj = static_cast<int>(joints_.size());
  if (j < 2 * nb + 4 * nj) return joints_[static_cast<std::size_t>((j - 2 * nb) / 4)].name + w[(j - 2 * nb) % 4];
  const int s = j - 2 * nb - 4 * nj;
  return springs_[static_cast<std::size_t>(s / 2)].name + (s % 2 ? ".damping" : ".stiffness");
}

HyperDual PlanarMechanism::kinetic_energy(const HyperDual* q, const HyperDual* v, const double* p) const {
  HyperDual t;
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const HyperDual* qb = q + 4 * b;
    const HyperDual* vb = v + 4 * b;
    const HyperDual w = qb[2] * vb[3] - qb[3] * vb[2]; // ω/2
    t += 0.5 * p[2 * b] * (vb[0] * vb[0] + vb[1] * vb[1]) + 2.0 * p[2 * b + 1] * w * w;
  }
  return t;
}

HyperDual PlanarMechanism::potential_energy(const HyperDual* q, const double* p) const {
  HyperDual e;
  for (std::size_t b = 0; b < bodies_.size(); ++b) e -= p[2 * b] * (g_[0] * q[4 * b] + g_[1] * q[4 * b + 1]);
  for (std::size_t k = 0; k < springs_.size(); ++k) {
    const PlanarSpring& s = springs_[k];
    HyperDual xi, yi, xj, yj;
    body_point(q, s.body_i, s.si[0], s.si[1], xi, yi);
    body_point(q, s.body_j, s.sj[0], s.sj[1], xj, yj);
    const HyperDual dd = (xj - xi) * (xj - xi) + (yj - yi) * (yj - yi);
    const double kk = p[spring_data(static_cast<int>(k), 0)];
    e += s.length == 0.0 ? 0.5 * kk * dd : 0.5 * kk * square(sqrt(dd) - s.length);
  }
  return e;
}

HyperDual PlanarMechanism::virtual_work(const HyperDual* q, const HyperDual* v, const HyperDual* dq, double t,
                                        const double* p) const {
  HyperDual w;
  for (std::size_t k = 0; k < springs_.size(); ++k) {
    const PlanarSpring& s = springs_[k];
    const double c = p[spring_data(static_cast<int>(k), 1)];
    if (c == 0.0) continue;
    HyperDual vix, viy, vjx, vjy, dix, diy, djx, djy;
    point_rate(q, v, s.body_i, s.si[0], s.si[1], vix, viy);
    point_rate(q, v, s.body_j, s.sj[0], s.sj[1], vjx, vjy);
    point_rate(q, dq, s.body_i, s.si[0], s.si[1], dix, diy);
    point_rate(q, dq, s.body_j, s.sj[0], s.sj[1], djx, djy);
    w -= c * ((vjx - vix) * (djx - dix) + (vjy - viy) * (djy - diy));
  }
  for (const PlanarTorque& tq : torques_) {
    const int o = 4 * tq.body;
    w += (2.0 * tq.value(t)) * (q[o + 2] * dq[o + 3] - q[o + 3] * dq[o + 2]);
  }
  return w;
}

void PlanarMechanism::constraints(const HyperDual* q, const double* p, HyperDual* phi) const {
  const int nb = static_cast<int>(bodies_.size());
  int r = 0;
  auto point = [&](int b, double sx, double sy, HyperDual& x, HyperDual& y) { body_point(q, b, sx, sy, x, y); };
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const PlanarJoint& jt = joints_[j];
    const double* s = p + 2 * nb + 4 * static_cast<int>(j);
    HyperDual xi, yi, xj, yj;
    point(jt.body_i, s[0], s[1], xi, yi);
    point(jt.body_j, s[2], s[3], xj, yj);
    if (jt.type == PlanarJoint::Type::revolute) {
      phi[r++] = xi - xj;
      phi[r++] = yi - yj;
    } else {
      const double len = std::hypot(jt.axis[0], jt.axis[1]);
      phi[r++] = (-jt.axis[1] / len) * (xj - xi) + (jt.axis[0] / len) * (yj - yi);
    }
  }
  for (int b = 0; b < nb; ++b) phi[r++] = q[4 * b + 2] * q[4 * b + 2] + q[4 * b + 3] * q[4 * b + 3] - 1.0;
}

std::vector<double> PlanarMechanism::initial_positions() const {
  std::vector<double> q;
  for (const PlanarBody& b : bodies_) q.insert(q.end(), {b.x, b.y, std::cos(0.5 * b.angle), std::sin(0.5 * b.angle)});
  return q;
}

std::vector<double> PlanarMechanism::initial_velocities() const {
  std::vector<double> v;
  for (const PlanarBody& b : bodies_) {
    const double h = 0.5 * b.angle, w = 0.5 * b.angular_velocity;
    v.insert(v.end(), {0.0, 0.0, -std::sin(h) * w, std::cos(h) * w});
  }
  return v;
}

std::vector<int> PlanarMechanism::specified_positions() const {
  std::vector<int> out;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (bodies_[b].specified) out.insert(out.end(), {static_cast<int>(4 * b + 2), static_cast<int>(4 * b + 3)});
  return out;
}

std::vector<std::string> PlanarMechanism::output_names() const {
  std::vector<std::string> out;
  for (const PlanarBody& b : bodies_) out.insert(out.end(), {b.name + ".x", b.name + ".y", b.name + ".angle"});
  for (const PlanarJoint& j : joints_) out.insert(out.end(), {j.name + ".x", j.name + ".y"});
  return out;
}

std::vector<double> PlanarMechanism::outputs(const double* q, const double* p) const {
  std::vector<double> out;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    out.insert(out.end(), {q[4 * b], q[4 * b + 1], 2.0 * std::atan2(q[4 * b + 3], q[4 * b + 2])});
  const int nb = static_cast<int>(bodies_.size());
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const PlanarJoint& jt = joints_[j];
    const bool on_j = jt.body_j >= 0;
    const int b = on_j ? jt.body_j : jt.body_i;
    const double* s = p + 2 * nb + 4 * static_cast<int>(j) + (on_j ? 2 : 0);
    const double* qb = q + 4 * b;
    const double c = 2.0 * qb[2] * qb[2] - 1.0, sn = 2.0 * qb[2] * qb[3];
    out.insert(out.end(), {qb[0] + c * s[0] - sn * s[1], qb[1] + sn * s[0] + c * s[1]});
  }
  return out;
}

PlanarMechanism seed004_slider_crank(double window) {
  const double l1 = 1.0, l2 = 1.5, th1 = std::atan(1.0), th2 = -std::asin(l1 / l2 * std::sin(th1));
  PlanarMechanism m;
  PlanarBody crank{"crank", 2.0, 2.0 * l1 * l1 / 3.0, l1 * std::cos(th1), l1 * std::sin(th1), th1, true, 0.0};
  PlanarBody rod{"rod", 3.0, 3.0 * l2 * l2 / 3.0, 2 * l1 * std::cos(th1) + l2 * std::cos(th2),
                 2 * l1 * std::sin(th1) + l2 * std::sin(th2), th2, false, 0.0};
  const int c = m.add_body(crank), r = m.add_body(rod);
  m.add_joint({"A", PlanarJoint::Type::revolute, c, -1, {-l1, 0}, {0, 0}, {1, 0}});
  m.add_joint({"B", PlanarJoint::Type::revolute, r, c, {-l2, 0}, {l1, 0}, {1, 0}});
  m.add_joint({"C", PlanarJoint::Type::slot, -1, r, {0, 0}, {l2, 0}, {1, 0}});
  m.add_torque({c, [window](double t) {
                  return t < 1.5 ? smooth_step(t, 1.0 - window, 1.0, 1.0 + window, -1.0)
                                 : smooth_step(t, 2.0 - window, -1.0, 2.0 + window, 0.0);
                }});
  return m;
}

std::vector<UncertainInput> seed004_link_lengths(const PlanarMechanism& crank, double sigma1, double sigma2) {
  const int a = crank.joint_index("A"), b = crank.joint_index("B"), c = crank.joint_index("C");
  return {{"crank.length", uq::Distribution::normal(1.0, sigma1), {{crank.joint_data(a, 0), -1.0}, {crank.joint_data(b, 2), 1.0}}},
          {"rod.length", uq::Distribution::normal(1.5, sigma2), {{crank.joint_data(b, 0), -1.0}, {crank.joint_data(c, 2), 1.0}}}};
}

} // namespace flexuq::pct
