// SPDX-License-Identifier: MIT
#include "flexuq/cms/PodBody.hpp"

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

void PodBody::write(io::H5File& f) const {
  write_terms(f, "K", K);
  write_terms(f, "M", M);
  f.write_strings(P + "parameter_names", names);
  f.write_replicated(P + "parameter_nominal", {nominal.size()}, nominal.data());
}

PodBody PodBody::read(const io::H5File& f) {
  FLEXUQ_REQUIRE(f.exists(P + "K_terms"), f.path() << " holds no POD body (" << P << "K_terms)");
  PodBody b;
  b.K = read_terms(f, "K");
  b.M = read_terms(f, "M");
  b.names = f.read_strings(P + "parameter_names");
  b.nominal = f.read_all(P + "parameter_nominal");
  return b;
}

} // namespace flexuq::cms
