// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticSpace.hpp
/// @brief Named independent input parameters with their distributions; maps between the unit
/// cube (sampling), the germ space (polynomial chaos) and the physical space.

#include "flexuq/uq/Distribution.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/Quadrature.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace flexuq::uq {

class StochasticSpace {
public:
  /// Append a parameter; names must be unique and non-empty.
  StochasticSpace& add(const std::string& name, const Distribution& d);

  int dim() const { return static_cast<int>(dists_.size()); }
  const std::string& name(int i) const { return names_[i]; }
  const Distribution& distribution(int i) const { return dists_[i]; }
  int index(const std::string& name) const; ///< throws InputError if unknown
  /// Germ polynomial families, one per parameter (Distribution::germ_family()).
  const std::vector<PolynomialFamily>& families() const { return families_; }

  /// Row-wise maps (n × dim matrices).
  Eigen::MatrixXd from_germ(const Eigen::MatrixXd& xi) const;
  Eigen::MatrixXd to_germ(const Eigen::MatrixXd& x) const;
  Eigen::MatrixXd germ_from_uniform(const Eigen::MatrixXd& u) const;

  /// Tensor Gauss rule in the germ space with @p n points per dimension.
  Quadrature gauss_rule(int n) const;
  Quadrature gauss_rule(const std::vector<int>& n) const;
  /// Smolyak grid in the germ space (CC for uniform germs, linear-growth Gauss otherwise).
  Quadrature sparse_grid(int level) const;

private:
  std::vector<std::string> names_;
  std::vector<Distribution> dists_;
  std::vector<PolynomialFamily> families_;
};

} // namespace flexuq::uq
