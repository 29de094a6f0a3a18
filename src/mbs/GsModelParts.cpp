// SPDX-License-Identifier: MIT
#include "flexuq/mbs/GsModelParts.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Force.hpp"
#include "flexuq/mbs/GsBody.hpp"

#include <algorithm>

namespace flexuq::mbs {

namespace gs_parts {

std::shared_ptr<FlexibleData> flexible_data(int n, const std::string& source) {
  auto d = std::make_shared<FlexibleData>();
  d->source = source;
  d->K = Mat::Zero(n, n);
  d->D = Mat::Zero(n, n);
  d->V = Mat::Zero(0, n);
  return d;
}

Mat mass(const GsData& d, const FrameState& s) {
  const Mat m = s.J.transpose() * cms::generalized_mass(d.invariants, s.xi) * s.J;
  return 0.5 * (m + m.transpose());
}

Vec quadratic_velocity(const GsData& d, const FrameState& s) {
  const auto c = cms::contract(d.invariants, s.xi);
  const Vec qv = cms::quadratic_velocity(d.invariants, c, s.xi_dot, s.omega);
  return s.J.transpose() * (cms::generalized_mass_times(d.invariants, c, s.kappa) - qv);
}

Vec elastic_force(const GsData& d, const FrameState& s) {
  return s.J.bottomRows(d.n_kept()).transpose() * (d.K * s.xi);
}

} // namespace gs_parts

GsBodyModelBase::GsBodyModelBase(RigidBody body, std::shared_ptr<const GsData> gs)
    : BodyModel(std::move(body)), gs_(std::move(gs)) {
  FLEXUQ_REQUIRE(gs_, "body '" << body_.name << "' has no GS data");
}

// The held frame (r, p): a regular placeholder mass m·1 (the fixed joint `<body>.frame` holds it).
void GsBodyModelBase::mass_times(const Vec& q, const Vec& a, int o, Vec& out) const {
  const int n = n_elastic();
  out.segment(o, 7) = gs_->invariants.mass * a.segment(o, 7);
  out.segment(o + 7, n) = gs_parts::mass(*gs_, frame_state(q.segment(o + 7, n), Vec())) * a.segment(o + 7, n);
}

void GsBodyModelBase::mass_into(const Vec& q, int o, double scale, Eigen::Ref<Mat> mm) const {
  const int n = n_elastic();
  mm.block(o, o, 7, 7).diagonal().array() += scale * gs_->invariants.mass;
  mm.block(o + 7, o + 7, n, n) += scale * gs_parts::mass(*gs_, frame_state(q.segment(o + 7, n), Vec()));
}

Mat GsBodyModelBase::constant_mass_block() const { return gs_->invariants.mass * Mat::Identity(7, 7); }

void GsBodyModelBase::add_body_forces(const Vec& q, const Vec& v, int o, const Vec3& g_sum, bool qv_terms,
                                      Vec& f) const {
  const int n = n_elastic();
  const auto s = frame_state(q.segment(o + 7, n), v.segment(o + 7, n));
  Vec w = cms::gravity_force(gs_->invariants, s.xi, s.R.transpose() * g_sum);
  w.tail(gs_->n_kept()) -= gs_->K * s.xi;
  if (qv_terms) {
    const auto c = cms::contract(gs_->invariants, s.xi);
    w += cms::quadratic_velocity(gs_->invariants, c, s.xi_dot, s.omega) -
         cms::generalized_mass_times(gs_->invariants, c, s.kappa);
  }
  f.segment(o + 7, n) += s.J.transpose() * w;
}

double GsBodyModelBase::gravity_work(const Vec& q, int o, const Vec3& g) const {
  const auto s = frame_state(q.segment(o + 7, n_elastic()), Vec());
  const auto& inv = gs_->invariants;
  return g.dot(inv.mass * s.r + s.R * (inv.mass * inv.com + inv.S * s.xi));
}

double GsBodyModelBase::strain_energy(const Vec& q, int o) const {
  const auto s = frame_state(q.segment(o + 7, n_elastic()), Vec());
  return 0.5 * s.xi.dot(gs_->K * s.xi);
}

void GsBodyModelBase::add_stiffness_damping(const Vec& q, int o, double ck, double /*cd*/, Eigen::Ref<Mat> out) const {
  const int n = n_elastic();
  const auto s = frame_state(q.segment(o + 7, n), Vec());
  const auto Jf = s.J.bottomRows(gs_->n_kept());
  out.block(o + 7, o + 7, n, n) += ck * (Jf.transpose() * gs_->K * Jf);
}

void GsBodyModelBase::check_point(const Vec3& s, const Attachment* at, const std::string& who) const {
  FLEXUQ_REQUIRE(at, who << ": body '" << body_.name << "' is a gs body: give the interface point the point is on");
  const double tol = 1e-9 * std::max(1.0, at->ref.norm());
  FLEXUQ_REQUIRE((s - at->ref).norm() <= tol,
                 who << ": on the gs body '" << body_.name << "' a point must be its interface point (mesh frame ["
                     << at->ref.transpose() << "], i.e. that point placed by the body's pose), " << (s - at->ref).norm()
                     << " m away here: a gs body's coordinates are those of its interface points");
}

void GsBodyModelBase::check_load(const ForceSpec& f, bool acted_on, const std::string& who) const {
  FLEXUQ_REQUIRE(f.type == ForceType::gravity || (f.type == ForceType::force && acted_on),
                 who << " on the gs body '" << body_.name
                     << "': a gs body takes gravity and forces at an interface point (torques, springs and dampers "
                        "on it are not available)");
}

void GsBodyModelBase::check_force(const ForceSpec& f) const {
  FLEXUQ_REQUIRE(!f.interface.empty(),
                 "a force on the gs body '" << body_.name << "' needs the interface point it acts at");
  FLEXUQ_REQUIRE(!f.body_frame, "a force on the gs body '" << body_.name << "' takes a global direction");
}

} // namespace flexuq::mbs
