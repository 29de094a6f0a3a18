// SPDX-License-Identifier: MIT
#include "flexuq/mbs/System.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace flexuq::mbs {

namespace {

struct TypeName {
  JointType t;
  const char* name;
};
constexpr TypeName kTypes[] = {
    {JointType::revolute, "revolute"},       {JointType::spherical, "spherical"},
    {JointType::prismatic, "prismatic"},     {JointType::cylindrical, "cylindrical"},
    {JointType::universal, "universal"},     {JointType::fixed, "fixed"},
    {JointType::planar, "planar"},           {JointType::dot1, "dot1"},
    {JointType::dot2, "dot2"},               {JointType::distance, "distance"},
    {JointType::point_on_line, "point-on-line"}, {JointType::angle_driver, "angle-driver"},
    {JointType::translation_driver, "translation-driver"}, {JointType::revolute_2d, "revolute-2d"},
    {JointType::prismatic_2d, "prismatic-2d"},   {JointType::point_on_line_2d, "point-on-line-2d"}};

/// A unit vector perpendicular to @p h, chosen deterministically (the global axis least aligned).
Vec3 perpendicular(const Vec3& h) {
  Vec3 e = Vec3::UnitX();
  if (std::abs(h.x()) > std::abs(h.y())) e = std::abs(h.y()) < std::abs(h.z()) ? Vec3::UnitY() : Vec3::UnitZ();
  else if (std::abs(h.z()) < std::abs(h.x())) e = Vec3::UnitZ();
  return (e - h * h.dot(e)).normalized();
}

/// T = blockdiag(Aᵀ, 2G, 1): body-frame velocities [v_O; ω'; η̇] = T q̇_b of a flexible body.
Mat frame_map(const Vec4& p, int ne) {
  Mat t = Mat::Zero(6 + ne, 7 + ne);
  t.block<3, 3>(0, 0) = rotation(p).transpose();
  t.block<3, 4>(3, 3) = 2.0 * g_matrix(p);
  t.bottomRightCorner(ne, ne).setIdentity();
  return t;
}

} // namespace

const Attachment& FlexibleData::interface(const std::string& name, const std::string& who) const {
  const auto it = interfaces.find(name);
  if (it != interfaces.end()) return it->second;
  std::string list;
  for (const auto& kv : interfaces) list += (list.empty() ? "" : ", ") + kv.first;
  throw InputError(who + ": interface '" + name + "' is not in the body file " + source + " (interfaces: " +
                   (list.empty() ? "none" : list) + ")");
}

JointType parse_joint_type(const std::string& s) {
  if (s == "perpendicular") return JointType::dot1;
  for (const auto& t : kTypes)
    if (s == t.name) return t.t;
  std::string list;
  for (const auto& t : kTypes) list += std::string(list.empty() ? "" : ", ") + t.name;
  throw InputError("unknown joint type '" + s + "' (" + list + ", perpendicular = dot1)");
}

const char* joint_type_name(JointType t) {
  for (const auto& k : kTypes)
    if (k.t == t) return k.name;
  return "?";
}

std::array<double, 3> System::Coef::eval(double t) const {
  if (kind == one) return {1.0, 0.0, 0.0};
  const auto th = f->eval(t);
  const double s = std::sin(th[0]), c = std::cos(th[0]);
  // d/dt cos θ = −s θ', d²/dt² cos θ = −c θ'² − s θ''; for −sin θ: −c θ', s θ'² − c θ''.
  if (kind == cos_motion) return {c, -s * th[1], -c * th[1] * th[1] - s * th[2]};
  return {-s, -c * th[1], s * th[1] * th[1] - c * th[2]};
}

int System::add_body(const RigidBody& b) {
  FLEXUQ_REQUIRE(b.name != "ground", "'ground' is the fixed frame and cannot be a body");
  for (const auto& o : bodies_) FLEXUQ_REQUIRE(o.name != b.name, "body '" << b.name << "' is defined twice");
  FLEXUQ_REQUIRE(std::isfinite(b.mass) && b.mass >= 0, "body '" << b.name << "': mass must be >= 0, got " << b.mass);
  Eigen::SelfAdjointEigenSolver<Mat3> es(0.5 * (b.inertia + b.inertia.transpose()));
  FLEXUQ_REQUIRE(es.eigenvalues().minCoeff() >= -1e-12 * std::max(1.0, es.eigenvalues().maxCoeff()),
                 "body '" << b.name << "': the inertia tensor is not positive semi-definite (eigenvalues "
                          << es.eigenvalues().transpose() << ")");
  FLEXUQ_REQUIRE(std::abs(b.orientation.norm() - 1.0) < 1e-6,
                 "body '" << b.name << "': Euler parameters must have unit norm, got |p| = " << b.orientation.norm());
  if (b.flex) {
    const auto& fx = *b.flex;
    FLEXUQ_REQUIRE(fx.K.rows() == fx.K.cols() && fx.D.rows() == fx.K.rows() && fx.D.cols() == fx.K.rows() &&
                       fx.invariants.Mff.rows() == fx.K.rows(),
                   "body '" << b.name << "': inconsistent elastic data (K " << fx.K.rows() << "x" << fx.K.cols() << ", D "
                            << fx.D.rows() << "x" << fx.D.cols() << ", Mff " << fx.invariants.Mff.rows() << ")");
    FLEXUQ_REQUIRE(fx.invariants.mass > 0, "body '" << b.name << "': the reduced body " << fx.source << " has no mass");
  }
  off_.push_back(n_);
  n_ += 7 + (b.flex ? b.flex->n_elastic() : 0);
  bodies_.push_back(b);
  bodies_.back().orientation.normalize();
  const int id = static_cast<int>(bodies_.size()) - 1;
  eta0_.emplace_back();
  eta_rate0_.emplace_back();
  if (b.flex && b.flex->gcms) {
    const auto& g = *b.flex->gcms;
    FLEXUQ_REQUIRE(g.n() == b.flex->n_elastic(), "body '" << b.name << "': the GCMS layout does not match its elastic data");
    const Mat3 a0 = rotation(bodies_.back().orientation);
    eta0_.back() = gcms_pose(g, b.position, a0);
    eta_rate0_.back() = gcms_pose_rates(g, a0, b.flex->invariants.com, b.velocity, b.angular_velocity);
    // The frame is the global frame: the amplitudes carry every motion (seed 001 Eq. 58).
    JointSpec hold;
    hold.name = b.name + ".frame";
    hold.type = JointType::fixed;
    hold.body_i = kGround;
    hold.body_j = id;
    holding_frame_ = id;
    try {
      add_joint(hold);
    } catch (...) {
      holding_frame_ = -2;
      throw;
    }
    holding_frame_ = -2;
    internal_joint_.back() = true;
  }
  reset_active();
  return id;
}

void System::check_gcms_point(int b, const Vec3& s, const Attachment* at, const std::string& who) const {
  if (!is_gcms(b) || b == holding_frame_) return;
  FLEXUQ_REQUIRE(at, who << ": body '" << bodies_[b].name << "' is a GCMS body: give the interface the point is on");
  const double tol = 1e-9 * std::max(1.0, at->ref.norm());
  FLEXUQ_REQUIRE((s - at->ref).norm() <= tol,
                 who << ": on the GCMS body '" << bodies_[b].name << "' a point must be its interface's reference point "
                      << "(the mean of the set's nodes, mesh frame [" << at->ref.transpose() << "], i.e. that point placed by "
                      << "the body's pose), " << (s - at->ref).norm() << " m away here: a GCMS body's points are linear "
                      << "in its coordinates only there (seed 001: constraints G c on node translations)");
}

void System::replace_flexible(int b, std::shared_ptr<const FlexibleData> d) {
  FLEXUQ_REQUIRE(b >= 0 && b < static_cast<int>(bodies_.size()) && bodies_[b].flex && d,
                 "replace_flexible: body " << b << " is not flexible");
  FLEXUQ_REQUIRE(d->n_elastic() == bodies_[b].flex->n_elastic(),
                 "body '" << bodies_[b].name << "': " << d->n_elastic() << " elastic coordinates instead of "
                          << bodies_[b].flex->n_elastic());
  bodies_[b].flex = std::move(d);
}

System System::with_flexible(const std::vector<std::shared_ptr<const FlexibleData>>& flex) const {
  System s;
  s.qv_terms_ = qv_terms_;
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    RigidBody body = bodies_[b];
    if (b < flex.size() && flex[b]) {
      FLEXUQ_REQUIRE(body.flex && flex[b]->n_elastic() == body.flex->n_elastic(),
                     "body '" << body.name << "': the new elastic data does not fit it");
      body.flex = flex[b];
    }
    s.add_body(body);
  }
  for (std::size_t j = 0; j < joints_.size(); ++j)
    if (!internal_joint_[j]) s.add_joint(joints_[j]); // add_body added the GCMS frame joints
  for (const auto& f : force_input_) s.add_force(f);
  return s;
}

int System::body_of_coordinate(int k) const {
  const auto it = std::upper_bound(off_.begin(), off_.end(), k);
  return static_cast<int>(it - off_.begin()) - 1;
}

Mat System::attach_point(const Attachment* at, const Vec3& s) {
  if (!at) return Mat();
  return at->translation - skew(s - at->ref) * at->rotation;
}

Mat System::attach_axis(const Attachment* at, const Vec3& a) {
  if (!at) return Mat();
  return -skew(a) * at->rotation;
}

Mat System::point_map(int b, const std::string& iface, const Vec3& s, const std::string& who) const {
  if (b == kGround || !bodies_[b].flex) return Mat();
  const Attachment& at = bodies_[b].flex->interface(iface, who);
  check_gcms_point(b, s, &at, who);
  return attach_point(&at, s);
}

int System::body_index(const std::string& name, const std::string& who) const {
  if (name == "ground") return kGround;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (bodies_[b].name == name) return static_cast<int>(b);
  std::string list = "ground";
  for (const auto& b : bodies_) list += ", " + b.name;
  throw InputError(who + ": body '" + name + "' does not exist (bodies: " + list + ")");
}

Vec3 System::to_local_point(int b, const Vec3& g) const {
  if (b == kGround || b == holding_frame_) return g;
  return rotation(bodies_[b].orientation).transpose() * (g - bodies_[b].position);
}

Vec3 System::to_local_axis(int b, const Vec3& g) const {
  if (b == kGround || b == holding_frame_) return g;
  return rotation(bodies_[b].orientation).transpose() * g;
}

int System::add_vector(BodyVector bv) {
  vectors_.push_back(std::move(bv));
  return static_cast<int>(vectors_.size()) - 1;
}

int System::body_axis(int b, const Vec3& global_axis, const Attachment* at) {
  FLEXUQ_REQUIRE(!is_gcms(b) || b == holding_frame_,
                 who_ << " needs an axis fixed in the GCMS body '" << bodies_[b].name
                      << "', which has none (its rotation is not linear in its coordinates): GCMS bodies take point "
                         "constraints (spherical, distance, and point-on-line, revolute-2d, point-on-line-2d, dot2 or "
                         "translation-driver with the GCMS body second); hold an axis with two spherical joints");
  const Vec3 a = to_local_axis(b, global_axis);
  return add_vector(BodyVector{{{b, a, 1.0, false, attach_axis(at, a)}}});
}

int System::constant_vector(const Vec3& w) { return add_vector(BodyVector{{{kGround, w, 1.0, false}}}); }

int System::separation(int bi, const Vec3& pi, int bj, const Vec3& pj, const Attachment* ai, const Attachment* aj) {
  BodyVector bv;
  const Vec3 sj = to_local_point(bj, pj), si = to_local_point(bi, pi);
  check_gcms_point(bj, sj, aj, who_);
  check_gcms_point(bi, si, ai, who_);
  bv.parts.push_back({bj, sj, 1.0, true, attach_point(aj, sj)});
  bv.parts.push_back({bi, si, -1.0, true, attach_point(ai, si)});
  return add_vector(std::move(bv));
}

void System::add_dot_row(int joint, const std::string& label, int u, int v, double phi0) {
  Row r;
  r.terms.push_back(Term{Coef{}, u, v});
  r.phi0 = phi0;
  r.joint = joint;
  r.label = label;
  rows_.push_back(std::move(r));
}

void System::add_joint(const JointSpec& spec) {
  const std::string who = "joint '" + spec.name + "' (" + joint_type_name(spec.type) + ")";
  who_ = who;
  for (const auto& o : joints_) FLEXUQ_REQUIRE(o.name != spec.name, "joint '" << spec.name << "' is defined twice");
  FLEXUQ_REQUIRE(spec.body_i != spec.body_j, who << " joins body '"
                                                 << (spec.body_i == kGround ? "ground" : bodies_[spec.body_i].name)
                                                 << "' to itself");
  FLEXUQ_REQUIRE(spec.axis.norm() > 1e-12, who << ": the axis is zero");
  const int jid = static_cast<int>(joints_.size());
  const int bi = spec.body_i, bj = spec.body_j;
  // Flexible bodies: the joint sits on one of their interfaces and moves with the deformation.
  auto attachment = [&](int b, const std::string& iface) -> const Attachment* {
    const bool flexible = b != kGround && bodies_[b].flex && b != holding_frame_; // a held GCMS frame is rigid
    if (!flexible) {
      FLEXUQ_REQUIRE(iface.empty(), who << ": body '" << (b == kGround ? "ground" : bodies_[b].name)
                                        << "' is not flexible and has no interface '" << iface << "'");
      return nullptr;
    }
    FLEXUQ_REQUIRE(!iface.empty(), who << ": body '" << bodies_[b].name
                                       << "' is flexible: give the interface the joint is attached to (key 'interface')");
    return &bodies_[b].flex->interface(iface, who + " on body '" + bodies_[b].name + "'");
  };
  const Attachment* ati = attachment(bi, spec.interface_i);
  const Attachment* atj = attachment(bj, spec.interface_j);
  const Vec3 h = spec.axis.normalized();
  const Vec3 f = perpendicular(h), g = h.cross(f);
  const Vec3 p1 = spec.point, p2 = spec.has_point2 ? spec.point2 : spec.point;
  Vec3 k2 = spec.has_axis2 ? Vec3(spec.axis2.normalized()) : f;
  FLEXUQ_REQUIRE(!spec.has_axis2 || spec.axis2.norm() > 1e-12, who << ": axis2 is zero");

  Frame fr;
  const Vec3 ax[3] = {f, g, h};
  for (int k = 0; k < 3; ++k) {
    fr.ai[k] = to_local_axis(bi, ax[k]);
    fr.aj[k] = to_local_axis(bj, ax[k]);
  }
  fr.si = to_local_point(bi, p1);
  fr.sj = to_local_point(bj, p2);
  fr.Lsj = attach_point(atj, fr.sj);

  const int first = static_cast<int>(rows_.size());
  auto fi = [&] { return body_axis(bi, f, ati); };
  auto gi = [&] { return body_axis(bi, g, ati); };
  auto hi = [&] { return body_axis(bi, h, ati); };
  auto axis_j = [&](const Vec3& a) { return body_axis(bj, a, atj); };
  auto sep = [&](const Vec3& pi, const Vec3& pj) { return separation(bi, pi, bj, pj, ati, atj); };
  auto spherical = [&] {
    const int d = sep(p1, p1);
    const char* xyz[] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k)
      add_dot_row(jid, spec.name + ".point-" + xyz[k], constant_vector(Vec3::Unit(k)), d);
  };
  auto parallel_axes = [&] { // h_j ⊥ f_i and h_j ⊥ g_i
    const int hj = axis_j(h);
    add_dot_row(jid, spec.name + ".axis-f", fi(), hj);
    add_dot_row(jid, spec.name + ".axis-g", gi(), hj);
  };
  auto no_spin = [&] { add_dot_row(jid, spec.name + ".spin", fi(), axis_j(g)); };
  // Body j's point pj stays on the line (point, h) of body i: f_i·d = g_i·d = 0. With pj = the joint
  // point this is also the 2-D revolute (the points coincide in the plane ⊥ h).
  auto on_line = [&](const Vec3& pj, const std::string& tag) {
    const int d = sep(p1, pj);
    add_dot_row(jid, spec.name + "." + tag + "-f", fi(), d);
    add_dot_row(jid, spec.name + "." + tag + "-g", gi(), d);
  };

  // 2-D joints with a sliding direction: the plane's normal (axis2, default z) and the in-plane
  // normal b = n × a of the line (point, a) on body i.
  auto line_normal_2d = [&]() -> Vec3 {
    const Vec3 n = spec.has_axis2 ? Vec3(spec.axis2.normalized()) : Vec3::UnitZ();
    FLEXUQ_REQUIRE(std::abs(n.dot(h)) < 1e-9, who << ": the sliding axis must lie in the plane (axis2, the plane's normal, "
                                                    "default [0, 0, 1]; cos = " << n.dot(h) << ")");
    return n.cross(h).normalized();
  };

  switch (spec.type) {
  case JointType::revolute_2d: // the points coincide in the plane ⊥ axis (free along it)
    on_line(p1, "point");
    break;
  case JointType::prismatic_2d: {
    const int b = body_axis(bi, line_normal_2d(), ati); // one body vector for both rows
    add_dot_row(jid, spec.name + ".turn", b, axis_j(h));
    add_dot_row(jid, spec.name + ".line", b, sep(p1, p2));
    break;
  }
  case JointType::point_on_line_2d:
    add_dot_row(jid, spec.name + ".line", body_axis(bi, line_normal_2d(), ati), sep(p1, p2));
    break;
  case JointType::spherical:
    spherical();
    break;
  case JointType::revolute:
    spherical();
    parallel_axes();
    break;
  case JointType::cylindrical:
    parallel_axes();
    on_line(p2, "line");
    break;
  case JointType::prismatic:
    parallel_axes();
    on_line(p2, "line");
    no_spin();
    break;
  case JointType::fixed:
    spherical();
    parallel_axes();
    no_spin();
    break;
  case JointType::universal:
    FLEXUQ_REQUIRE(std::abs(h.dot(k2)) < 1e-9, who << ": axis and axis2 must be perpendicular (cos = " << h.dot(k2) << ")");
    spherical();
    add_dot_row(jid, spec.name + ".cross", hi(), axis_j(k2));
    break;
  case JointType::dot1:
    FLEXUQ_REQUIRE(spec.has_axis2, who << " needs axis (on the first body) and axis2 (on the second)");
    FLEXUQ_REQUIRE(std::abs(h.dot(k2)) < 1e-9, who << ": axis and axis2 must be perpendicular at t = 0 (cos = " << h.dot(k2) << ")");
    add_dot_row(jid, spec.name + ".dot1", hi(), axis_j(k2));
    break;
  case JointType::dot2: {
    FLEXUQ_REQUIRE(spec.has_point2, who << " needs point (on the first body), point2 (on the second) and axis");
    FLEXUQ_REQUIRE(std::abs(h.dot(p2 - p1)) < 1e-9 * std::max(1.0, (p2 - p1).norm()),
                   who << ": point2 - point must be perpendicular to the axis at t = 0");
    add_dot_row(jid, spec.name + ".dot2", hi(), sep(p1, p2));
    break;
  }
  case JointType::planar: { // body j's point stays in the plane (point, h) of body i; no tilt
    add_dot_row(jid, spec.name + ".plane", hi(), sep(p1, p2));
    add_dot_row(jid, spec.name + ".tilt-f", hi(), axis_j(f));
    add_dot_row(jid, spec.name + ".tilt-g", hi(), axis_j(g));
    break;
  }
  case JointType::distance: {
    FLEXUQ_REQUIRE(spec.has_point2, who << " needs point (on the first body) and point2 (on the second)");
    const double l0 = (p2 - p1).norm();
    const double l = spec.distance < 0 ? l0 : spec.distance;
    FLEXUQ_REQUIRE(l > 1e-12, who << ": the distance must be positive (a zero distance is a spherical joint)");
    const int d = sep(p1, p2);
    add_dot_row(jid, spec.name + ".distance", d, d, l * l);
    break;
  }
  case JointType::point_on_line:
    on_line(p2, "line");
    break;
  case JointType::angle_driver: { // sin(θ − θ_d(t)) = cos θ_d (g_i·f_j) − sin θ_d (f_i·f_j)
    motions_.push_back(spec.motion);
    const TimeFunction* mf = &motions_.back();
    const int fj = axis_j(f);
    Row r;
    r.terms.push_back(Term{Coef{Coef::cos_motion, mf}, gi(), fj});
    r.terms.push_back(Term{Coef{Coef::neg_sin_motion, mf}, fi(), fj});
    r.joint = jid;
    r.label = spec.name + ".angle";
    rows_.push_back(std::move(r));
    break;
  }
  case JointType::translation_driver: { // h_i·(p_j − p_i) − s(t)
    motions_.push_back(spec.motion);
    Row r;
    r.terms.push_back(Term{Coef{}, hi(), sep(p1, p2)});
    r.g = &motions_.back();
    r.phi0 = h.dot(p2 - p1);
    r.joint = jid;
    r.label = spec.name + ".translation";
    rows_.push_back(std::move(r));
    break;
  }
  }
  joints_.push_back(spec);
  internal_joint_.push_back(false);
  frames_.push_back(fr);
  joint_rows_.emplace_back(first, static_cast<int>(rows_.size()) - first);
  reset_active();
}

void System::add_force(const ForceSpec& f) {
  force_input_.push_back(f);
  ForceSpec s = f;
  Vec3 l1 = Vec3::Zero(), l2 = Vec3::Zero();
  Mat L, R;
  double len = 0;
  who_ = std::string("a ") + (s.type == ForceType::torque ? "torque" : s.type == ForceType::force ? "force"
                              : s.type == ForceType::spring ? "spring" : s.type == ForceType::gravity ? "gravity load" : "damper");
  for (int b : {s.body, s.body2})
    FLEXUQ_REQUIRE(!is_gcms(b) || s.type == ForceType::gravity || (s.type == ForceType::force && b == s.body),
                   who_ << " on the GCMS body '" << bodies_[b].name
                        << "': a GCMS body takes gravity and forces at an interface's reference point (its frame is "
                           "held, and torques, springs and dampers need its rotation)");
  if (s.type == ForceType::torque || s.type == ForceType::force) {
    FLEXUQ_REQUIRE(s.direction.norm() > 1e-12, "a " << (s.type == ForceType::torque ? "torque" : "force") << " needs a non-zero axis");
    s.direction.normalize();
    if (s.body_frame) s.direction = to_local_axis(s.body, s.direction);
    l1 = to_local_point(s.body, s.point);
    FLEXUQ_REQUIRE(!is_gcms(s.body) || !s.interface.empty(),
                   "a force on the GCMS body '" << bodies_[s.body].name << "' needs the interface it acts at");
    FLEXUQ_REQUIRE(!is_gcms(s.body) || !s.body_frame,
                   "a force on the GCMS body '" << bodies_[s.body].name << "' takes a global direction (frame: body "
                   "would need its rotation, which is not linear in its coordinates)");
    if (!s.interface.empty()) {
      FLEXUQ_REQUIRE(s.body != kGround && bodies_[s.body].flex, "'interface' applies to a force or torque on a flexible body");
      if (s.type == ForceType::force) L = point_map(s.body, s.interface, l1, "force on body '" + bodies_[s.body].name + "'");
      else R = bodies_[s.body].flex->interface(s.interface, "torque on body '" + bodies_[s.body].name + "'").rotation;
    }
  } else if (s.type == ForceType::rotational_damper) {
    FLEXUQ_REQUIRE(s.direction.norm() > 1e-12, "a rotational damper needs a non-zero axis");
    FLEXUQ_REQUIRE(s.body != s.body2, "a rotational damper joins a body to itself");
    FLEXUQ_REQUIRE(s.damping >= 0, "a rotational damper needs damping >= 0");
    s.direction.normalize();
    if (s.body_frame) s.direction = to_local_axis(s.body, s.direction);
  } else if (s.type == ForceType::spring) {
    FLEXUQ_REQUIRE(s.body != s.body2, "a spring joins a body to itself");
    l1 = to_local_point(s.body, s.point);
    l2 = to_local_point(s.body2, s.point2);
    len = s.length < 0 ? (s.point2 - s.point).norm() : s.length;
  }
  forces_.push_back(s);
  force_L_.push_back(L);
  force_R_.push_back(R);
  force_local_.push_back(l1);
  force_local2_.push_back(l2);
  spring_length_.push_back(len);
}

void System::reset_active() {
  active_.clear();
  for (int r = 0; r < rows_total(); ++r) active_.push_back(r);
  active_set_ = false;
}

int System::row_joint(int full_row) const {
  const int nr = static_cast<int>(rows_.size());
  return full_row < nr ? rows_[full_row].joint : -1 - (full_row - nr);
}

std::string System::row_label(int full_row) const {
  const int nr = static_cast<int>(rows_.size());
  return full_row < nr ? rows_[full_row].label : "body '" + bodies_[full_row - nr].name + "'.norm";
}

Vec System::initial_q() const {
  Vec q = Vec::Zero(n());
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    if (eta0_[b].size() > 0) { // GCMS: the frame is global, the pose is in the amplitudes
      q.segment<4>(off_[b] + 3) = Vec4(1, 0, 0, 0);
      q.segment(off_[b] + 7, eta0_[b].size()) = eta0_[b];
      continue;
    }
    q.segment<3>(off_[b]) = bodies_[b].position;
    q.segment<4>(off_[b] + 3) = bodies_[b].orientation;
  }
  return q;
}

Vec System::initial_v() const {
  Vec v = Vec::Zero(n());
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    if (eta_rate0_[b].size() > 0) {
      v.segment(off_[b] + 7, eta_rate0_[b].size()) = eta_rate0_[b];
      continue;
    }
    v.segment<3>(off_[b]) = bodies_[b].velocity;
    // ω = 2 E ṗ and Eᵀ E = I − p pᵀ, pᵀṗ = 0  ⇒  ṗ = ½ Eᵀ ω.
    v.segment<4>(off_[b] + 3) = 0.5 * e_matrix(bodies_[b].orientation).transpose() * bodies_[b].angular_velocity;
  }
  return v;
}

void System::vector_states(const Vec& q, const Vec* v, std::vector<VecState>& out) const {
  out.resize(vectors_.size());
  for (std::size_t k = 0; k < vectors_.size(); ++k) {
    VecState s{Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
    for (const auto& pt : vectors_[k].parts) {
      if (pt.body == kGround) {
        s.w += pt.sign * pt.local;
        continue;
      }
      const int o = off_[pt.body];
      const Vec4 p = q.segment<4>(o + 3);
      const bool flex = pt.L.size() > 0;
      // x = s + L η (body frame); ẇ = B(p, x) ṗ + A L η̇, convective part B(ṗ, x) ṗ + 2 B(p, L η̇) ṗ.
      const Vec3 x = flex ? Vec3(pt.local + pt.L * q.segment(o + 7, pt.L.cols())) : pt.local;
      const Mat3 a = rotation(p);
      s.w += pt.sign * a * x;
      if (pt.point) s.w += pt.sign * q.segment<3>(o);
      if (v) {
        const Vec4 pd = v->segment<4>(o + 3);
        s.wd += pt.sign * b_matrix(p, x) * pd;
        if (pt.point) s.wd += pt.sign * v->segment<3>(o);
        s.wc += pt.sign * b_matrix(pd, x) * pd;
        if (flex) {
          const Vec3 lv = pt.L * v->segment(o + 7, pt.L.cols());
          s.wd += pt.sign * a * lv;
          s.wc += pt.sign * 2.0 * b_matrix(p, lv) * pd;
        }
      }
    }
    out[k] = s;
  }
}

void System::add_vector_jacobian(int vec, const Vec3& coeff, const Vec& q, Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> row) const {
  for (const auto& pt : vectors_[vec].parts) {
    if (pt.body == kGround) continue;
    const int o = off_[pt.body];
    const Vec4 p = q.segment<4>(o + 3);
    if (pt.point) row.segment<3>(o) += pt.sign * coeff.transpose();
    if (pt.L.size() == 0) {
      row.segment<4>(o + 3) += pt.sign * coeff.transpose() * b_matrix(p, pt.local);
      continue;
    }
    const int ne = static_cast<int>(pt.L.cols());
    const Vec3 x = pt.local + pt.L * q.segment(o + 7, ne);
    row.segment<4>(o + 3) += pt.sign * coeff.transpose() * b_matrix(p, x);
    const Vec3 cb = pt.sign * (rotation(p).transpose() * coeff); // ∂/∂η of coeffᵀ A L η: (Aᵀcoeff)ᵀ L
    for (int e = 0; e < ne; ++e) row(o + 7 + e) += cb.dot(pt.L.col(e));
  }
}

double System::row_value(const Row& r, const std::vector<VecState>& s, double t) const {
  double val = -r.phi0;
  for (const auto& term : r.terms) val += term.c.eval(t)[0] * s[term.u].w.dot(s[term.v].w);
  if (r.g) val -= r.g->eval(t)[0];
  return val;
}

Vec System::phi_all(const Vec& q, double t) const {
  std::vector<VecState> s;
  vector_states(q, nullptr, s);
  Vec out(rows_total());
  for (std::size_t r = 0; r < rows_.size(); ++r) out(r) = row_value(rows_[r], s, t);
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    out(rows_.size() + b) = q.segment<4>(off_[b] + 3).squaredNorm() - 1.0;
  return out;
}

Mat System::jacobian_all(const Vec& q, double t) const {
  std::vector<VecState> s;
  vector_states(q, nullptr, s);
  Mat cq = Mat::Zero(rows_total(), n());
  for (std::size_t r = 0; r < rows_.size(); ++r)
    for (const auto& term : rows_[r].terms) {
      const double c = term.c.eval(t)[0];
      add_vector_jacobian(term.u, c * s[term.v].w, q, cq.row(r));
      add_vector_jacobian(term.v, c * s[term.u].w, q, cq.row(r));
    }
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    cq.block<1, 4>(rows_.size() + b, off_[b] + 3) = 2.0 * q.segment<4>(off_[b] + 3).transpose();
  return cq;
}

void System::constraint_residual(const Vec& q, double t, const Vec& lambda, Vec& cq_t_lambda, Vec& phi,
                                 const Vec* v, Vec* phi_dot) const {
  FLEXUQ_REQUIRE(lambda.size() == m(), "System::constraint_residual: " << lambda.size() << " multipliers for " << m()
                                                                        << " active rows");
  std::vector<VecState> s;
  vector_states(q, phi_dot ? v : nullptr, s);
  Eigen::RowVectorXd acc = Eigen::RowVectorXd::Zero(n()); // Σ_k λ_k (row k of C_q): each row is linear in its coefficient
  phi.resize(m());
  if (phi_dot) phi_dot->resize(m());
  const int nr = static_cast<int>(rows_.size());
  for (int k = 0; k < m(); ++k) {
    const int r = active_[k];
    if (r >= nr) {
      const int o = off_[r - nr] + 3;
      phi(k) = q.segment<4>(o).squaredNorm() - 1.0;
      acc.segment<4>(o) += 2.0 * lambda(k) * q.segment<4>(o).transpose();
      if (phi_dot) (*phi_dot)(k) = 2.0 * q.segment<4>(o).dot(v->segment<4>(o));
      continue;
    }
    phi(k) = row_value(rows_[r], s, t);
    double rate = 0;
    for (const auto& term : rows_[r].terms) {
      const auto ce = term.c.eval(t);
      const double c = lambda(k) * ce[0];
      add_vector_jacobian(term.u, c * s[term.v].w, q, acc);
      add_vector_jacobian(term.v, c * s[term.u].w, q, acc);
      if (phi_dot) rate += row_rate(ce, s[term.u], s[term.v]);
    }
    if (phi_dot) (*phi_dot)(k) = rate - (rows_[r].g ? rows_[r].g->eval(t)[1] : 0.0);
  }
  cq_t_lambda = acc.transpose();
}

Vec System::phi(const Vec& q, double t) const {
  const Vec all = phi_all(q, t);
  Vec out(m());
  for (int k = 0; k < m(); ++k) out(k) = all(active_[k]);
  return out;
}

Mat System::jacobian(const Vec& q, double t) const {
  // The active rows only, written in place (the stabilised integrators take C_q every step; the
  // whole row set and a copy of its active rows cost the V8 drive a tenth of its run time).
  std::vector<VecState> s;
  vector_states(q, nullptr, s);
  Mat out = Mat::Zero(m(), n());
  const int nr = static_cast<int>(rows_.size());
  for (int k = 0; k < m(); ++k) {
    const int r = active_[k];
    if (r >= nr) {
      const int o = off_[r - nr] + 3;
      out.block<1, 4>(k, o) = 2.0 * q.segment<4>(o).transpose();
      continue;
    }
    for (const auto& term : rows_[r].terms) {
      const double c = term.c.eval(t)[0];
      add_vector_jacobian(term.u, c * s[term.v].w, q, out.row(k));
      add_vector_jacobian(term.v, c * s[term.u].w, q, out.row(k));
    }
  }
  return out;
}

Vec System::phi_t(const Vec& q, double t) const {
  std::vector<VecState> s;
  vector_states(q, nullptr, s);
  Vec out = Vec::Zero(m());
  const int nr = static_cast<int>(rows_.size());
  for (int k = 0; k < m(); ++k) {
    if (active_[k] >= nr) continue;
    const Row& r = rows_[active_[k]];
    double val = 0;
    for (const auto& term : r.terms) val += term.c.eval(t)[1] * s[term.u].w.dot(s[term.v].w);
    if (r.g) val -= r.g->eval(t)[1];
    out(k) = val;
  }
  return out;
}

Vec System::gamma(const Vec& q, const Vec& v, double t) const {
  std::vector<VecState> s;
  vector_states(q, &v, s);
  Vec out(m());
  const int nr = static_cast<int>(rows_.size());
  for (int k = 0; k < m(); ++k) {
    if (active_[k] >= nr) {
      const int b = active_[k] - nr;
      out(k) = -2.0 * v.segment<4>(off_[b] + 3).squaredNorm();
      continue;
    }
    const Row& r = rows_[active_[k]];
    double val = 0;
    for (const auto& term : r.terms) {
      const auto c = term.c.eval(t);
      const VecState &u = s[term.u], &w = s[term.v];
      val += c[0] * (w.w.dot(u.wc) + u.w.dot(w.wc) + 2.0 * u.wd.dot(w.wd)) +
             2.0 * c[1] * (u.wd.dot(w.w) + u.w.dot(w.wd)) + c[2] * u.w.dot(w.w);
    }
    if (r.g) val -= r.g->eval(t)[2];
    out(k) = -val;
  }
  return out;
}

std::vector<std::string> System::select_independent_rows(const Vec& q, double t, double tol) {
  reset_active();
  const Mat cq = jacobian_all(q, t);
  const int nr = static_cast<int>(rows_.size());
  std::vector<int> order;
  for (std::size_t b = 0; b < bodies_.size(); ++b) order.push_back(nr + static_cast<int>(b));
  for (int r = 0; r < nr; ++r) order.push_back(r);
  // In-order Gram–Schmidt (twice, for stability) = QR without pivoting with a rank tolerance:
  // a row is redundant when what is left of it after removing the span of the kept rows is
  // below tol·|row|.
  std::vector<Eigen::RowVectorXd> basis;
  std::vector<int> kept;
  std::vector<std::string> dropped;
  for (int r : order) {
    Eigen::RowVectorXd x = cq.row(r);
    const double norm0 = x.norm();
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& b : basis) x -= x.dot(b) * b;
    if (norm0 == 0.0 || x.norm() <= tol * norm0) {
      dropped.push_back(row_label(r));
      continue;
    }
    basis.push_back(x / x.norm());
    kept.push_back(r);
  }
  active_.clear();
  for (int r = 0; r < rows_total(); ++r)
    if (std::find(kept.begin(), kept.end(), r) != kept.end()) active_.push_back(r);
  active_set_ = true;
  return dropped;
}

Mat System::mass(const Vec& q) const {
  Mat mm(n(), n());
  mass_into(q, 1.0, mm);
  return mm;
}

const cms::FrameContractions& System::contractions(std::size_t b, const Vec& eta) const {
  if (contractions_.size() < bodies_.size()) contractions_.resize(bodies_.size());
  cms::FrameContractions& c = contractions_[b];
  if (c.xi.size() != eta.size() || c.xi != eta) cms::contract(bodies_[b].flex->invariants, eta, c);
  return c;
}

Vec System::mass_times(const Vec& q, const Vec& a) const {
  Vec out(n());
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const int o = off_[b];
    const Vec4 p = q.segment<4>(o + 3);
    const Mat34 g = g_matrix(p);
    if (const auto& fx = bodies_[b].flex) {
      // T a_b = [Aᵀ r̈; 2G p̈; η̈], then Tᵀ (M(η) T a_b) = [A w0; 2Gᵀ w1; w2].
      const int ne = fx->n_elastic();
      Vec ta(6 + ne);
      ta.head<3>() = rotation(p).transpose() * a.segment<3>(o);
      ta.segment<3>(3) = 2.0 * g * a.segment<4>(o + 3);
      ta.tail(ne) = a.segment(o + 7, ne);
      const Vec w = cms::generalized_mass_times(fx->invariants, contractions(b, q.segment(o + 7, ne)), ta);
      out.segment<3>(o) = rotation(p) * w.head<3>();
      out.segment<4>(o + 3) = 2.0 * g.transpose() * w.segment<3>(3);
      out.segment(o + 7, ne) = w.tail(ne);
      continue;
    }
    out.segment<3>(o) = bodies_[b].mass * a.segment<3>(o);
    out.segment<4>(o + 3) = 4.0 * g.transpose() * (bodies_[b].inertia * (g * a.segment<4>(o + 3)));
  }
  return out;
}

void System::mass_into(const Vec& q, double scale, Eigen::Ref<Mat> mm) const {
  mm.topLeftCorner(n(), n()).setZero();
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    if (const auto& fx = bodies_[b].flex) {
      const int ne = fx->n_elastic();
      const Mat t = frame_map(euler(q, static_cast<int>(b)), ne);
      mm.block(off_[b], off_[b], 7 + ne, 7 + ne) =
          scale * (t.transpose() * cms::generalized_mass(fx->invariants, contractions(b, q.segment(off_[b] + 7, ne))) * t);
      continue;
    }
    mm.block<3, 3>(off_[b], off_[b]) = scale * bodies_[b].mass * Mat3::Identity();
    const Mat34 g = g_matrix(q.segment<4>(off_[b] + 3));
    mm.block<4, 4>(off_[b] + 3, off_[b] + 3) = (4.0 * scale) * g.transpose() * bodies_[b].inertia * g;
  }
}

Vec3 System::damper_axis(const ForceSpec& s, const Vec& q) const {
  return s.body_frame && s.body != kGround ? Vec3(rotation(euler(q, s.body)) * s.direction) : s.direction;
}

double System::damper_rate(const ForceSpec& s, const Vec& q, const Vec& v) const {
  return damper_axis(s, q).dot(angular_velocity(q, v, s.body) - angular_velocity(q, v, s.body2));
}

void System::add_stiffness_damping(const Vec& q, double ck, double cd, Eigen::Ref<Mat> out) const {
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (const auto& fx = bodies_[b].flex) {
      const int o = off_[b] + 7, ne = fx->n_elastic();
      if (fx->gcms) out.block(o, o, ne, ne) += ck * gcms_tangent(q.segment(o, ne), *fx->gcms); // Eq. 69's Â K̂ Âᵀ
      else out.block(o, o, ne, ne) += ck * fx->K + cd * fx->D;
    }
  // Springs: Q = −(k (l − l0) + c u·ḋ) u applied at both ends; the dominant part of its Jacobian is
  // k u uᵀ (and c u uᵀ for the rate) on the end points' coordinates, J_e = [1, B(p, s)] per end.
  // Rotational dampers: Q_p = 2Eᵀn with n = −c a aᵀ(ω_1 − ω_2), ω = 2Eṗ: ∂Q/∂ṗ = −c gᵀg with
  // g = aᵀ[2E_1, −2E_2] on the two bodies' Euler-parameter rates (the axis' own motion left out, as
  // the other omitted q-derivatives).
  for (const ForceSpec& s : forces_) {
    if (s.type != ForceType::rotational_damper || cd * s.damping == 0) continue;
    const Vec3 a = damper_axis(s, q);
    Eigen::RowVectorXd g = Eigen::RowVectorXd::Zero(n());
    if (s.body != kGround) g.segment<4>(off_[s.body] + 3) += 2.0 * a.transpose() * e_matrix(euler(q, s.body));
    if (s.body2 != kGround) g.segment<4>(off_[s.body2] + 3) -= 2.0 * a.transpose() * e_matrix(euler(q, s.body2));
    out += (cd * s.damping) * g.transpose() * g;
  }
  for (std::size_t k = 0; k < forces_.size(); ++k) {
    const ForceSpec& s = forces_[k];
    if (s.type != ForceType::spring) continue;
    const Vec3 d = point_position(q, s.body2, force_local2_[k]) - point_position(q, s.body, force_local_[k]);
    const double l = d.norm();
    if (l < 1e-14) continue;
    const Vec3 u = d / l;
    const double w = ck * s.stiffness + cd * s.damping;
    if (w == 0) continue;
    Eigen::RowVectorXd g = Eigen::RowVectorXd::Zero(n()); // ∂l/∂q = uᵀ (J_2 − J_1)
    auto add_end = [&](int b, const Vec3& local, double sign) {
      if (b == kGround) return;
      g.segment<3>(off_[b]) += sign * u.transpose();
      g.segment<4>(off_[b] + 3) += sign * u.transpose() * b_matrix(q.segment<4>(off_[b] + 3), local);
    };
    add_end(s.body2, force_local2_[k], 1.0);
    add_end(s.body, force_local_[k], -1.0);
    out += w * g.transpose() * g;
  }
}

Vec System::forces(const Vec& q, const Vec& v, double t) const {
  Vec f = Vec::Zero(n());
  // Flexible bodies: Tᵀ (Q_v + gravity) − [0; 0; K̄η + D̄η̇].
  Vec3 g_sum = Vec3::Zero();
  for (const auto& s : forces_)
    if (s.type == ForceType::gravity) g_sum += s.direction;
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const auto& fx = bodies_[b].flex;
    if (!fx) continue;
    const int o = off_[b], ne = fx->n_elastic();
    const Vec4 p = q.segment<4>(o + 3);
    const Vec eta = q.segment(o + 7, ne), eta_d = v.segment(o + 7, ne);
    Vec qb = cms::gravity_force(fx->invariants, eta, rotation(p).transpose() * g_sum);
    if (qv_terms_)
      qb += cms::quadratic_velocity(fx->invariants, contractions(b, eta), eta_d, 2.0 * g_matrix(p) * v.segment<4>(o + 3));
    f.segment(o, 7 + ne) += frame_map(p, ne).transpose() * qb;
    if (fx->gcms) f.segment(o + 7, ne) -= gcms_internal_force(eta, *fx->gcms); // Eq. 58: Â K̂ Âᵀ q_flx + f̂_nl
    else f.segment(o + 7, ne) -= fx->K * eta + fx->D * eta_d;
  }
  if (qv_terms_)
    for (std::size_t b = 0; b < bodies_.size(); ++b) {
      if (bodies_[b].flex) continue;
      const Vec4 p = q.segment<4>(off_[b] + 3), pd = v.segment<4>(off_[b] + 3);
      const Mat34 gd = g_matrix(pd);
      f.segment<4>(off_[b] + 3) += 8.0 * gd.transpose() * bodies_[b].inertia * gd * p;
    }
  auto apply_force = [&](int b, const Vec3& local, const Vec3& force, const Mat& L = Mat()) {
    if (b == kGround) return;
    const Vec4 p = q.segment<4>(off_[b] + 3);
    f.segment<3>(off_[b]) += force;
    if (L.size() == 0) {
      f.segment<4>(off_[b] + 3) += b_matrix(p, local).transpose() * force;
      return;
    }
    // A point that follows the interface: x = s + L η, velocity ṙ + B(p, x) ṗ + A L η̇.
    const int ne = static_cast<int>(L.cols());
    f.segment<4>(off_[b] + 3) += b_matrix(p, Vec3(local + L * q.segment(off_[b] + 7, ne))).transpose() * force;
    f.segment(off_[b] + 7, ne) += L.transpose() * (rotation(p).transpose() * force);
  };
  auto apply_torque = [&](int b, const Vec3& torque) { // global torque: Q_p = 2 Eᵀ n
    if (b == kGround) return;
    f.segment<4>(off_[b] + 3) += 2.0 * e_matrix(q.segment<4>(off_[b] + 3)).transpose() * torque;
  };
  for (std::size_t k = 0; k < forces_.size(); ++k) {
    const ForceSpec& s = forces_[k];
    switch (s.type) {
    case ForceType::gravity:
      for (std::size_t b = 0; b < bodies_.size(); ++b)
        if (!bodies_[b].flex) f.segment<3>(off_[b]) += bodies_[b].mass * s.direction;
      break;
    case ForceType::torque:
    case ForceType::force: {
      Vec3 dir = s.direction;
      if (s.body_frame && s.body != kGround) dir = rotation(euler(q, s.body)) * dir;
      const Vec3 val = s.value(t) * dir;
      if (s.type == ForceType::torque) {
        apply_torque(s.body, val);
        apply_torque(s.body2, -val);
        if (const Mat& R = force_R_[k]; R.size() > 0) // the interface's elastic rotation R_I η does work too
          f.segment(off_[s.body] + 7, R.cols()) += R.transpose() * (rotation(euler(q, s.body)).transpose() * val);
      } else {
        apply_force(s.body, force_local_[k], val, force_L_[k]);
      }
      break;
    }
    case ForceType::rotational_damper: {
      const Vec3 n = -s.damping * damper_rate(s, q, v) * damper_axis(s, q);
      apply_torque(s.body, n);
      apply_torque(s.body2, -n);
      break;
    }
    case ForceType::spring: {
      const Vec3 d = point_position(q, s.body2, force_local2_[k]) - point_position(q, s.body, force_local_[k]);
      const Vec3 dd = point_velocity(q, v, s.body2, force_local2_[k]) - point_velocity(q, v, s.body, force_local_[k]);
      const double l = d.norm();
      if (l < 1e-14) break;
      const Vec3 u = d / l;
      const double tension = s.stiffness * (l - spring_length_[k]) + s.damping * u.dot(dd);
      apply_force(s.body, force_local_[k], tension * u);
      apply_force(s.body2, force_local2_[k], -tension * u);
      break;
    }
    }
  }
  return f;
}

double System::kinetic_energy(const Vec& q, const Vec& v) const { return 0.5 * v.dot(mass(q) * v); }

double System::strain_energy(const Vec& q) const {
  double e = 0;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (const auto& fx = bodies_[b].flex) {
      const Vec eta = q.segment(off_[b] + 7, fx->n_elastic());
      e += fx->gcms ? gcms_strain_energy(eta, *fx->gcms) : 0.5 * eta.dot(fx->K * eta);
    }
  return e;
}

double System::potential_energy(const Vec& q) const {
  double e = 0;
  for (std::size_t k = 0; k < forces_.size(); ++k) {
    const ForceSpec& s = forces_[k];
    if (s.type == ForceType::gravity)
      for (std::size_t b = 0; b < bodies_.size(); ++b) {
        if (const auto& fx = bodies_[b].flex) { // −g·(m r + A s(η)), s = m c + S η
          const auto& inv = fx->invariants;
          const Vec3 first = inv.mass * inv.com + inv.S * q.segment(off_[b] + 7, fx->n_elastic());
          e -= s.direction.dot(inv.mass * q.segment<3>(off_[b]) + rotation(euler(q, static_cast<int>(b))) * first);
          continue;
        }
        e -= bodies_[b].mass * s.direction.dot(q.segment<3>(off_[b]));
      }
    else if (s.type == ForceType::spring) {
      const double l = (point_position(q, s.body2, force_local2_[k]) - point_position(q, s.body, force_local_[k])).norm();
      e += 0.5 * s.stiffness * (l - spring_length_[k]) * (l - spring_length_[k]);
    }
  }
  return e;
}

double System::nonconservative_power(const Vec& q, const Vec& v, double t) const {
  double p = 0;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (const auto& fx = bodies_[b].flex) { // modal damping
      const Vec eta_d = v.segment(off_[b] + 7, fx->n_elastic());
      p -= eta_d.dot(fx->D * eta_d);
    }
  for (std::size_t k = 0; k < forces_.size(); ++k) {
    const ForceSpec& s = forces_[k];
    if (s.type == ForceType::torque || s.type == ForceType::force) {
      Vec3 dir = s.direction;
      if (s.body_frame && s.body != kGround) dir = rotation(euler(q, s.body)) * dir;
      const Vec3 val = s.value(t) * dir;
      if (s.type == ForceType::torque) {
        p += val.dot(angular_velocity(q, v, s.body) - angular_velocity(q, v, s.body2));
        if (const Mat& R = force_R_[k]; R.size() > 0)
          p += val.dot(rotation(euler(q, s.body)) * (R * v.segment(off_[s.body] + 7, R.cols())));
      }
      else p += val.dot(point_velocity(q, v, s.body, force_local_[k], force_L_[k]));
    } else if (s.type == ForceType::rotational_damper) {
      p -= s.damping * std::pow(damper_rate(s, q, v), 2);
    } else if (s.type == ForceType::spring && s.damping != 0.0) {
      const Vec3 d = point_position(q, s.body2, force_local2_[k]) - point_position(q, s.body, force_local_[k]);
      const Vec3 dd = point_velocity(q, v, s.body2, force_local2_[k]) - point_velocity(q, v, s.body, force_local_[k]);
      const double l = d.norm();
      if (l > 1e-14) p -= s.damping * std::pow(d.dot(dd) / l, 2);
    }
  }
  return p;
}

void System::normalise(Vec& q) const {
  for (std::size_t b = 0; b < bodies_.size(); ++b) q.segment<4>(off_[b] + 3).normalize();
}

Vec3 System::point_position(const Vec& q, int b, const Vec3& s, const Mat& L) const {
  if (b == kGround || L.size() == 0) return point_position(q, b, s);
  return point_position(q, b, s + L * elastic(q, b));
}

Vec3 System::point_velocity(const Vec& q, const Vec& v, int b, const Vec3& s, const Mat& L) const {
  if (b == kGround || L.size() == 0) return point_velocity(q, v, b, s);
  return point_velocity(q, v, b, s + L * elastic(q, b)) + rotation(euler(q, b)) * L * elastic(v, b);
}

Vec3 System::point_acceleration(const Vec& q, const Vec& v, const Vec& a, int b, const Vec3& s, const Mat& L) const {
  if (b == kGround || L.size() == 0) return point_acceleration(q, v, a, b, s);
  const Vec3 lv = L * elastic(v, b);
  return point_acceleration(q, v, a, b, s + L * elastic(q, b)) + rotation(euler(q, b)) * L * elastic(a, b) +
         2.0 * b_matrix(euler(q, b), lv) * euler_rate(v, b);
}

Vec3 System::point_position(const Vec& q, int b, const Vec3& s) const {
  if (b == kGround) return s;
  return origin(q, b) + rotation(euler(q, b)) * s;
}

Vec3 System::point_velocity(const Vec& q, const Vec& v, int b, const Vec3& s) const {
  if (b == kGround) return Vec3::Zero();
  return v.segment<3>(off_[b]) + b_matrix(euler(q, b), s) * v.segment<4>(off_[b] + 3);
}

Vec3 System::point_acceleration(const Vec& q, const Vec& v, const Vec& a, int b, const Vec3& s) const {
  if (b == kGround) return Vec3::Zero();
  const Vec4 pd = v.segment<4>(off_[b] + 3);
  return a.segment<3>(off_[b]) + b_matrix(euler(q, b), s) * a.segment<4>(off_[b] + 3) + b_matrix(pd, s) * pd;
}

double System::joint_angle(const Vec& q, int j) const {
  const JointSpec& s = joints_[j];
  const Mat3 ai = rotation(euler(q, s.body_i)), aj = rotation(euler(q, s.body_j));
  const Vec3 fi = ai * frames_[j].ai[0], gi = ai * frames_[j].ai[1], fj = aj * frames_[j].aj[0];
  return std::atan2(gi.dot(fj), fi.dot(fj));
}

Eigen::Matrix<double, 6, 1> System::joint_reaction(const Vec& q, const Vec& lambda, int j, double t) const {
  Eigen::Matrix<double, 6, 1> out = Eigen::Matrix<double, 6, 1>::Zero();
  const int b = joints_[j].body_j;
  if (b == kGround) return out;
  const auto [first, count] = joint_rows_[j];
  const Mat cq = jacobian_all(q, t);
  Vec qc = Vec::Zero(7); // generalized constraint force on body j's frame coordinates: −C_qᵀ λ
  for (int k = 0; k < m(); ++k)
    if (active_[k] >= first && active_[k] < first + count) qc -= cq.row(active_[k]).segment<7>(off_[b]).transpose() * lambda(k);
  const Vec3 force = qc.head<3>();
  const Vec4 p = euler(q, b);
  const Vec3 torque_body = 0.5 * g_matrix(p) * qc.tail<4>(); // Q_p = 2 Gᵀ n' (+ a part along p)
  const Vec3 torque_origin = rotation(p) * torque_body;
  const Vec3 at = point_position(q, b, frames_[j].sj, frames_[j].Lsj);
  out.head<3>() = force;
  out.tail<3>() = torque_origin + (origin(q, b) - at).cross(force);
  return out;
}

} // namespace flexuq::mbs
