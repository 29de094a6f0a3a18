// SPDX-License-Identifier: MIT
#include "flexuq/pct/Galerkin.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace flexuq::pct {

namespace {

using uq::Distribution;

bool affine(const Distribution& d) { return d.kind() != Distribution::Kind::LogNormal; }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

} // namespace

void GalerkinOptions::validate() const {
  if (order < 0) throw OptionError("order", "{} must not be negative");
  if (quadrature_points < 0) throw OptionError("quadrature_points", "{} must not be negative");
}

GalerkinSystem::GalerkinSystem(const LagrangianModel& model, std::vector<UncertainInput> inputs,
                               const GalerkinOptions& o)
    : model_(model), inputs_(std::move(inputs)), opt_(o) {
  o.validate();
  if (inputs_.empty()) throw InputError("pct: the Galerkin system needs at least one uncertain input");
  const int nd = static_cast<int>(model_.nominal_data().size());
  std::vector<std::string> nonpoly = model_.non_polynomial_terms();
  for (const UncertainInput& in : inputs_) {
    for (const auto& [j, f] : in.targets)
      if (j < 0 || j >= nd) {
        std::ostringstream os;
        os << "pct: uncertain input '" << in.name << "' targets data entry " << j << ", but the model has " << nd;
        throw InputError(os.str());
      }
    families_.push_back(in.distribution.germ_family());
    if (!affine(in.distribution)) nonpoly.push_back("input '" + in.name + "' (log-normal: not affine in its germ)");
  }
  basis_ = uq::MultiIndexSet::total_degree(static_cast<int>(inputs_.size()), o.order);
  const ModelDegrees d = model_.degrees();
  const int p = o.order;
  degree_ = std::max({d.kinetic.states * p + d.kinetic.data, d.potential.states * p + d.potential.data,
                      d.virtual_work.states * p + d.virtual_work.data,
                      (d.constraints.states + 1) * p + d.constraints.data});
  const int needed = degree_ / 2 + 1; // Gauss: exact to degree 2n − 1
  if (!nonpoly.empty() && o.quadrature_points == 0)
    throw OptionError("quadrature_points",
                      "pct: not polynomial: " + join(nonpoly) +
                          "; an exact Galerkin projection is impossible: set {} (a pseudo-spectral projection "
                          "with that many Gauss points per input) or sample the inputs in a campaign");
  points_ = o.quadrature_points > 0 ? o.quadrature_points : needed;
  exact_ = nonpoly.empty() && points_ >= needed;
  quad_ = uq::tensor_gauss(families_, std::vector<int>(inputs_.size(), points_));
  const int dim = static_cast<int>(inputs_.size());
  for (int i = 0; i < quad_.size(); ++i) {
    Node nd_;
    nd_.weight = quad_.weights[i];
    nd_.xi.resize(static_cast<std::size_t>(dim));
    for (int r = 0; r < dim; ++r) nd_.xi[static_cast<std::size_t>(r)] = quad_.points(i, r);
    const Vec psi = expand(Vec::Ones(terms()), 0, nd_.xi.data()); // Ψ_a(ξ_i)
    nd_.psi.assign(psi.data(), psi.data() + psi.size());
    nd_.data = data_at(nd_.xi.data());
    nodes_.push_back(std::move(nd_));
  }
}

Vec GalerkinSystem::expand(const Vec& coeffs, int count, const double* xi) const {
  const int dim = basis_.dim(), p = opt_.order, t = terms();
  std::vector<std::vector<double>> uni(static_cast<std::size_t>(dim), std::vector<double>(static_cast<std::size_t>(p + 1)));
  for (int r = 0; r < dim; ++r) families_[static_cast<std::size_t>(r)].evaluate(xi[r], p, uni[static_cast<std::size_t>(r)].data());
  Vec psi(t);
  for (int a = 0; a < t; ++a) {
    double v = 1.0;
    for (int r = 0; r < dim; ++r) v *= uni[static_cast<std::size_t>(r)][static_cast<std::size_t>(basis_(a, r))];
    psi[a] = v;
  }
  if (count == 0) return psi; // the basis itself
  Vec out(count);
  for (int k = 0; k < count; ++k) out[k] = coeffs.segment(k * t, t).dot(psi);
  return out;
}

std::vector<double> GalerkinSystem::data_at(const double* xi) const {
  std::vector<double> d = model_.nominal_data();
  for (std::size_t r = 0; r < inputs_.size(); ++r) {
    const Distribution& dist = inputs_[r].distribution;
    const double x = dist.from_germ(xi[r]) - dist.mean();
    for (const auto& [j, f] : inputs_[r].targets) d[static_cast<std::size_t>(j)] += f * x;
  }
  return d;
}

void lagrange_ad(const LagrangianModel& model, const double* q, const double* v, const double* a, double t,
                 const double* p, double* out) {
  const int n = model.coordinates();
  std::vector<HyperDual> Q(static_cast<std::size_t>(n)), V(Q), dQ(Q);
  for (int k = 0; k < n; ++k) {
    // d/dt ∂T/∂q̇_k: ε₁ along q̇_k, ε₂ along the motion (q̇, q̈).
    for (int i = 0; i < n; ++i) {
      Q[i] = HyperDual(q[i], 0, v[i], 0);
      V[i] = HyperDual(v[i], i == k ? 1.0 : 0.0, a[i], 0);
    }
    out[k] = model.kinetic_energy(Q.data(), V.data(), p).d12;
    for (int i = 0; i < n; ++i) {
      Q[i] = HyperDual(q[i], i == k ? 1.0 : 0.0, 0, 0);
      V[i] = HyperDual(v[i]);
      dQ[i] = HyperDual(i == k ? 1.0 : 0.0);
    }
    out[k] += model.potential_energy(Q.data(), p).d1 - model.kinetic_energy(Q.data(), V.data(), p).d1;
    for (int i = 0; i < n; ++i) Q[i] = HyperDual(q[i]);
    out[k] -= model.virtual_work(Q.data(), V.data(), dQ.data(), t, p).v;
  }
}

void constraints_ad(const LagrangianModel& model, const double* q, const double* p, double* phi, double* jac) {
  const int n = model.coordinates(), m = model.constraint_rows();
  std::vector<HyperDual> Q(static_cast<std::size_t>(n)), ph(static_cast<std::size_t>(m));
  if (!jac) {
    for (int i = 0; i < n; ++i) Q[i] = HyperDual(q[i]);
    model.constraints(Q.data(), p, ph.data());
    for (int c = 0; c < m; ++c) phi[c] = ph[c].v;
    return;
  }
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) Q[i] = HyperDual(q[i], i == k ? 1.0 : 0.0, 0, 0);
    model.constraints(Q.data(), p, ph.data());
    for (int c = 0; c < m; ++c) {
      jac[k * m + c] = ph[c].d1;
      if (phi) phi[c] = ph[c].v;
    }
  }
}

void GalerkinSystem::lagrange_at(const Node& nd, const double* q, const double* v, const double* a, double t,
                                 double* out) const {
  if (opt_.analytic && model_.lagrange_analytic(q, v, a, t, nd.data.data(), out)) return;
  lagrange_ad(model_, q, v, a, t, nd.data.data(), out);
}

void GalerkinSystem::constraint_jacobian_at(const Node& nd, const double* q, double* phi, Mat* jac) const {
  const int n = model_.coordinates(), m = model_.constraint_rows();
  if (jac) jac->resize(m, n);
  double* j = jac ? jac->data() : nullptr;
  if (opt_.analytic && model_.constraints_analytic(q, nd.data.data(), phi, j)) return;
  constraints_ad(model_, q, nd.data.data(), phi, j);
}

Vec GalerkinSystem::residual(Route route, const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t) const {
  return route == Route::traditional ? residual_traditional(q, v, a, lambda, t)
                                     : residual_variational(q, v, a, lambda, t);
}

Vec GalerkinSystem::residual_traditional(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t,
                                         Vec* phi_out) const {
  const int n = model_.coordinates(), m = model_.constraint_rows(), T = terms();
  Vec r = Vec::Zero(n * T), qi(n), vi(n), ai(n), li(m), ln(n), ph(m);
  if (phi_out) *phi_out = Vec::Zero(m * T);
  Mat jac;
  for (const Node& nd : nodes_) {
    const Eigen::Map<const Vec> psi(nd.psi.data(), T);
    for (int k = 0; k < n; ++k) {
      qi[k] = q.segment(k * T, T).dot(psi);
      vi[k] = v.segment(k * T, T).dot(psi);
      ai[k] = a.segment(k * T, T).dot(psi);
    }
    for (int c = 0; c < m; ++c) li[c] = lambda.segment(c * T, T).dot(psi);
    lagrange_at(nd, qi.data(), vi.data(), ai.data(), t, ln.data());
    if (m > 0) {
      constraint_jacobian_at(nd, qi.data(), phi_out ? ph.data() : nullptr, &jac);
      ln.noalias() -= jac.transpose() * li;
      if (phi_out)
        for (int c = 0; c < m; ++c) phi_out->segment(c * T, T) += (nd.weight * ph[c]) * psi;
    }
    for (int k = 0; k < n; ++k) r.segment(k * T, T) += (nd.weight * ln[k]) * psi;
  }
  return r;
}

void GalerkinSystem::residual_and_phi(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t, Vec& r,
                                      Vec& ph) const {
  if (opt_.route != Route::traditional || m() == 0) {
    Index3Dae::residual_and_phi(q, v, a, lambda, t, r, ph);
    return;
  }
  r = residual_traditional(q, v, a, lambda, t, &ph);
  if (!model_.driver_values(t, 0).empty()) ph -= driver_rows(t, 0);
}

std::vector<HyperDual> GalerkinSystem::expand_dual(const std::vector<HyperDual>& coeffs, int count,
                                                   const Node& nd) const {
  const int T = terms();
  std::vector<HyperDual> out(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k)
    for (int b = 0; b < T; ++b) out[k] += coeffs[static_cast<std::size_t>(k * T + b)] * nd.psi[static_cast<std::size_t>(b)];
  return out;
}

Vec GalerkinSystem::residual_variational(const Vec& q, const Vec& v, const Vec& a, const Vec& lambda, double t) const {
  const int n = model_.coordinates(), m = model_.constraint_rows(), T = terms(), N = n * T;
  Vec r(N);
  std::vector<HyperDual> Qc(static_cast<std::size_t>(N)), Vc(Qc), ph(static_cast<std::size_t>(m));
  for (int I = 0; I < N; ++I) {
    // d/dt ∂T̊/∂q̊̇_I, T̊ = E[T]: ε₁ along q̊̇_I, ε₂ along the motion of the coefficients.
    for (int J = 0; J < N; ++J) {
      Qc[J] = HyperDual(q[J], 0, v[J], 0);
      Vc[J] = HyperDual(v[J], J == I ? 1.0 : 0.0, a[J], 0);
    }
    HyperDual tk;
    for (const Node& nd : nodes_)
      tk += nd.weight * model_.kinetic_energy(expand_dual(Qc, n, nd).data(), expand_dual(Vc, n, nd).data(), nd.data.data());
    r[I] = tk.d12;
    // −∂T̊/∂q̊_I + ∂V̊/∂q̊_I − Σ ∂Φ̊_{c,b}/∂q̊_I λ̊_{c,b} − ∂δW̊/∂δq̊_I.
    for (int J = 0; J < N; ++J) {
      Qc[J] = HyperDual(q[J], J == I ? 1.0 : 0.0, 0, 0);
      Vc[J] = HyperDual(v[J]);
    }
    const int k = I / T, a_ = I % T;
    double acc = 0;
    for (const Node& nd : nodes_) {
      const std::vector<HyperDual> qn = expand_dual(Qc, n, nd), vn = expand_dual(Vc, n, nd);
      const double* p = nd.data.data();
      double s = model_.potential_energy(qn.data(), p).d1 - model_.kinetic_energy(qn.data(), vn.data(), p).d1;
      if (m > 0) {
        model_.constraints(qn.data(), p, ph.data());
        for (int c = 0; c < m; ++c)
          for (int b = 0; b < T; ++b) s -= ph[c].d1 * nd.psi[static_cast<std::size_t>(b)] * lambda[c * T + b];
      }
      std::vector<HyperDual> q0(static_cast<std::size_t>(n)), v0(q0), dq(q0);
      for (int i = 0; i < n; ++i) {
        q0[i] = HyperDual(qn[i].v);
        v0[i] = HyperDual(vn[i].v);
      }
      dq[k] = HyperDual(nd.psi[static_cast<std::size_t>(a_)]); // δq = e_k Ψ_a: δq̊ = unit vector I
      s -= model_.virtual_work(q0.data(), v0.data(), dq.data(), t, p).v;
      acc += nd.weight * s;
    }
    r[I] += acc;
  }
  return r;
}

double GalerkinSystem::kinetic_energy(const Vec& q, const Vec& v) const {
  const int n = model_.coordinates();
  double e = 0;
  for (const Node& nd : nodes_) {
    const Vec qi = expand(q, n, nd.xi.data()), vi = expand(v, n, nd.xi.data());
    std::vector<HyperDual> Q(qi.data(), qi.data() + n), V(vi.data(), vi.data() + n);
    e += nd.weight * model_.kinetic_energy(Q.data(), V.data(), nd.data.data()).v;
  }
  return e;
}

double GalerkinSystem::potential_energy(const Vec& q) const {
  const int n = model_.coordinates();
  double e = 0;
  for (const Node& nd : nodes_) {
    const Vec qi = expand(q, n, nd.xi.data());
    std::vector<HyperDual> Q(qi.data(), qi.data() + n);
    e += nd.weight * model_.potential_energy(Q.data(), nd.data.data()).v;
  }
  return e;
}

Mat GalerkinSystem::mass(const Vec& q) const {
  const int n = model_.coordinates(), T = terms();
  Mat out = Mat::Zero(n * T, n * T), mk(n, n);
  std::vector<HyperDual> Q(static_cast<std::size_t>(n)), V(Q);
  for (const Node& nd : nodes_) {
    const Eigen::Map<const Vec> psi(nd.psi.data(), T);
    const Vec qi = expand(q, n, nd.xi.data());
    for (int i = 0; i < n; ++i) Q[i] = HyperDual(qi[i]);
    for (int k = 0; k < n; ++k)
      for (int l = k; l < n; ++l) {
        for (int i = 0; i < n; ++i) V[i] = HyperDual(0, i == k ? 1.0 : 0.0, i == l ? 1.0 : 0.0, 0);
        mk(k, l) = mk(l, k) = model_.kinetic_energy(Q.data(), V.data(), nd.data.data()).d12;
      }
    const Mat pp = nd.weight * psi * psi.transpose();
    for (int k = 0; k < n; ++k)
      for (int l = 0; l < n; ++l)
        if (mk(k, l) != 0.0) out.block(k * T, l * T, T, T) += mk(k, l) * pp;
  }
  return out;
}

Vec GalerkinSystem::force(const Vec& q, const Vec& v, double t) const {
  const Vec z = Vec::Zero(q.size()), zl = Vec::Zero(m());
  return -residual(opt_.route, q, v, z, zl, t);
}

Vec GalerkinSystem::phi(const Vec& q) const {
  const int n = model_.coordinates(), m_ = model_.constraint_rows(), T = terms();
  Vec out = Vec::Zero(m_ * T), ph(m_), qi(n);
  for (const Node& nd : nodes_) {
    const Eigen::Map<const Vec> psi(nd.psi.data(), T);
    for (int k = 0; k < n; ++k) qi[k] = q.segment(k * T, T).dot(psi);
    constraint_jacobian_at(nd, qi.data(), ph.data(), nullptr);
    for (int c = 0; c < m_; ++c) out.segment(c * T, T) += (nd.weight * ph[c]) * psi;
  }
  return out;
}

Mat GalerkinSystem::phi_q(const Vec& q) const {
  const int n = model_.coordinates(), m_ = model_.constraint_rows(), T = terms();
  Mat out = Mat::Zero(m_ * T, n * T), jac;
  for (const Node& nd : nodes_) {
    const Eigen::Map<const Vec> psi(nd.psi.data(), T);
    const Vec qi = expand(q, n, nd.xi.data());
    constraint_jacobian_at(nd, qi.data(), nullptr, &jac);
    const Mat pp = nd.weight * psi * psi.transpose();
    for (int c = 0; c < m_; ++c)
      for (int k = 0; k < n; ++k)
        if (jac(c, k) != 0.0) out.block(c * T, k * T, T, T) += jac(c, k) * pp;
  }
  return out;
}

Vec GalerkinSystem::gamma(const Vec& q, const Vec& v) const {
  const int n = model_.coordinates(), m_ = model_.constraint_rows(), T = terms();
  Vec out = Vec::Zero(m_ * T);
  std::vector<HyperDual> Q(static_cast<std::size_t>(n)), ph(static_cast<std::size_t>(m_));
  for (const Node& nd : nodes_) {
    const Eigen::Map<const Vec> psi(nd.psi.data(), T);
    const Vec qi = expand(q, n, nd.xi.data()), vi = expand(v, n, nd.xi.data());
    for (int i = 0; i < n; ++i) Q[i] = HyperDual(qi[i], vi[i], vi[i], 0); // d12 = q̇ᵀ Φ_qq q̇
    model_.constraints(Q.data(), nd.data.data(), ph.data());
    for (int c = 0; c < m_; ++c) out.segment(c * T, T) -= (nd.weight * ph[c].d12) * psi;
  }
  return out;
}

Vec GalerkinSystem::lift(const std::vector<double>& x) const {
  const int T = terms();
  Vec out = Vec::Zero(static_cast<Eigen::Index>(x.size()) * T);
  for (std::size_t k = 0; k < x.size(); ++k) out[static_cast<Eigen::Index>(k) * T] = x[k];
  return out;
}

std::vector<int> GalerkinSystem::lifted(const std::vector<int>& coordinates) const {
  std::vector<int> out;
  for (int k : coordinates)
    for (int a = 0; a < terms(); ++a) out.push_back(k * terms() + a);
  return out;
}

Vec GalerkinSystem::driver_rows(double t, int derivative) const {
  const std::vector<double> g = model_.driver_values(t, derivative);
  const int T = terms();
  Vec out = Vec::Zero(m());
  for (std::size_t c = 0; c < g.size(); ++c) out[static_cast<Eigen::Index>(c) * T] = g[c];
  return out;
}

Vec GalerkinSystem::phi_at(const Vec& q, double t) const {
  Vec out = phi(q);
  if (!model_.driver_values(t, 0).empty()) out -= driver_rows(t, 0);
  return out;
}

Vec GalerkinSystem::phi_t(const Vec& /*q*/, double t) const { return -driver_rows(t, 1); }

Vec GalerkinSystem::gamma_at(const Vec& q, const Vec& v, double t) const {
  Vec out = gamma(q, v);
  if (!model_.driver_values(t, 2).empty()) out += driver_rows(t, 2);
  return out;
}

Vec GalerkinSystem::initial_projection(bool velocities, std::vector<int>& varying) const {
  const int n = model_.coordinates(), T = terms();
  const std::vector<double> nominal = velocities ? model_.initial_velocities() : model_.initial_positions();
  Vec out = lift(nominal);
  Vec proj = Vec::Zero(n * T);
  std::vector<char> varies(static_cast<std::size_t>(n), 0);
  for (const Node& nd : nodes_) {
    const std::vector<double> x =
        velocities ? model_.initial_velocities_at(nd.data.data()) : model_.initial_positions_at(nd.data.data());
    const Eigen::Map<const Vec> psi(nd.psi.data(), T);
    for (int k = 0; k < n; ++k) {
      if (x[static_cast<std::size_t>(k)] != nominal[static_cast<std::size_t>(k)]) varies[static_cast<std::size_t>(k)] = 1;
      proj.segment(k * T, T) += (nd.weight * x[static_cast<std::size_t>(k)]) * psi;
    }
  }
  varying.clear();
  for (int k = 0; k < n; ++k)
    if (varies[static_cast<std::size_t>(k)]) {
      varying.push_back(k);
      out.segment(k * T, T) = proj.segment(k * T, T); // deterministic ones keep their exact lift
    }
  return out;
}

std::vector<int> GalerkinSystem::uncertain_initial_positions() const {
  std::vector<int> v;
  initial_projection(false, v);
  return v;
}

std::vector<int> GalerkinSystem::uncertain_initial_velocities() const {
  std::vector<int> v;
  initial_projection(true, v);
  return v;
}

DaeState GalerkinSystem::initial_state(double t0) const {
  DaeState s;
  s.t = t0;
  std::vector<int> uq_q, uq_v;
  s.q = initial_projection(false, uq_q);
  s.v = initial_projection(true, uq_v);
  auto merged = [](std::vector<int> a, const std::vector<int>& b) {
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
  };
  assemble(*this, s, lifted(merged(model_.specified_positions(), uq_q)),
           lifted(merged(model_.specified_velocities(), uq_v)));
  return s;
}

void GalerkinSystem::moments(const Vec& coeffs, int count, int terms, Vec& mean, Vec& std) {
  mean.resize(count);
  std.resize(count);
  for (int k = 0; k < count; ++k) {
    mean[k] = coeffs[k * terms];
    std[k] = coeffs.segment(k * terms + 1, terms - 1).norm();
  }
}

void GalerkinSystem::output_moments(const Vec& q, int points, Vec& mean, Vec& std, Mat& coeffs) const {
  const int n = model_.coordinates(), T = terms();
  const int no = static_cast<int>(model_.output_names().size());
  if (output_points_ != points) { // the rule, Ψ and the data at its points: once per run, not per output time
    const uq::Quadrature rule = uq::tensor_gauss(families_, std::vector<int>(inputs_.size(), points));
    output_nodes_.clear();
    for (int i = 0; i < rule.size(); ++i) {
      const Vec xi = rule.points.row(i).transpose(), psi = expand(Vec::Ones(T), 0, xi.data());
      output_nodes_.push_back({rule.weights[i], {xi.data(), xi.data() + xi.size()}, {psi.data(), psi.data() + T},
                               data_at(xi.data())});
    }
    output_points_ = points;
  }
  mean = Vec::Zero(no);
  Vec second = Vec::Zero(no), qi(n);
  coeffs = Mat::Zero(no, T);
  for (const Node& nd : output_nodes_) {
    const Eigen::Map<const Vec> psi(nd.psi.data(), T);
    for (int k = 0; k < n; ++k) qi[k] = q.segment(k * T, T).dot(psi);
    const std::vector<double> y = model_.outputs(qi.data(), nd.data.data());
    const double w = nd.weight;
    for (int j = 0; j < no; ++j) {
      mean[j] += w * y[static_cast<std::size_t>(j)];
      second[j] += w * y[static_cast<std::size_t>(j)] * y[static_cast<std::size_t>(j)];
      coeffs.row(j) += (w * y[static_cast<std::size_t>(j)]) * psi.transpose();
    }
  }
  std = (second - mean.cwiseProduct(mean)).cwiseMax(0.0).cwiseSqrt();
}

} // namespace flexuq::pct
