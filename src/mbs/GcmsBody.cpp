// SPDX-License-Identifier: MIT
#include "flexuq/mbs/GcmsBody.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Force.hpp"

#include <cmath>

namespace flexuq::mbs {

namespace {

constexpr char kXyz[] = {'x', 'y', 'z'};

/// Â y (or Âᵀ y with @p transpose): A on every triple.
Eigen::VectorXd apply_blocks(const Mat3& a, const Eigen::VectorXd& y, bool transpose) {
  Eigen::VectorXd out(y.size());
  for (Eigen::Index c = 0; c < y.size(); c += 3)
    out.segment<3>(c) = transpose ? Vec3(a.transpose() * y.segment<3>(c)) : Vec3(a * y.segment<3>(c));
  return out;
}

/// Write the translation amplitudes @p t and the rotation amplitudes q_r[3k + l] = m(l, k) into @p q
/// (GcmsData's column layout); the other entries are left as they are.
void put_rigid(Eigen::VectorXd& q, const GcmsData& g, const Vec3& t, const Mat3& m) {
  for (int l = 0; l < 3; ++l) q(g.translation[static_cast<std::size_t>(l)]) = t(l);
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) q(g.rotation[static_cast<std::size_t>(3 * k + l)]) = m(l, k);
}

} // namespace

GcmsData gcms_layout(const std::vector<std::string>& labels, const Eigen::MatrixXd& K, const Eigen::MatrixXd& rows,
                     const Vec3& x, const std::string& source) {
  const auto n = static_cast<Eigen::Index>(labels.size());
  FLEXUQ_REQUIRE(n > 0 && n % 3 == 0 && K.rows() == n && K.cols() == n && rows.rows() == 3 && rows.cols() == n,
                 source << ": a GCMS body needs 3 x fields columns with K (" << K.rows() << "x" << K.cols()
                        << ") and the basis rows (" << rows.rows() << "x" << rows.cols() << ") of that size, got "
                        << n << " labels");
  GcmsData g;
  g.K = 0.5 * (K + K.transpose());
  std::array<bool, 9> have{};
  for (Eigen::Index c = 0; c < n; c += 3) {
    const std::string field = labels[static_cast<std::size_t>(c)].substr(0, labels[static_cast<std::size_t>(c)].size() - 1);
    for (int l = 0; l < 3; ++l) {
      const std::string& s = labels[static_cast<std::size_t>(c + l)];
      FLEXUQ_REQUIRE(s.size() >= 2 && s.back() == kXyz[l] && s.substr(0, s.size() - 1) == field,
                     source << ": column " << c + l << " ('" << s << "') breaks the GCMS triples (expected '" << field
                            << kXyz[l] << "'): not a method: gcms body");
    }
    if (field == "t_") {
      for (int l = 0; l < 3; ++l) g.translation[static_cast<std::size_t>(l)] = static_cast<int>(c + l);
    } else if (field.size() == 3 && field.rfind("r_", 0) == 0) {
      for (int k = 0; k < 3; ++k)
        if (field[2] == kXyz[k])
          for (int l = 0; l < 3; ++l) {
            g.rotation[static_cast<std::size_t>(3 * k + l)] = static_cast<int>(c + l);
            have[static_cast<std::size_t>(3 * k + l)] = true;
          }
    }
  }
  FLEXUQ_REQUIRE(g.translation[0] >= 0, source << ": the GCMS basis has no translation field t (columns t_x, t_y, t_z)");
  for (bool h : have) FLEXUQ_REQUIRE(h, source << ": the GCMS basis lacks one of the rotation fields r_x, r_y, r_z");
  // The translation columns are s_t e_l at every node, the rotation columns (x_k − o_k) e_l.
  const double st = rows(0, g.translation[0]);
  const double tol = 1e-9 * std::max(1.0, x.norm());
  for (int l = 0; l < 3; ++l)
    for (int r = 0; r < 3; ++r) {
      const double want = r == l ? st : 0.0;
      FLEXUQ_REQUIRE(std::abs(rows(r, g.translation[static_cast<std::size_t>(l)]) - want) <= 1e-9 * std::abs(st),
                     source << ": the translation column t_" << kXyz[l] << " is not a constant field");
    }
  FLEXUQ_REQUIRE(st > 0, source << ": the translation fields are zero");
  g.translation_scale = st;
  for (int k = 0; k < 3; ++k) {
    g.origin(k) = x(k) - rows(0, g.rotation[static_cast<std::size_t>(3 * k)]);
    for (int l = 0; l < 3; ++l)
      for (int r = 0; r < 3; ++r) {
        const double want = r == l ? x(k) - g.origin(k) : 0.0;
        FLEXUQ_REQUIRE(std::abs(rows(r, g.rotation[static_cast<std::size_t>(3 * k + l)]) - want) <= tol,
                       source << ": the rotation column r_" << kXyz[k] << kXyz[l]
                              << " is not the unscaled coordinate field x_" << kXyz[k] << " - o");
      }
  }
  return g;
}

GcmsRotation gcms_rotation(const Eigen::Ref<const Eigen::VectorXd>& q, const GcmsData& g) {
  Vec3 d[3];
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) d[k](l) = q(g.rotation[static_cast<std::size_t>(3 * k + l)]) + (k == l ? 1.0 : 0.0);
  // Gram–Schmidt in the order d_0, d_1, d_2 and its differential (one direction per q_r[m]).
  const double n0 = d[0].norm();
  FLEXUQ_REQUIRE(n0 > 1e-8, "GCMS body: the rotation coordinates have collapsed (|d_0| = " << n0 << ")");
  const Vec3 a0 = d[0] / n0;
  const Vec3 w1 = d[1] - a0.dot(d[1]) * a0;
  const double n1 = w1.norm();
  FLEXUQ_REQUIRE(n1 > 1e-8 * d[1].norm() && n1 > 1e-12, "GCMS body: d_0 and d_1 are parallel (the body has collapsed)");
  const Vec3 a1 = w1 / n1;
  const Vec3 w2 = d[2] - a0.dot(d[2]) * a0 - a1.dot(d[2]) * a1;
  const double n2 = w2.norm();
  FLEXUQ_REQUIRE(n2 > 1e-8 * d[2].norm() && n2 > 1e-12, "GCMS body: d_2 lies in the plane of d_0, d_1 (the body has collapsed)");
  const Vec3 a2 = w2 / n2;
  GcmsRotation out;
  out.A.col(0) = a0;
  out.A.col(1) = a1;
  out.A.col(2) = a2;
  const Mat3 p0 = Mat3::Identity() - a0 * a0.transpose(), p1 = Mat3::Identity() - a1 * a1.transpose(),
             p2 = Mat3::Identity() - a2 * a2.transpose();
  for (int m = 0; m < 9; ++m) {
    Vec3 dd[3] = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
    dd[m / 3](m % 3) = 1.0;
    const Vec3 da0 = p0 * dd[0] / n0;
    const Vec3 dw1 = dd[1] - (da0.dot(d[1]) + a0.dot(dd[1])) * a0 - a0.dot(d[1]) * da0;
    const Vec3 da1 = p1 * dw1 / n1;
    const Vec3 dw2 = dd[2] - (da0.dot(d[2]) + a0.dot(dd[2])) * a0 - a0.dot(d[2]) * da0 -
                     (da1.dot(d[2]) + a1.dot(dd[2])) * a1 - a1.dot(d[2]) * da1;
    const Vec3 da2 = p2 * dw2 / n2;
    out.dA[static_cast<std::size_t>(m)].col(0) = da0;
    out.dA[static_cast<std::size_t>(m)].col(1) = da1;
    out.dA[static_cast<std::size_t>(m)].col(2) = da2;
  }
  return out;
}

Eigen::VectorXd gcms_rigid_part(const Eigen::VectorXd& q, const GcmsData& g, const GcmsRotation& rot) {
  Eigen::VectorXd r = Eigen::VectorXd::Zero(q.size());
  const Vec3 t(q(g.translation[0]), q(g.translation[1]), q(g.translation[2]));
  put_rigid(r, g, t, rot.A - Mat3::Identity());
  return r;
}

Eigen::VectorXd gcms_corotated(const Eigen::VectorXd& q, const GcmsData& g) {
  const GcmsRotation rot = gcms_rotation(q, g);
  return apply_blocks(rot.A, q - gcms_rigid_part(q, g, rot), true);
}

double gcms_strain_energy(const Eigen::VectorXd& q, const GcmsData& g) {
  const Eigen::VectorXd u = gcms_corotated(q, g);
  return 0.5 * u.dot(g.K * u);
}

Eigen::VectorXd gcms_internal_force(const Eigen::VectorXd& q, const GcmsData& g) {
  const GcmsRotation rot = gcms_rotation(q, g);
  const Eigen::VectorXd qflx = q - gcms_rigid_part(q, g, rot);
  const Eigen::VectorXd y = g.K * apply_blocks(rot.A, qflx, true); // K̂ Âᵀ q_flx
  Eigen::VectorXd f = apply_blocks(rot.A, y, false);
  // f̂_nl (Eq. 59): component q_r[m] is Σ_triples y_jᵀ (∂A/∂q_m)ᵀ q_flx,j.
  for (int m = 0; m < 9; ++m) {
    const Mat3& da = rot.dA[static_cast<std::size_t>(m)];
    double s = 0;
    for (Eigen::Index c = 0; c < q.size(); c += 3) s += (da * y.segment<3>(c)).dot(qflx.segment<3>(c));
    f(g.rotation[static_cast<std::size_t>(m)]) += s;
  }
  return f;
}

Eigen::MatrixXd gcms_tangent(const Eigen::VectorXd& q, const GcmsData& g) {
  const Mat3 a = gcms_rotation(q, g).A;
  const Eigen::Index n = q.size();
  Eigen::MatrixXd t(n, n);
  for (Eigen::Index i = 0; i < n; i += 3)
    for (Eigen::Index j = 0; j < n; j += 3) t.block<3, 3>(i, j) = a * g.K.block<3, 3>(i, j) * a.transpose();
  return t;
}

double gcms_eq57_residual(const Eigen::VectorXd& q, const GcmsData& g) {
  const GcmsRotation rot = gcms_rotation(q, g);
  const Eigen::VectorXd qflx = q - gcms_rigid_part(q, g, rot);
  const double scale = g.K.norm() * qflx.squaredNorm();
  if (scale == 0.0) return 0.0;
  const Eigen::VectorXd y = apply_blocks(rot.A, g.K * apply_blocks(rot.A, qflx, true), false); // Â K̂ Âᵀ q_flx
  // ∂q_rig/∂q: identity on the translations; ∂q_r*[3k+l]/∂q_r[m] = dA[m](l, k) on the rotations.
  Eigen::VectorXd r = Eigen::VectorXd::Zero(q.size());
  for (int l = 0; l < 3; ++l) r(g.translation[static_cast<std::size_t>(l)]) = y(g.translation[static_cast<std::size_t>(l)]);
  for (int m = 0; m < 9; ++m) {
    double s = 0;
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l) s += y(g.rotation[static_cast<std::size_t>(3 * k + l)]) * rot.dA[static_cast<std::size_t>(m)](l, k);
    r(g.rotation[static_cast<std::size_t>(m)]) = s;
  }
  return r.norm() / scale;
}

Eigen::VectorXd gcms_pose(const GcmsData& g, const Vec3& R0, const Mat3& A0) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(g.n());
  put_rigid(q, g, (R0 + (A0 - Mat3::Identity()) * g.origin) / g.translation_scale, A0 - Mat3::Identity());
  return q;
}

Eigen::VectorXd gcms_pose_rates(const GcmsData& g, const Mat3& A0, const Vec3& com, const Vec3& v_com, const Vec3& omega) {
  Eigen::VectorXd qd = Eigen::VectorXd::Zero(g.n());
  put_rigid(qd, g, (v_com + omega.cross(A0 * (g.origin - com))) / g.translation_scale, skew(omega) * A0);
  return qd;
}

// ---- the GCMS body in a System ----

GcmsBodyModel::GcmsBodyModel(RigidBody body) : FlexibleBodyModel(std::move(body)) {
  const auto& g = gcms();
  FLEXUQ_REQUIRE(g.n() == body_.flex->n_elastic(), "body '" << body_.name << "': the GCMS layout does not match its elastic data");
  const Mat3 a0 = rotation(body_.orientation);
  eta0_ = gcms_pose(g, body_.position, a0);
  eta_rate0_ = gcms_pose_rates(g, a0, body_.flex->invariants.com, body_.velocity, body_.angular_velocity);
}

void GcmsBodyModel::initial_coordinates(Vec& q, int o) const { // the frame is global, the pose is in the amplitudes
  q.segment<4>(o + 3) = Vec4(1, 0, 0, 0);
  q.segment(o + 7, eta0_.size()) = eta0_;
}

void GcmsBodyModel::initial_rates(Vec& v, int o) const { v.segment(o + 7, eta_rate0_.size()) = eta_rate0_; }

void GcmsBodyModel::subtract_elastic_force(const Vec& eta, const Vec& /*eta_d*/, int o, Vec& f) const {
  f.segment(o + 7, n_elastic()) -= gcms_internal_force(eta, gcms()); // Eq. 58: Â K̂ Âᵀ q_flx + f̂_nl
}

double GcmsBodyModel::strain_energy(const Vec& q, int o) const {
  const Vec eta = q.segment(o + 7, n_elastic());
  return gcms_strain_energy(eta, gcms());
}

void GcmsBodyModel::add_stiffness_damping(const Vec& q, int o, double ck, double /*cd*/, Eigen::Ref<Mat> out) const {
  const int e = o + 7, ne = n_elastic();
  out.block(e, e, ne, ne) += ck * gcms_tangent(q.segment(e, ne), gcms()); // Eq. 69's Â K̂ Âᵀ
}

Vec GcmsBodyModel::strain_amplitudes(const Vec& eta) const { return gcms_corotated(eta, gcms()); }

void GcmsBodyModel::check_point(const Vec3& s, const Attachment* at, const std::string& who) const {
  FLEXUQ_REQUIRE(at, who << ": body '" << body_.name << "' is a GCMS body: give the interface the point is on");
  const double tol = 1e-9 * std::max(1.0, at->ref.norm());
  FLEXUQ_REQUIRE((s - at->ref).norm() <= tol,
                 who << ": on the GCMS body '" << body_.name << "' a point must be its interface's reference point "
                      << "(the mean of the set's nodes, mesh frame [" << at->ref.transpose() << "], i.e. that point placed by "
                      << "the body's pose), " << (s - at->ref).norm() << " m away here: a GCMS body's points are linear "
                      << "in its coordinates only there (seed 001: constraints G c on node translations)");
}

void GcmsBodyModel::check_axis(const std::string& who) const {
  throw InputError(FLEXUQ_MSG(who << " needs an axis fixed in the GCMS body '" << body_.name
                                << "', which has none (its rotation is not linear in its coordinates): GCMS bodies take "
                                   "point constraints (spherical, distance, and point-on-line, revolute-2d, point-on-line-2d, "
                                   "dot2 or translation-driver with the GCMS body second); hold an axis with two spherical "
                                   "joints"));
}

void GcmsBodyModel::check_load(const ForceSpec& f, bool acted_on, const std::string& who) const {
  FLEXUQ_REQUIRE(f.type == ForceType::gravity || (f.type == ForceType::force && acted_on),
                 who << " on the GCMS body '" << body_.name
                     << "': a GCMS body takes gravity and forces at an interface's reference point (its frame is "
                        "held, and torques, springs and dampers need its rotation)");
}

void GcmsBodyModel::check_force(const ForceSpec& f) const {
  FLEXUQ_REQUIRE(!f.interface.empty(), "a force on the GCMS body '" << body_.name << "' needs the interface it acts at");
  FLEXUQ_REQUIRE(!f.body_frame, "a force on the GCMS body '" << body_.name << "' takes a global direction (frame: body "
                 "would need its rotation, which is not linear in its coordinates)");
}

} // namespace flexuq::mbs
