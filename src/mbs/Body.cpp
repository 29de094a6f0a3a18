// SPDX-License-Identifier: MIT
#include "flexuq/mbs/Body.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/GcmsBody.hpp"
#include "flexuq/mbs/GsBody.hpp"
#include "flexuq/mbs/GsBody3d.hpp"
#include "flexuq/mbs/PlanarBody.hpp"

namespace flexuq::mbs {

namespace {

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

Mat attach_point(const Attachment* at, const Vec3& s) {
  if (!at) return Mat();
  return at->translation - skew(s - at->ref) * at->rotation;
}

Mat attach_axis(const Attachment* at, const Vec3& a) {
  if (!at) return Mat();
  return -skew(a) * at->rotation;
}

// ---- every body: the frame coordinates r, p ----

void BodyModel::initial_coordinates(Vec& q, int o) const {
  q.segment<3>(o) = body_.position;
  q.segment<4>(o + 3) = body_.orientation;
}

void BodyModel::initial_rates(Vec& v, int o) const {
  v.segment<3>(o) = body_.velocity;
  // ω = 2 E ṗ and Eᵀ E = I − p pᵀ, pᵀṗ = 0  ⇒  ṗ = ½ Eᵀ ω.
  v.segment<4>(o + 3) = 0.5 * e_matrix(body_.orientation).transpose() * body_.angular_velocity;
}

// ---- rigid bodies ----

void RigidBodyModel::mass_times(const Vec& q, const Vec& a, int o, Vec& out) const {
  const Vec4 p = q.segment<4>(o + 3);
  const Mat34 g = g_matrix(p);
  out.segment<3>(o) = body_.mass * a.segment<3>(o);
  out.segment<4>(o + 3) = 4.0 * g.transpose() * (body_.inertia * (g * a.segment<4>(o + 3)));
}

void RigidBodyModel::mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const {
  mm.block<3, 3>(o, o) = scale * body_.mass * Mat3::Identity();
  const Mat34 g = g_matrix(q.segment<4>(o + 3));
  mm.block<4, 4>(o + 3, o + 3) = (4.0 * scale) * g.transpose() * body_.inertia * g;
}

void RigidBodyModel::add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& /*g_sum*/, bool qv_terms,
                                     Vec& f) const {
  if (!qv_terms) return;
  const Vec4 p = q.segment<4>(o + 3), pd = v.segment<4>(o + 3);
  const Mat34 gd = g_matrix(pd);
  f.segment<4>(o + 3) += 8.0 * gd.transpose() * body_.inertia * gd * p;
}

void RigidBodyModel::add_gravity(const Vec3& g, int o, Vec& f) const { f.segment<3>(o) += body_.mass * g; }

double RigidBodyModel::gravity_work(const Vec& q, int o, const Vec3& g) const {
  return body_.mass * g.dot(q.segment<3>(o));
}

Mat RigidBodyModel::constant_mass_block() const { return body_.mass * Mat::Identity(3, 3); }

// ---- flexible floating-frame bodies ----

FlexibleBodyModel::FlexibleBodyModel(RigidBody body) : BodyModel(std::move(body)) {
  const auto& fx = *body_.flex;
  FLEXUQ_REQUIRE(fx.K.rows() == fx.K.cols() && fx.D.rows() == fx.K.rows() && fx.D.cols() == fx.K.rows() &&
                     fx.invariants.Mff.rows() == fx.K.rows(),
                 "body '" << body_.name << "': inconsistent elastic data (K " << fx.K.rows() << "x" << fx.K.cols() << ", D "
                          << fx.D.rows() << "x" << fx.D.cols() << ", Mff " << fx.invariants.Mff.rows() << ")");
  FLEXUQ_REQUIRE(fx.invariants.mass > 0, "body '" << body_.name << "': the reduced body " << fx.source << " has no mass");
}

const cms::FrameContractions& FlexibleBodyModel::contractions(const Vec& eta) const {
  cms::FrameContractions& c = contractions_;
  if (c.xi.size() != eta.size() || c.xi != eta) cms::contract(body_.flex->invariants, eta, c);
  return c;
}

void FlexibleBodyModel::mass_times(const Vec& q, const Vec& a, int o, Vec& out) const {
  const Vec4 p = q.segment<4>(o + 3);
  const Mat34 g = g_matrix(p);
  // T a_b = [Aᵀ r̈; 2G p̈; η̈], then Tᵀ (M(η) T a_b) = [A w0; 2Gᵀ w1; w2].
  const int ne = n_elastic();
  Vec ta(6 + ne);
  ta.head<3>() = rotation(p).transpose() * a.segment<3>(o);
  ta.segment<3>(3) = 2.0 * g * a.segment<4>(o + 3);
  ta.tail(ne) = a.segment(o + 7, ne);
  const Vec w = cms::generalized_mass_times(body_.flex->invariants, contractions(q.segment(o + 7, ne)), ta);
  out.segment<3>(o) = rotation(p) * w.head<3>();
  out.segment<4>(o + 3) = 2.0 * g.transpose() * w.segment<3>(3);
  out.segment(o + 7, ne) = w.tail(ne);
}

void FlexibleBodyModel::mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const {
  const int ne = n_elastic();
  const Mat t = frame_map(Vec4(q.segment<4>(o + 3)), ne);
  mm.block(o, o, 7 + ne, 7 + ne) =
      scale * (t.transpose() * cms::generalized_mass(body_.flex->invariants, contractions(q.segment(o + 7, ne))) * t);
}

void FlexibleBodyModel::add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& g_sum, bool qv_terms,
                                        Vec& f) const {
  // Tᵀ (Q_v + gravity) − [0; 0; K̄η + D̄η̇].
  const auto& fx = body_.flex;
  const int ne = fx->n_elastic();
  const Vec4 p = q.segment<4>(o + 3);
  const Vec eta = q.segment(o + 7, ne), eta_d = v.segment(o + 7, ne);
  Vec qb = cms::gravity_force(fx->invariants, eta, rotation(p).transpose() * g_sum);
  if (qv_terms)
    qb += cms::quadratic_velocity(fx->invariants, contractions(eta), eta_d, 2.0 * g_matrix(p) * v.segment<4>(o + 3));
  f.segment(o, 7 + ne) += frame_map(p, ne).transpose() * qb;
  subtract_elastic_force(eta, eta_d, o, f);
}

void FlexibleBodyModel::subtract_elastic_force(const Vec& eta, const Vec& eta_d, int o, Vec& f) const {
  const auto& fx = body_.flex;
  f.segment(o + 7, fx->n_elastic()) -= fx->K * eta + fx->D * eta_d;
}

double FlexibleBodyModel::gravity_work(const Vec& q, int o, const Vec3& g) const {
  // g·(m r + A s(η)), s = m c + S η
  const auto& inv = body_.flex->invariants;
  const Vec3 first = inv.mass * inv.com + inv.S * q.segment(o + 7, n_elastic());
  return g.dot(inv.mass * q.segment<3>(o) + rotation(Vec4(q.segment<4>(o + 3))) * first);
}

double FlexibleBodyModel::strain_energy(const Vec& q, int o) const {
  const Vec eta = q.segment(o + 7, n_elastic());
  return 0.5 * eta.dot(body_.flex->K * eta);
}

double FlexibleBodyModel::dissipation(const Vec& v, int o) const { // modal damping
  const Vec eta_d = v.segment(o + 7, n_elastic());
  return eta_d.dot(body_.flex->D * eta_d);
}

void FlexibleBodyModel::add_stiffness_damping(const Vec& /*q*/, int o, double ck, double cd, Eigen::Ref<Mat> out) const {
  const int e = o + 7, ne = n_elastic();
  out.block(e, e, ne, ne) += ck * body_.flex->K + cd * body_.flex->D;
}

Vec FlexibleBodyModel::strain_amplitudes(const Vec& eta) const { return Vec(body_.flex->V * eta); }

std::unique_ptr<BodyModel> make_body_model(const RigidBody& body) {
  if (body.planar) return std::make_unique<PlanarBodyModel>(body);
  if (!body.flex) return std::make_unique<RigidBodyModel>(body);
  if (body.flex->gcms) return std::make_unique<GcmsBodyModel>(body);
  if (body.flex->gs) return std::make_unique<GsBodyModel>(body);
  if (body.flex->gs3d) return std::make_unique<Gs3dBodyModel>(body);
  return std::make_unique<FlexibleBodyModel>(body);
}

} // namespace flexuq::mbs
