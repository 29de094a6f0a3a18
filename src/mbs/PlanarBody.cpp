// SPDX-License-Identifier: MIT
// A rigid body in planar coordinates [x, y, e0, e3] (mbs/PlanarBody.hpp).
#include "flexuq/mbs/PlanarBody.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>

namespace flexuq::mbs {

PlanarBodyModel::PlanarBodyModel(RigidBody body) : BodyModel(std::move(body)) {
  const RigidBody& b = body_;
  FLEXUQ_REQUIRE(!b.flex, "body '" << b.name << "': a flexible body cannot have planar coordinates");
  const double tol = 1e-12;
  FLEXUQ_REQUIRE(std::abs(b.orientation(1)) <= tol && std::abs(b.orientation(2)) <= tol,
                 "body '" << b.name << "' (planar): the orientation must be a rotation about z (Euler parameters "
                          << b.orientation.transpose() << ")");
  FLEXUQ_REQUIRE(b.velocity.z() == 0.0, "body '" << b.name << "' (planar): the velocity must lie in the xy plane (z part "
                                                 << b.velocity.z() << ")");
  FLEXUQ_REQUIRE(b.angular_velocity.x() == 0.0 && b.angular_velocity.y() == 0.0,
                 "body '" << b.name << "' (planar): the angular velocity must be about z (got "
                          << b.angular_velocity.transpose() << ")");
}

void PlanarBodyModel::initial_coordinates(Vec& q, int o) const {
  const double e0 = body_.orientation(0), e3 = body_.orientation(3), s = std::hypot(e0, e3);
  q(o) = body_.position.x();
  q(o + 1) = body_.position.y();
  q(o + 2) = e0 / s;
  q(o + 3) = e3 / s;
}

void PlanarBodyModel::initial_rates(Vec& v, int o) const {
  // ω = 2(e0ė3 − e3ė0) with e0ė0 + e3ė3 = 0: (ė0, ė3) = ½ ω (−e3, e0).
  const double w = body_.angular_velocity.z(), e0 = body_.orientation(0), e3 = body_.orientation(3);
  v(o) = body_.velocity.x();
  v(o + 1) = body_.velocity.y();
  v(o + 2) = -0.5 * w * e3;
  v(o + 3) = 0.5 * w * e0;
}

void PlanarBodyModel::mass_times(const Vec& q, const Vec& a, int o, Vec& out) const {
  const double e0 = q(o + 2), e3 = q(o + 3), m = body_.mass;
  const double wd = 4.0 * inertia() * (e3 * a(o + 2) - e0 * a(o + 3)); // 4J (e3, −e0)·ä
  out(o) = m * a(o);
  out(o + 1) = m * a(o + 1);
  out(o + 2) = e3 * wd;
  out(o + 3) = -e0 * wd;
}

void PlanarBodyModel::mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const {
  const double e0 = q(o + 2), e3 = q(o + 3), c = 4.0 * scale * inertia();
  mm.block<4, 4>(o, o).setZero();
  mm(o, o) = mm(o + 1, o + 1) = scale * body_.mass;
  mm(o + 2, o + 2) = c * e3 * e3;
  mm(o + 2, o + 3) = mm(o + 3, o + 2) = -c * e0 * e3;
  mm(o + 3, o + 3) = c * e0 * e0;
}

Mat PlanarBodyModel::constant_mass_block() const { return body_.mass * Mat::Identity(2, 2); }

void PlanarBodyModel::add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& /*g_sum*/, bool qv_terms,
                                      Vec& f) const {
  if (!qv_terms) return;
  const double e0d = v(o + 2), e3d = v(o + 3);
  const double w = 2.0 * (q(o + 2) * e3d - q(o + 3) * e0d);
  const double c = 4.0 * inertia() * w;
  f(o + 2) += c * e3d;
  f(o + 3) -= c * e0d;
}

void PlanarBodyModel::add_gravity(const Vec3& g, int o, Vec& f) const {
  f(o) += body_.mass * g.x();
  f(o + 1) += body_.mass * g.y();
}

double PlanarBodyModel::gravity_work(const Vec& q, int o, const Vec3& g) const {
  return body_.mass * (g.x() * q(o) + g.y() * q(o + 1) + g.z() * body_.position.z());
}

} // namespace flexuq::mbs
