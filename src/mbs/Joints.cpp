// SPDX-License-Identifier: MIT
// The joint library: joint types and their names, and System::add_joint, which turns a joint given in
// the global frame at t = 0 into constraint rows over body vectors (mbs/ConstraintRows.hpp).
#include "flexuq/mbs/System.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>

namespace flexuq::mbs {

namespace {

/// A unit vector perpendicular to @p h, chosen deterministically (the global axis least aligned).
Vec3 perpendicular(const Vec3& h) {
  Vec3 e = Vec3::UnitX();
  if (std::abs(h.x()) > std::abs(h.y())) e = std::abs(h.y()) < std::abs(h.z()) ? Vec3::UnitY() : Vec3::UnitZ();
  else if (std::abs(h.z()) < std::abs(h.x())) e = Vec3::UnitZ();
  return (e - h * h.dot(e)).normalized();
}

} // namespace

Vec3 System::to_local_point(int b, const Vec3& g) const {
  if (b == kGround || b == holding_frame_) return g;
  return rotation(bodies_[b].orientation).transpose() * (g - bodies_[b].position);
}

Vec3 System::to_local_axis(int b, const Vec3& g) const {
  if (b == kGround || b == holding_frame_) return g;
  return rotation(bodies_[b].orientation).transpose() * g;
}

void System::check_point(int b, const Vec3& s, const Attachment* at, const std::string& who) const {
  if (b != kGround && b != holding_frame_) models_[b]->check_point(s, at, who);
}

int System::body_axis(int b, const Vec3& global_axis, const Attachment* at) {
  if (b != kGround && b != holding_frame_) models_[b]->check_axis(who_); // a GCMS body has no axes
  const Vec3 a = to_local_axis(b, global_axis);
  if (at && at->euler >= 0) // a 3-D GS interface point's frame: A(p_i) a, exact (mbs/GsBody3d.hpp)
    return rows_.add_vector(BodyVector{{{b, a, 1.0, false, Mat(), at->euler}}});
  return rows_.add_vector(BodyVector{{{b, a, 1.0, false, attach_axis(at, a)}}});
}

int System::separation(int bi, const Vec3& pi, int bj, const Vec3& pj, const Attachment* ai, const Attachment* aj) {
  BodyVector bv;
  const Vec3 sj = to_local_point(bj, pj), si = to_local_point(bi, pi);
  check_point(bj, sj, aj, who_);
  check_point(bi, si, ai, who_);
  bv.parts.push_back({bj, sj, 1.0, true, attach_point(aj, sj)});
  bv.parts.push_back({bi, si, -1.0, true, attach_point(ai, si)});
  return rows_.add_vector(std::move(bv));
}

void System::check_planar_joint(const JointSpec& spec, const std::string& who) const {
  const int pb = planar(spec.body_i) ? spec.body_i : planar(spec.body_j) ? spec.body_j : kGround;
  if (pb == kGround) return;
  const std::string on = who + ": body '" + bodies_[pb].name + "' has planar coordinates (it moves in the xy plane)";
  const Vec3 h = spec.axis.normalized();
  const auto along_z = [](const Vec3& a) { return std::abs(std::abs(a.normalized().z()) - 1.0) < 1e-9; };
  switch (spec.type) {
  case JointType::revolute_2d:
  case JointType::angle_driver:
    FLEXUQ_REQUIRE(along_z(h), on << ": the axis must be [0, 0, 1]");
    break;
  case JointType::prismatic_2d:
  case JointType::point_on_line_2d:
    FLEXUQ_REQUIRE(!spec.has_axis2 || along_z(spec.axis2), on << ": axis2 (the plane's normal) must be [0, 0, 1]");
    break;
  case JointType::translation_driver:
    FLEXUQ_REQUIRE(std::abs(h.z()) < 1e-9, on << ": the axis must lie in the xy plane");
    break;
  case JointType::distance:
    break;
  default:
    throw InputError(on + ": its joints are revolute-2d, prismatic-2d, point-on-line-2d, distance, angle-driver "
                          "(about z) and translation-driver (in the plane)");
  }
}

void System::add_joint(const JointSpec& spec) {
  const std::string who = "joint '" + spec.name + "' (" + joint_type_name(spec.type) + ")";
  who_ = who;
  for (const auto& o : joints_) FLEXUQ_REQUIRE(o.name != spec.name, "joint '" << spec.name << "' is defined twice");
  FLEXUQ_REQUIRE(spec.body_i != spec.body_j, who << " joins body '"
                                                 << (spec.body_i == kGround ? "ground" : bodies_[spec.body_i].name)
                                                 << "' to itself");
  FLEXUQ_REQUIRE(spec.axis.norm() > 1e-12, who << ": the axis is zero");
  check_planar_joint(spec, who);
  using Row = ConstraintRows::Row;
  using Term = ConstraintRows::Term;
  using Coef = ConstraintRows::Coef;
  const int jid = static_cast<int>(joints_.size());
  const int bi = spec.body_i, bj = spec.body_j;
  // A gs body (mbs/GsBody.hpp) turns an axis a at an interface point as a + θ ẑ × a: exact for the plane's
  // normal and for the relative turn of two gs interface points (in-plane axes, perpendicular at t = 0).
  if ((gs_planar(bi) || gs_planar(bj)) && bi != holding_frame_ && bj != holding_frame_) {
    const bool z_axis = std::abs(std::abs(spec.axis.normalized().z()) - 1.0) < 1e-9;
    const auto t = spec.type;
    FLEXUQ_REQUIRE(t == JointType::spherical || ((t == JointType::revolute || t == JointType::revolute_2d) && z_axis) ||
                       (t == JointType::fixed && z_axis && gs_planar(bi) && gs_planar(bj)),
                   who << ": a gs body moves in the plane z = 0 with its interface points' coordinates; it takes spherical "
                          "joints, revolute and revolute-2d joints about z (axis [0, 0, 1]), and fixed joints about z "
                          "between two gs bodies");
  }
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

  const int first = rows_.size();
  auto fi = [&] { return body_axis(bi, f, ati); };
  auto gi = [&] { return body_axis(bi, g, ati); };
  auto hi = [&] { return body_axis(bi, h, ati); };
  auto axis_j = [&](const Vec3& a) { return body_axis(bj, a, atj); };
  auto sep = [&](const Vec3& pi, const Vec3& pj) { return separation(bi, pi, bj, pj, ati, atj); };
  auto spherical = [&] {
    const int d = sep(p1, p1);
    const char* xyz[] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k)
      rows_.add_dot_row(jid, spec.name + ".point-" + xyz[k], rows_.constant_vector(Vec3::Unit(k)), d);
  };
  auto parallel_axes = [&] { // h_j ⊥ f_i and h_j ⊥ g_i
    const int hj = axis_j(h);
    rows_.add_dot_row(jid, spec.name + ".axis-f", fi(), hj);
    rows_.add_dot_row(jid, spec.name + ".axis-g", gi(), hj);
  };
  auto no_spin = [&] { rows_.add_dot_row(jid, spec.name + ".spin", fi(), axis_j(g)); };
  // Body j's point pj stays on the line (point, h) of body i: f_i·d = g_i·d = 0. With pj = the joint
  // point this is also the 2-D revolute (the points coincide in the plane ⊥ h).
  auto on_line = [&](const Vec3& pj, const std::string& tag) {
    const int d = sep(p1, pj);
    rows_.add_dot_row(jid, spec.name + "." + tag + "-f", fi(), d);
    rows_.add_dot_row(jid, spec.name + "." + tag + "-g", gi(), d);
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
    rows_.add_dot_row(jid, spec.name + ".turn", b, axis_j(h));
    rows_.add_dot_row(jid, spec.name + ".line", b, sep(p1, p2));
    break;
  }
  case JointType::point_on_line_2d:
    rows_.add_dot_row(jid, spec.name + ".line", body_axis(bi, line_normal_2d(), ati), sep(p1, p2));
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
    if (gs_planar(bi) && gs_planar(bj) && bi != holding_frame_ && bj != holding_frame_) {
      // Two planar gs interface points: f_i·g_j = θ_i − θ_j exactly (axes a + θ ẑ × a, f ⊥ g in the plane);
      // the row holds the relative turn at its initial value Δ0 = θ_i0 − θ_j0 (g_j − Δ0 f: f_i·f = 1), so
      // bodies that start at different angles (an L-shaped joint) are not pulled to Δ = 0.
      const Vec q0 = initial_q();
      const auto theta0 = [&](int b, const Attachment* at) {
        return (at->rotation * q0.segment(off_[b] + 7, at->rotation.cols()))(2);
      };
      // The global axes themselves (not turned into the body's initial orientation: a gs body's frame is
      // held at the global one, and θ is the point's absolute turn).
      const double d0 = theta0(bi, ati) - theta0(bj, atj);
      const int fv = rows_.add_vector(BodyVector{{{bi, f, 1.0, false, attach_axis(ati, f)}}});
      const int gv = rows_.add_vector(BodyVector{{{bj, g, 1.0, false, attach_axis(atj, g)}, {kGround, Vec3(-d0 * f), 1.0, false}}});
      rows_.add_dot_row(jid, spec.name + ".spin", fv, gv);
    } else {
      no_spin();
    }
    break;
  case JointType::universal:
    FLEXUQ_REQUIRE(std::abs(h.dot(k2)) < 1e-9, who << ": axis and axis2 must be perpendicular (cos = " << h.dot(k2) << ")");
    spherical();
    rows_.add_dot_row(jid, spec.name + ".cross", hi(), axis_j(k2));
    break;
  case JointType::dot1:
    FLEXUQ_REQUIRE(spec.has_axis2, who << " needs axis (on the first body) and axis2 (on the second)");
    FLEXUQ_REQUIRE(std::abs(h.dot(k2)) < 1e-9, who << ": axis and axis2 must be perpendicular at t = 0 (cos = " << h.dot(k2) << ")");
    rows_.add_dot_row(jid, spec.name + ".dot1", hi(), axis_j(k2));
    break;
  case JointType::dot2: {
    FLEXUQ_REQUIRE(spec.has_point2, who << " needs point (on the first body), point2 (on the second) and axis");
    FLEXUQ_REQUIRE(std::abs(h.dot(p2 - p1)) < 1e-9 * std::max(1.0, (p2 - p1).norm()),
                   who << ": point2 - point must be perpendicular to the axis at t = 0");
    rows_.add_dot_row(jid, spec.name + ".dot2", hi(), sep(p1, p2));
    break;
  }
  case JointType::planar: { // body j's point stays in the plane (point, h) of body i; no tilt
    rows_.add_dot_row(jid, spec.name + ".plane", hi(), sep(p1, p2));
    rows_.add_dot_row(jid, spec.name + ".tilt-f", hi(), axis_j(f));
    rows_.add_dot_row(jid, spec.name + ".tilt-g", hi(), axis_j(g));
    break;
  }
  case JointType::distance: {
    FLEXUQ_REQUIRE(spec.has_point2, who << " needs point (on the first body) and point2 (on the second)");
    const double l0 = (p2 - p1).norm();
    const double l = spec.distance < 0 ? l0 : spec.distance;
    FLEXUQ_REQUIRE(l > 1e-12, who << ": the distance must be positive (a zero distance is a spherical joint)");
    const int d = sep(p1, p2);
    rows_.add_dot_row(jid, spec.name + ".distance", d, d, l * l);
    break;
  }
  case JointType::point_on_line:
    on_line(p2, "line");
    break;
  case JointType::angle_driver: { // sin(θ − θ_d(t)) = cos θ_d (g_i·f_j) − sin θ_d (f_i·f_j)
    const TimeFunction* mf = rows_.keep(spec.motion);
    const int fj = axis_j(f);
    Row r;
    r.terms.push_back(Term{Coef{Coef::cos_motion, mf}, gi(), fj});
    r.terms.push_back(Term{Coef{Coef::neg_sin_motion, mf}, fi(), fj});
    r.joint = jid;
    r.label = spec.name + ".angle";
    rows_.add_row(std::move(r));
    break;
  }
  case JointType::translation_driver: { // h_i·(p_j − p_i) − s(t)
    const TimeFunction* mf = rows_.keep(spec.motion);
    Row r;
    r.terms.push_back(Term{Coef{}, hi(), sep(p1, p2)});
    r.g = mf;
    r.phi0 = h.dot(p2 - p1);
    r.joint = jid;
    r.label = spec.name + ".translation";
    rows_.add_row(std::move(r));
    break;
  }
  }
  joints_.push_back(spec);
  internal_joint_.push_back(false);
  frames_.push_back(fr);
  joint_rows_.emplace_back(first, rows_.size() - first);
  reset_active();
}

} // namespace flexuq::mbs
