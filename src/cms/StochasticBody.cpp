// SPDX-License-Identifier: MIT
#include "flexuq/cms/StochasticBody.hpp"

#include "flexuq/cms/BodyFile.hpp"
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

void StochasticBody::write(io::H5File& f) const { BodyFile(f).write_stochastic(*this); }

StochasticBody StochasticBody::read(const io::H5File& f) { return BodyFile(f).read_stochastic(); }

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
  const uq::FitOptions& fo = opt.pce;
  const bool projection = fo.fit == uq::FitMethod::projection && s.weights.size() == static_cast<std::size_t>(N) &&
                          static_cast<std::size_t>(N) == opt.points_total;
  b.fit = projection ? uq::FitMethod::projection : uq::FitMethod::regression;
  if (projection) {
    b.order = fo.order > 0 ? fo.order : fo.max_order;
  } else if (fo.order > 0) {
    b.order = fo.order;
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
    b.order = select_order(fam, s.germ, Ysel, fo.max_order, nullptr);
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
  const bool projection = b.fit == uq::FitMethod::projection;
  BodyFile out(f);
  Eigen::MatrixXd Y;
  for (std::uint64_t first = 0; first < dims[0]; first += rows) {
    const std::uint64_t count = std::min(rows, dims[0] - first);
    Y.resize(static_cast<Eigen::Index>(N), static_cast<Eigen::Index>(count * per_row));
    read_rows(first, count, Y);
    Dims bd = dims;
    bd[0] = count;
    const ExpandedQuantity q = fit_quantity(fam, b.multi_indices, s, Y, bd, projection);
    const RowMat C = q.coefficients;
    const bool loo = q.loo.size() > 0;
    out.write_expansion_rows(name, P, dims, first, count, C.data(), loo ? q.loo.data() : nullptr,
                             loo ? q.loo_rms.data() : nullptr);
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
  const ExpandedQuantity q = fit_quantity(families_of(b.dists), b.multi_indices, s, scales, {n}, b.fit == uq::FitMethod::projection);
  const std::uint64_t rows =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(dims[0], block_bytes / std::max<std::uint64_t>(1, P * per_row * sizeof(double))));
  BodyFile out(f);
  RowMat C;
  Eigen::VectorXd loo, rms;
  for (std::uint64_t first = 0; first < dims[0]; first += rows) {
    const std::uint64_t count = std::min(rows, dims[0] - first), e = count * per_row, k0 = first * per_row;
    C.resize(static_cast<Eigen::Index>(P), static_cast<Eigen::Index>(e));
    for (std::uint64_t t = 0; t < P; ++t)
      for (std::uint64_t k = 0; k < e; ++k)
        C(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(k)) =
            base[k0 + k] * q.coefficients(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>((k0 + k) % n));
    const bool with_loo = q.loo.size() > 0;
    if (with_loo) {
      loo.resize(static_cast<Eigen::Index>(e));
      rms.resize(static_cast<Eigen::Index>(e));
      for (std::uint64_t k = 0; k < e; ++k) {
        const double v = base[k0 + k];
        const auto j = static_cast<Eigen::Index>((k0 + k) % n);
        loo(static_cast<Eigen::Index>(k)) = v != 0.0 ? q.loo(j) : 0.0;
        rms(static_cast<Eigen::Index>(k)) = std::abs(v) * q.loo_rms(j);
      }
    }
    out.write_expansion_rows(name, P, dims, first, count, C.data(), with_loo ? loo.data() : nullptr,
                             with_loo ? rms.data() : nullptr);
  }
}

} // namespace flexuq::cms
