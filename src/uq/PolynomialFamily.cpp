// SPDX-License-Identifier: MIT
#include "flexuq/uq/PolynomialFamily.hpp"

#include "flexuq/core/Error.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace flexuq::uq {

namespace {
constexpr int kClassicalDegree = 256; // recurrence stored up to this degree for Askey families
}

PolynomialFamily::PolynomialFamily(Kind k, std::string name, std::vector<double> a, std::vector<double> b,
                                   double p0, double p1)
    : kind_(k), name_(std::move(name)), a_(std::move(a)), b_(std::move(b)), par_{p0, p1} {
  sb_.resize(b_.size());
  for (size_t n = 0; n < b_.size(); ++n) sb_[n] = std::sqrt(b_[n]);
}

PolynomialFamily PolynomialFamily::hermite() {
  std::vector<double> a(kClassicalDegree + 1, 0.0), b(kClassicalDegree + 1);
  b[0] = 1.0;
  for (int n = 1; n <= kClassicalDegree; ++n) b[n] = n;
  return PolynomialFamily(Kind::Hermite, "hermite", a, b);
}

PolynomialFamily PolynomialFamily::legendre() {
  std::vector<double> a(kClassicalDegree + 1, 0.0), b(kClassicalDegree + 1);
  b[0] = 1.0;
  for (int n = 1; n <= kClassicalDegree; ++n) b[n] = double(n) * n / (4.0 * n * n - 1.0);
  return PolynomialFamily(Kind::Legendre, "legendre", a, b);
}

PolynomialFamily PolynomialFamily::laguerre(double alpha) {
  FLEXUQ_REQUIRE(alpha > -1.0, "Laguerre parameter alpha = " << alpha << " must be > -1");
  std::vector<double> a(kClassicalDegree + 1), b(kClassicalDegree + 1);
  b[0] = 1.0;
  for (int n = 0; n <= kClassicalDegree; ++n) {
    a[n] = 2.0 * n + alpha + 1.0;
    if (n > 0) b[n] = n * (n + alpha);
  }
  return PolynomialFamily(Kind::Laguerre, "laguerre", a, b, alpha);
}

PolynomialFamily PolynomialFamily::jacobi(double al, double be) {
  FLEXUQ_REQUIRE(al > -1.0 && be > -1.0, "Jacobi parameters (" << al << ", " << be << ") must be > -1");
  std::vector<double> a(kClassicalDegree + 1), b(kClassicalDegree + 1);
  const double s = al + be;
  a[0] = (be - al) / (s + 2.0);
  b[0] = 1.0;
  for (int n = 1; n <= kClassicalDegree; ++n) {
    const double t = 2.0 * n + s;
    a[n] = (be * be - al * al) / (t * (t + 2.0));
    if (n == 1)
      b[n] = 4.0 * (1.0 + al) * (1.0 + be) / ((2.0 + s) * (2.0 + s) * (3.0 + s));
    else
      b[n] = 4.0 * n * (n + al) * (n + be) * (n + s) / (t * t * (t + 1.0) * (t - 1.0));
  }
  return PolynomialFamily(Kind::Jacobi, "jacobi", a, b, al, be);
}

PolynomialFamily PolynomialFamily::from_discrete_measure(const Eigen::VectorXd& x, const Eigen::VectorXd& w,
                                                         int max_degree, std::string name) {
  FLEXUQ_REQUIRE(x.size() == w.size() && x.size() > max_degree && max_degree >= 0,
                 "Stieltjes: need more support points (" << x.size() << ") than max_degree (" << max_degree
                                                         << ") and matching weights");
  FLEXUQ_REQUIRE((w.array() >= 0.0).all() && w.sum() > 0.0, "Stieltjes: weights must be non-negative");
  const Eigen::ArrayXd wn = w.array() / w.sum();
  const Eigen::ArrayXd xa = x.array();
  std::vector<double> a(max_degree + 1), b(max_degree + 1);
  // Orthonormal Stieltjes (discretised): q_n are the orthonormal polynomials at the support points.
  Eigen::ArrayXd q_prev = Eigen::ArrayXd::Zero(x.size()), q = Eigen::ArrayXd::Ones(x.size());
  b[0] = 1.0;
  for (int n = 0; n <= max_degree; ++n) {
    a[n] = (wn * xa * q * q).sum();
    if (n == max_degree) break;
    Eigen::ArrayXd r = (xa - a[n]) * q - (n > 0 ? std::sqrt(b[n]) : 0.0) * q_prev;
    b[n + 1] = (wn * r * r).sum();
    FLEXUQ_REQUIRE(b[n + 1] > 0.0, "Stieltjes: measure supports only " << n + 1 << " points");
    q_prev = q;
    q = r / std::sqrt(b[n + 1]);
  }
  return PolynomialFamily(Kind::Numerical, std::move(name), a, b);
}

PolynomialFamily PolynomialFamily::from_density(const std::function<double(double)>& density, double lo,
                                                double hi, int max_degree, int panels, std::string name) {
  FLEXUQ_REQUIRE(std::isfinite(lo) && std::isfinite(hi) && hi > lo, "from_density: bad interval [" << lo << ", " << hi << "]");
  FLEXUQ_REQUIRE(panels >= 1, "from_density: panels must be >= 1");
  const Quadrature gl = legendre().gauss(24);
  const int np = gl.size();
  Eigen::VectorXd x(np * panels), w(np * panels);
  const double h = (hi - lo) / panels;
  for (int p = 0; p < panels; ++p)
    for (int k = 0; k < np; ++k) {
      const double xi = lo + h * (p + 0.5 * (gl.points(k, 0) + 1.0));
      x[p * np + k] = xi;
      w[p * np + k] = gl.weights[k] * h * density(xi);
    }
  return from_discrete_measure(x, w, max_degree, std::move(name));
}

void PolynomialFamily::evaluate(double x, int p, double* out) const {
  FLEXUQ_REQUIRE(p >= 0 && p <= max_degree(), name_ << ": degree " << p << " exceeds the stored recurrence ("
                                                        << max_degree() << ")");
  out[0] = 1.0;
  if (p == 0) return;
  out[1] = (x - a_[0]) / sb_[1];
  for (int n = 1; n < p; ++n) out[n + 1] = ((x - a_[n]) * out[n] - sb_[n] * out[n - 1]) / sb_[n + 1];
}

Eigen::VectorXd PolynomialFamily::evaluate(double x, int p) const {
  Eigen::VectorXd v(p + 1);
  evaluate(x, p, v.data());
  return v;
}

Eigen::MatrixXd PolynomialFamily::evaluate(const Eigen::VectorXd& x, int p) const {
  FLEXUQ_REQUIRE(p >= 0 && p <= max_degree(), name_ << ": degree " << p << " exceeds the stored recurrence ("
                                                        << max_degree() << ")");
  Eigen::MatrixXd v(x.size(), p + 1);
  v.col(0).setOnes();
  if (p == 0) return v;
  v.col(1) = (x.array() - a_[0]) / sb_[1];
  for (int n = 1; n < p; ++n)
    v.col(n + 1) = ((x.array() - a_[n]) * v.col(n).array() - sb_[n] * v.col(n - 1).array()) / sb_[n + 1];
  return v;
}

Quadrature PolynomialFamily::gauss(int n) const {
  FLEXUQ_REQUIRE(n >= 1 && n - 1 <= max_degree(), name_ << ": Gauss rule with " << n << " points needs the recurrence to degree " << n - 1);
  Quadrature q;
  q.points.resize(n, 1);
  q.weights.resize(n);
  if (n == 1) {
    q.points(0, 0) = a_[0];
    q.weights[0] = 1.0;
    return q;
  }
  Eigen::VectorXd diag(n), sub(n - 1);
  for (int k = 0; k < n; ++k) diag[k] = a_[k];
  for (int k = 0; k < n - 1; ++k) sub[k] = sb_[k + 1];
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
  es.computeFromTridiagonal(diag, sub, Eigen::EigenvaluesOnly);
  FLEXUQ_REQUIRE(es.info() == Eigen::Success, name_ << ": Golub-Welsch eigenvalue solve failed");
  std::vector<double> psi(n);
  for (int k = 0; k < n; ++k) {
    const double x = es.eigenvalues()[k];
    evaluate(x, n - 1, psi.data());
    double s = 0.0;
    for (double v : psi) s += v * v;
    q.points(k, 0) = x;
    q.weights[k] = 1.0 / s;
  }
  // Symmetric measures: make the rule exactly symmetric (centre node exactly a_0).
  bool symmetric = true;
  for (int k = 0; k < n && symmetric; ++k) symmetric = (a_[k] == 0.0);
  if (symmetric) {
    for (int k = 0; k < n / 2; ++k) {
      const double x = 0.5 * (q.points(n - 1 - k, 0) - q.points(k, 0));
      const double w = 0.5 * (q.weights[k] + q.weights[n - 1 - k]);
      q.points(k, 0) = -x;
      q.points(n - 1 - k, 0) = x;
      q.weights[k] = q.weights[n - 1 - k] = w;
    }
    if (n % 2 == 1) q.points(n / 2, 0) = 0.0;
  }
  q.weights /= q.weights.sum();
  return q;
}

} // namespace flexuq::uq
