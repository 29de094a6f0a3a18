// SPDX-License-Identifier: MIT
// The reduced model's constraint operators contracted body vector by body vector
// (rom/ReducedConstraints.hpp, issue #34 Goals).
#include "flexuq/rom/ReducedConstraints.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace flexuq::rom {

using mbs::kGround;

ReducedConstraints::ReducedConstraints(const mbs::System& sys, const Mat& V, const Mat& gamma)
    : sys_(sys), rows_(sys.constraint_rows()), V_(V), gamma_(gamma) {
  for (int k = 0; k < sys.m(); ++k)
    if (gamma.cols() > 0 && gamma.row(k).cwiseAbs().maxCoeff() > 0) used_.push_back(k);
  std::vector<char> on(sys.bodies().size(), 0);
  int nv = 0;
  for (int r = 0; r < rows_.size(); ++r)
    for (const auto& term : rows_.row(r).terms) nv = std::max({nv, term.u + 1, term.v + 1});
  for (int vec = 0; vec < nv; ++vec)
    for (const auto& pt : rows_.vector(vec).parts)
      if (pt.body != kGround) on[static_cast<std::size_t>(pt.body)] = 1;
  for (std::size_t b = 0; b < on.size(); ++b)
    if (on[b]) bodies_.push_back(static_cast<int>(b));
  std::map<std::vector<int>, std::size_t> group_of;
  for (int i = 0; i < V.rows(); ++i) {
    std::vector<int> cols;
    for (int j = 0; j < V.cols(); ++j)
      if (V(i, j) != 0) cols.push_back(j);
    if (cols.empty()) continue;
    const auto [it, fresh] = group_of.emplace(cols, groups_.size());
    if (fresh) groups_.push_back({{}, cols, Mat()});
    groups_[it->second].rows.push_back(i);
  }
  if (groups_.size() == 1 && static_cast<int>(groups_[0].cols.size()) == V.cols()) groups_.clear();
  for (auto& g : groups_) {
    g.vg.resize(static_cast<Eigen::Index>(g.rows.size()), static_cast<Eigen::Index>(g.cols.size()));
    for (std::size_t i = 0; i < g.rows.size(); ++i)
      for (std::size_t j = 0; j < g.cols.size(); ++j)
        g.vg(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = V(g.rows[i], g.cols[j]);
  }
  rot_.resize(on.size());
  p_.resize(on.size());
  w_.resize(static_cast<std::size_t>(nv));
  touched_.resize(static_cast<std::size_t>(nv));
  // The check: Φ, C_qᵀμ and Γᵀ C_q V against the rows' own evaluation at a generic state (every
  // coordinate moved, a time inside a driver's history).
  Vec q = sys.initial_q();
  for (int i = 0; i < q.size(); ++i) q(i) += 0.01 * std::sin(1.0 + 0.7 * i);
  const double t = 0.37;
  const Vec lam = Vec::LinSpaced(gamma.cols(), 0.3, 1.1);
  Vec gphi, ct, ctl, ph;
  residual_direct(q, t, lam, gphi, ct);
  sys.constraint_residual(q, t, gamma * lam, ctl, ph);
  const Vec gph = gamma.transpose() * ph;
  const Mat j = gamma.cols() > 0 ? jacobian_direct(q, t) : Mat(0, V.cols());
  const Mat jf = gamma.transpose() * (sys.jacobian_sparse(q, t) * V); // sparse: no m × n matrix on a large model
  const Vec all = sys.phi_all(q, t);
  auto close = [](const auto& a, const auto& b) {
    return a.size() == b.size() && (a.size() == 0 || (a - b).cwiseAbs().maxCoeff() <= 1e-11 * (1.0 + b.cwiseAbs().maxCoeff()));
  };
  const double d = drift(q, t), df = all.size() ? all.cwiseAbs().maxCoeff() : 0.0;
  direct_ = close(gphi, gph) && close(ct, ctl) && close(j, jf) && std::abs(d - df) <= 1e-11 * (1.0 + df);
}

void ReducedConstraints::states(const Vec& q) {
  for (const int b : bodies_) {
    p_[static_cast<std::size_t>(b)] = sys_.frame_layout(b).p(q);
    rot_[static_cast<std::size_t>(b)] = mbs::rotation(p_[static_cast<std::size_t>(b)]);
  }
  for (std::size_t vec = 0; vec < w_.size(); ++vec) {
    mbs::Vec3 w = mbs::Vec3::Zero();
    for (const auto& pt : rows_.vector(static_cast<int>(vec)).parts) {
      if (pt.body == kGround) {
        w += pt.sign * pt.local;
        continue;
      }
      const auto& fl = sys_.frame_layout(pt.body);
      const mbs::Mat3& a = rot_[static_cast<std::size_t>(pt.body)];
      if (pt.L.size() > 0)
        w += pt.sign * a * mbs::Vec3(pt.local + pt.L * q.segment(fl.o + 7, pt.L.cols()));
      else
        w += pt.sign * a * pt.local;
      if (pt.point) w += pt.sign * fl.r(q);
    }
    w_[vec] = w;
  }
}

double ReducedConstraints::value(int r, double t) const {
  const auto& row = rows_.row(r);
  double val = -row.phi0;
  for (const auto& term : row.terms)
    val += term.c.eval(t)[0] * w_[static_cast<std::size_t>(term.u)].dot(w_[static_cast<std::size_t>(term.v)]);
  if (row.g) val -= row.g->eval(t)[0];
  return val;
}

namespace {

/// row(r's coordinates) += g over the columns (FrameLayout::add_r for a block of columns).
template <class G, class B> void add_r_rows(const mbs::FrameLayout& fl, B&& grad, const G& g) {
  for (int k = 0; k < (fl.planar ? 2 : 3); ++k) grad.row(fl.o + k) += g.row(k);
}
/// row(p's coordinates) += g over the columns (FrameLayout::add_p).
template <class G, class B> void add_p_rows(const mbs::FrameLayout& fl, B&& grad, const G& g) {
  if (fl.planar) {
    grad.row(fl.o + 2) += g.row(0);
    grad.row(fl.o + 3) += g.row(3);
  } else {
    grad.template middleRows<4>(fl.o + 3) += g;
  }
}

} // namespace

template <int P>
void ReducedConstraints::transpose_product(const Vec& q, double t, const Eigen::Matrix<double, Eigen::Dynamic, P>& mu,
                                           std::vector<Eigen::Matrix<double, 3, P>>& coef,
                                           Eigen::Matrix<double, Eigen::Dynamic, P>& grad) {
  using Coef = Eigen::Matrix<double, 3, P>;
  const int p = static_cast<int>(mu.cols()), nr = rows_.size();
  grad.setZero(sys_.n(), p);
  coef.resize(w_.size());
  for (auto& c : coef) c.setZero(3, p);
  std::fill(touched_.begin(), touched_.end(), 0);
  const auto& active = sys_.active_rows();
  for (const int k : used_) {
    const int r = active[static_cast<std::size_t>(k)];
    if (r >= nr) { // pᵀp − 1: 2μp on the body's p
      const auto& fl = sys_.frame_layout(r - nr);
      const mbs::Vec4 pb = fl.p(q);
      add_p_rows(fl, grad, Eigen::Matrix<double, 4, P>(2.0 * pb * mu.row(k)));
      continue;
    }
    for (const auto& term : rows_.row(r).terms) {
      const double c = term.c.eval(t)[0];
      const auto u = static_cast<std::size_t>(term.u), v = static_cast<std::size_t>(term.v);
      const Eigen::Matrix<double, 1, P> s = c * mu.row(k);
      coef[u].noalias() += w_[v] * s;
      coef[v].noalias() += w_[u] * s;
      touched_[u] = touched_[v] = 1;
    }
  }
  for (std::size_t vec = 0; vec < w_.size(); ++vec) {
    if (!touched_[vec]) continue;
    const Coef& cf = coef[vec];
    for (const auto& pt : rows_.vector(static_cast<int>(vec)).parts) {
      if (pt.body == kGround) continue;
      const auto& fl = sys_.frame_layout(pt.body);
      const mbs::Vec4& pb = p_[static_cast<std::size_t>(pt.body)];
      if (pt.point) add_r_rows(fl, grad, Coef(pt.sign * cf));
      if (pt.L.size() == 0) {
        add_p_rows(fl, grad, Eigen::Matrix<double, 4, P>(pt.sign * (mbs::b_matrix(pb, pt.local).transpose() * cf)));
        continue;
      }
      // A(p)(s + L η): p through B(p, x), η through (Aᵀ coef)ᵀ L (3-D frames only, as the rows).
      const int o = fl.o, ne = static_cast<int>(pt.L.cols());
      const mbs::Vec3 x = pt.local + pt.L * q.segment(o + 7, ne);
      grad.template middleRows<4>(o + 3) += pt.sign * (mbs::b_matrix(pb, x).transpose() * cf);
      const Coef ac = pt.sign * (rot_[static_cast<std::size_t>(pt.body)].transpose() * cf);
      grad.middleRows(o + 7, ne) += pt.L.transpose() * ac;
    }
  }
}

void ReducedConstraints::residual_direct(const Vec& q, double t, const Vec& lambda_l, Vec& gphi, Vec& ct) {
  states(q);
  const int nr = rows_.size();
  const auto& active = sys_.active_rows();
  mu_.noalias() = gamma_ * lambda_l;
  gphi.setZero(gamma_.cols());
  for (const int k : used_) {
    const int r = active[static_cast<std::size_t>(k)];
    const double ph = r >= nr ? sys_.frame_layout(r - nr).p(q).squaredNorm() - 1.0 : value(r, t);
    gphi.noalias() += ph * gamma_.row(k).transpose();
  }
  transpose_product<1>(q, t, mu_, coef1_, ct);
}

ReducedConstraints::Mat ReducedConstraints::jacobian_direct(const Vec& q, double t) {
  states(q);
  transpose_product<Eigen::Dynamic>(q, t, gamma_, coef_, grad_);
  if (groups_.empty()) return grad_.transpose() * V_;
  Mat out = Mat::Zero(gamma_.cols(), V_.cols());
  for (const RowGroup& g : groups_) {
    gg_.resize(static_cast<Eigen::Index>(g.rows.size()), grad_.cols());
    for (std::size_t i = 0; i < g.rows.size(); ++i) gg_.row(static_cast<Eigen::Index>(i)) = grad_.row(g.rows[i]);
    pg_.noalias() = gg_.transpose() * g.vg;
    for (std::size_t j = 0; j < g.cols.size(); ++j) out.col(g.cols[j]) += pg_.col(static_cast<Eigen::Index>(j));
  }
  return out;
}

void ReducedConstraints::residual(const Vec& q, double t, const Vec& lambda_l, Vec& gphi, Vec& ct) {
  if (direct_) return residual_direct(q, t, lambda_l, gphi, ct);
  Vec ph;
  sys_.constraint_residual(q, t, gamma_ * lambda_l, ct, ph);
  gphi = gamma_.transpose() * ph;
}

ReducedConstraints::Mat ReducedConstraints::jacobian(const Vec& q, double t) {
  if (gamma_.cols() == 0) return Mat(0, V_.cols());
  if (direct_) return jacobian_direct(q, t);
  return gamma_.transpose() * (sys_.jacobian_sparse(q, t) * V_);
}

double ReducedConstraints::drift(const Vec& q, double t) {
  if (!direct_) {
    const Vec all = sys_.phi_all(q, t);
    return all.size() ? all.cwiseAbs().maxCoeff() : 0.0;
  }
  states(q);
  double d = 0;
  bool finite = true; // a NaN row makes the drift NaN, as phi_all's norm (the caller's test refuses it)
  auto take = [&](double v) {
    finite = finite && std::isfinite(v);
    d = std::max(d, std::abs(v));
  };
  for (int r = 0; r < rows_.size(); ++r) take(value(r, t));
  for (std::size_t b = 0; b < sys_.bodies().size(); ++b)
    take(sys_.frame_layout(static_cast<int>(b)).p(q).squaredNorm() - 1.0);
  return finite ? d : std::nan("");
}

} // namespace flexuq::rom
