// SPDX-License-Identifier: MIT
#include "flexuq/uq/StochasticSpace.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>

namespace flexuq::uq {

StochasticSpace& StochasticSpace::add(const std::string& name, const Distribution& d) {
  FLEXUQ_REQUIRE(!name.empty(), "StochasticSpace: empty parameter name");
  FLEXUQ_REQUIRE(std::find(names_.begin(), names_.end(), name) == names_.end(), "StochasticSpace: parameter '" << name << "' defined twice");
  names_.push_back(name);
  dists_.push_back(d);
  families_.push_back(d.germ_family());
  return *this;
}

int StochasticSpace::index(const std::string& name) const {
  auto it = std::find(names_.begin(), names_.end(), name);
  FLEXUQ_REQUIRE(it != names_.end(), "StochasticSpace: unknown parameter '" << name << "'");
  return static_cast<int>(it - names_.begin());
}

namespace {
template <class F>
Eigen::MatrixXd map_rows(const Eigen::MatrixXd& in, int d, const char* what, F f) {
  FLEXUQ_REQUIRE(in.cols() == d, "StochasticSpace::" << what << ": " << in.cols() << " columns for " << d << " parameters");
  Eigen::MatrixXd out(in.rows(), in.cols());
  for (Eigen::Index r = 0; r < in.rows(); ++r)
    for (int j = 0; j < d; ++j) out(r, j) = f(j, in(r, j));
  return out;
}
} // namespace

Eigen::MatrixXd StochasticSpace::from_germ(const Eigen::MatrixXd& xi) const {
  return map_rows(xi, dim(), "from_germ", [this](int j, double v) { return dists_[j].from_germ(v); });
}
Eigen::MatrixXd StochasticSpace::to_germ(const Eigen::MatrixXd& x) const {
  return map_rows(x, dim(), "to_germ", [this](int j, double v) { return dists_[j].to_germ(v); });
}
Eigen::MatrixXd StochasticSpace::germ_from_uniform(const Eigen::MatrixXd& u) const {
  return map_rows(u, dim(), "germ_from_uniform", [this](int j, double v) { return dists_[j].germ_quantile(v); });
}

Quadrature StochasticSpace::gauss_rule(int n) const { return gauss_rule(std::vector<int>(dim(), n)); }
Quadrature StochasticSpace::gauss_rule(const std::vector<int>& n) const { return tensor_gauss(families_, n); }
Quadrature StochasticSpace::sparse_grid(int level) const { return smolyak(families_, level); }

} // namespace flexuq::uq
