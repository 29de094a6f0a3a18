// SPDX-License-Identifier: MIT
#include "flexuq/sg/Expansion.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Material.hpp"
#include "flexuq/uq/Pce.hpp"
#include "flexuq/uq/Sampler.hpp"

#include <cmath>

namespace flexuq::sg {

Eigen::VectorXd lognormal_hermite_coefficients(double mu_ln, double sigma_ln, int order) {
  Eigen::VectorXd c(order + 1);
  double v = std::exp(mu_ln + 0.5 * sigma_ln * sigma_ln);
  for (int n = 0; n <= order; ++n) {
    c[n] = v;                        // e^{μ+σ²/2} σⁿ/√(n!)
    v *= sigma_ln / std::sqrt(n + 1.0);
  }
  return c;
}

Eigen::VectorXd input_coefficients(const uq::Distribution& d, int order, int gauss_points) {
  if (d.kind() == uq::Distribution::Kind::LogNormal)
    return lognormal_hermite_coefficients(d.parameter(0), d.parameter(1), order);
  const auto fam = d.germ_family();
  const auto rule = fam.gauss(gauss_points > 0 ? gauss_points : order + 8);
  Eigen::VectorXd c = Eigen::VectorXd::Zero(order + 1);
  Eigen::VectorXd psi(order + 1);
  for (int q = 0; q < rule.size(); ++q) {
    fam.evaluate(rule.points(q, 0), order, psi.data());
    c += rule.weights[q] * d.from_germ(rule.points(q, 0)) * psi;
  }
  return c;
}

namespace {

std::string sample_name(const uq::StochasticSpace& space, const Eigen::VectorXd& x, const std::string& what) {
  std::ostringstream os;
  os << what << " (";
  for (int i = 0; i < space.dim(); ++i) os << (i ? ", " : "") << space.name(i) << " = " << x[i];
  os << ")";
  return os.str();
}

// θ at the physical point of germ ξ, both stiffness and mass, after the admissibility check.
Eigen::RowVectorXd evaluate_map(const uq::StochasticSpace& space, const AffineMap& map, const Eigen::RowVectorXd& xi,
                                const std::string& what) {
  const Eigen::VectorXd x = space.from_germ(xi).row(0).transpose();
  if (map.check) map.check(x, sample_name(space, x, what));
  Eigen::RowVectorXd out(map.n_stiffness + map.n_mass);
  const auto tk = map.stiffness(x);
  FLEXUQ_REQUIRE(static_cast<int>(tk.size()) == map.n_stiffness, "sg: the stiffness map returned " << tk.size()
                                                                       << " coefficients, expected " << map.n_stiffness);
  for (int k = 0; k < map.n_stiffness; ++k) out[k] = tk[k];
  if (map.n_mass > 0) {
    const auto tm = map.mass(x);
    FLEXUQ_REQUIRE(static_cast<int>(tm.size()) == map.n_mass, "sg: the mass map returned " << tm.size()
                                                                  << " coefficients, expected " << map.n_mass);
    for (int k = 0; k < map.n_mass; ++k) out[map.n_stiffness + k] = tm[k];
  }
  return out;
}

void split(CoefficientExpansion& e, const Eigen::MatrixXd& all, int n_stiffness) {
  e.stiffness = all.leftCols(n_stiffness);
  e.mass = all.rightCols(all.cols() - n_stiffness);
}

} // namespace

CoefficientExpansion expand_coefficients(const uq::StochasticSpace& space, const AffineMap& map,
                                         const ExpansionOptions& opt) {
  FLEXUQ_REQUIRE(opt.order >= 0, opt.key << ".operator_order must be >= 0, got " << opt.order);
  FLEXUQ_REQUIRE(space.dim() > 0, "sg: the stochastic space has no parameters");
  FLEXUQ_REQUIRE(map.n_stiffness > 0 && map.stiffness, "sg: the affine map has no stiffness terms");
  CoefficientExpansion e;
  e.basis = uq::MultiIndexSet::total_degree(space.dim(), opt.order);
  const int P = e.basis.size(), M = space.dim(), nt = map.n_stiffness + map.n_mass;

  Projection method = opt.method;
  if (method == Projection::Automatic) {
    if (map.affine)
      method = Projection::Exact;
    else {
      FLEXUQ_REQUIRE(opt.regression_samples > 0,
                     "sg: " << (map.description.empty() ? "the parameter map" : map.description)
                            << " is not affine in the inputs (e.g. E = 9CG/(3C+G)); its operator expansion needs "
                               "regression settings: set "
                            << opt.key << ".regression.samples (>= " << 2 * P << ", twice the "
                            << P << " terms) or " << opt.key << ".projection: quadrature");
      method = Projection::Regression;
    }
  }
  FLEXUQ_REQUIRE(method != Projection::Exact || map.affine,
                 "sg: exact projection needs a map affine in the inputs; "
                     << (map.description.empty() ? "this map" : map.description) << " is not (use regression)");
  e.used = method;

  if (method == Projection::Exact) {
    // θ = c + L x: recover c and L from M + 1 evaluations (exact for an affine map), check the
    // mean point, then combine the 1-D input coefficients.
    Eigen::VectorXd mean(M);
    for (int i = 0; i < M; ++i) mean[i] = space.distribution(i).mean();
    if (map.check) map.check(mean, sample_name(space, mean, "the mean"));
    auto eval = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd t(nt);
      const auto tk = map.stiffness(x);
      for (int k = 0; k < map.n_stiffness; ++k) t[k] = tk[k];
      if (map.n_mass) {
        const auto tm = map.mass(x);
        for (int k = 0; k < map.n_mass; ++k) t[map.n_stiffness + k] = tm[k];
      }
      return t;
    };
    const Eigen::VectorXd t0 = eval(mean);
    Eigen::MatrixXd L(nt, M);
    for (int i = 0; i < M; ++i) {
      Eigen::VectorXd x = mean;
      const double h = std::abs(mean[i]) > 0 ? std::abs(mean[i]) : 1.0;
      x[i] += h;
      L.col(i) = (eval(x) - t0) / h;
    }
    const Eigen::VectorXd c = t0 - L * mean;
    Eigen::MatrixXd all = Eigen::MatrixXd::Zero(P, nt);
    for (int i = 0; i < M; ++i) {
      const Eigen::VectorXd xc = input_coefficients(space.distribution(i), opt.order, opt.quadrature_points);
      for (int n = 0; n <= opt.order; ++n) {
        std::vector<int> idx(M, 0);
        idx[i] = n;
        const int a = e.basis.find(idx);
        all.row(a) += xc[n] * L.col(i).transpose();
      }
    }
    all.row(0) += c.transpose();
    split(e, all, map.n_stiffness);
    return e;
  }

  if (method == Projection::Quadrature) {
    const int n = opt.quadrature_points > 0 ? opt.quadrature_points : opt.order + 8;
    const auto rule = space.gauss_rule(n);
    Eigen::MatrixXd values(rule.size(), nt);
    for (int q = 0; q < rule.size(); ++q)
      values.row(q) = evaluate_map(space, map, rule.points.row(q), "quadrature node " + std::to_string(q));
    const auto pce = uq::Pce::fit_projection(space.families(), e.basis, rule, values);
    split(e, pce.coefficients(), map.n_stiffness);
    return e;
  }

  // Regression on Latin-hypercube germ samples (seed 000 §2.13 "Sampling").
  const int ns = opt.regression_samples;
  FLEXUQ_REQUIRE(ns > P, opt.key << ".regression.samples = " << ns << " must exceed the " << P
                                 << " terms of the order-" << opt.order << " expansion (use >= " << 2 * P << ")");
  uq::Sampler sampler(uq::SamplingMethod::LatinHypercube, M, opt.regression_seed, ns);
  const Eigen::MatrixXd xi = space.germ_from_uniform(sampler.samples(0, ns));
  Eigen::MatrixXd values(ns, nt);
  for (int s = 0; s < ns; ++s) values.row(s) = evaluate_map(space, map, xi.row(s), "regression sample " + std::to_string(s));
  uq::LooError loo;
  const auto pce = uq::Pce::fit_regression(space.families(), e.basis, xi, values, &loo);
  e.regression_loo = loo.normalized.size() ? loo.normalized.maxCoeff() : 0.0;
  split(e, pce.coefficients(), map.n_stiffness);
  return e;
}

std::vector<MatH> expand_operator(const fe::AffineOperator& terms, const Eigen::MatrixXd& coefficients) {
  FLEXUQ_REQUIRE_OPTION(static_cast<std::size_t>(coefficients.cols()) == terms.size(), "component.keep_affine",
                        "sg: " << coefficients.cols() << " coefficient columns for " << terms.size()
                               << " affine terms (keep the affine terms: {})");
  std::vector<MatH> out;
  out.reserve(coefficients.rows());
  for (int a = 0; a < coefficients.rows(); ++a) {
    std::vector<double> theta(coefficients.cols());
    for (int k = 0; k < coefficients.cols(); ++k) theta[k] = coefficients(a, k);
    out.push_back(terms.evaluate(theta));
  }
  return out;
}

AffineMap parametrisation_map(const fe::MaterialParametrisation& p) {
  AffineMap map;
  map.description = "the material parametrisation of the component";
  bool random_mass = false;
  for (const auto& par : p.parameters()) {
    map.affine = map.affine && (par.property == fe::MaterialProperty::E || par.property == fe::MaterialProperty::rho);
    random_mass = random_mass || par.property == fe::MaterialProperty::rho;
  }
  auto theta = [](const Eigen::VectorXd& x) { return std::vector<double>(x.data(), x.data() + x.size()); };
  map.n_stiffness = p.n_stiffness_terms(); // with a constant term: coefficient 1 (ψ₀ only)
  map.stiffness = [&p, theta](const Eigen::VectorXd& x) { return p.coefficients(theta(x)).stiffness; };
  if (random_mass) {
    map.n_mass = p.n_mass_terms();
    map.mass = [&p, theta](const Eigen::VectorXd& x) { return p.coefficients(theta(x)).mass; };
  }
  map.check = [&p, theta](const Eigen::VectorXd& x, const std::string& where) {
    try {
      (void)p.materials(theta(x));
    } catch (const InputError& e) {
      rethrow_input_error(e, "sg: " + where + ": ");
    }
  };
  return map;
}

} // namespace flexuq::sg
