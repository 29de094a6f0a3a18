// SPDX-License-Identifier: MIT
#include "flexuq/cms/StochasticBody.hpp"

#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/uq/Pce.hpp"

#include <cmath>
#include <numeric>

namespace flexuq::cms {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Dims = std::vector<std::uint64_t>;

void append(std::vector<double>& v, const Eigen::MatrixXd& A) {
  const RowMat R = A;
  v.insert(v.end(), R.data(), R.data() + R.size());
}

Eigen::MatrixXd take(const std::vector<double>& v, std::size_t& at, Eigen::Index rows, Eigen::Index cols) {
  FLEXUQ_REQUIRE(at + static_cast<std::size_t>(rows * cols) <= v.size(), "invariant vector too short");
  Eigen::MatrixXd A = Eigen::Map<const RowMat>(v.data() + at, rows, cols);
  at += static_cast<std::size_t>(rows * cols);
  return A;
}

const char* kind_name(uq::Distribution::Kind k) {
  switch (k) {
  case uq::Distribution::Kind::Normal: return "normal";
  case uq::Distribution::Kind::LogNormal: return "lognormal";
  case uq::Distribution::Kind::Uniform: return "uniform";
  case uq::Distribution::Kind::Beta: return "beta";
  case uq::Distribution::Kind::Gamma: return "gamma";
  case uq::Distribution::Kind::TruncatedNormal: return "truncated_normal";
  }
  return "?";
}

uq::Distribution make_distribution(const std::string& kind, const double* p, const std::string& where) {
  if (kind == "normal") return uq::Distribution::normal(p[0], p[1]);
  if (kind == "lognormal") return uq::Distribution::lognormal(p[0], p[1]);
  if (kind == "uniform") return uq::Distribution::uniform(p[0], p[1]);
  if (kind == "beta") return uq::Distribution::beta(p[0], p[1], p[2], p[3]);
  if (kind == "gamma") return uq::Distribution::gamma(p[0], p[1], p[2]);
  if (kind == "truncated_normal") return uq::Distribution::truncated_normal(p[0], p[1], p[2], p[3]);
  throw InputError(where + ": unknown distribution kind '" + kind + "'");
}

std::vector<uq::PolynomialFamily> families_of(const std::vector<uq::Distribution>& dists) {
  std::vector<uq::PolynomialFamily> f;
  for (const auto& d : dists) f.push_back(d.germ_family());
  return f;
}

std::uint64_t product(const Dims& d) {
  return std::accumulate(d.begin(), d.end(), std::uint64_t{1}, std::multiplies<>());
}

/// Per-entry sample variance (1/(N−1)) of the columns of @p Y.
Eigen::VectorXd column_variance(const Eigen::MatrixXd& Y) {
  const auto N = Y.rows();
  if (N < 2) return Eigen::VectorXd::Zero(Y.cols());
  const Eigen::RowVectorXd mean = Y.colwise().mean();
  return ((Y.rowwise() - mean).colwise().squaredNorm() / static_cast<double>(N - 1)).transpose();
}

/// Per entry: whether its spread is above round-off, std > 1e-9 × the largest RMS value of the
/// quantity (an entry that is zero in exact arithmetic carries only round-off noise, whose LOO error
/// is meaningless and would differ between partitions): the entries a LOO error means something for.
std::vector<char> varying(const Eigen::MatrixXd& Y, const Eigen::VectorXd& var) {
  const double rms = Y.size() ? std::sqrt((Y.colwise().squaredNorm() / static_cast<double>(Y.rows())).maxCoeff()) : 0.0;
  std::vector<char> v(static_cast<std::size_t>(Y.cols()));
  for (Eigen::Index k = 0; k < Y.cols(); ++k) v[static_cast<std::size_t>(k)] = std::sqrt(var(k)) > 1e-9 * rms;
  return v;
}

/// Fit @p Y on @p basis (regression or projection) with LOO errors per entry.
ExpandedQuantity fit_quantity(const std::vector<uq::PolynomialFamily>& fam, const uq::MultiIndexSet& basis,
                              const StochasticSamples& s, const Eigen::MatrixXd& Y, const Dims& dims, bool projection) {
  ExpandedQuantity q;
  q.dims = dims;
  const auto N = Y.rows();
  const bool can_loo = basis.size() < N;
  uq::LooError loo;
  if (projection) {
    const Eigen::MatrixXd Psi = uq::Pce::design_matrix(fam, basis, s.germ);
    const Eigen::Map<const Eigen::VectorXd> w(s.weights.data(), static_cast<Eigen::Index>(s.weights.size()));
    q.coefficients = Psi.transpose() * (w.asDiagonal() * Y);
    // LOO of a least-squares fit on the same nodes and basis: an error estimate of the projection.
    if (can_loo) uq::Pce::fit_regression(fam, basis, s.germ, Y, &loo);
  } else {
    q.coefficients = uq::Pce::fit_regression(fam, basis, s.germ, Y, &loo).coefficients();
  }
  if (loo.normalized.size() == Y.cols()) {
    const Eigen::VectorXd var = column_variance(Y);
    const auto vary = varying(Y, var);
    q.loo.resize(Y.cols());
    q.loo_rms.resize(Y.cols());
    for (Eigen::Index k = 0; k < Y.cols(); ++k) {
      const bool v = vary[static_cast<std::size_t>(k)] && std::isfinite(loo.normalized(k));
      q.loo(k) = v ? loo.normalized(k) : 0.0;
      q.loo_rms(k) = v ? std::sqrt(loo.normalized(k) * var(k)) : 0.0;
    }
  }
  return q;
}

/// Total degree chosen by LOO on the entries of @p Y that vary.
int select_order(const std::vector<uq::PolynomialFamily>& fam, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
                 int max_order, std::vector<double>* tried_loo) {
  const int d = static_cast<int>(X.cols());
  const auto vary = varying(Y, column_variance(Y));
  std::vector<Eigen::Index> keep;
  for (Eigen::Index k = 0; k < Y.cols(); ++k)
    if (vary[static_cast<std::size_t>(k)]) keep.push_back(k);
  if (keep.empty()) return 1;
  Eigen::MatrixXd Ys(Y.rows(), static_cast<Eigen::Index>(keep.size()));
  for (std::size_t j = 0; j < keep.size(); ++j) Ys.col(static_cast<Eigen::Index>(j)) = Y.col(keep[j]);
  int best = -1;
  double best_loo = 0;
  for (int p = 1; p <= max_order; ++p) {
    if (uq::MultiIndexSet::total_degree_size(d, p) >= X.rows()) break;
    uq::LooError loo;
    try {
      uq::Pce::fit_regression(fam, uq::MultiIndexSet::total_degree(d, p), X, Ys, &loo);
    } catch (const InputError&) {
      break; // rank-deficient design: higher orders are no better
    }
    const double m = loo.normalized.mean();
    if (tried_loo) tried_loo->push_back(m);
    if (best < 0 || m < best_loo) {
      best = p;
      best_loo = m;
    }
  }
  return best;
}

} // namespace

std::size_t invariants_size(Eigen::Index n) {
  const auto m = static_cast<std::size_t>(n);
  return 1 + 3 + 9 + 9 + 3 * m + 3 * m + 9 * m * m + 9 * m + 9 + m * m;
}

std::vector<double> flatten_invariants(const Invariants& inv) {
  std::vector<double> v;
  v.reserve(invariants_size(inv.Mff.rows()));
  v.push_back(inv.mass);
  append(v, inv.com.transpose());
  append(v, inv.inertia_origin);
  append(v, inv.inertia_com);
  append(v, inv.S);
  append(v, inv.Sr);
  for (const auto& S : inv.Skl) append(v, S);
  append(v, inv.Sbar);
  append(v, inv.Ikl);
  append(v, inv.Mff);
  return v;
}

Invariants scale_invariants(const Invariants& inv, double b, const Eigen::VectorXd& d) {
  FLEXUQ_REQUIRE(d.size() == inv.Mff.rows(), "scale_invariants: " << d.size() << " column scales for " << inv.Mff.rows() << " columns");
  const auto D = d.asDiagonal();
  Invariants s = inv;
  s.mass = b * inv.mass;
  s.inertia_origin = b * inv.inertia_origin;
  s.inertia_com = b * inv.inertia_com;
  s.S = b * inv.S * D;
  s.Sr = b * inv.Sr * D;
  for (std::size_t k = 0; k < s.Skl.size(); ++k) s.Skl[k] = b * (D * inv.Skl[k] * D);
  s.Sbar = b * inv.Sbar * D;
  s.Ikl = b * inv.Ikl;
  s.Mff = b * (D * inv.Mff * D);
  return s;
}

Invariants unflatten_invariants(const std::vector<double>& v, Eigen::Index n, bool lumped) {
  FLEXUQ_REQUIRE(v.size() == invariants_size(n),
                 "invariants: " << v.size() << " values for " << n << " columns, expected " << invariants_size(n));
  Invariants inv;
  std::size_t at = 0;
  inv.mass = v[at++];
  inv.com = take(v, at, 3, 1);
  inv.inertia_origin = take(v, at, 3, 3);
  inv.inertia_com = take(v, at, 3, 3);
  inv.S = take(v, at, 3, n);
  inv.Sr = take(v, at, 3, n);
  for (auto& S : inv.Skl) S = take(v, at, n, n);
  inv.Sbar = take(v, at, 9, n);
  inv.Ikl = take(v, at, 3, 3);
  inv.Mff = take(v, at, n, n);
  inv.lumped = lumped;
  return inv;
}

Eigen::VectorXd ExpandedQuantity::evaluate(const Eigen::MatrixXd& psi_row) const {
  return (psi_row * coefficients).transpose();
}

Eigen::MatrixXd StochasticBody::psi(const std::vector<double>& xi) const {
  FLEXUQ_REQUIRE(xi.size() == dim(), "stochastic body: " << xi.size() << " germ values for " << dim() << " parameters");
  Eigen::MatrixXd X(1, static_cast<Eigen::Index>(xi.size()));
  for (std::size_t i = 0; i < xi.size(); ++i) X(0, static_cast<Eigen::Index>(i)) = xi[i];
  return uq::Pce::design_matrix(families_of(dists), multi_indices, X);
}

std::vector<double> StochasticBody::to_germ(const std::vector<double>& theta) const {
  FLEXUQ_REQUIRE(theta.size() == dim(), "stochastic body: " << theta.size() << " parameter values for " << dim()
                                                            << " parameters");
  std::vector<double> xi(theta.size());
  for (std::size_t i = 0; i < theta.size(); ++i) {
    const auto& d = dists[i];
    FLEXUQ_REQUIRE(theta[i] >= d.lower() && theta[i] <= d.upper() && std::isfinite(theta[i]),
                   "parameter " << names[i] << " = " << theta[i] << " is outside the support of " << d.describe());
    xi[i] = d.to_germ(theta[i]);
  }
  return xi;
}

ReducedBody StochasticBody::at_germ(const std::vector<double>& xi) const {
  const Eigen::MatrixXd P = psi(xi);
  ReducedBody b = nominal;
  const Eigen::Index n = nominal.n_columns();
  auto square = [&](const std::string& q) {
    const Eigen::VectorXd v = pce.at(q).evaluate(P);
    const Eigen::MatrixXd A = Eigen::Map<const RowMat>(v.data(), n, n);
    return Eigen::MatrixXd(0.5 * (A + A.transpose())); // symmetric to round-off already; make it exact
  };
  b.K = square("K");
  b.M = square("M");
  if (has("mode_eigenvalues")) b.mode_eigenvalues = pce.at("mode_eigenvalues").evaluate(P);
  if (has("invariants")) {
    const Eigen::VectorXd v = pce.at("invariants").evaluate(P);
    b.invariants = unflatten_invariants(std::vector<double>(v.data(), v.data() + v.size()), n, nominal.invariants.lumped);
  }
  // Reduced free-free modes and floating-frame coordinates of K̄(ξ), M̄(ξ), as the check-out computes them.
  Checkout& c = b.checkout;
  c.frame_V.resize(0, 0);
  c.frame_eigenvalues.resize(0);
  if (nominal.method != "macneal") {
    try {
      auto e = elastic_coordinates(b.K, b.M);
      if (e.rigid == 6) {
        c.reduced_hz = e.eigenvalues.cwiseMax(0.0).cwiseSqrt() / (2 * M_PI);
        c.frame_V = std::move(e.V);
        c.frame_eigenvalues = std::move(e.eigenvalues);
      }
    } catch (const Error&) {
      c.reduced_hz.resize(0);
    }
  }
  return b;
}

std::vector<double> StochasticBody::basis_at_germ(const std::vector<double>& xi) const {
  if (!has("basis")) return {};
  const Eigen::VectorXd v = pce.at("basis").evaluate(psi(xi));
  return std::vector<double>(v.data(), v.data() + v.size());
}

void StochasticBody::write(io::H5File& f) const {
  const std::string G = "/stochastic_body";
  const auto d = static_cast<std::uint64_t>(dim());
  const auto P = static_cast<std::uint64_t>(multi_indices.size());
  std::vector<std::string> kinds, desc;
  std::vector<double> par;
  for (const auto& dist : dists) {
    kinds.emplace_back(kind_name(dist.kind()));
    desc.push_back(dist.describe());
    for (int i = 0; i < 4; ++i) par.push_back(dist.parameter(i));
  }
  f.write_strings(G + "/germ/names", names);
  f.write_strings(G + "/germ/kinds", kinds);
  f.write_strings(G + "/germ/distributions", desc);
  f.write_replicated(G + "/germ/parameters", {d, 4}, par.data());
  std::vector<std::int64_t> mi(P * d);
  for (std::uint64_t t = 0; t < P; ++t)
    for (std::uint64_t i = 0; i < d; ++i) mi[t * d + i] = multi_indices(static_cast<int>(t), static_cast<int>(i));
  f.write_replicated(G + "/multi_indices", {P, d}, mi.data());
  for (const auto& [name, q] : pce) {
    const std::string Q = G + "/pce/" + name;
    Dims cd{P};
    cd.insert(cd.end(), q.dims.begin(), q.dims.end());
    const RowMat C = q.coefficients;
    f.write_replicated(Q + "/coefficients", cd, C.data());
    if (q.loo.size() > 0) {
      f.write_replicated(Q + "/loo", q.dims, q.loo.data());
      f.write_replicated(Q + "/loo_rms", q.dims, q.loo_rms.data());
    }
  }
  f.write_attribute(G, "fit", fit);
  f.write_attribute(G, "order", static_cast<std::int64_t>(order));
  f.write_attribute(G, "points_used", points_used);
  f.write_attribute(G, "points_total", points_total);
  f.write_attribute(G, "layout",
                    std::string("y(xi) = sum_t coefficients[t] Psi_t(xi); Psi_t = prod_i psi_i^(multi_indices[t][i])(xi_i), "
                                "psi_i orthonormal w.r.t. the germ law of parameter i (germ/kinds, germ/parameters: the "
                                "uq::Distribution constructor arguments); xi_i = to_germ(theta_i); deterministic parts "
                                "of the body under /reduced (the body at the parameter means)"));
}

StochasticBody StochasticBody::read(const io::H5File& f) {
  const std::string G = "/stochastic_body";
  auto need = [&](const std::string& d) {
    if (!f.exists(d)) throw InputError(f.path() + ": missing " + d + " (not a stochastic body file: run flexuq reduce "
                                                                     "with reduce.stochastic)");
  };
  need(G + "/germ/names");
  StochasticBody b;
  b.nominal = ReducedBody::read(f);
  b.names = f.read_strings(G + "/germ/names");
  const auto kinds = f.read_strings(G + "/germ/kinds");
  need(G + "/germ/parameters");
  const auto par = f.read_all(G + "/germ/parameters");
  const std::size_t d = b.names.size();
  FLEXUQ_REQUIRE(kinds.size() == d && par.size() == 4 * d,
                 f.path() << ": " << G << "/germ: " << d << " names, " << kinds.size() << " kinds, " << par.size()
                          << " parameters (expected 4 per name)");
  for (std::size_t i = 0; i < d; ++i) b.dists.push_back(make_distribution(kinds[i], par.data() + 4 * i, f.path()));
  need(G + "/multi_indices");
  const auto mi = f.read_all_int(G + "/multi_indices");
  FLEXUQ_REQUIRE(d > 0 && mi.size() % d == 0, f.path() << ": " << G << "/multi_indices does not have " << d << " columns");
  std::vector<uq::MultiIndexSet::Index> idx;
  for (std::size_t t = 0; t < mi.size() / d; ++t) idx.emplace_back(mi.begin() + static_cast<std::ptrdiff_t>(t * d),
                                                                   mi.begin() + static_cast<std::ptrdiff_t>((t + 1) * d));
  b.multi_indices = uq::MultiIndexSet::from_indices(static_cast<int>(d), idx);
  const auto P = static_cast<Eigen::Index>(b.multi_indices.size());
  b.fit = f.read_attribute_string(G, "fit");
  b.order = static_cast<int>(f.read_attribute_int(G, "order"));
  b.points_used = f.read_attribute_int(G, "points_used");
  b.points_total = f.read_attribute_int(G, "points_total");
  for (const char* name : {"K", "M", "mode_eigenvalues", "free_free_frequencies", "invariants", "basis"}) {
    const std::string Q = G + "/pce/" + name;
    if (!f.exists(Q + "/coefficients")) {
      FLEXUQ_REQUIRE(std::string(name) != "K" && std::string(name) != "M", f.path() << ": missing " << Q << "/coefficients");
      continue;
    }
    ExpandedQuantity q;
    const Dims s = f.shape(Q + "/coefficients");
    FLEXUQ_REQUIRE(!s.empty() && static_cast<Eigen::Index>(s[0]) == P,
                   f.path() << ": " << Q << "/coefficients has " << (s.empty() ? 0 : s[0]) << " rows for " << P << " terms");
    q.dims.assign(s.begin() + 1, s.end());
    const auto v = f.read_all(Q + "/coefficients");
    q.coefficients = Eigen::Map<const RowMat>(v.data(), P, static_cast<Eigen::Index>(product(q.dims)));
    if (f.exists(Q + "/loo")) {
      const auto l = f.read_all(Q + "/loo"), r = f.read_all(Q + "/loo_rms");
      q.loo = Eigen::Map<const Eigen::VectorXd>(l.data(), static_cast<Eigen::Index>(l.size()));
      q.loo_rms = Eigen::Map<const Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(r.size()));
    }
    b.pce.emplace(name, std::move(q));
  }
  const auto n = static_cast<std::uint64_t>(b.nominal.n_columns());
  FLEXUQ_REQUIRE(b.pce.at("K").dims == (Dims{n, n}),
                 f.path() << ": " << G << "/pce/K does not match the " << n << " columns of /reduced/K");
  return b;
}

StochasticBody StochasticBody::read(MPI_Comm comm, const std::string& path) {
  const io::H5File f(comm, path, io::H5File::Mode::read);
  return read(f);
}

StochasticBody fit_stochastic_body(const std::vector<std::string>& names, const std::vector<uq::Distribution>& dists,
                                   const StochasticSamples& s, const ReducedBody& nominal,
                                   const StochasticFitOptions& opt) {
  const auto N = s.germ.rows();
  const auto d = static_cast<int>(dists.size());
  FLEXUQ_REQUIRE(N > 0, "stochastic reduction: none of the " << opt.points_total
                                                             << " points succeeded (their reasons are in /samples/failure_reason); "
                                                                "no stochastic body can be fitted");
  const auto fam = families_of(dists);
  StochasticBody b;
  b.names = names;
  b.dists = dists;
  b.nominal = nominal;
  b.points_used = N;
  b.points_total = static_cast<std::int64_t>(opt.points_total);
  const bool projection = opt.fit == "projection" && s.weights.size() == static_cast<std::size_t>(N) &&
                          static_cast<std::size_t>(N) == opt.points_total;
  b.fit = projection ? "projection" : "regression";
  if (projection) {
    b.order = opt.order > 0 ? opt.order : opt.max_order;
  } else if (opt.order > 0) {
    b.order = opt.order;
  } else {
    Eigen::MatrixXd Ysel(N, 0);
    for (const char* q : {"mode_eigenvalues", "free_free_frequencies"}) {
      const auto it = s.values.find(q);
      if (it == s.values.end()) continue;
      Eigen::MatrixXd Z(N, Ysel.cols() + it->second.cols());
      Z << Ysel, it->second;
      Ysel = std::move(Z);
    }
    if (Ysel.cols() == 0) Ysel = s.values.at("K");
    b.order = select_order(fam, s.germ, Ysel, opt.max_order, nullptr);
  }
  const auto P = uq::MultiIndexSet::total_degree_size(d, std::max(b.order, 1));
  FLEXUQ_REQUIRE(b.order >= 1 && (projection || P < N),
                 "stochastic reduction: " << N << " of " << opt.points_total << " points succeeded, too few for a "
                                          << "regression PCE (order " << std::max(b.order, 1) << " in " << d
                                          << " parameters needs more than " << P << " points)");
  b.multi_indices = uq::MultiIndexSet::total_degree(d, b.order);
  for (const auto& [name, Y] : s.values)
    b.pce.emplace(name, fit_quantity(fam, b.multi_indices, s, Y, s.dims.at(name), projection));
  return b;
}

void fit_and_write_by_blocks(const StochasticBody& b, const StochasticSamples& s, const std::string& name,
                             const std::vector<std::uint64_t>& dims, const RowBlockReader& read_rows, io::H5File& f,
                             std::size_t block_bytes) {
  FLEXUQ_REQUIRE(!dims.empty() && dims[0] > 0, "stochastic body: " << name << " has no rows to expand");
  const auto N = static_cast<std::uint64_t>(s.germ.rows());
  const auto P = static_cast<std::uint64_t>(b.multi_indices.size());
  std::uint64_t per_row = 1;
  for (std::size_t k = 1; k < dims.size(); ++k) per_row *= dims[k];
  const std::uint64_t bytes_per_row = std::max<std::uint64_t>(1, std::max(N, P) * per_row * sizeof(double));
  const std::uint64_t rows = std::max<std::uint64_t>(1, std::min<std::uint64_t>(dims[0], block_bytes / bytes_per_row));
  const auto fam = families_of(b.dists);
  const bool projection = b.fit == "projection";
  const std::string Q = "/stochastic_body/pce/" + name;
  Dims cd{P};
  cd.insert(cd.end(), dims.begin(), dims.end());
  Eigen::MatrixXd Y;
  for (std::uint64_t first = 0; first < dims[0]; first += rows) {
    const std::uint64_t count = std::min(rows, dims[0] - first);
    Y.resize(static_cast<Eigen::Index>(N), static_cast<Eigen::Index>(count * per_row));
    read_rows(first, count, Y);
    Dims bd = dims;
    bd[0] = count;
    const ExpandedQuantity q = fit_quantity(fam, b.multi_indices, s, Y, bd, projection);
    const RowMat C = q.coefficients;
    Dims start(cd.size(), 0), cnt = cd;
    start[1] = first;
    cnt[1] = count;
    f.write_slab(Q + "/coefficients", cd, start, cnt, C.data());
    if (q.loo.size() > 0) {
      Dims s1(dims.size(), 0);
      s1[0] = first;
      f.write_slab(Q + "/loo", dims, s1, bd, q.loo.data());
      f.write_slab(Q + "/loo_rms", dims, s1, bd, q.loo_rms.data());
    }
  }
}

void fit_and_write_column_scaled(const StochasticBody& b, const StochasticSamples& s, const std::string& name,
                                 const std::vector<std::uint64_t>& dims, const std::vector<double>& base,
                                 const Eigen::MatrixXd& scales, io::H5File& f, std::size_t block_bytes) {
  FLEXUQ_REQUIRE(dims.size() >= 2 && dims[0] > 0 && dims.back() > 0,
                 "stochastic body: " << name << " has no rows or columns to expand");
  const auto N = s.germ.rows();
  const auto P = static_cast<std::uint64_t>(b.multi_indices.size());
  const std::uint64_t n = dims.back(), total = product(dims), per_row = total / dims[0];
  FLEXUQ_REQUIRE(base.size() == total && scales.rows() == N && static_cast<std::uint64_t>(scales.cols()) == n,
                 "stochastic body: " << name << ": base of " << base.size() << " values and " << scales.rows() << " × "
                                     << scales.cols() << " column scales for " << total << " values at " << N << " points");
  // The n column factors are fitted like any quantity; every entry's fit is base[k] times its
  // column's (least squares and projection are linear in the data, and the normalised LOO error is
  // invariant under scaling; an entry with base[k] = 0 is constant, LOO 0).
  const ExpandedQuantity q = fit_quantity(families_of(b.dists), b.multi_indices, s, scales, {n}, b.fit == "projection");
  const std::uint64_t rows =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(dims[0], block_bytes / std::max<std::uint64_t>(1, P * per_row * sizeof(double))));
  const std::string Q = "/stochastic_body/pce/" + name;
  Dims cd{P};
  cd.insert(cd.end(), dims.begin(), dims.end());
  RowMat C;
  Eigen::VectorXd loo, rms;
  for (std::uint64_t first = 0; first < dims[0]; first += rows) {
    const std::uint64_t count = std::min(rows, dims[0] - first), e = count * per_row, k0 = first * per_row;
    C.resize(static_cast<Eigen::Index>(P), static_cast<Eigen::Index>(e));
    for (std::uint64_t t = 0; t < P; ++t)
      for (std::uint64_t k = 0; k < e; ++k)
        C(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(k)) =
            base[k0 + k] * q.coefficients(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>((k0 + k) % n));
    Dims start(cd.size(), 0), cnt = cd;
    start[1] = first;
    cnt[1] = count;
    f.write_slab(Q + "/coefficients", cd, start, cnt, C.data());
    if (q.loo.size() > 0) {
      loo.resize(static_cast<Eigen::Index>(e));
      rms.resize(static_cast<Eigen::Index>(e));
      for (std::uint64_t k = 0; k < e; ++k) {
        const double v = base[k0 + k];
        const auto j = static_cast<Eigen::Index>((k0 + k) % n);
        loo(static_cast<Eigen::Index>(k)) = v != 0.0 ? q.loo(j) : 0.0;
        rms(static_cast<Eigen::Index>(k)) = std::abs(v) * q.loo_rms(j);
      }
      Dims s1(dims.size(), 0), bd = dims;
      s1[0] = first;
      bd[0] = count;
      f.write_slab(Q + "/loo", dims, s1, bd, loo.data());
      f.write_slab(Q + "/loo_rms", dims, s1, bd, rms.data());
    }
  }
}

} // namespace flexuq::cms
