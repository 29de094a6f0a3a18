// SPDX-License-Identifier: MIT
// System, the facade: its bodies (one BodyModel each, mbs/Body.hpp), their coordinates and the mass
// matrix, point kinematics. Joints.cpp, Constraints.cpp and Forces.cpp hold the rest of it.
#include "flexuq/mbs/System.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>

namespace flexuq::mbs {

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
  RigidBody kept = b;
  kept.orientation.normalize();
  auto model = make_body_model(kept); // checks a flexible body's data
  off_.push_back(n_);
  FrameLayout fl;
  fl.o = n_;
  fl.planar = kept.planar;
  fl.z = kept.position.z();
  layout_.push_back(fl);
  if (fl.planar) rows_.set_planar(static_cast<int>(bodies_.size()), fl.z);
  n_ += model->n_coordinates();
  bodies_.push_back(std::move(kept));
  models_.push_back(std::move(model));
  const int id = static_cast<int>(bodies_.size()) - 1;
  if (models_.back()->frame_held()) {
    // The frame is the global frame: the body's own coordinates carry every motion (GCMS, seed 001 Eq. 58).
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
    if (const auto& fx = bodies_[static_cast<std::size_t>(id)].flex; fx && fx->gs3d) {
      // A 3-D GS body's interface Euler parameters p_i (mbs/GsBody3d.hpp): one norm row each,
      // |A(p_i) e_x|² − 1 = |p_i|⁴ − 1, among the frame joint's rows.
      for (const auto& [iface, at] : fx->interfaces) {
        const int u = rows_.add_vector(BodyVector{{{id, Vec3::UnitX(), 1.0, false, Mat(), at.euler}}});
        rows_.add_dot_row(static_cast<int>(joints_.size()) - 1, b.name + "." + iface + ".norm", u, u, 1.0);
        ++joint_rows_.back().second;
      }
    }
  }
  reset_active();
  return id;
}

void System::replace_flexible(int b, std::shared_ptr<const FlexibleData> d) {
  FLEXUQ_REQUIRE(b >= 0 && b < static_cast<int>(bodies_.size()) && bodies_[b].flex && d,
                 "replace_flexible: body " << b << " is not flexible");
  FLEXUQ_REQUIRE(d->n_elastic() == bodies_[b].flex->n_elastic(),
                 "body '" << bodies_[b].name << "': " << d->n_elastic() << " elastic coordinates instead of "
                          << bodies_[b].flex->n_elastic());
  RigidBody body = bodies_[b];
  body.flex = std::move(d);
  models_[b] = make_body_model(body);
  bodies_[b] = std::move(body);
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

Mat System::point_map(int b, const std::string& iface, const Vec3& s, const std::string& who) const {
  if (b == kGround || !bodies_[b].flex) return Mat();
  const Attachment& at = bodies_[b].flex->interface(iface, who);
  check_point(b, s, &at, who);
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

Vec System::initial_q() const {
  Vec q = Vec::Zero(n());
  for (std::size_t b = 0; b < bodies_.size(); ++b) models_[b]->initial_coordinates(q, off_[b]);
  return q;
}

Vec System::initial_v() const {
  Vec v = Vec::Zero(n());
  for (std::size_t b = 0; b < bodies_.size(); ++b) models_[b]->initial_rates(v, off_[b]);
  return v;
}

Mat System::mass(const Vec& q) const {
  Mat mm(n(), n());
  mass_into(q, 1.0, mm);
  return mm;
}

Vec System::mass_times(const Vec& q, const Vec& a) const {
  Vec out(n());
  for (std::size_t b = 0; b < bodies_.size(); ++b) models_[b]->mass_times(q, a, off_[b], out);
  return out;
}

void System::mass_into(const Vec& q, double scale, Eigen::Ref<Mat> mm) const {
  mm.topLeftCorner(n(), n()).setZero();
  for (std::size_t b = 0; b < bodies_.size(); ++b) models_[b]->mass_into(q, off_[b], scale, mm);
}

void System::normalise(Vec& q) const {
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const FrameLayout& fl = layout_[b];
    if (!fl.planar) {
      q.segment<4>(off_[b] + 3).normalize();
      continue;
    }
    const double s = std::hypot(q(fl.o + 2), q(fl.o + 3));
    q(fl.o + 2) /= s;
    q(fl.o + 3) /= s;
  }
}

Eigen::Matrix<double, 7, 1> System::pose(const Vec& q, int b, bool rate) const {
  Eigen::Matrix<double, 7, 1> out;
  out.head<3>() = rate ? origin_rate(q, b) : origin(q, b);
  out.tail<4>() = euler(q, b);
  return out;
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
  return origin_rate(v, b) + b_matrix(euler(q, b), s) * euler_rate(v, b);
}

Vec3 System::point_acceleration(const Vec& q, const Vec& v, const Vec& a, int b, const Vec3& s) const {
  if (b == kGround) return Vec3::Zero();
  const Vec4 pd = euler_rate(v, b);
  return origin_rate(a, b) + b_matrix(euler(q, b), s) * euler_rate(a, b) + b_matrix(pd, s) * pd;
}

} // namespace flexuq::mbs
