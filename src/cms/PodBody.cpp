// SPDX-License-Identifier: MIT
#include "flexuq/cms/PodBody.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

namespace flexuq::cms {

std::vector<double> AffineReducedTerms::coefficients_at(const std::vector<double>& theta,
                                                        const std::vector<double>& nominal) const {
  std::vector<double> c(coefficients);
  for (std::size_t t = 0; t < c.size(); ++t)
    if (parameter[t] >= 0) {
      const auto p = static_cast<std::size_t>(parameter[t]);
      c[t] *= theta.at(p) / nominal.at(p);
    }
  return c;
}

Eigen::MatrixXd AffineReducedTerms::at(const std::vector<double>& theta, const std::vector<double>& nominal) const {
  FLEXUQ_ASSERT(!terms.empty(), "no affine terms");
  const auto c = coefficients_at(theta, nominal);
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(terms[0].rows(), terms[0].cols());
  for (std::size_t t = 0; t < terms.size(); ++t) S += c[t] * terms[t];
  return S;
}

Eigen::MatrixXd PodBody::K_at(const std::vector<double>& theta) const {
  FLEXUQ_REQUIRE(theta.size() == nominal.size(), "POD body: " << theta.size() << " parameter values, expected " << nominal.size());
  for (std::size_t i = 0; i < theta.size(); ++i)
    FLEXUQ_REQUIRE(theta[i] > 0, "POD body: parameter " << names[i] << " = " << theta[i] << " must be positive");
  return K.at(theta, nominal);
}

Eigen::MatrixXd PodBody::M_at(const std::vector<double>& theta) const {
  (void)K_at(theta); // the same checks (cheap: r × r)
  return M.at(theta, nominal);
}

namespace {
constexpr Eigen::Index kComSlot = 1, kInertiaComSlot = 1 + 3 + 9; // in flatten_invariants' order
}

Eigen::VectorXd PodBody::linear_invariants(const Invariants& inv) {
  const auto v = flatten_invariants(inv);
  Eigen::VectorXd l = Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
  l.segment<3>(kComSlot) = inv.mass * inv.com;
  l.segment<9>(kInertiaComSlot).setZero();
  return l;
}

Invariants PodBody::invariants_at(const std::vector<double>& theta) const {
  FLEXUQ_REQUIRE(has_invariants(), "POD body: the file holds no invariant terms (written before they existed)");
  (void)K_at(theta); // the parameter checks
  const Eigen::VectorXd l = I.at(theta, nominal);
  Invariants inv = unflatten_invariants(std::vector<double>(l.data(), l.data() + l.size()), rank(), lumped);
  FLEXUQ_REQUIRE(inv.mass > 0, "POD body: the mass at the given parameters is " << inv.mass);
  inv.com = l.segment<3>(kComSlot) / inv.mass;
  // J_C = J_O − m(|c|² 1 − c cᵀ), as the reduction computes it.
  inv.inertia_com = inv.inertia_origin - inv.mass * (inv.com.squaredNorm() * Eigen::Matrix3d::Identity() -
                                                     inv.com * inv.com.transpose());
  return inv;
}

void PodBody::write(io::H5File& f) const { BodyFile(f).write_pod(*this); }

PodBody PodBody::read(const io::H5File& f) { return BodyFile(f).read_pod(); }

} // namespace flexuq::cms
