// SPDX-License-Identifier: MIT
// BFGS with a backtracking Armijo line search (ident/Bfgs.hpp).
#include "flexuq/ident/Bfgs.hpp"

#include <cmath>
#include <string>

namespace flexuq::ident {

BfgsResult bfgs(const std::function<double(const Eigen::VectorXd&, bool, Eigen::VectorXd&)>& f,
                const Eigen::VectorXd& start, const BfgsOptions& o,
                const std::function<bool(const Eigen::VectorXd&)>& admissible) {
  using Vec = Eigen::VectorXd;
  const auto n = start.size();
  Vec scale = start.cwiseAbs();
  for (Eigen::Index i = 0; i < n; ++i)
    if (scale(i) == 0) scale(i) = 1;
  BfgsResult res;
  int evals = 0;
  Vec p = start, gp;
  double j = f(p, true, gp);
  ++evals;
  Vec g = gp.cwiseProduct(scale); // ∇_u J
  const double j0 = j, g0 = g.lpNorm<Eigen::Infinity>();
  res.history.push_back({p, j, gp.lpNorm<Eigen::Infinity>(), evals});
  Eigen::MatrixXd hinv = Eigen::MatrixXd::Identity(n, n);
  bool first = true;
  for (int it = 0; it < o.max_iterations; ++it) {
    if (g.lpNorm<Eigen::Infinity>() <= o.gradient_tolerance * g0) {
      res.converged = true;
      res.reason = "gradient";
      return res;
    }
    if (j <= o.cost_tolerance * j0) {
      res.converged = true;
      res.reason = "cost";
      return res;
    }
    Vec dir = -hinv * g;
    if (dir.dot(g) >= 0) { // not a descent direction: restart from steepest descent
      hinv.setIdentity();
      first = true;
      dir = -g;
    }
    // Weak Wolfe line search by bracketing (Lewis & Overton): Armijo fails → the step is too long;
    // the slope still below c2 times the start's → too short; double until bracketed, then bisect.
    const double slope = g.dot(dir);
    double alpha = 1.0, lo = 0.0, hi = -1.0, jt = 0;
    Vec pt, gpt;
    bool ok = false;
    for (int b = 0; b < o.max_backtracks; ++b) {
      pt = p + scale.cwiseProduct(alpha * dir);
      bool too_long = admissible && !admissible(pt);
      if (!too_long) {
        jt = f(pt, true, gpt);
        ++evals;
        too_long = !std::isfinite(jt) || jt > j + 1e-4 * alpha * slope;
      }
      if (too_long) hi = alpha;
      else if (gpt.cwiseProduct(scale).dot(dir) < 0.9 * slope) lo = alpha;
      else {
        ok = true;
        break;
      }
      alpha = hi > 0 ? 0.5 * (lo + hi) : 2 * alpha;
    }
    if (!ok && lo > 0) { // the longest step that met Armijo
      alpha = lo;
      pt = p + scale.cwiseProduct(alpha * dir);
      jt = f(pt, true, gpt);
      ++evals;
      ok = true;
    }
    if (!ok) {
      res.reason = "line search";
      return res;
    }
    const Vec gt = gpt.cwiseProduct(scale);
    const Vec s = alpha * dir, y = gt - g;
    const double sy = s.dot(y);
    if (sy > 1e-300) {
      if (first) {
        hinv *= sy / y.dot(y);
        first = false;
      }
      const double rho = 1.0 / sy;
      const Eigen::MatrixXd id = Eigen::MatrixXd::Identity(n, n);
      hinv = (id - rho * s * y.transpose()) * hinv * (id - rho * y * s.transpose()) + rho * s * s.transpose();
    }
    p = pt;
    j = jt;
    g = gt;
    res.history.push_back({p, j, gpt.lpNorm<Eigen::Infinity>(), evals});
    if (s.lpNorm<Eigen::Infinity>() <= o.step_tolerance) {
      res.converged = true;
      res.reason = "step";
      return res;
    }
  }
  res.reason = "iterations";
  return res;
}

} // namespace flexuq::ident
