// SPDX-License-Identifier: MIT
// System's loads: applied torques and forces, gravity, springs and rotational dampers (mbs/Force.hpp),
// with the bodies' own forces (BodyModel::add_body_forces), the energies and the power of the
// non-conservative forces, and the stiffness / damping part of the Newton iteration matrix.
#include "flexuq/mbs/System.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>

namespace flexuq::mbs {

void System::add_force(const ForceSpec& f) {
  force_input_.push_back(f);
  ForceSpec s = f;
  Vec3 l1 = Vec3::Zero(), l2 = Vec3::Zero();
  Mat L, R;
  double len = 0;
  who_ = std::string("a ") + (s.type == ForceType::torque ? "torque" : s.type == ForceType::force ? "force"
                              : s.type == ForceType::spring ? "spring" : s.type == ForceType::gravity ? "gravity load" : "damper");
  for (int b : {s.body, s.body2})
    if (b != kGround) models_[b]->check_load(s, b == s.body, who_); // a GCMS body: gravity and forces only
  if (s.type == ForceType::torque || s.type == ForceType::force) {
    FLEXUQ_REQUIRE(s.direction.norm() > 1e-12, "a " << (s.type == ForceType::torque ? "torque" : "force") << " needs a non-zero axis");
    s.direction.normalize();
    if (s.body_frame) s.direction = to_local_axis(s.body, s.direction);
    l1 = to_local_point(s.body, s.point);
    if (s.body != kGround) models_[s.body]->check_force(s); // a GCMS body: at an interface, a global direction
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

Vec3 System::damper_axis(const ForceSpec& s, const Vec& q) const {
  return s.body_frame && s.body != kGround ? Vec3(rotation(euler(q, s.body)) * s.direction) : s.direction;
}

double System::damper_rate(const ForceSpec& s, const Vec& q, const Vec& v) const {
  return damper_axis(s, q).dot(angular_velocity(q, v, s.body) - angular_velocity(q, v, s.body2));
}

void System::add_stiffness_damping(const Vec& q, double ck, double cd, Eigen::Ref<Mat> out) const {
  for (std::size_t b = 0; b < bodies_.size(); ++b) models_[b]->add_stiffness_damping(q, off_[b], ck, cd, out);
  force_rank_ones(q, ck, cd, [&](double w, const Eigen::RowVectorXd& g, int, int) { out += w * g.transpose() * g; });
}

void System::force_rank_ones(const Vec& q, double ck, double cd, const RankOneSink& add) const {
  // Springs: Q = −(k (l − l0) + c u·ḋ) u applied at both ends; the dominant part of its Jacobian is
  // k u uᵀ (and c u uᵀ for the rate) on the end points' coordinates, J_e = [1, B(p, s)] per end.
  // Rotational dampers: Q_p = 2Eᵀn with n = −c a aᵀ(ω_1 − ω_2), ω = 2Eṗ: ∂Q/∂ṗ = −c gᵀg with
  // g = aᵀ[2E_1, −2E_2] on the two bodies' Euler-parameter rates (the axis' own motion left out, as
  // the other omitted q-derivatives).
  for (const ForceSpec& s : forces_) {
    if (s.type != ForceType::rotational_damper || cd * s.damping == 0) continue;
    const Vec3 a = damper_axis(s, q);
    Eigen::RowVectorXd g = Eigen::RowVectorXd::Zero(n());
    if (s.body != kGround) layout_[s.body].add_p(g, Vec4(2.0 * e_matrix(euler(q, s.body)).transpose() * a));
    if (s.body2 != kGround) layout_[s.body2].add_p(g, Vec4(-2.0 * e_matrix(euler(q, s.body2)).transpose() * a));
    add(cd * s.damping, g, s.body, s.body2);
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
      layout_[b].add_r(g, Vec3(sign * u));
      layout_[b].add_p(g, Vec4(sign * b_matrix(euler(q, b), local).transpose() * u));
    };
    add_end(s.body2, force_local2_[k], 1.0);
    add_end(s.body, force_local_[k], -1.0);
    add(w, g, s.body, s.body2);
  }
}

Vec System::forces(const Vec& q, const Vec& v, double t) const {
  Vec f = Vec::Zero(n());
  // The bodies' own forces: quadratic velocity, elastic, and the gravity of distributed mass (flexible
  // bodies take the summed field; a rigid body each load below, in input order).
  Vec3 g_sum = Vec3::Zero();
  for (const auto& s : forces_)
    if (s.type == ForceType::gravity) g_sum += s.direction;
  for (std::size_t b = 0; b < bodies_.size(); ++b) models_[b]->add_body_forces(q, v, off_[b], g_sum, qv_terms_, f);
  auto apply_force = [&](int b, const Vec3& local, const Vec3& force, const Mat& L = Mat()) {
    if (b == kGround) return;
    const Vec4 p = euler(q, b);
    layout_[b].add_r(f, force);
    if (L.size() == 0) {
      layout_[b].add_p(f, Vec4(b_matrix(p, local).transpose() * force));
      return;
    }
    // A point that follows the interface: x = s + L η, velocity ṙ + B(p, x) ṗ + A L η̇.
    const int ne = static_cast<int>(L.cols());
    f.segment<4>(off_[b] + 3) += b_matrix(p, Vec3(local + L * q.segment(off_[b] + 7, ne))).transpose() * force;
    f.segment(off_[b] + 7, ne) += L.transpose() * (rotation(p).transpose() * force);
  };
  auto apply_torque = [&](int b, const Vec3& torque) { // global torque: Q_p = 2 Eᵀ n
    if (b == kGround) return;
    layout_[b].add_p(f, Vec4(2.0 * e_matrix(euler(q, b)).transpose() * torque));
  };
  for (std::size_t k = 0; k < forces_.size(); ++k) {
    const ForceSpec& s = forces_[k];
    switch (s.type) {
    case ForceType::gravity:
      for (std::size_t b = 0; b < bodies_.size(); ++b) models_[b]->add_gravity(s.direction, off_[b], f);
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

// M(q) v body by body (the dense M of a 1,600-body chain was 1 GB per output).
double System::kinetic_energy(const Vec& q, const Vec& v) const { return 0.5 * v.dot(mass_times(q, v)); }

double System::strain_energy(const Vec& q) const {
  double e = 0;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (models_[b]->n_elastic() > 0) e += models_[b]->strain_energy(q, off_[b]);
  return e;
}

double System::potential_energy(const Vec& q) const {
  double e = 0;
  for (std::size_t k = 0; k < forces_.size(); ++k) {
    const ForceSpec& s = forces_[k];
    if (s.type == ForceType::gravity)
      for (std::size_t b = 0; b < bodies_.size(); ++b) e -= models_[b]->gravity_work(q, off_[b], s.direction);
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
    if (models_[b]->n_elastic() > 0) p -= models_[b]->dissipation(v, off_[b]); // modal damping
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

} // namespace flexuq::mbs
