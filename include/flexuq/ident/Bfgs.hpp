// SPDX-License-Identifier: MIT
#pragma once
/// @file Bfgs.hpp
/// @brief A small BFGS minimiser (Nocedal & Wright, Alg. 6.1) for the parameter identification of
/// ident/Adjoint.hpp: inverse-Hessian update H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ, the first step's
/// H scaled by sᵀy/yᵀy, a backtracking line search on the Armijo condition (c1 = 1e-4, step halved,
/// a trial that leaves the admissible set counts as a failed one), the update skipped when sᵀy ≤ 0.
/// It works on u = p / p_scale (the start values by default), so that masses and dampers of different
/// sizes have comparable gradients.

#include <Eigen/Dense>

#include <functional>
#include <string>
#include <vector>

namespace flexuq::ident {

struct BfgsOptions {
  int max_iterations = 50;
  double gradient_tolerance = 1e-8; ///< stop when ‖∇_u J‖∞ ≤ tol · ‖∇_u J(start)‖∞
  double cost_tolerance = 1e-14;    ///< stop when J ≤ tol · J(start)
  double step_tolerance = 1e-12;    ///< stop when ‖Δu‖∞ ≤ tol
  int max_backtracks = 30;
};

/// One accepted iterate (iteration 0: the start).
struct BfgsIterate {
  Eigen::VectorXd p;
  double cost = 0;
  double gradient_norm = 0; ///< ‖dJ/dp‖∞
  int evaluations = 0;      ///< cost (and gradient) evaluations so far
};

struct BfgsResult {
  std::vector<BfgsIterate> history;
  bool converged = false;
  std::string reason;
};

/// @p f(p, want_gradient, gradient) returns J(p) and, when asked, its gradient; @p admissible(p)
/// false makes the line search shorten its step (e.g. a non-positive mass).
BfgsResult bfgs(const std::function<double(const Eigen::VectorXd&, bool, Eigen::VectorXd&)>& f,
                const Eigen::VectorXd& start, const BfgsOptions& o,
                const std::function<bool(const Eigen::VectorXd&)>& admissible = {});

} // namespace flexuq::ident
