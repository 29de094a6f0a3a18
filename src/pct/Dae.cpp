// SPDX-License-Identifier: MIT
#include "flexuq/pct/Dae.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace flexuq::pct {

namespace {

std::vector<int> complement(int n, const std::vector<int>& fixed) {
  std::vector<char> is_fixed(static_cast<std::size_t>(n), 0);
  for (int k : fixed) is_fixed[static_cast<std::size_t>(k)] = 1;
  std::vector<int> out;
  for (int k = 0; k < n; ++k)
    if (!is_fixed[static_cast<std::size_t>(k)]) out.push_back(k);
  return out;
}

Mat columns(const Mat& a, const std::vector<int>& cols) {
  Mat out(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t j = 0; j < cols.size(); ++j) out.col(static_cast<Eigen::Index>(j)) = a.col(cols[j]);
  return out;
}

Mat saddle(const Mat& m, const Mat& jac) {
  const Eigen::Index n = m.rows(), r = jac.rows();
  Mat k = Mat::Zero(n + r, n + r);
  k.topLeftCorner(n, n) = m;
  k.topRightCorner(n, r) = -jac.transpose();
  k.bottomLeftCorner(r, n) = jac;
  return k;
}

} // namespace

int assemble(const Index3Dae& dae, DaeState& s, const std::vector<int>& fixed_q, const std::vector<int>& fixed_v,
             double tol) {
  const int n = dae.n(), m = dae.m();
  const std::vector<int> free_q = complement(n, fixed_q), free_v = complement(n, fixed_v);
  int it = 0;
  for (;; ++it) {
    const Vec ph = dae.phi_at(s.q, s.t);
    Eigen::Index worst = 0;
    const double res = m == 0 ? 0.0 : ph.cwiseAbs().maxCoeff(&worst);
    if (res <= tol) break;
    if (it == 50) {
      std::ostringstream os;
      os << "pct: the initial positions cannot be assembled: |Phi| = " << res << " at row " << worst
         << " after 50 Newton iterations (the specified coordinates admit no configuration)";
      throw InputError(os.str()); // the job's geometry, not a failure of the solver
    }
    const Vec dx = columns(dae.phi_q(s.q), free_q).completeOrthogonalDecomposition().solve(ph);
    for (std::size_t j = 0; j < free_q.size(); ++j) s.q[free_q[j]] -= dx[static_cast<Eigen::Index>(j)];
  }
  const Mat jac = dae.phi_q(s.q);
  // The free velocities move least from their guesses (a pendulum's given speed stays) to satisfy
  // Φ_q q̇ = −Φ_t.
  const Vec rhs = -dae.phi_t(s.q, s.t) - jac * s.v;
  const Vec vf = columns(jac, free_v).completeOrthogonalDecomposition().solve(rhs);
  for (std::size_t j = 0; j < free_v.size(); ++j) s.v[free_v[j]] += vf[static_cast<Eigen::Index>(j)];
  Vec b(n + m);
  b << dae.force(s.q, s.v, s.t), dae.gamma_at(s.q, s.v, s.t);
  const Vec x = saddle(dae.mass(s.q), jac).completeOrthogonalDecomposition().solve(b);
  s.a = x.head(n);
  s.lambda = x.tail(m);
  return it;
}

void AlphaOptions::validate() const {
  if (!(rho_inf >= 0.0 && rho_inf <= 1.0)) throw OptionError("rho_inf", "{} must lie in [0, 1]");
  if (!(step > 0.0)) throw OptionError("step", "{} must be positive");
  if (!(output_step >= 0.0)) throw OptionError("output_step", "{} must not be negative");
  if (!(tol > 0.0)) throw OptionError("tol", "{} must be positive");
  if (max_iter < 1) throw OptionError("max_iter", "{} must be at least 1");
}

AlphaStats integrate_alpha(const Index3Dae& dae, DaeState& s, const AlphaOptions& o,
                           const std::function<void(const DaeState&)>& output) {
  o.validate();
  const int n = dae.n(), m = dae.m();
  const double rho = o.rho_inf;
  const double am = (2.0 * rho - 1.0) / (rho + 1.0), af = rho / (rho + 1.0);
  const double gam = 0.5 + af - am, beta = 0.25 * (gam + 0.5) * (gam + 0.5);
  const double cf = (1.0 - af) / (1.0 - am); // ∂a_{n+1}/∂q̈_{n+1}
  AlphaStats st;
  Vec aux = s.a; // a_n of the recursion
  const double t_start = s.t;
  Vec prev_a, prev_l; // q̈ and λ one step back (the predictor)
  double prev_h = 0;
  if (output) output(s);
  const double out_step = o.output_step > 0 ? o.output_step : o.step;
  double next_out = s.t + out_step;
  Eigen::PartialPivLU<Mat> lu;
  double lu_h = -1;
  while (s.t < o.end - 1e-12 * o.step) {
    // The last step takes what is left when that is within a rounding of one step (no sliver step).
    const double h = o.end - s.t <= o.step * (1.0 + 1e-9) ? o.end - s.t : o.step;
    const double t1 = s.t + h, bh2 = beta * h * h * cf;
    const Vec qp = s.q + h * s.v + h * h * (0.5 - beta) * aux, vp = s.v + h * (1.0 - gam) * aux;
    // Predictor: q̈ and λ extrapolated linearly from the last two steps (constant at the first).
    Vec acc = s.a, lam = s.lambda, q, v, a1;
    if (prev_a.size() == acc.size() && prev_h > 0) {
      const double r = h / prev_h;
      acc += r * (s.a - prev_a);
      lam += r * (s.lambda - prev_l);
    }
    auto state = [&] {
      a1 = (cf * acc + (af / (1.0 - am)) * s.a - (am / (1.0 - am)) * aux);
      q = qp + h * h * beta * a1;
      v = vp + h * gam * a1;
    };
    bool fresh = false;
    auto refresh = [&] {
      state();
      lu.compute(saddle(dae.mass(q), dae.phi_q(q)));
      lu_h = h;
      fresh = true;
      ++st.factorizations;
    };
    if (std::abs(lu_h - h) > 1e-12 * h) refresh();
    double prev = -1;
    bool done = false;
    int since_refresh = 0;
    Vec e(n + m), res, ph;
    for (int it = 0; it < 2 * o.max_iter; ++it) {
      state();
      dae.residual_and_phi(q, v, acc, lam, t1, res, ph);
      e << res, ph / bh2;
      const Vec dx = lu.solve(e);
      if (!dx.allFinite()) {
        std::ostringstream os;
        os << "pct: the iteration matrix is singular at t = " << t1 << " (redundant constraint rows?)";
        throw Error(os.str());
      }
      acc -= dx.head(n);
      lam -= dx.tail(m);
      ++st.newton_iterations;
      const double corr = bh2 * dx.head(n).cwiseAbs().maxCoeff();
      if (corr <= o.tol * (1.0 + qp.cwiseAbs().maxCoeff())) {
        done = true;
        break;
      }
      ++since_refresh;
      const bool slow = prev >= 0 && corr > 0.02 * prev;
      prev = corr;
      if (since_refresh >= o.max_iter && fresh) break;
      if ((slow || since_refresh >= o.max_iter) && !fresh) {
        refresh();
        prev = -1;
        since_refresh = 0;
      }
    }
    if (!done) {
      std::ostringstream os;
      os << "pct: Newton did not converge at t = " << t1 << " (step " << h << "); reduce {}";
      throw OptionError("step", os.str()); // the job's step: app names it (solver.step)
    }
    state();
    aux = a1;
    prev_a = s.a;
    prev_l = s.lambda;
    prev_h = h;
    ++st.steps;
    // Times from the step count (no accumulated rounding in the output times).
    s.t = h == o.step ? t_start + static_cast<double>(st.steps) * o.step : o.end;
    s.q = q;
    s.v = v;
    s.a = acc;
    s.lambda = lam;
    if (m > 0) st.max_drift = std::max(st.max_drift, dae.phi_at(s.q, s.t).cwiseAbs().maxCoeff());
    if (s.t >= next_out - 1e-9 * h || s.t >= o.end - 1e-12 * o.step) {
      if (output) output(s);
      next_out += out_step;
    }
  }
  return st;
}

} // namespace flexuq::pct
