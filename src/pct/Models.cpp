// SPDX-License-Identifier: MIT
#include "flexuq/pct/Models.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace flexuq::pct {

double smooth_step(double t, double t1, double x1, double t2, double x2) {
  if (t <= t1) return x1;
  if (t >= t2) return x2;
  const double d = (t - t1) / (t2 - t1);
  return x1 + (x2 - x1) * d * d * (3.0 - 2.0 * d);
}

double smooth_step(double t, double t1, double x1, double t2, double x2, int derivative) {
  if (derivative == 0) return smooth_step(t, t1, x1, t2, x2);
  if (t <= t1 || t >= t2) return 0.0;
  const double w = t2 - t1, d = (t - t1) / w;
  return derivative == 1 ? (x2 - x1) * 6.0 * d * (1.0 - d) / w : (x2 - x1) * 6.0 * (1.0 - 2.0 * d) / (w * w);
}

double StepSchedule::operator()(double t, int derivative) const {
  double v = start;
  for (const auto& s : steps) {
    if (t <= s[0]) return derivative == 0 ? v : 0.0;
    if (t < s[1]) return smooth_step(t, s[0], v, s[1], s[2], derivative);
    v = s[2];
  }
  return derivative == 0 ? v : 0.0;
}

// ---- mass–spring–damper ----

std::string MassSpringDamper::data_name(int j) const {
  static const char* names[] = {"mass", "damping", "gravity", "stiffness", "initial_y", "initial_velocity"};
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

namespace {
const char* joint_type_name(PlanarJoint::Type t) {
  switch (t) {
  case PlanarJoint::Type::revolute: return "revolute";
  case PlanarJoint::Type::slot: return "slot";
  case PlanarJoint::Type::fixed: return "fixed";
  case PlanarJoint::Type::prismatic: return "prismatic";
  case PlanarJoint::Type::distance: return "distance";
  }
  return "?";
}
int joint_rows(PlanarJoint::Type t) {
  switch (t) {
  case PlanarJoint::Type::revolute: return 2;
  case PlanarJoint::Type::fixed: return 3;
  case PlanarJoint::Type::prismatic: return 2;
  default: return 1;
  }
}
// sin((θ_j − θ_i − θ0)/2) from the half-angle quaternions (ground: e = (1, 0)).
HyperDual relative_rotation(const HyperDual* q, int bi, int bj, double theta0) {
  const HyperDual e0i = bi < 0 ? HyperDual(1.0) : q[4 * bi + 2], e3i = bi < 0 ? HyperDual(0.0) : q[4 * bi + 3];
  const HyperDual e0j = bj < 0 ? HyperDual(1.0) : q[4 * bj + 2], e3j = bj < 0 ? HyperDual(0.0) : q[4 * bj + 3];
  return std::cos(0.5 * theta0) * (e0i * e3j - e3i * e0j) - std::sin(0.5 * theta0) * (e0i * e0j + e3i * e3j);
}
} // namespace

std::array<double, 2> PlanarMechanism::initial_point(int b, const std::array<double, 2>& s) const {
  if (b < 0) return s;
  const PlanarBody& pb = bodies_[static_cast<std::size_t>(b)];
  const double c = std::cos(pb.angle), sn = std::sin(pb.angle);
  return {pb.x + c * s[0] - sn * s[1], pb.y + sn * s[0] + c * s[1]};
}

std::array<double, 2> PlanarMechanism::body_frame_point(int b, const std::array<double, 2>& x) const {
  if (b < 0) return x;
  const PlanarBody& pb = bodies_[static_cast<std::size_t>(b)];
  const double c = std::cos(pb.angle), sn = std::sin(pb.angle), dx = x[0] - pb.x, dy = x[1] - pb.y;
  return {c * dx + sn * dy, -sn * dx + c * dy};
}

void PlanarMechanism::add_spring(const PlanarSpring& s) {
  const int nb = static_cast<int>(bodies_.size());
  if (s.body_i < -1 || s.body_i >= nb || s.body_j < -1 || s.body_j >= nb || s.body_i == s.body_j)
    throw InputError("pct: spring '" + s.name + "' joins unknown bodies or a body to itself");
  if (!(s.stiffness >= 0) || !(s.damping >= 0) || !(s.length >= 0))
    throw InputError("pct: spring '" + s.name + "' needs stiffness, damping and length >= 0");
  springs_.push_back(s);
}

void PlanarMechanism::add_contact(const PlanarContact& c) {
  if (c.body < 0 || c.body >= static_cast<int>(bodies_.size()))
    throw InputError("pct: contact '" + c.name + "' needs a body (not the ground)");
  const double nn = std::hypot(c.normal[0], c.normal[1]);
  if (!(nn > 0)) throw InputError("pct: contact '" + c.name + "' needs a non-zero normal");
  if (!(c.stiffness > 0) || !(c.damping >= 0) || !(c.radius >= 0))
    throw InputError("pct: contact '" + c.name + "' needs stiffness > 0, damping >= 0 and radius >= 0");
  for (const PlanarContact& o : contacts_)
    if (o.name == c.name) throw InputError("pct: contact '" + c.name + "' is defined twice");
  PlanarContact k = c;
  k.normal = {c.normal[0] / nn, c.normal[1] / nn};
  contacts_.push_back(k);
}

int PlanarMechanism::spring_index(const std::string& name) const {
  for (std::size_t s = 0; s < springs_.size(); ++s)
    if (springs_[s].name == name) return static_cast<int>(s);
  throw InputError("pct: unknown spring '" + name + "'");
}

int PlanarMechanism::contact_index(const std::string& name) const {
  for (std::size_t c = 0; c < contacts_.size(); ++c)
    if (contacts_[c].name == name) return static_cast<int>(c);
  throw InputError("pct: unknown contact '" + name + "'");
}

std::vector<std::string> PlanarMechanism::non_polynomial_terms() const {
  std::vector<std::string> out;
  for (const PlanarSpring& s : springs_)
    if (s.length != 0.0) {
      std::ostringstream os;
      os << "spring '" << s.name << "' (free length " << s.length << ": its length sqrt(d.d))";
      out.push_back(os.str());
    }
  for (const PlanarContact& c : contacts_)
    out.push_back("contact '" + c.name + "' (a one-sided force: k max(0, -gap), not smooth)");
  return out;
}

ModelDegrees PlanarMechanism::degrees() const {
  ModelDegrees d = springs_.empty() ? ModelDegrees{{4, 1}, {1, 1}, {2, 0}, {2, 1}} : ModelDegrees{{4, 1}, {4, 1}, {4, 1}, {2, 1}};
  for (const PlanarJoint& j : joints_) {
    if (j.type == PlanarJoint::Type::prismatic) d.constraints = {4, std::max(d.constraints.data, 1)};
    if (j.type == PlanarJoint::Type::distance) d.constraints = {4, 2};
  }
  if (!contacts_.empty()) { // the smooth part (a gap squared); the switch itself is non-polynomial
    d.potential = {std::max(d.potential.states, 4), std::max(d.potential.data, 3)};
    d.virtual_work = {std::max(d.virtual_work.states, 4), std::max(d.virtual_work.data, 1)};
  }
  return d;
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
  const std::string what = std::string("pct: ") + joint_type_name(j.type) + " joint '" + j.name + "'";
  if (j.body_i < -1 || j.body_i >= nb || j.body_j < -1 || j.body_j >= nb || j.body_i == j.body_j)
    throw InputError(what + " joins unknown bodies or a body to itself");
  if ((j.type == PlanarJoint::Type::slot || j.type == PlanarJoint::Type::prismatic) &&
      std::hypot(j.axis[0], j.axis[1]) == 0.0)
    throw InputError(what + " needs a non-zero axis");
  if (j.type == PlanarJoint::Type::slot && j.body_i != -1)
    throw InputError(what + " needs the ground as body i (a line between two bodies is a prismatic joint)");
  if (j.type != PlanarJoint::Type::slot && (j.motion.start != 0.0 || !j.motion.steps.empty()))
    throw InputError(what + ": only a slot takes a motion (a driver)");
  PlanarJoint k = j;
  const double ai = j.body_i < 0 ? 0.0 : bodies_[static_cast<std::size_t>(j.body_i)].angle;
  const double aj = j.body_j < 0 ? 0.0 : bodies_[static_cast<std::size_t>(j.body_j)].angle;
  k.angle = aj - ai;
  if (j.type == PlanarJoint::Type::distance) {
    if (!(j.length > 0)) {
      const auto pi = initial_point(j.body_i, j.si), pj = initial_point(j.body_j, j.sj);
      k.length = std::hypot(pj[0] - pi[0], pj[1] - pi[1]);
    }
    if (!(k.length > 0)) throw InputError(what + " needs a positive length (its points coincide at the initial pose)");
  }
  joints_.push_back(k);
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
  for (const PlanarJoint& j : joints_) m += joint_rows(j.type);
  return m;
}

std::string PlanarMechanism::coordinate_name(int k) const {
  static const char* c[] = {"x", "y", "e0", "e3"};
  return bodies_[static_cast<std::size_t>(k / 4)].name + "." + c[k % 4];
}

std::vector<double> PlanarMechanism::nominal_data() const {
  std::vector<double> d;
  for (const PlanarBody& b : bodies_) d.insert(d.end(), {b.mass, b.inertia});
  for (const PlanarJoint& j : joints_) d.insert(d.end(), {j.si[0], j.si[1], j.sj[0], j.sj[1], j.length});
  for (const PlanarSpring& s : springs_) d.insert(d.end(), {s.stiffness, s.damping});
  for (const PlanarContact& c : contacts_) d.insert(d.end(), {c.stiffness, c.radius, c.damping});
  for (const PlanarBody& b : bodies_) d.insert(d.end(), {b.x, b.y, b.vx, b.vy});
  return d;
}

std::string PlanarMechanism::data_name(int j) const {
  const int nb = static_cast<int>(bodies_.size()), nj = static_cast<int>(joints_.size());
  const int ns = static_cast<int>(springs_.size()), nc = static_cast<int>(contacts_.size());
  if (j < 2 * nb) return bodies_[static_cast<std::size_t>(j / 2)].name + (j % 2 ? ".inertia" : ".mass");
  static const char* w[] = {".point_i.x", ".point_i.y", ".point_j.x", ".point_j.y", ".length"};
  j -= 2 * nb;
  if (j < 5 * nj) return joints_[static_cast<std::size_t>(j / 5)].name + w[j % 5];
  j -= 5 * nj;
  if (j < 2 * ns) return springs_[static_cast<std::size_t>(j / 2)].name + (j % 2 ? ".damping" : ".stiffness");
  j -= 2 * ns;
  static const char* c[] = {".stiffness", ".radius", ".damping"};
  if (j < 3 * nc) return contacts_[static_cast<std::size_t>(j / 3)].name + c[j % 3];
  j -= 3 * nc;
  static const char* i[] = {".initial_x", ".initial_y", ".initial_vx", ".initial_vy"};
  return bodies_[static_cast<std::size_t>(j / 4)].name + i[j % 4];
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
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const PlanarContact& c = contacts_[k];
    const double* cd = p + contact_data(static_cast<int>(k), 0);
    HyperDual x, y;
    body_point(q, c.body, c.point[0], c.point[1], x, y);
    const HyperDual gap = c.normal[0] * (x - c.origin[0]) + c.normal[1] * (y - c.origin[1]) - cd[1];
    if (gap.v < 0.0) e += 0.5 * cd[0] * gap * gap;
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
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const PlanarContact& c = contacts_[k];
    const double* cd = p + contact_data(static_cast<int>(k), 0);
    if (cd[2] == 0.0) continue;
    HyperDual x, y, vx, vy, dx, dy;
    body_point(q, c.body, c.point[0], c.point[1], x, y);
    if ((c.normal[0] * (x.v - c.origin[0]) + c.normal[1] * (y.v - c.origin[1]) - cd[1]) >= 0.0) continue;
    point_rate(q, v, c.body, c.point[0], c.point[1], vx, vy);
    point_rate(q, dq, c.body, c.point[0], c.point[1], dx, dy);
    w -= cd[2] * (c.normal[0] * vx + c.normal[1] * vy) * (c.normal[0] * dx + c.normal[1] * dy);
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
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const PlanarJoint& jt = joints_[j];
    const double* s = p + joint_data(static_cast<int>(j), 0);
    HyperDual xi, yi, xj, yj;
    body_point(q, jt.body_i, s[0], s[1], xi, yi);
    body_point(q, jt.body_j, s[2], s[3], xj, yj);
    const double len = std::hypot(jt.axis[0], jt.axis[1]);
    switch (jt.type) {
    case PlanarJoint::Type::revolute:
      phi[r++] = xi - xj;
      phi[r++] = yi - yj;
      break;
    case PlanarJoint::Type::fixed:
      phi[r++] = xi - xj;
      phi[r++] = yi - yj;
      phi[r++] = relative_rotation(q, jt.body_i, jt.body_j, jt.angle);
      break;
    case PlanarJoint::Type::slot:
      phi[r++] = (-jt.axis[1] / len) * (xj - xi) + (jt.axis[0] / len) * (yj - yi);
      break;
    case PlanarJoint::Type::prismatic: {
      HyperDual nx = -jt.axis[1] / len, ny = jt.axis[0] / len; // R(π/2) axis, then A_i
      if (jt.body_i >= 0) {
        const HyperDual ax = nx, ay = ny;
        rotate(q[4 * jt.body_i + 2], q[4 * jt.body_i + 3], ax, ay, nx, ny);
      }
      phi[r++] = nx * (xj - xi) + ny * (yj - yi);
      phi[r++] = relative_rotation(q, jt.body_i, jt.body_j, jt.angle);
      break;
    }
    case PlanarJoint::Type::distance:
      phi[r++] = (xj - xi) * (xj - xi) + (yj - yi) * (yj - yi) - s[4] * s[4];
      break;
    }
  }
  for (int b = 0; b < nb; ++b) phi[r++] = q[4 * b + 2] * q[4 * b + 2] + q[4 * b + 3] * q[4 * b + 3] - 1.0;
}

// ---- closed forms (the fast path of lagrange_analytic / constraints_analytic) ----

namespace {
// Body point p = r + A(e) s (ground: s) and its Jacobian with respect to the body's [x, y, e0, e3]:
// ∂p/∂e0 = [4e0 sx − 2e3 sy, 2e3 sx + 4e0 sy], ∂p/∂e3 = [−2e0 sy, 2e0 sx].
struct PointJac {
  double x = 0, y = 0;
  double jx[4] = {0, 0, 0, 0}, jy[4] = {0, 0, 0, 0};
};
PointJac point_jac(const double* q, int b, double sx, double sy) {
  PointJac o;
  if (b < 0) {
    o.x = sx;
    o.y = sy;
    return o;
  }
  const double* qb = q + 4 * b;
  const double e0 = qb[2], e3 = qb[3], c = 2.0 * e0 * e0 - 1.0, s = 2.0 * e0 * e3;
  o.x = qb[0] + c * sx - s * sy;
  o.y = qb[1] + s * sx + c * sy;
  o.jx[0] = 1.0;
  o.jx[2] = 4.0 * e0 * sx - 2.0 * e3 * sy;
  o.jx[3] = -2.0 * e0 * sy;
  o.jy[1] = 1.0;
  o.jy[2] = 2.0 * e3 * sx + 4.0 * e0 * sy;
  o.jy[3] = 2.0 * e0 * sx;
  return o;
}
// The rate J q̇_b of a body point along the body's coordinate rates.
void point_velocity(const PointJac& J, const double* v, int b, double& vx, double& vy) {
  vx = vy = 0.0;
  if (b < 0) return;
  for (int c = 0; c < 4; ++c) {
    vx += J.jx[c] * v[4 * b + c];
    vy += J.jy[c] * v[4 * b + c];
  }
}
// out_b += sign (Jᵀ F) for a force F = (fx, fy) at a body point (generalized force of body b).
void add_point_force(const PointJac& J, int b, double fx, double fy, double sign, double* out) {
  if (b < 0) return;
  for (int c = 0; c < 4; ++c) out[4 * b + c] += sign * (J.jx[c] * fx + J.jy[c] * fy);
}
// Row r of the column-major m × n Jacobian gains sign (wx ∂p_x/∂q_b + wy ∂p_y/∂q_b).
void add_point_row(const PointJac& J, int b, double wx, double wy, double sign, int m, int r, double* jac) {
  if (b < 0 || !jac) return;
  for (int c = 0; c < 4; ++c) jac[(4 * b + c) * m + r] += sign * (wx * J.jx[c] + wy * J.jy[c]);
}
// relative_rotation's value and its gradient on the quaternions of bodies i and j.
double relative_rotation_row(const double* q, int bi, int bj, double theta0, int m, int r, double* jac) {
  const double e0i = bi < 0 ? 1.0 : q[4 * bi + 2], e3i = bi < 0 ? 0.0 : q[4 * bi + 3];
  const double e0j = bj < 0 ? 1.0 : q[4 * bj + 2], e3j = bj < 0 ? 0.0 : q[4 * bj + 3];
  const double c = std::cos(0.5 * theta0), s = std::sin(0.5 * theta0);
  if (jac) {
    if (bi >= 0) {
      jac[(4 * bi + 2) * m + r] += c * e3j - s * e0j;
      jac[(4 * bi + 3) * m + r] += -c * e0j - s * e3j;
    }
    if (bj >= 0) {
      jac[(4 * bj + 2) * m + r] += -c * e3i - s * e0i;
      jac[(4 * bj + 3) * m + r] += c * e0i - s * e3i;
    }
  }
  return c * (e0i * e3j - e3i * e0j) - s * (e0i * e0j + e3i * e3j);
}
} // namespace

bool PlanarMechanism::lagrange_analytic(const double* q, const double* v, const double* a, double t, const double* p,
                                        double* out) const {
  const int nb = static_cast<int>(bodies_.size());
  for (int b = 0; b < nb; ++b) {
    const double* qb = q + 4 * b;
    const double *vb = v + 4 * b, *ab = a + 4 * b, mb = p[2 * b], jb = p[2 * b + 1];
    // T_b = ½m(ẋ² + ẏ²) + 2J w², w = e0 ė3 − e3 ė0 (ω/2), ẇ = e0 ë3 − e3 ë0; V_b = −m g·r.
    const double w = qb[2] * vb[3] - qb[3] * vb[2], wd = qb[2] * ab[3] - qb[3] * ab[2];
    out[4 * b] = mb * (ab[0] - g_[0]);
    out[4 * b + 1] = mb * (ab[1] - g_[1]);
    out[4 * b + 2] = -4.0 * jb * (wd * qb[3] + 2.0 * w * vb[3]);
    out[4 * b + 3] = 4.0 * jb * (wd * qb[2] + 2.0 * w * vb[2]);
  }
  for (std::size_t k = 0; k < springs_.size(); ++k) {
    const PlanarSpring& s = springs_[k];
    const PointJac Ji = point_jac(q, s.body_i, s.si[0], s.si[1]), Jj = point_jac(q, s.body_j, s.sj[0], s.sj[1]);
    const double dx = Jj.x - Ji.x, dy = Jj.y - Ji.y;
    const double kk = p[spring_data(static_cast<int>(k), 0)], c = p[spring_data(static_cast<int>(k), 1)];
    // ∂V/∂d = k d (zero free length) or k (|d| − L) d/|d|; the damper −c ḋ·δd.
    const double kf = s.length == 0.0 ? kk : kk * (1.0 - s.length / std::sqrt(dx * dx + dy * dy));
    double fx = kf * dx, fy = kf * dy;
    if (c != 0.0) {
      double vix, viy, vjx, vjy;
      point_velocity(Ji, v, s.body_i, vix, viy);
      point_velocity(Jj, v, s.body_j, vjx, vjy);
      fx += c * (vjx - vix);
      fy += c * (vjy - viy);
    }
    add_point_force(Jj, s.body_j, fx, fy, 1.0, out);
    add_point_force(Ji, s.body_i, fx, fy, -1.0, out);
  }
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const PlanarContact& c = contacts_[k];
    const double* cd = p + contact_data(static_cast<int>(k), 0);
    const PointJac J = point_jac(q, c.body, c.point[0], c.point[1]);
    const double gap = c.normal[0] * (J.x - c.origin[0]) + c.normal[1] * (J.y - c.origin[1]) - cd[1];
    if (gap >= 0.0) continue;
    double f = cd[0] * gap;
    if (cd[2] != 0.0) {
      double vx, vy;
      point_velocity(J, v, c.body, vx, vy);
      f += cd[2] * (c.normal[0] * vx + c.normal[1] * vy);
    }
    add_point_force(J, c.body, f * c.normal[0], f * c.normal[1], 1.0, out);
  }
  for (const PlanarTorque& tq : torques_) { // δW = 2τ(e0 δe3 − e3 δe0)
    const int o = 4 * tq.body;
    const double tau2 = 2.0 * tq.value(t);
    out[o + 2] += tau2 * q[o + 3];
    out[o + 3] -= tau2 * q[o + 2];
  }
  return true;
}

bool PlanarMechanism::constraints_analytic(const double* q, const double* p, double* phi, double* jac) const {
  const int nb = static_cast<int>(bodies_.size()), m = constraint_rows();
  if (jac) std::fill(jac, jac + static_cast<std::size_t>(m) * static_cast<std::size_t>(4 * nb), 0.0);
  double scratch = 0;
  auto value = [&](int r) -> double& { return phi ? phi[r] : scratch; };
  int r = 0;
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const PlanarJoint& jt = joints_[j];
    const double* s = p + joint_data(static_cast<int>(j), 0);
    const int bi = jt.body_i, bj = jt.body_j;
    const PointJac Ji = point_jac(q, bi, s[0], s[1]), Jj = point_jac(q, bj, s[2], s[3]);
    const double dx = Jj.x - Ji.x, dy = Jj.y - Ji.y;
    const bool axial = jt.type == PlanarJoint::Type::slot || jt.type == PlanarJoint::Type::prismatic;
    const double len = axial ? std::hypot(jt.axis[0], jt.axis[1]) : 1.0;
    // n·(p_j − p_i) with a constant normal n: row r.
    auto normal_row = [&](double nx, double ny) {
      value(r) = nx * dx + ny * dy;
      add_point_row(Jj, bj, nx, ny, 1.0, m, r, jac);
      add_point_row(Ji, bi, nx, ny, -1.0, m, r, jac);
      ++r;
    };
    switch (jt.type) {
    case PlanarJoint::Type::revolute:
    case PlanarJoint::Type::fixed:
      normal_row(-1.0, 0.0); // p_i − p_j, x
      normal_row(0.0, -1.0); // y
      if (jt.type == PlanarJoint::Type::fixed) {
        value(r) = relative_rotation_row(q, bi, bj, jt.angle, m, r, jac);
        ++r;
      }
      break;
    case PlanarJoint::Type::slot: normal_row(-jt.axis[1] / len, jt.axis[0] / len); break;
    case PlanarJoint::Type::prismatic: {
      // n = A_i n0 rotates with body i: ∂(n·d)/∂e_i gains dᵀ ∂n/∂e_i (the point Jacobian of n0 without r).
      const double n0x = -jt.axis[1] / len, n0y = jt.axis[0] / len;
      PointJac N = point_jac(q, bi, n0x, n0y);
      if (bi >= 0) {
        const double e0 = q[4 * bi + 2], e3 = q[4 * bi + 3], c = 2.0 * e0 * e0 - 1.0, sn = 2.0 * e0 * e3;
        N.x = c * n0x - sn * n0y;
        N.y = sn * n0x + c * n0y;
        N.jx[0] = N.jy[1] = 0.0;
        add_point_row(N, bi, dx, dy, 1.0, m, r, jac);
      }
      normal_row(N.x, N.y);
      value(r) = relative_rotation_row(q, bi, bj, jt.angle, m, r, jac);
      ++r;
      break;
    }
    case PlanarJoint::Type::distance:
      value(r) = dx * dx + dy * dy - s[4] * s[4];
      add_point_row(Jj, bj, 2.0 * dx, 2.0 * dy, 1.0, m, r, jac);
      add_point_row(Ji, bi, 2.0 * dx, 2.0 * dy, -1.0, m, r, jac);
      ++r;
      break;
    }
  }
  for (int b = 0; b < nb; ++b, ++r) {
    const double e0 = q[4 * b + 2], e3 = q[4 * b + 3];
    value(r) = e0 * e0 + e3 * e3 - 1.0;
    if (jac) {
      jac[(4 * b + 2) * m + r] = 2.0 * e0;
      jac[(4 * b + 3) * m + r] = 2.0 * e3;
    }
  }
  return true;
}

std::vector<double> PlanarMechanism::driver_values(double t, int derivative) const {
  bool any = false;
  for (const PlanarJoint& j : joints_) any = any || !j.motion.steps.empty() || j.motion.start != 0.0;
  if (!any) return {};
  std::vector<double> g(static_cast<std::size_t>(constraint_rows()), 0.0);
  std::size_t r = 0;
  for (const PlanarJoint& j : joints_) {
    if (j.type == PlanarJoint::Type::slot) g[r] = j.motion(t, derivative);
    r += static_cast<std::size_t>(joint_rows(j.type));
  }
  return g;
}

std::vector<double> PlanarMechanism::initial_positions() const { return initial_positions_at(nominal_data().data()); }

std::vector<double> PlanarMechanism::initial_velocities() const { return initial_velocities_at(nominal_data().data()); }

std::vector<double> PlanarMechanism::initial_positions_at(const double* p) const {
  std::vector<double> q;
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const double* ic = p + initial_data(static_cast<int>(b), 0);
    q.insert(q.end(), {ic[0], ic[1], std::cos(0.5 * bodies_[b].angle), std::sin(0.5 * bodies_[b].angle)});
  }
  return q;
}

std::vector<double> PlanarMechanism::initial_velocities_at(const double* p) const {
  std::vector<double> v;
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const double* ic = p + initial_data(static_cast<int>(b), 0);
    const double h = 0.5 * bodies_[b].angle, w = 0.5 * bodies_[b].angular_velocity;
    v.insert(v.end(), {ic[2], ic[3], -std::sin(h) * w, std::cos(h) * w});
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
  for (const PlanarSpring& s : springs_) out.push_back(s.name + ".length");
  return out;
}

std::vector<double> PlanarMechanism::outputs(const double* q, const double* p) const {
  std::vector<double> out;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    out.insert(out.end(), {q[4 * b], q[4 * b + 1], 2.0 * std::atan2(q[4 * b + 3], q[4 * b + 2])});
  auto point = [&](int b, double sx, double sy) -> std::array<double, 2> {
    if (b < 0) return {sx, sy};
    const double* qb = q + 4 * b;
    const double c = 2.0 * qb[2] * qb[2] - 1.0, sn = 2.0 * qb[2] * qb[3];
    return {qb[0] + c * sx - sn * sy, qb[1] + sn * sx + c * sy};
  };
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const PlanarJoint& jt = joints_[j];
    const bool on_j = jt.body_j >= 0;
    const double* s = p + joint_data(static_cast<int>(j), on_j ? 2 : 0);
    const auto x = point(on_j ? jt.body_j : jt.body_i, s[0], s[1]);
    out.insert(out.end(), {x[0], x[1]});
  }
  for (const PlanarSpring& s : springs_) {
    const auto a = point(s.body_i, s.si[0], s.si[1]), b = point(s.body_j, s.sj[0], s.sj[1]);
    out.push_back(std::hypot(b[0] - a[0], b[1] - a[1]));
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
