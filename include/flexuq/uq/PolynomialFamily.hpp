// SPDX-License-Identifier: MIT
#pragma once
/// @file PolynomialFamily.hpp
/// @brief Univariate polynomials orthonormal w.r.t. a probability measure, given by their
/// three-term recurrence: classical Askey families and numerically generated ones (Stieltjes).
///
/// Convention: monic recurrence π_{n+1}(x) = (x − a_n) π_n(x) − b_n π_{n−1}(x) with b_0 = 1 (the
/// measure has mass 1); the orthonormal polynomials are ψ_n = π_n / √(b_1⋯b_n), so ψ_0 = 1, the
/// leading coefficient is positive and E[ψ_m ψ_n] = δ_mn.
///
/// | family | germ measure | ψ_n |
/// |---|---|---|
/// | hermite()        | N(0,1)                                      | He_n/√n! |
/// | legendre()       | U(−1,1)                                     | √(2n+1) P_n |
/// | laguerre(α)      | Gamma(α+1, 1): x^α e^−x/Γ(α+1), x>0        | (−1)^n L_n^(α) normalised |
/// | jacobi(a, b)     | ∝ (1−x)^a (1+x)^b on [−1,1]                 | P_n^(a,b) normalised, sign > 0 |
/// | numerical        | any measure (discretised)                   | from Stieltjes' procedure |

#include "flexuq/uq/Quadrature.hpp"

#include <Eigen/Dense>

#include <functional>
#include <string>
#include <vector>

namespace flexuq::uq {

class PolynomialFamily {
public:
  enum class Kind { Hermite, Legendre, Laguerre, Jacobi, Numerical };

  static PolynomialFamily hermite();
  static PolynomialFamily legendre();
  static PolynomialFamily laguerre(double alpha);            ///< α > −1
  static PolynomialFamily jacobi(double a, double b);        ///< a, b > −1
  /// Stieltjes' procedure on the discrete measure Σ w_k δ(x − x_k) (weights normalised to 1);
  /// recurrence up to degree @p max_degree (needs more support points than max_degree).
  static PolynomialFamily from_discrete_measure(const Eigen::VectorXd& x, const Eigen::VectorXd& w,
                                                int max_degree, std::string name = "numerical");
  /// Discretised Stieltjes for a density on [lo, hi] (finite): composite Gauss–Legendre with
  /// @p panels panels of 24 points each; the density need not be normalised.
  static PolynomialFamily from_density(const std::function<double(double)>& density, double lo, double hi,
                                       int max_degree, int panels = 64, std::string name = "numerical");

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  double parameter(int i) const { return par_[i]; } ///< α (Laguerre), a/b (Jacobi)
  int max_degree() const { return static_cast<int>(a_.size()) - 1; }

  double a(int n) const { return a_[n]; }  ///< monic recurrence coefficient a_n
  double b(int n) const { return b_[n]; }  ///< monic recurrence coefficient b_n (b_0 = 1)

  /// ψ_0(x) … ψ_p(x) into out[0..p].
  void evaluate(double x, int p, double* out) const;
  Eigen::VectorXd evaluate(double x, int p) const;
  /// Column n of the result is ψ_n at all points (vectorised over points).
  Eigen::MatrixXd evaluate(const Eigen::VectorXd& x, int p) const;

  /// n-point Gauss rule by Golub–Welsch (eigenvalues of the Jacobi matrix); weights computed as
  /// 1/Σ_{k<n} ψ_k(x_j)², sum to 1. Exact for degree 2n − 1. Nodes ascending.
  Quadrature gauss(int n) const;

private:
  PolynomialFamily(Kind k, std::string name, std::vector<double> a, std::vector<double> b, double p0 = 0,
                   double p1 = 0);
  Kind kind_;
  std::string name_;
  std::vector<double> a_, b_, sb_; // sb_ = √b
  double par_[2];
};

} // namespace flexuq::uq
