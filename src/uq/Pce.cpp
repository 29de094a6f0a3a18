// SPDX-License-Identifier: MIT
#include "flexuq/uq/Pce.hpp"

#include "flexuq/core/Error.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <limits>

namespace flexuq::uq {

Pce::Pce(std::vector<PolynomialFamily> families, MultiIndexSet basis, Eigen::MatrixXd coefficients)
    : families_(std::move(families)), basis_(std::move(basis)), coef_(std::move(coefficients)) {
  FLEXUQ_REQUIRE(static_cast<int>(families_.size()) == basis_.dim(), "Pce: " << families_.size() << " families for a basis of dimension " << basis_.dim());
  FLEXUQ_REQUIRE(coef_.rows() == basis_.size(), "Pce: " << coef_.rows() << " coefficient rows for " << basis_.size() << " terms");
  zero_ = basis_.find(MultiIndexSet::Index(basis_.dim(), 0));
}

Eigen::MatrixXd Pce::design_matrix(const std::vector<PolynomialFamily>& families, const MultiIndexSet& basis,
                                   const Eigen::MatrixXd& X) {
  const int d = basis.dim(), P = basis.size();
  FLEXUQ_REQUIRE(static_cast<int>(families.size()) == d && X.cols() == d, "design_matrix: points have " << X.cols() << " columns, basis dimension " << d);
  std::vector<Eigen::MatrixXd> uni(d);
  for (int i = 0; i < d; ++i) uni[i] = families[i].evaluate(Eigen::VectorXd(X.col(i)), basis.max_degree(i));
  Eigen::MatrixXd A(X.rows(), P);
  for (int k = 0; k < P; ++k) {
    const int* a = basis.data(k);
    bool first = true;
    for (int i = 0; i < d; ++i) {
      if (a[i] == 0) continue;
      if (first) A.col(k) = uni[i].col(a[i]);
      else A.col(k).array() *= uni[i].col(a[i]).array();
      first = false;
    }
    if (first) A.col(k).setOnes();
  }
  return A;
}

Pce Pce::fit_projection(const std::vector<PolynomialFamily>& families, const MultiIndexSet& basis,
                        const Quadrature& rule, const Eigen::MatrixXd& values) {
  FLEXUQ_REQUIRE(values.rows() == rule.size(), "fit_projection: " << values.rows() << " value rows for " << rule.size() << " quadrature points");
  const Eigen::MatrixXd A = design_matrix(families, basis, rule.points);
  Eigen::MatrixXd c = A.transpose() * (rule.weights.asDiagonal() * values);
  return Pce(families, basis, std::move(c));
}

Pce Pce::fit_regression(const std::vector<PolynomialFamily>& families, const MultiIndexSet& basis,
                        const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y, LooError* loo) {
  const Eigen::Index n = X.rows(), P = basis.size();
  FLEXUQ_REQUIRE(Y.rows() == n, "fit_regression: " << Y.rows() << " value rows for " << n << " points");
  FLEXUQ_REQUIRE(n >= P, "fit_regression: " << n << " samples for " << P << " terms (need at least as many)");
  const Eigen::MatrixXd A = design_matrix(families, basis, X);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  FLEXUQ_REQUIRE(qr.rank() == P, "fit_regression: design matrix is rank deficient (rank " << qr.rank() << " < " << P << " terms)");
  Eigen::MatrixXd c = qr.solve(Y);
  if (loo) {
    const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(n, P);
    const Eigen::VectorXd h = Q.rowwise().squaredNorm();
    const Eigen::MatrixXd R = Y - A * c;
    loo->max_leverage = h.maxCoeff();
    loo->normalized.resize(Y.cols());
    loo->relative.resize(Y.cols());
    for (Eigen::Index j = 0; j < Y.cols(); ++j) {
      double s = 0.0, sr = 0.0;
      for (Eigen::Index i = 0; i < n; ++i) {
        const double e = (1.0 - h[i]) > 0.0 ? R(i, j) / (1.0 - h[i]) : std::numeric_limits<double>::infinity();
        s += e * e;
        sr += (e / Y(i, j)) * (e / Y(i, j));
      }
      const double mean = Y.col(j).mean();
      const double var = n > 1 ? (Y.col(j).array() - mean).square().sum() / (n - 1) : 0.0;
      loo->normalized[j] = var > 0.0 ? s / n / var : (s == 0.0 ? 0.0 : std::numeric_limits<double>::infinity());
      loo->relative[j] = sr / n;
    }
  }
  return Pce(families, basis, std::move(c));
}

Pce Pce::fit_regression_select_order(const std::vector<PolynomialFamily>& families, const Eigen::MatrixXd& X,
                                     const Eigen::MatrixXd& Y, int p_min, int p_max, OrderSelection* info) {
  FLEXUQ_REQUIRE(0 <= p_min && p_min <= p_max, "select order: bad range [" << p_min << ", " << p_max << "]");
  const int d = static_cast<int>(families.size());
  Pce best;
  double best_loo = std::numeric_limits<double>::infinity();
  OrderSelection sel;
  for (int p = p_min; p <= p_max; ++p) {
    if (MultiIndexSet::total_degree_size(d, p) >= X.rows()) break;
    LooError e;
    Pce fit;
    try {
      fit = fit_regression(families, MultiIndexSet::total_degree(d, p), X, Y, &e);
    } catch (const InputError&) {
      break; // rank deficient: higher orders are too
    }
    const double m = e.normalized.mean();
    sel.orders.push_back(p);
    sel.loo.push_back(m);
    if (m < best_loo) {
      best_loo = m;
      best = std::move(fit);
      sel.order = p;
    }
  }
  FLEXUQ_REQUIRE(sel.order >= 0, "select order: no order in [" << p_min << ", " << p_max << "] has fewer terms than the " << X.rows() << " samples");
  if (info) *info = sel;
  return best;
}

Eigen::RowVectorXd Pce::mean() const {
  FLEXUQ_REQUIRE(zero_ >= 0, "Pce::mean: the basis has no constant term");
  return coef_.row(zero_);
}

Eigen::RowVectorXd Pce::variance() const {
  Eigen::RowVectorXd v = coef_.colwise().squaredNorm();
  if (zero_ >= 0) v -= coef_.row(zero_).cwiseAbs2();
  return v.cwiseMax(0.0);
}

Eigen::RowVectorXd Pce::share(const std::function<bool(const int*)>& term) const {
  Eigen::RowVectorXd s = Eigen::RowVectorXd::Zero(n_outputs());
  for (int k = 0; k < n_terms(); ++k)
    if (k != zero_ && term(basis_.data(k))) s += coef_.row(k).cwiseAbs2();
  const Eigen::RowVectorXd v = variance();
  for (int j = 0; j < n_outputs(); ++j) s[j] = v[j] > 0.0 ? s[j] / v[j] : 0.0;
  return s;
}

Eigen::MatrixXd Pce::sobol_first() const {
  Eigen::MatrixXd S(dim(), n_outputs());
  const int d = dim();
  for (int i = 0; i < d; ++i)
    S.row(i) = share([i, d](const int* a) {
      for (int t = 0; t < d; ++t)
        if ((a[t] > 0) != (t == i)) return false;
      return true;
    });
  return S;
}

Eigen::MatrixXd Pce::sobol_total() const {
  Eigen::MatrixXd S(dim(), n_outputs());
  for (int i = 0; i < dim(); ++i) S.row(i) = share([i](const int* a) { return a[i] > 0; });
  return S;
}

Eigen::RowVectorXd Pce::sobol_interaction(const std::vector<int>& subset) const {
  std::vector<char> in(dim(), 0);
  for (int i : subset) {
    FLEXUQ_REQUIRE(i >= 0 && i < dim(), "sobol_interaction: variable " << i << " out of range");
    in[i] = 1;
  }
  FLEXUQ_REQUIRE(!subset.empty(), "sobol_interaction: empty subset");
  const int d = dim();
  return share([&in, d](const int* a) {
    for (int t = 0; t < d; ++t)
      if ((a[t] > 0) != static_cast<bool>(in[t])) return false;
    return true;
  });
}

Eigen::MatrixXd Pce::evaluate(const Eigen::MatrixXd& X) const {
  FLEXUQ_REQUIRE(X.cols() == dim(), "Pce::evaluate: points have " << X.cols() << " columns, expansion dimension " << dim());
  const Eigen::Index n = X.rows(), block = 2048;
  Eigen::MatrixXd Y(n, n_outputs());
  for (Eigen::Index r0 = 0; r0 < n; r0 += block) {
    const Eigen::Index m = std::min(block, n - r0);
    const Eigen::MatrixXd A = design_matrix(families_, basis_, X.middleRows(r0, m));
    Y.middleRows(r0, m).noalias() = A * coef_;
  }
  return Y;
}

} // namespace flexuq::uq
