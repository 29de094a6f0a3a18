// SPDX-License-Identifier: MIT
#include "flexuq/mbs/ConstraintRows.hpp"

#include <cmath>

namespace flexuq::mbs {

std::array<double, 3> ConstraintRows::Coef::eval(double t) const {
  if (kind == one) return {1.0, 0.0, 0.0};
  const auto th = f->eval(t);
  const double s = std::sin(th[0]), c = std::cos(th[0]);
  // d/dt cos θ = −s θ', d²/dt² cos θ = −c θ'² − s θ''; for −sin θ: −c θ', s θ'² − c θ''.
  if (kind == cos_motion) return {c, -s * th[1], -c * th[1] * th[1] - s * th[2]};
  return {-s, -c * th[1], s * th[1] * th[1] - c * th[2]};
}

void ConstraintRows::set_planar(int b, double z) {
  if (static_cast<int>(plane_z_.size()) <= b) plane_z_.resize(static_cast<std::size_t>(b) + 1, std::nan(""));
  plane_z_[static_cast<std::size_t>(b)] = z;
}

FrameLayout ConstraintRows::layout(int b, const std::vector<int>& off) const {
  FrameLayout l;
  l.o = off[static_cast<std::size_t>(b)];
  if (b < static_cast<int>(plane_z_.size()) && !std::isnan(plane_z_[static_cast<std::size_t>(b)])) {
    l.planar = true;
    l.z = plane_z_[static_cast<std::size_t>(b)];
  }
  return l;
}

int ConstraintRows::add_vector(BodyVector bv) {
  vectors_.push_back(std::move(bv));
  return static_cast<int>(vectors_.size()) - 1;
}

int ConstraintRows::constant_vector(const Vec3& w) { return add_vector(BodyVector{{{kGround, w, 1.0, false}}}); }

const TimeFunction* ConstraintRows::keep(const TimeFunction& f) {
  motions_.push_back(f);
  return &motions_.back();
}

void ConstraintRows::add_row(Row r) { rows_.push_back(std::move(r)); }

void ConstraintRows::add_dot_row(int joint, const std::string& label, int u, int v, double phi0) {
  Row r;
  r.terms.push_back(Term{Coef{}, u, v});
  r.phi0 = phi0;
  r.joint = joint;
  r.label = label;
  rows_.push_back(std::move(r));
}

void ConstraintRows::vector_states(const Vec& q, const Vec* v, const std::vector<int>& off,
                                   std::vector<VecState>& out) const {
  out.resize(vectors_.size());
  for (std::size_t k = 0; k < vectors_.size(); ++k) {
    VecState s{Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
    for (const auto& pt : vectors_[k].parts) {
      if (pt.body == kGround) {
        s.w += pt.sign * pt.local;
        continue;
      }
      const FrameLayout fl = layout(pt.body, off);
      const int o = fl.o;
      if (pt.euler >= 0) { // A(p_e) a': ẇ = B(p_e, a') ṗ_e, convective part B(ṗ_e, a') ṗ_e
        const Vec4 pe = q.segment<4>(o + 7 + pt.euler);
        s.w += pt.sign * rotation(pe) * pt.local;
        if (v) {
          const Vec4 ped = v->segment<4>(o + 7 + pt.euler);
          s.wd += pt.sign * b_matrix(pe, pt.local) * ped;
          s.wc += pt.sign * b_matrix(ped, pt.local) * ped;
        }
        continue;
      }
      const Vec4 p = fl.p(q);
      const bool flex = pt.L.size() > 0;
      // x = s + L η (body frame); ẇ = B(p, x) ṗ + A L η̇, convective part B(ṗ, x) ṗ + 2 B(p, L η̇) ṗ.
      const Vec3 x = flex ? Vec3(pt.local + pt.L * q.segment(o + 7, pt.L.cols())) : pt.local;
      const Mat3 a = rotation(p);
      s.w += pt.sign * a * x;
      if (pt.point) s.w += pt.sign * fl.r(q);
      if (v) {
        const Vec4 pd = fl.p(*v);
        s.wd += pt.sign * b_matrix(p, x) * pd;
        if (pt.point) s.wd += pt.sign * fl.r_rate(*v);
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

void ConstraintRows::add_vector_jacobian(int vec, const Vec3& coeff, const Vec& q, const std::vector<int>& off,
                                         RowRef row) const {
  for (const auto& pt : vectors_[static_cast<std::size_t>(vec)].parts) {
    if (pt.body == kGround) continue;
    const FrameLayout fl = layout(pt.body, off);
    const int o = fl.o;
    if (pt.euler >= 0) {
      const Vec4 pe = q.segment<4>(o + 7 + pt.euler);
      row.segment<4>(o + 7 + pt.euler) += pt.sign * coeff.transpose() * b_matrix(pe, pt.local);
      continue;
    }
    const Vec4 p = fl.p(q);
    if (pt.point) fl.add_r(row, pt.sign * coeff);
    if (pt.L.size() == 0) {
      fl.add_p(row, pt.sign * (b_matrix(p, pt.local).transpose() * coeff));
      continue;
    }
    const int ne = static_cast<int>(pt.L.cols());
    const Vec3 x = pt.local + pt.L * q.segment(o + 7, ne);
    row.segment<4>(o + 3) += pt.sign * coeff.transpose() * b_matrix(p, x);
    const Vec3 cb = pt.sign * (rotation(p).transpose() * coeff); // ∂/∂η of coeffᵀ A L η: (Aᵀcoeff)ᵀ L
    for (int e = 0; e < ne; ++e) row(o + 7 + e) += cb.dot(pt.L.col(e));
  }
}

double ConstraintRows::value(int r, const std::vector<VecState>& s, double t) const {
  const Row& row = rows_[static_cast<std::size_t>(r)];
  double val = -row.phi0;
  for (const auto& term : row.terms) val += term.c.eval(t)[0] * s[term.u].w.dot(s[term.v].w);
  if (row.g) val -= row.g->eval(t)[0];
  return val;
}

void ConstraintRows::add_gradient(int r, const std::vector<VecState>& s, const Vec& q, double t, double scale,
                                  const std::vector<int>& off, RowRef out, double* rate) const {
  const Row& row = rows_[static_cast<std::size_t>(r)];
  double acc = 0;
  for (const auto& term : row.terms) {
    const auto ce = term.c.eval(t);
    const double c = scale * ce[0];
    add_vector_jacobian(term.u, c * s[term.v].w, q, off, out);
    add_vector_jacobian(term.v, c * s[term.u].w, q, off, out);
    if (rate) acc += term_rate(ce, s[term.u], s[term.v]);
  }
  if (rate) *rate = acc - (row.g ? row.g->eval(t)[1] : 0.0);
}

double ConstraintRows::phi_t(int r, const std::vector<VecState>& s, double t) const {
  const Row& row = rows_[static_cast<std::size_t>(r)];
  double val = 0;
  for (const auto& term : row.terms) val += term.c.eval(t)[1] * s[term.u].w.dot(s[term.v].w);
  if (row.g) val -= row.g->eval(t)[1];
  return val;
}

double ConstraintRows::gamma(int r, const std::vector<VecState>& s, double t) const {
  const Row& row = rows_[static_cast<std::size_t>(r)];
  double val = 0;
  for (const auto& term : row.terms) {
    const auto c = term.c.eval(t);
    const VecState &u = s[term.u], &w = s[term.v];
    val += c[0] * (w.w.dot(u.wc) + u.w.dot(w.wc) + 2.0 * u.wd.dot(w.wd)) +
           2.0 * c[1] * (u.wd.dot(w.w) + u.w.dot(w.wd)) + c[2] * u.w.dot(w.w);
  }
  if (row.g) val -= row.g->eval(t)[2];
  return -val;
}

} // namespace flexuq::mbs
