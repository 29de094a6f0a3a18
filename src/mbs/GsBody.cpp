// SPDX-License-Identifier: MIT
#include "flexuq/mbs/GsBody.hpp"

#include "flexuq/cms/GsSplitBody.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/mbs/Force.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace flexuq::mbs {

namespace {

int component_index(const std::string& c) {
  static const char* names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
  for (int k = 0; k < 6; ++k)
    if (c == names[k]) return k;
  return -1;
}

Mat3 rot_z(double a) {
  Mat3 r = Mat3::Identity();
  r(0, 0) = r(1, 1) = std::cos(a);
  r(1, 0) = std::sin(a);
  r(0, 1) = -r(1, 0);
  return r;
}

/// ẑ × a.
Vec3 zcross(const Vec3& a) { return Vec3(-a.y(), a.x(), 0.0); }

} // namespace

std::shared_ptr<GsData> make_gs_data(const cms::ReducedBody& body, const std::string& frame, const std::string& source,
                                     double stiffness_scale) {
  // A basis without physical interface coordinates (Hurty, Hintz, Craig–Chang): the body in the
  // coordinates {q_IP; η} of the split flexuq reduce wrote (/reduced/gs, cms/GsSplitBody.hpp).
  if (cms::uses_gs_split(body)) return make_gs_data(cms::gs_split_body(body, source), frame, source, stiffness_scale);
  const auto n = static_cast<int>(body.K.rows());
  FLEXUQ_REQUIRE(static_cast<int>(body.dof_labels.size()) == n && static_cast<int>(body.column_kinds.size()) == n,
                 source << ": /reduced labels and kinds do not fit K");
  // The interface points: the physical boundary columns `REF <SET> <c>` (RBE2/RBE3 reference points).
  std::map<std::string, std::array<int, 6>> cols;
  for (int j = 0; j < n; ++j) {
    std::istringstream is(body.dof_labels[static_cast<std::size_t>(j)]);
    std::vector<std::string> w;
    for (std::string t; is >> t;) w.push_back(t);
    const auto& kind = body.column_kinds[static_cast<std::size_t>(j)];
    const bool ref = w.size() == 3 && w[0] == "REF" && component_index(w[2]) >= 0;
    if (kind == "constraint_mode" || (kind == "boundary_dof" && !ref))
      throw InputError(source + ": column " + std::to_string(j) + " ('" + body.dof_labels[static_cast<std::size_t>(j)] +
                       "', kind " + kind + ") is not a reference point's physical coordinate: a gs body needs a basis "
                       "that keeps its interfaces as RBE2/RBE3 reference points with physical coordinates (reduce.method "
                       "craig-bampton, guyan, herting or rubin-martinez with kind: rbe2 or rbe3 interfaces), or a file "
                       "with the split of its basis, /reduced/gs (reduce the body again)");
    if (!ref) continue;
    auto [it, fresh] = cols.try_emplace(w[1]);
    if (fresh) it->second.fill(-1);
    it->second[static_cast<std::size_t>(component_index(w[2]))] = j;
  }
  FLEXUQ_REQUIRE(cols.size() >= 1, source << ": the body has no interface reference points (a gs body moves by them)");
  auto d = std::make_shared<GsData>();
  std::vector<int> point_col(static_cast<std::size_t>(n), -1), comp_col(static_cast<std::size_t>(n), -1);
  std::string list;
  for (const auto& [name_, c_] : cols) {
    const std::string& name = name_; // plain references: clang cannot capture a structured binding in FLEXUQ_MSG's lambda
    const auto& c = c_;
    list += (list.empty() ? "" : ", ") + name;
    static const char* comp[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
    for (int k = 0; k < 6; ++k)
      FLEXUQ_REQUIRE(c[static_cast<std::size_t>(k)] >= 0, source << ": interface " << name << " lacks its coordinate "
                                                                 << comp[k] << ": a gs interface point has 6 coordinates");
    const auto pt = body.interface_points.find(name);
    FLEXUQ_REQUIRE(pt != body.interface_points.end(),
                   source << ": /reduced/interface_points has no point for " << name << " (reduce the body again)");
    for (int k = 0; k < 6; ++k) {
      point_col[static_cast<std::size_t>(c[static_cast<std::size_t>(k)])] = d->n_points();
      comp_col[static_cast<std::size_t>(c[static_cast<std::size_t>(k)])] = k;
    }
    d->points.push_back(name);
    d->X.emplace_back(pt->second[0], pt->second[1], pt->second[2]);
  }
  const auto fit = std::find(d->points.begin(), d->points.end(), frame);
  if (fit == d->points.end())
    throw OptionError("interface", "{}").wrapped(source + ": frame.interface " + frame +
                                                 " is not an interface point of the body (" + list + "): ");
  d->frame = static_cast<int>(fit - d->points.begin());
  for (int j = 0; j < n; ++j) {
    const int p = point_col[static_cast<std::size_t>(j)];
    if (p == d->frame) continue; // point k's columns: zero (the frame condition)
    d->columns.push_back(j);
    d->point_of.push_back(p);
    d->component_of.push_back(comp_col[static_cast<std::size_t>(j)]);
    const double s = body.column_scale.size() == n ? body.column_scale(j) : 1.0;
    FLEXUQ_REQUIRE(s != 0.0 && std::isfinite(s), source << ": column " << j << " has scale " << s);
    // The physical DOF is s ξ (FlexibleBody.hpp); an internal coordinate is ξ itself.
    d->scale.conservativeResize(d->n_kept());
    d->scale(d->n_kept() - 1) = p >= 0 ? 1.0 / s : 1.0;
    d->internal.push_back(p >= 0 ? -1 : d->n_internal++);
  }
  const auto nk = static_cast<Eigen::Index>(d->n_kept());
  Mat P = Mat::Zero(n, nk);
  for (Eigen::Index c = 0; c < nk; ++c) P(d->columns[static_cast<std::size_t>(c)], c) = 1.0;
  d->invariants = cms::transform_invariants(body.invariants, P);
  const Mat kk = P.transpose() * body.K * P;
  d->K = 0.5 * (kk + kk.transpose()) * stiffness_scale;
  // With point k held the body must be held: no zero-energy mode left (else M(ξ) or the frame fails).
  cms::ElasticCoordinates e;
  try {
    e = cms::elastic_coordinates(d->K, P.transpose() * body.M * P);
  } catch (const Error& err) {
    throw InputError(source + ": with " + frame + " as the frame the body is not held: " + err.what());
  }
  FLEXUQ_REQUIRE(e.rigid == 0, source << ": with " << frame << " as the frame the body keeps " << e.rigid
                                      << " zero-energy modes");
  return d;
}

std::shared_ptr<FlexibleData> gs_flexible_data(std::shared_ptr<const GsData> gs, const std::string& source) {
  const int n = gs->n();
  auto d = gs_parts::flexible_data(n, source);
  for (int i = 0; i < gs->n_points(); ++i) {
    Attachment at;
    at.ref = gs->X[static_cast<std::size_t>(i)];
    at.translation = Mat::Zero(3, n);
    at.rotation = Mat::Zero(3, n);
    at.translation(0, 3 * i) = at.translation(1, 3 * i + 1) = 1.0;
    at.rotation(2, 3 * i + 2) = 1.0;
    d->interfaces[gs->points[static_cast<std::size_t>(i)]] = at;
  }
  d->gs = std::move(gs);
  return d;
}

GsKinematics gs_kinematics(const GsData& d, const Vec& g, const Vec& gd) {
  const int np = d.n_points(), n = d.n(), nf = d.n_kept(), k = d.frame;
  const bool rates = gd.size() == n;
  GsKinematics s;
  const double th = g(3 * k + 2);
  s.R = rot_z(th);
  s.omega = rates ? gd(3 * k + 2) : 0.0;
  const Vec3 Xk = d.X[static_cast<std::size_t>(k)];
  auto x = [&](int i) { return Vec3(d.X[static_cast<std::size_t>(i)] + Vec3(g(3 * i), g(3 * i + 1), 0.0)); };
  auto xd = [&](int i) { return rates ? Vec3(gd(3 * i), gd(3 * i + 1), 0.0) : Vec3(Vec3::Zero()); };
  const Vec3 xk = x(k);
  s.r = xk - s.R * Xk;
  const Vec3 ex = s.R.transpose().col(0), ey = s.R.transpose().col(1); // Rᵀe_x, Rᵀe_y
  s.J = Mat::Zero(6 + nf, n);
  s.kappa = Vec::Zero(6 + nf);
  s.xi = Vec::Zero(nf);
  // Frame rows: v_O = Rᵀẋ_k − θ̇_k ẑ × X_k, ω = θ̇_k ẑ; the inertial a_O = Rᵀr̈ has κ = θ̇² [X_k,x, X_k,y, 0].
  s.J.block(0, 3 * k, 3, 1) = ex;
  s.J.block(0, 3 * k + 1, 3, 1) = ey;
  s.J.block(0, 3 * k + 2, 3, 1) = -zcross(Xk);
  s.J(5, 3 * k + 2) = 1.0;
  s.kappa.head<3>() = s.omega * s.omega * Vec3(Xk.x(), Xk.y(), 0.0);
  std::vector<Vec3> dp(static_cast<std::size_t>(np)), dv(static_cast<std::size_t>(np));
  for (int i = 0; i < np; ++i) {
    dp[static_cast<std::size_t>(i)] = s.R.transpose() * (x(i) - xk);
    dv[static_cast<std::size_t>(i)] = s.R.transpose() * (xd(i) - xd(k));
  }
  for (int c = 0; c < nf; ++c) {
    const int row = 6 + c, p = d.point_of[static_cast<std::size_t>(c)], m = d.component_of[static_cast<std::size_t>(c)];
    const double sc = d.scale(c);
    if (p < 0) { // internal coordinate
      const int col = 3 * np + d.internal[static_cast<std::size_t>(c)];
      s.J(row, col) = sc;
      s.xi(c) = sc * g(col);
      continue;
    }
    const Vec3& dpi = dp[static_cast<std::size_t>(p)];
    if (m < 3) { // u_i = Rᵀ(x_i − x_k) + X_k − X_i
      const Vec3 u = dpi + Xk - d.X[static_cast<std::size_t>(p)];
      s.xi(c) = sc * u(m);
      s.J(row, 3 * p) += sc * ex(m);
      s.J(row, 3 * p + 1) += sc * ey(m);
      s.J(row, 3 * k) -= sc * ex(m);
      s.J(row, 3 * k + 1) -= sc * ey(m);
      s.J(row, 3 * k + 2) -= sc * zcross(dpi)(m);
      // ü = J g̈ − 2 θ̇ ẑ × Rᵀ(ẋ_i − ẋ_k) − θ̇² (in-plane part of Rᵀ(x_i − x_k)).
      const Vec3 kap = -2.0 * s.omega * zcross(dv[static_cast<std::size_t>(p)]) -
                       s.omega * s.omega * Vec3(dpi.x(), dpi.y(), 0.0);
      s.kappa(row) = sc * kap(m);
    } else if (m == 5) { // θ_i − θ_k
      s.xi(c) = sc * (g(3 * p + 2) - th);
      s.J(row, 3 * p + 2) += sc;
      s.J(row, 3 * k + 2) -= sc;
    } // rx, ry: out of the plane, 0
  }
  s.xi_dot = rates ? Vec(s.J.bottomRows(nf) * gd) : Vec(Vec::Zero(nf));
  return s;
}

namespace {
/// The frame state gs_parts (mbs/GsModelParts.hpp) evaluates, shared with the 3-D body.
gs_parts::FrameState frame(GsKinematics s) {
  return {s.R, s.r, std::move(s.xi), std::move(s.xi_dot), Vec3(0, 0, s.omega), std::move(s.J), std::move(s.kappa)};
}
} // namespace

Mat gs_body_mass(const GsData& d, const Vec& g) { return gs_parts::mass(d, frame(gs_kinematics(d, g, Vec()))); }

Vec gs_quadratic_velocity(const GsData& d, const Vec& g, const Vec& gd) {
  return gs_parts::quadratic_velocity(d, frame(gs_kinematics(d, g, gd)));
}

Vec gs_elastic_force(const GsData& d, const Vec& g) { return gs_parts::elastic_force(d, frame(gs_kinematics(d, g, Vec()))); }

double gs_strain_energy(const GsData& d, const Vec& g) {
  const auto s = gs_kinematics(d, g, Vec());
  return 0.5 * s.xi.dot(d.K * s.xi);
}

Vec gs_pose(const GsData& d, const Vec3& position, double angle) {
  Vec g = Vec::Zero(d.n());
  const Mat3 R = rot_z(angle);
  for (int i = 0; i < d.n_points(); ++i) {
    const Vec3 X = d.X[static_cast<std::size_t>(i)];
    const Vec3 x = position + R * X;
    g(3 * i) = x.x() - X.x();
    g(3 * i + 1) = x.y() - X.y();
    g(3 * i + 2) = angle;
  }
  return g;
}

Vec gs_pose_rates(const GsData& d, const Vec3& /*position*/, double angle, const Vec3& v, double omega) {
  Vec gd = Vec::Zero(d.n());
  const Mat3 R = rot_z(angle);
  for (int i = 0; i < d.n_points(); ++i) {
    const Vec3 xd = v + omega * zcross(R * d.X[static_cast<std::size_t>(i)]);
    gd(3 * i) = xd.x();
    gd(3 * i + 1) = xd.y();
    gd(3 * i + 2) = omega;
  }
  return gd;
}

// ---- the body in a System ----

GsBodyModel::GsBodyModel(RigidBody body) : GsBodyModelBase(body, body.flex ? body.flex->gs : nullptr) {
  const Vec4& p = body_.orientation;
  FLEXUQ_REQUIRE(std::abs(body_.position.z()) <= 1e-12 && std::abs(p(1)) <= 1e-12 && std::abs(p(2)) <= 1e-12 &&
                     std::abs(body_.velocity.z()) <= 1e-12 && body_.angular_velocity.head<2>().norm() <= 1e-12,
                 "body '" << body_.name << "' (gs) moves in the plane z = 0: its position and velocity need z = 0 and its "
                          "orientation and angular velocity a rotation about z");
  angle0_ = 2.0 * std::atan2(p(3), p(0));
}

void GsBodyModel::initial_coordinates(Vec& q, int o) const {
  q.segment<3>(o).setZero();
  q.segment<4>(o + 3) = Vec4(1, 0, 0, 0);
  q.segment(o + 7, gs_->n()) = gs_pose(*gs_, body_.position, angle0_);
}

void GsBodyModel::initial_rates(Vec& v, int o) const {
  v.segment(o, 7).setZero();
  v.segment(o + 7, gs_->n()) = gs_pose_rates(*gs_, body_.position, angle0_, body_.velocity, body_.angular_velocity.z());
}

gs_parts::FrameState GsBodyModel::frame_state(const Vec& g, const Vec& gd) const {
  return frame(gs_kinematics(*gs_, g, gd));
}

} // namespace flexuq::mbs
