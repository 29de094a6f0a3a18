// SPDX-License-Identifier: MIT
#include "flexuq/cms/PodBody.hpp"

#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

namespace flexuq::cms {

namespace {
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
const std::string P = "/stochastic_body/pod/";

void write_terms(io::H5File& f, const std::string& q, const AffineReducedTerms& a) {
  const auto r = static_cast<std::uint64_t>(a.terms.empty() ? 0 : a.terms[0].rows());
  std::vector<double> buf;
  for (const auto& t : a.terms) {
    const RowMat b = t;
    buf.insert(buf.end(), b.data(), b.data() + b.size());
  }
  f.write_replicated(P + q + "_terms", {static_cast<std::uint64_t>(a.terms.size()), r, r}, buf.data());
  f.write_replicated(P + q + "_coefficients", {a.coefficients.size()}, a.coefficients.data());
  f.write_replicated(P + q + "_parameter", {a.parameter.size()}, a.parameter.data());
}

AffineReducedTerms read_terms(const io::H5File& f, const std::string& q) {
  AffineReducedTerms a;
  const auto d = f.shape(P + q + "_terms");
  FLEXUQ_REQUIRE(d.size() == 3 && d[1] == d[2], f.path() << ": " << P << q << "_terms is not (T, r, r)");
  const auto v = f.read_all(P + q + "_terms");
  const auto r = static_cast<Eigen::Index>(d[1]);
  for (std::uint64_t t = 0; t < d[0]; ++t)
    a.terms.push_back(Eigen::Map<const RowMat>(v.data() + t * d[1] * d[2], r, r));
  a.coefficients = f.read_all(P + q + "_coefficients");
  a.parameter = f.read_all_int(P + q + "_parameter");
  FLEXUQ_REQUIRE(a.coefficients.size() == d[0] && a.parameter.size() == d[0],
                 f.path() << ": " << P << q << "_coefficients/_parameter do not match " << q << "_terms");
  return a;
}
} // namespace

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

void PodBody::write(io::H5File& f) const {
  write_terms(f, "K", K);
  write_terms(f, "M", M);
  f.write_strings(P + "parameter_names", names);
  f.write_replicated(P + "parameter_nominal", {nominal.size()}, nominal.data());
  if (has_invariants()) {
    std::vector<double> buf;
    for (const auto& t : I.terms) buf.insert(buf.end(), t.data(), t.data() + t.size());
    const auto T = static_cast<std::uint64_t>(I.terms.size()), L = static_cast<std::uint64_t>(I.terms[0].rows());
    f.write_replicated(P + "invariant_terms", {T, L}, buf.data());
    f.write_replicated(P + "invariant_coefficients", {I.coefficients.size()}, I.coefficients.data());
    f.write_replicated(P + "invariant_parameter", {I.parameter.size()}, I.parameter.data());
    f.write_attribute(P + "invariant_terms", "lumped_I5_I7", static_cast<std::int64_t>(lumped));
  }
}

PodBody PodBody::read(const io::H5File& f) {
  FLEXUQ_REQUIRE(f.exists(P + "K_terms"), f.path() << " holds no POD body (" << P << "K_terms)");
  PodBody b;
  b.K = read_terms(f, "K");
  b.M = read_terms(f, "M");
  b.names = f.read_strings(P + "parameter_names");
  b.nominal = f.read_all(P + "parameter_nominal");
  if (f.exists(P + "invariant_terms")) {
    const auto d = f.shape(P + "invariant_terms");
    FLEXUQ_REQUIRE(d.size() == 2 && d[1] == invariants_size(b.rank()),
                   f.path() << ": " << P << "invariant_terms is not (T, " << invariants_size(b.rank()) << ")");
    const auto v = f.read_all(P + "invariant_terms");
    for (std::uint64_t t = 0; t < d[0]; ++t)
      b.I.terms.push_back(Eigen::Map<const Eigen::VectorXd>(v.data() + t * d[1], static_cast<Eigen::Index>(d[1])));
    b.I.coefficients = f.read_all(P + "invariant_coefficients");
    b.I.parameter = f.read_all_int(P + "invariant_parameter");
    FLEXUQ_REQUIRE(b.I.coefficients.size() == d[0] && b.I.parameter.size() == d[0],
                   f.path() << ": " << P << "invariant_coefficients/_parameter do not match invariant_terms");
    b.lumped = f.read_attribute_int(P + "invariant_terms", "lumped_I5_I7") != 0;
  }
  return b;
}

} // namespace flexuq::cms
