// SPDX-License-Identifier: MIT
#include "flexuq/mbs/Integrator.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Limits.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace flexuq::mbs {

namespace {
/// Above this many coordinates a sparse run does not fall back to the finite-difference iteration
/// matrix when Newton contracts badly (it is dense: 16 n² bytes, 256 MB here, and 2n residuals).
constexpr int kFdMaxCoordinatesSparse = 4000;
} // namespace

void SolverOptions::validate() const {
  FLEXUQ_REQUIRE_OPTION(alpha >= -1.0 / 3.0 - 1e-15 && alpha <= 0.0, "solver.alpha",
                        "{} must be in [-1/3, 0], got " << alpha);
  FLEXUQ_REQUIRE_OPTION(rho_inf >= 0.0 && rho_inf <= 1.0, "solver.rho_inf", "{} must be in [0, 1], got " << rho_inf);
  FLEXUQ_REQUIRE_OPTION(end > start, "solver.end", "{} (" << end << ") must be after {solver.start} (" << start << ")");
  FLEXUQ_REQUIRE_OPTION(step > 0 && std::isfinite(step), "solver.step", "{} must be positive, got " << step);
  FLEXUQ_REQUIRE_OPTION(output_step >= 0, "solver.output_step", "{} must be >= 0, got " << output_step);
  FLEXUQ_REQUIRE_OPTION(tol > 0, "solver.tol", "{} must be positive, got " << tol);
  FLEXUQ_REQUIRE_OPTION(max_iter >= 1, "solver.max_iter", "{} must be at least 1");
  FLEXUQ_REQUIRE_OPTION(rtol > 0 && atol > 0, "solver.rtol", "{} and {solver.atol} must be positive");
  FLEXUQ_REQUIRE_OPTION(min_step > 0 && min_step <= step, "solver.min_step", "{} must be in (0, step]");
  FLEXUQ_REQUIRE_OPTION((end - start) / std::max(output_step > 0 ? output_step : step, 1e-300) < 1e8, "solver",
                        "{}: more than 1e8 output steps requested (end - start = " << end - start << ")");
  // Time resolution: t + h must be t + h to ~1e-6 over the whole span (near t = 1e13 a step of 1e-3
  // rounds to 2e-3, and the loop's 1e-12·|t| output tolerance of 10 s ended the run after 0 steps).
  const double tmax = std::max(std::abs(start), std::abs(end));
  FLEXUQ_REQUIRE_OPTION(step > 1e-10 * tmax && start + step > start && end + step > end, "solver.step",
                        "{} = " << step << " is below the resolution of double-precision time at t = " << tmax
                                << " (steps must exceed 1e-10 |t|): raise {} or move {solver.start} and "
                                   "{solver.end} nearer 0");
  // Every step a fixed-step run takes: (end − start)/step, or one per output when outputs are denser.
  const double steps = (end - start) / std::min(step, output_step > 0 ? output_step : step);
  FLEXUQ_REQUIRE_OPTION(
      adaptive || scheme == Scheme::rk45 || steps <= 1e8, "solver",
      "{}: about " << steps << " steps requested ((end - start) = " << end - start << " s at step "
                   << std::min(step, output_step > 0 ? output_step : step)
                   << "), more than 1e8: raise {solver.step} or {solver.output_step}, or shorten the run");
  FLEXUQ_REQUIRE_OPTION(drift_limit > 0, "solver.drift_limit", "{} must be positive, got " << drift_limit);
}

Integrator::Integrator(System& sys, SolverOptions o)
    : sys_(sys), o_(o), sparse_(o.linear_algebra == LinearAlgebra::sparse) {
  lu_.set_sparse(sparse_);
  acc_lu_.set_sparse(sparse_);
  o_.validate();
}

std::string Integrator::worst_row(const Vec& q, double t) const {
  const Vec c = sys_.phi_all(q, t);
  Eigen::Index k = 0;
  c.cwiseAbs().maxCoeff(&k);
  const int j = sys_.row_joint(static_cast<int>(k));
  std::ostringstream os;
  if (j >= 0) os << "joint '" << sys_.joints()[j].name << "'";
  else os << "body '" << sys_.bodies()[-1 - j].name << "'";
  os << " (row " << sys_.row_label(static_cast<int>(k)) << ", residual " << c(k) << ")";
  return os.str();
}

namespace {
/// The saddle matrix equilibrated symmetrically (Ruiz: D k D, D from the rows' largest entries, a few
/// sweeps) for the rank test: its entries span many decades (a slider's 1e-9 kg m² inertia, the unit
/// modal masses of a body's elastic coordinates, the constraint rows), and a threshold relative
/// to the largest pivot would call a regular but badly scaled matrix singular. Scaling rows and
/// columns does not change the rank.
Mat equilibrated(const Mat& k, Vec* scale = nullptr) {
  Mat a = k;
  Vec total = Vec::Ones(k.rows());
  for (int sweep = 0; sweep < 5; ++sweep) {
    Vec d(a.rows());
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      const double r = a.row(i).cwiseAbs().maxCoeff();
      d(i) = r > 0 ? 1.0 / std::sqrt(r) : 1.0;
    }
    a = d.asDiagonal() * a * d.asDiagonal();
    total = total.cwiseProduct(d);
  }
  if (scale) *scale = total;
  return a;
}

/// Regularity of a large sparse saddle matrix k = [M Cᵀ; C 0] (n coordinates, C the active rows, of
/// full row rank by System::select_independent_rows): with M symmetric positive semi-definite, k is
/// regular exactly when A = M + ρ CᵀC (ρ > 0) is positive definite, which a sparse LDLᵀ (AMD
/// ordering) of A scaled to a unit diagonal shows by its pivots: one at or below 1e-10 is a
/// coordinate that neither M nor the constraints determine. A chain of 400 bodies (4,400 unknowns)
/// took a minute in the dense full-pivoting LU of the whole saddle matrix (issue #40); this follows
/// the mechanism's sparsity. Returns −1 when regular, else the coordinate of the first such pivot.
Eigen::Index singular_coordinate(const SpMat& k, int n) {
  Triplets mt, ct; // the blocks M (n × n) and C (m × n) of k's first n columns
  for (int c = 0; c < n; ++c)
    for (SpMat::InnerIterator it(k, c); it; ++it) {
      if (it.value() == 0.0) continue;
      if (it.row() < n) mt.emplace_back(static_cast<int>(it.row()), c, it.value());
      else ct.emplace_back(static_cast<int>(it.row()) - n, c, it.value());
    }
  SpMat M(n, n), C(k.rows() - n, n);
  M.setFromTriplets(mt.begin(), mt.end());
  C.setFromTriplets(ct.begin(), ct.end());
  Eigen::SparseMatrix<double> CtC = C.transpose() * C;
  const double cmax = CtC.nonZeros() ? CtC.diagonal().maxCoeff() : 0.0;
  const double mmax = M.nonZeros() ? M.diagonal().cwiseAbs().maxCoeff() : 0.0;
  Eigen::SparseMatrix<double> A = M;
  if (cmax > 0) A += (mmax > 0 ? mmax / cmax : 1.0) * CtC;
  const Vec diag = A.diagonal();
  for (Eigen::Index i = 0; i < n; ++i)
    if (!(diag(i) > 0)) return i; // nothing holds this coordinate (or it has a negative mass)
  const Vec scale = diag.cwiseSqrt().cwiseInverse();
  A = scale.asDiagonal() * A * scale.asDiagonal();
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(A);
  if (ldlt.info() != Eigen::Success) return 0;
  const Vec d = ldlt.vectorD();
  const auto& back = ldlt.permutationPinv().indices();
  for (Eigen::Index i = 0; i < d.size(); ++i)
    if (!(d(i) > 1e-10)) return back(i);
  return -1;
}
} // namespace

std::string Integrator::singular_body(const SpMat& saddle) const {
  // The first coordinate that neither M nor the constraints determine.
  const Eigen::Index c = singular_coordinate(saddle, sys_.n());
  if (c < 0) return {};
  return sys_.bodies()[sys_.body_of_coordinate(static_cast<int>(c))].name;
}

std::string Integrator::singular_body(const Mat& saddle) const {
  if (sparse_) return singular_body(SpMat(saddle.sparseView(1.0, 0.0)));
  Vec d;
  Eigen::FullPivLU<Mat> lu(equilibrated(saddle, &d));
  lu.setThreshold(1e-10);
  const Mat ker = d.asDiagonal() * lu.kernel(); // a null vector of saddle = D × one of D saddle D
  if (ker.cols() == 0 || ker.norm() == 0) return {};
  Eigen::Index k = 0;
  ker.col(0).head(sys_.n()).cwiseAbs().maxCoeff(&k);
  return sys_.bodies()[sys_.body_of_coordinate(static_cast<int>(k))].name;
}

Mat Integrator::saddle(double t, const Vec& q) const {
  const int n = sys_.n(), m = sys_.m();
  Mat k = Mat::Zero(n + m, n + m);
  const Mat cq = sys_.jacobian(q, t);
  sys_.mass_into(q, 1.0, k.topLeftCorner(n, n));
  k.topRightCorner(n, m) = cq.transpose();
  k.bottomLeftCorner(m, n) = cq;
  return k;
}

namespace {
/// [A C_qᵀ; C_q 0] from A's triplets @p a (n × n, consumed) and C_q, exact zeros left out (the
/// pattern of the dense matrix's non-zeros, so the sparse LU orders it alike).
SpMat saddle_from(Triplets& a, const SpMat& cq) {
  const int n = static_cast<int>(cq.cols()), m = static_cast<int>(cq.rows());
  a.reserve(a.size() + 2 * static_cast<std::size_t>(cq.nonZeros()));
  for (int c = 0; c < n; ++c)
    for (SpMat::InnerIterator it(cq, c); it; ++it) {
      a.emplace_back(n + static_cast<int>(it.row()), c, it.value());
      a.emplace_back(c, n + static_cast<int>(it.row()), it.value());
    }
  SpMat k(n + m, n + m);
  k.setFromTriplets(a.begin(), a.end());
  k.prune([](Eigen::Index, Eigen::Index, double v) { return v != 0.0; });
  return k;
}
} // namespace

SpMat Integrator::saddle_sparse(double t, const Vec& q) const {
  Triplets a;
  sys_.mass_triplets(q, 1.0, a);
  return saddle_from(a, sys_.jacobian_sparse(q, t));
}

SpMat Integrator::iteration_sparse(const Vec& q, double t, double bq, double bv, bool stab) {
  Triplets a;
  sys_.mass_triplets(q, 1.0, a);
  sys_.stiffness_damping_triplets(q, bq, bv, a);
  if (stab) { // kq_ as set_stiffness of the dense K: its exact non-zeros
    Triplets kt;
    sys_.stiffness_damping_triplets(q, 1.0, 0.0, kt);
    kq_.resize(sys_.n(), sys_.n());
    kq_.setFromTriplets(kt.begin(), kt.end());
    kq_.prune([](Eigen::Index, Eigen::Index, double v) { return v != 0.0; });
  }
  return saddle_from(a, sys_.jacobian_sparse(q, t));
}

bool Integrator::projection_jacobian(double t, const Vec& q, Mat& cd, SpMat& cs) const {
  if (!sparse_ && sys_.m() < kSparseMinSizeKeptLu) { // small: the dense C_q as always (no sparse rule applies)
    cd = sys_.jacobian(q, t);
    return false;
  }
  cs = sys_.jacobian_sparse(q, t);
  if (sparse_ || choose_sparse(cs, kSparseMinSizeKeptLu)) return true;
  cd = Mat(cs);
  return false;
}

void Integrator::require_memory(bool sparse, double nnz) const {
  const double n = sys_.n(), nm = n + static_cast<double>(sys_.rows_total());
  std::ostringstream what;
  what << "the mechanism (" << sys_.bodies().size() << " bodies, " << sys_.n() << " coordinates, " << sys_.rows_total()
       << " constraint rows: ";
  if (!sparse) {
    // The dense iteration matrices ((n + m)² entries; a chain of 800 bodies, 8,800 unknowns, peaked
    // at 1.1 GB, about 1.75 × 8(n + m)² bytes).
    what << "dense iteration matrices of (n + m)² entries)";
    io::limits::require_memory(16.0 * nm * nm, what.str());
    return;
  }
  what << "sparse iteration matrices of " << static_cast<long long>(nnz) << " non-zeros and their LU factors";
  double bytes = kSparseBytesPerNonZero * nnz;
  if (o_.fd_matrix) { // solver.matrix: finite-difference differences the forces densely (n × n, twice)
    what << ", and the dense n × n derivatives of solver.matrix: finite-difference";
    bytes += 16.0 * n * n;
  }
  what << ")";
  io::limits::require_memory(bytes, what.str());
}

void Integrator::accelerations(double t, const Vec& q, const Vec& v, Vec& a, Vec& lambda) const {
  const int n = sys_.n(), m = sys_.m();
  Vec rhs(n + m);
  rhs.head(n) = sys_.forces(q, v, t);
  rhs.tail(m) = sys_.gamma(q, v, t);
  Vec x;
  std::string b;
  bool singular = false;
  if (sparse_) {
    const SpMat k = saddle_sparse(t, q);
    singular = !acc_lu_.compute(k) || !acc_lu_.solve_checked(k, rhs, x);
    if (singular) b = singular_body(k);
  } else {
    const Mat k = saddle(t, q);
    singular = !acc_lu_.compute(k) || !acc_lu_.solve_checked(k, rhs, x);
    if (singular) b = singular_body(k);
  }
  if (singular) {
    throw InputError(FLEXUQ_MSG("the mass matrix is singular at t = " << t << (b.empty() ? "" : " on body '" + b + "'")
                                << ": M + constraints do not determine the accelerations (a massless or inertia-free body "
                                   "that the joints do not hold?)"));
  }
  a = x.head(n);
  lambda = x.tail(m);
}

namespace {
/// What a constraint residual cannot go below in double precision: 64 ulps of the largest coordinate.
double position_roundoff(const Vec& q) {
  return 64 * std::numeric_limits<double>::epsilon() * std::max(1.0, q.lpNorm<Eigen::Infinity>());
}
} // namespace

int Integrator::project_positions(double t, Vec& q) const {
  for (int it = 0; it < 50; ++it) {
    const Vec c = sys_.phi(q, t);
    if (c.lpNorm<Eigen::Infinity>() <= std::max(o_.tol, position_roundoff(q))) return it;
    Mat cd;
    SpMat cs;
    q += projection_jacobian(t, q, cd, cs) ? min_norm_correction(cs, c) : min_norm_correction(cd, c, false);
    if (!q.allFinite()) break;
  }
  const Vec c = sys_.phi(q, t);
  if (c.lpNorm<Eigen::Infinity>() <= std::max(o_.tol, 1e-10)) return 50;
  throw Error(FLEXUQ_MSG("the constraints cannot be satisfied at t = " << t << ": largest residual at " << worst_row(q, t)));
}

void Integrator::project_velocities(double t, const Vec& q, Vec& v) const {
  Mat cd;
  SpMat cs;
  if (projection_jacobian(t, q, cd, cs)) {
    const Vec r = cs * v + sys_.phi_t(q, t);
    v += min_norm_correction(cs, r);
  } else {
    const Vec r = cd * v + sys_.phi_t(q, t);
    v += min_norm_correction(cd, r, false);
  }
}

std::vector<std::string> Integrator::assemble(State& s) {
  const double t0 = o_.start;
  // Memory: a dense run's (n + m)² matrices are checked before anything is allocated, so a mechanism
  // that cannot fit says so at once (issue #40); `auto` decides below, on the sparse saddle matrix,
  // and checks the path it chose before its first factorisation (the set-up before is sparse).
  if (o_.linear_algebra == LinearAlgebra::dense) require_memory(false, 0);
  {
    // The rank test's sparse Householder QR keeps its reflections' patterns, which grow along a
    // chain's elimination tree: about 2.3 (rows)² bytes measured on chains of 1,600-5,000 links
    // (0.93 GB at 20,000 rows); 3 (rows)² with a margin (docs/performance.md "Large mechanisms").
    const double rows = static_cast<double>(sys_.rows_total());
    io::limits::require_memory(3.0 * rows * rows,
                               FLEXUQ_MSG("the mechanism (" << sys_.bodies().size() << " bodies, " << sys_.rows_total()
                                                            << " constraint rows: the rows' rank test, a sparse QR "
                                                               "of about 3 (rows)² bytes)"));
  }
  Vec q = sys_.initial_q();
  auto dropped = sys_.select_independent_rows(q, t0);
  // Assembly: minimum-norm Newton on the kept rows.
  bool ok = false;
  for (int it = 0; it < 100 && !ok; ++it) {
    const Vec c = sys_.phi(q, t0);
    if (!c.allFinite()) break;
    // A solver.tol below the coordinates' round-off (1e-308 from a job file) cannot be met: the
    // round-off level is the floor, as in the steps' Newton test.
    if (c.lpNorm<Eigen::Infinity>() <= std::max(std::min(o_.tol, 1e-10), position_roundoff(q))) {
      ok = true;
      break;
    }
    const bool large = sys_.m() >= kSparseMinSizeKeptLu;
    const SpMat cs = large ? sys_.jacobian_sparse(q, t0) : SpMat();
    if (large && choose_sparse(cs, kSparseMinSizeKeptLu)) { // the kept rows are independent: C_q C_qᵀ is regular
      q += min_norm_correction(cs, c);
    } else {
      const Mat cq = large ? Mat(cs) : sys_.jacobian(q, t0);
      Eigen::CompleteOrthogonalDecomposition<Mat> cod(cq * cq.transpose());
      q -= cq.transpose() * cod.solve(c);
    }
  }
  if (!ok)
    throw InputError(FLEXUQ_MSG("the initial configuration cannot be assembled at t = "
                                << t0 << ": Newton on the constraints did not converge; largest residual at "
                                << worst_row(q, t0)));
  sys_.normalise(q);
  // Redundant rows were dropped at the user's configuration: they must hold after assembly too.
  const Vec all = sys_.phi_all(q, t0);
  if (all.lpNorm<Eigen::Infinity>() > 1e-8)
    throw InputError(FLEXUQ_MSG("the initial configuration cannot be assembled at t = "
                                << t0 << ": a redundant constraint row is violated, largest residual at " << worst_row(q, t0)));
  Vec v = sys_.initial_v();
  project_velocities(t0, q, v);
  s.t = t0;
  s.q = std::move(q);
  s.v = std::move(v);
  return dropped;
}

std::vector<std::string> Integrator::initialise(State& s) {
  auto dropped = assemble(s);
  const double t0 = s.t;
  const Vec& q = s.q;
  {
    // The saddle matrix must be regular (a massless body must be held by its joints); a rank
    // check once here, the steps then rely on the LU and a finite solution.
    // `auto`: sparse by size and fill of the saddle matrix at t0 (choose_sparse), assembled sparse
    // (a 5,000-body chain's dense one would be 24 GB); small mechanisms stay dense as they were.
    const int n = sys_.n(), m = sys_.m();
    const bool every_stage = o_.scheme == Scheme::rk45 || o_.scheme == Scheme::euler;
    const int min_size = every_stage ? kSparseMinSizeFactorEveryStage : kSparseMinSizeKeptLu;
    SpMat ks;
    if (sparse_ || (o_.linear_algebra == LinearAlgebra::automatic && n + m >= min_size)) ks = saddle_sparse(t0, q);
    if (o_.linear_algebra == LinearAlgebra::automatic) sparse_ = ks.size() > 0 && choose_sparse(ks, min_size);
    if (o_.linear_algebra != LinearAlgebra::dense) require_memory(sparse_, static_cast<double>(ks.nonZeros()));
    lu_.set_sparse(sparse_);
    acc_lu_.set_sparse(sparse_);
    jac_h_ = -1;
    bool regular = false;
    std::string b;
    if (sparse_) {
      regular = singular_coordinate(ks, n) < 0;
      if (!regular) b = singular_body(ks);
    } else {
      const Mat k = ks.size() > 0 ? Mat(ks) : saddle(t0, q);
      Eigen::FullPivLU<Mat> lu(equilibrated(k));
      lu.setThreshold(1e-10);
      regular = lu.rank() == n + m;
      if (!regular) b = singular_body(k);
    }
    if (!regular) {
      throw InputError(FLEXUQ_MSG("the mass matrix is singular at t = " << t0 << (b.empty() ? "" : " on body '" + b + "'")
                                  << ": M and the constraints do not determine the accelerations (a massless or "
                                     "inertia-free body that the joints do not hold?)"));
    }
  }
  accelerations(t0, q, s.v, s.a, s.lambda);
  aux_ = s.a;
  s.aux = s.a;
  prev_h_ = 0;
  correction_metric();
  jac_h_ = -1;
  return dropped;
}

NewmarkCoefficients newmark_coefficients(const SolverOptions& o) {
  NewmarkCoefficients k;
  if (o.scheme == Scheme::hht) {
    k.am = 0;
    k.af = -o.alpha;
  } else {
    const double r = o.rho_inf;
    k.am = (2 * r - 1) / (r + 1);
    k.af = r / (r + 1);
  }
  k.gamma = 0.5 - k.am + k.af;
  k.beta = 0.25 * (k.gamma + 0.5) * (k.gamma + 0.5);
  return k;
}

void Integrator::correction_metric() {
  // W = blockdiag(I on every body's 7 frame coordinates, M_ff = ΦᵀM̄Φ on a flexible body's elastic
  // coordinates). On the elastic coordinates W is their mass, so two bases of one span correct by the
  // same physical motion (seed 002's G2 compares such bases to 2e-8); on the frame coordinates the
  // plain least change. The whole kinetic-energy metric M(q) would be invariant under frames and
  // units too, but its corrections let light bodies swing: the fast slider-crank's error at h = 1e-4
  // was 5.7× the minimal-coordinate scheme's with it, 4.4× with W (docs/mbs.md "Verified order").
  metric_.clear();
  for (std::size_t b = 0; b < sys_.bodies().size(); ++b) {
    const int ne = sys_.n_elastic(static_cast<int>(b));
    if (ne == 0) continue;
    Eigen::LLT<Mat> llt(sys_.bodies()[b].flex->invariants.Mff);
    if (llt.info() != Eigen::Success) continue; // not positive definite: the plain metric there
    // W = L Lᵀ ⇒ S = L⁻ᵀ gives S Sᵀ = W⁻¹.
    metric_.push_back({sys_.offset(static_cast<int>(b)) + 7, Mat(llt.matrixU().solve(Mat::Identity(ne, ne)))});
  }
  metric_sparse_.resize(0, 0);
  if (metric_.empty() || !sparse_) return;
  // S for the sparse run's C_q S: the identity with the elastic blocks.
  Triplets t;
  std::vector<char> in_block(static_cast<std::size_t>(sys_.n()), 0);
  for (const auto& [o, sm] : metric_)
    for (int j = 0; j < sm.cols(); ++j) {
      in_block[static_cast<std::size_t>(o + j)] = 1;
      for (int i = 0; i < sm.rows(); ++i)
        if (sm(i, j) != 0.0) t.emplace_back(o + i, o + j, sm(i, j));
    }
  for (int k = 0; k < sys_.n(); ++k)
    if (!in_block[static_cast<std::size_t>(k)]) t.emplace_back(k, k, 1.0);
  metric_sparse_.resize(sys_.n(), sys_.n());
  metric_sparse_.setFromTriplets(t.begin(), t.end());
}

void Integrator::set_stiffness(const Mat& k) {
  kq_ = k.sparseView(1.0, 0.0); // rigid mechanisms: empty; flexible bodies: their K̄ blocks
}

Mat Integrator::weighted(Mat cq) const {
  for (const auto& [o, sm] : metric_) cq.middleCols(o, sm.rows()) = cq.middleCols(o, sm.rows()) * sm;
  return cq;
}

SpMat Integrator::weighted(const SpMat& cq) const {
  if (metric_.empty()) return cq;
  return SpMat(cq * metric_sparse_);
}

Vec Integrator::scaled(Vec x) const {
  for (const auto& [o, sm] : metric_) x.segment(o, sm.rows()) = sm * x.segment(o, sm.rows());
  return x;
}

bool Integrator::newmark_step(State& s, double h, State& out, double& err, RunStats& st) {
  const int n = sys_.n(), m = sys_.m();
  const NewmarkCoefficients k = newmark_coefficients(o_);
  const double t1 = s.t + h;
  const double c = k.c();
  // Newmark predictors with the algorithmic acceleration a_n (aux_), and the part of a_{n+1} that
  // does not depend on the unknown q̈_{n+1} = x:  a_{n+1} = c x + d.
  const Vec qa = s.q + h * s.v + h * h * (0.5 - k.beta) * aux_;
  const Vec va = s.v + h * (1 - k.gamma) * aux_;
  const Vec d = (k.af * s.a - k.am * aux_) / (1 - k.am);
  const double bq = k.beta * h * h * c, bv = k.gamma * h * c; // ∂q_{n+1}/∂x, ∂q̇_{n+1}/∂x
  // Newton starts from the accelerations and multipliers extrapolated linearly from the last two
  // steps (their change over a step is O(h), so the start is O(h²) off instead of O(h)).
  Vec x = s.a, lam = s.lambda;
  if (prev_h_ > 0) {
    const double r = h / prev_h_;
    x += r * (s.a - prev_a_);
    lam += r * (s.lambda - prev_lambda_);
  }
  // Stabilised formulation: a position correction dq lets the positions meet C = 0 while the
  // Newmark velocities meet C_q q̇ + C_t = 0 (the velocity rows take the position rows' place in the
  // saddle system). Without it (index-3) the velocity constraints are left to the scheme, whose
  // multipliers then carry an undamped (−1)ⁿ mode with α = 0 that nonlinear constraints excite.
  // The correction is the least change in the metric W (see correction_metric()) along the step's
  // P = C_q(q_n): dq = −S P̃ᵀ (P̃P̃ᵀ)⁻¹ e with P̃ = P S, W⁻¹ = S Sᵀ, one factorisation per step, so that
  // bases of one span correct alike. (A P kept with the iteration matrix made the motion depend on
  // where matrices were rebuilt: seed 002 G2 5e-7 instead of 3e-13.)
  Vec dq = Vec::Zero(n);
  const bool stab = o_.stabilized;
  if (stab && sparse_) projector_.factor(weighted(sys_.jacobian_sparse(s.q, s.t)));
  else if (stab) projector_.factor(weighted(sys_.jacobian(s.q, s.t)), false);
  auto state_of = [&](const Vec& xx, Vec& q1, Vec& v1) {
    const Vec an = c * xx + d;
    q1 = qa + k.beta * h * h * an + dq;
    v1 = va + k.gamma * h * an;
  };
  Vec ctl, ph, phd; // C_qᵀλ, φ and (stabilised) dφ/dt at the iterate
  auto force_residual = [&](const Vec& q1, const Vec& v1, const Vec& xx, const Vec& ll) -> Vec {
    sys_.constraint_residual(q1, t1, ll, ctl, ph, &v1, stab ? &phd : nullptr);
    return sys_.mass_times(q1, xx) + ctl - sys_.forces(q1, v1, t1);
  };
  // Iteration matrix by forward differences of the whole residual (2n evaluations).
  auto build_fd = [&](const Vec& q1, const Vec& v1) {
    Mat j = Mat::Zero(n + m, n + m);
    const Vec r0 = force_residual(q1, v1, x, lam);
    Mat dqm(n, n), dvm(n, n);
    for (int i = 0; i < n; ++i) {
      const double eps = 1e-7 * std::max(1.0, std::abs(q1(i)));
      Vec qp = q1;
      qp(i) += eps;
      dqm.col(i) = (force_residual(qp, v1, x, lam) - r0) / eps;
      const double epv = 1e-7 * std::max(1.0, std::abs(v1(i)));
      Vec vp = v1;
      vp(i) += epv;
      dvm.col(i) = (force_residual(q1, vp, x, lam) - r0) / epv;
    }
    const Mat cq = sys_.jacobian(q1, t1);
    j.topLeftCorner(n, n) = sys_.mass(q1) + dqm * bq + dvm * bv;
    j.topRightCorner(n, m) = cq.transpose();
    j.bottomLeftCorner(m, n) = cq;
    if (sparse_) jac_sparse_ = j.sparseView(1.0, 0.0);
    else jac_ = j;
    set_stiffness(dqm);
  };
  // Iteration matrix from analytic blocks: M(q) + βh²c K + γhc D, C_q (see the header).
  auto build_blocks = [&](const Vec& q1) {
    if (sparse_) {
      jac_sparse_ = iteration_sparse(q1, t1, bq, bv, stab);
      return;
    }
    jac_.resize(n + m, n + m);
    sys_.mass_into(q1, 1.0, jac_.topLeftCorner(n, n));
    sys_.add_stiffness_damping(q1, bq, bv, jac_.topLeftCorner(n, n));
    const Mat cq = sys_.jacobian(q1, t1);
    jac_.topRightCorner(n, m) = cq.transpose();
    jac_.bottomLeftCorner(m, n) = cq;
    jac_.bottomRightCorner(m, m).setZero();
    if (stab) {
      Mat kq = Mat::Zero(n, n);
      sys_.add_stiffness_damping(q1, 1.0, 0.0, kq);
      set_stiffness(kq);
    }
  };
  auto refresh = [&](const Vec& q1, const Vec& v1, bool fd) {
    if (fd) build_fd(q1, v1);
    else build_blocks(q1);
    if (sparse_) lu_.compute(jac_sparse_);
    else lu_.compute(jac_);
    jac_h_ = h;
    ++st.jacobians;
  };

  Vec q1, v1;
  int rebuilds = 0;
  bool used_fd = o_.fd_matrix;
  double prev = INFINITY;
  bool converged = false;
  for (int it = 0; it < o_.max_iter; ++it) {
    state_of(x, q1, v1);
    Vec r(n + m);
    r.head(n) = force_residual(q1, v1, x, lam);
    const Vec rp = ph / bq; // position rows, φ from the same pass as C_qᵀλ
    r.tail(m) = stab ? Vec(phd / bv) : rp;
    if (!r.allFinite()) break;
    // A step shortened by round-off to land on an output time keeps the matrix (modified
    // Newton does not need it exact; rebuilding it there dominated runs with many outputs).
    if (std::abs(jac_h_ - h) > 1e-9 * h || (sparse_ ? jac_sparse_.rows() : jac_.rows()) != n + m)
      refresh(q1, v1, o_.fd_matrix);
    // Stabilised: the Newton system in (Δx, Δλ, Δμ) is block triangular. The velocity rows fix
    // C_q Δx = −r_v, so x's update changes φ by ≈ −βh²c r_v and the correction removes what is left,
    // φ − βh²c r_v, along W⁻¹Pᵀ, independently of Δx; its force ∂r/∂q · Δdq (the stiffness: stiff
    // elastic coordinates would otherwise halve the contraction) enters the saddle solve's right side.
    double corr = 0;
    if (stab) {
      const Vec ddq = scaled(projector_.correction(ph - bq * r.tail(m)));
      if (!ddq.allFinite()) break;
      dq += ddq;
      if (kq_.nonZeros() > 0) r.head(n) += kq_ * ddq;
      corr = ddq.lpNorm<Eigen::Infinity>();
    }
    const Vec dx = lu_.solve(-r);
    if (!dx.allFinite()) break;
    x += dx.head(n);
    lam += dx.tail(m);
    corr = std::max(corr, bq * dx.head(n).lpNorm<Eigen::Infinity>());
    ++st.newton_iterations;
    // Converged at the tolerance, or at round-off: q_{n+1} = qa + βh²a cannot be resolved better
    // than a few ulps of its parts (large h·q̇ or coordinates in mm would otherwise never pass).
    // The velocities too: their correction is γ/(βh) times the positions', so a position test
    // alone would let small steps accept velocity errors of tol/h that add up over the run (the
    // energy balance of a double pendulum grew 3× from h = 2.5e-4 to 1e-4 before this test). A
    // velocity error δ moves the positions by δ·T over a run of T: the bound is tol/T (T ≤ 1 s).
    constexpr double ulps = 64 * std::numeric_limits<double>::epsilon();
    const double roundoff = ulps * (qa.lpNorm<Eigen::Infinity>() + bq * x.lpNorm<Eigen::Infinity>());
    const double vcorr = bv * dx.head(n).lpNorm<Eigen::Infinity>();
    // Index-3: x is fixed by the position rows scaled by 1/(βh²c), so the velocities are resolved
    // no better than γ/(βh) times the positions' round-off (the stabilised velocity rows are not).
    const double vroundoff = stab ? ulps * (va.lpNorm<Eigen::Infinity>() + bv * x.lpNorm<Eigen::Infinity>())
                                  : roundoff * bv / bq;
    if (corr <= std::max(o_.tol, roundoff) && vcorr <= std::max(o_.tol / std::min(o_.end - o_.start, 1.0), vroundoff)) {
      converged = true;
      break;
    }
    // Modified Newton: keep the matrix while it contracts by 10 per iteration, else rebuild it here
    // (a blocks matrix first; if a fresh one still contracts badly, the full finite-difference
    // matrix). On seed 000's flexible slider-crank 0.1 took 12 152 iterations and 150 matrices,
    // 0.25 took 14 168 and 81, 0.03 took 11 183 and 410: 0.1 was the fastest.
    // A large sparse run refreshes from blocks only: the differenced matrix is dense (16 n² bytes,
    // 2n residuals of O(n) each: 2 GB and minutes at 1,600 bodies).
    if (it > 0 && corr > 0.1 * prev && rebuilds < 3) {
      state_of(x, q1, v1);
      const bool escalate = rebuilds > 0 && (!sparse_ || n <= kFdMaxCoordinatesSparse);
      refresh(q1, v1, used_fd || escalate);
      used_fd = used_fd || escalate;
      ++rebuilds;
    }
    prev = corr;
  }
  if (!converged) {
    jac_h_ = -1;
    return false;
  }
  state_of(x, q1, v1);
  const Vec an = c * x + d;
  // Local error of the Newmark displacement (β − 1/6) h² (a_{n+1} − a_n), weighted RMS over q, per
  // unit step: held at (atol + rtol |q|) · h / (end − start), so that the local errors of the whole
  // run add up to about the tolerance (error per step let the global error grow with the step
  // count: 1/h times the tolerance). err ∝ h², hence the exponent −1/2 in run().
  const Vec e = (k.beta - 1.0 / 6.0) * h * h * (an - aux_);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double w = o_.atol + o_.rtol * std::max(std::abs(s.q(i)), std::abs(q1(i)));
    sum += (e(i) / w) * (e(i) / w);
  }
  err = std::sqrt(sum / std::max(n, 1)) * (o_.end - o_.start) / h;
  out.t = t1;
  out.q = q1;
  out.v = v1;
  out.a = x;
  out.lambda = lam;
  out.aux = an;
  aux_next_ = an;
  return true;
}


bool Integrator::rk_step(const State& s, double h, State& out, double& err, RunStats& st) {
  // Dormand–Prince 5(4) on y = (q, q̇).
  static const double c[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
  static const double a[7][6] = {{0, 0, 0, 0, 0, 0},
                                 {1.0 / 5, 0, 0, 0, 0, 0},
                                 {3.0 / 40, 9.0 / 40, 0, 0, 0, 0},
                                 {44.0 / 45, -56.0 / 15, 32.0 / 9, 0, 0, 0},
                                 {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729, 0, 0},
                                 {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656, 0},
                                 {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
  static const double b4[7] = {5179.0 / 57600, 0, 7571.0 / 16695, 393.0 / 640, -92097.0 / 339200, 187.0 / 2100, 1.0 / 40};
  const int n = sys_.n();
  Vec kq[7], kv[7];
  Vec lam;
  for (int i = 0; i < 7; ++i) {
    Vec q = s.q, v = s.v;
    for (int j = 0; j < i; ++j) {
      q += h * a[i][j] * kq[j];
      v += h * a[i][j] * kv[j];
    }
    kq[i] = v;
    if (i == 0) kv[i] = s.a;
    else accelerations(s.t + c[i] * h, q, v, kv[i], lam);
    if (!kv[i].allFinite()) return false;
  }
  Vec q5 = s.q, v5 = s.v, eq = Vec::Zero(n), ev = Vec::Zero(n);
  // 5th-order weights: the last row of a, and 0 for the 7th stage (FSAL). (Indexing a[6][6] read
  // past the 6-column table: undefined behaviour, flagged by GCC.)
  for (int i = 0; i < 7; ++i) {
    const double b5 = i < 6 ? a[6][i] : 0.0;
    q5 += h * b5 * kq[i];
    v5 += h * b5 * kv[i];
    eq += h * (b5 - b4[i]) * kq[i];
    ev += h * (b5 - b4[i]) * kv[i];
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double wq = o_.atol + o_.rtol * std::max(std::abs(s.q(i)), std::abs(q5(i)));
    const double wv = o_.atol + o_.rtol * std::max(std::abs(s.v(i)), std::abs(v5(i)));
    sum += (eq(i) / wq) * (eq(i) / wq) + (ev(i) / wv) * (ev(i) / wv);
  }
  err = std::sqrt(sum / std::max(2 * n, 1));
  out.t = s.t + h;
  out.q = q5;
  out.v = v5;
  if (o_.project) {
    project_positions(out.t, out.q);
    sys_.normalise(out.q);
    project_velocities(out.t, out.q, out.v);
  }
  accelerations(out.t, out.q, out.v, out.a, out.lambda);
  out.aux = out.a;
  ++st.newton_iterations;
  return true;
}

void Integrator::euler_step(const State& s, double h, State& out) {
  out.t = s.t + h;
  out.v = s.v + h * s.a;
  out.q = s.q + h * out.v;
  if (o_.project) {
    project_positions(out.t, out.q);
    sys_.normalise(out.q);
    project_velocities(out.t, out.q, out.v);
  }
  accelerations(out.t, out.q, out.v, out.a, out.lambda);
  out.aux = out.a;
}

OutputClock::OutputClock(const SolverOptions& o) : start_(o.start), end_(o.end) {
  dt_out = o.output_step > 0 ? o.output_step : o.step;
  count = std::max(1L, static_cast<long>(std::ceil((o.end - o.start) / dt_out - 1e-9)));
}

RunStats Integrator::run(State& s, const std::function<void(const State&, double)>& output,
                         const std::function<void(double)>& progress) {
  RunStats st;
  const int n = sys_.n(), m = sys_.m();
  const bool adaptive = o_.scheme == Scheme::rk45 || o_.adaptive;
  const OutputClock clock(o_);
  const double h_max = o_.max_step > 0 ? o_.max_step : (adaptive ? clock.dt_out : o_.step);
  double work = 0;
  double power = sys_.nonconservative_power(s.q, s.v, s.t);
  output(s, work);
  st.max_drift = sys_.phi_all(s.q, s.t).lpNorm<Eigen::Infinity>();
  double h = std::min(o_.step, h_max);
  for (long k = 1; k <= clock.count; ++k) {
    const double t_out = clock.time(k);
    while (OutputClock::before(s.t, t_out)) {
      bool last = false;
      const double hs = OutputClock::step(s.t, h, t_out, last);
      State next;
      double err = 0;
      bool ok = true;
      try {
        if (o_.scheme == Scheme::rk45) ok = rk_step(s, hs, next, err, st);
        else if (o_.scheme == Scheme::euler) euler_step(s, hs, next);
        else ok = newmark_step(s, hs, next, err, st);
      } catch (const Error&) {
        if (o_.scheme == Scheme::euler) throw;
        ok = false; // a failed projection or a singular solve inside the step: retry smaller
      }
      if (!ok || (adaptive && err > 1.0)) {
        ++st.rejected;
        const double shrink = ok ? std::max(0.2, 0.9 * std::pow(err, o_.scheme == Scheme::rk45 ? -0.2 : -0.5)) : 0.5;
        h = hs * shrink;
        if (h < o_.min_step)
          throw OptionError("solver.min_step",
                            FLEXUQ_MSG("time integration ("
                                       << scheme_name(o_.scheme) << ") failed at t = " << s.t << ": "
                                       << (ok ? "the error estimate stays above tolerance" : "Newton did not converge")
                                       << " with steps down to h = " << hs << " ({} = " << o_.min_step
                                       << "); largest constraint residual at " << worst_row(s.q, s.t)));
        continue;
      }
      ++st.steps;
      if (o_.scheme == Scheme::hht || o_.scheme == Scheme::generalized_alpha) {
        if (o_.project_velocities) { // the smallest change in kinetic energy: [M C_qᵀ; C_q 0][Δv; μ] = [0; −(C_q v + C_t)]
          Vec rhs = Vec::Zero(n + m);
          // The accelerations' factors object: the same saddle pattern, so a sparse LU keeps its
          // ordering instead of analysing it again every step. Regular: initialise() checked the rank.
          if (sparse_) {
            const SpMat cq = sys_.jacobian_sparse(next.q, next.t);
            Triplets mass;
            sys_.mass_triplets(next.q, 1.0, mass);
            rhs.tail(m) = -(cq * next.v + sys_.phi_t(next.q, next.t));
            acc_lu_.compute(saddle_from(mass, cq));
          } else {
            const Mat a = saddle(next.t, next.q);
            rhs.tail(m) = -(a.bottomLeftCorner(m, n) * next.v + sys_.phi_t(next.q, next.t));
            acc_lu_.compute(a);
          }
          next.v += acc_lu_.solve(rhs).head(n);
        }
        aux_ = aux_next_;
      }
      if (o_.scheme == Scheme::hht || o_.scheme == Scheme::generalized_alpha) {
        prev_a_ = s.a;
        prev_lambda_ = s.lambda;
        prev_h_ = next.t - s.t;
      }
      const double p1 = sys_.nonconservative_power(next.q, next.v, next.t);
      work += 0.5 * (next.t - s.t) * (power + p1);
      power = p1;
      s = std::move(next);
      const double drift = sys_.phi_all(s.q, s.t).lpNorm<Eigen::Infinity>();
      st.max_drift = std::max(st.max_drift, drift);
      // Every row, the ones dropped as redundant at t0 included: a dropped row that the motion
      // violates was not redundant but contradictory (a fixed joint and a driver on one body).
      if (!(drift <= o_.drift_limit))
        throw OptionError("solver.drift_limit",
                          FLEXUQ_MSG("the constraints are violated at t = "
                                     << s.t << ": largest residual at " << worst_row(s.q, s.t)
                                     << ", above {} = " << o_.drift_limit
                                     << " (a row dropped as redundant at the start that the motion does not keep: "
                                        "contradictory joints or drivers?)"));
      if (adaptive) {
        const double grow = err > 0 ? 0.9 * std::pow(err, o_.scheme == Scheme::rk45 ? -0.2 : -0.5) : 2.0;
        if (!last || grow < 1.0) h = std::min(h_max, hs * std::clamp(grow, 0.2, 2.0));
      } else if (!last) {
        h = std::min(o_.step, h * 2.0); // recover after a Newton-failure halving
      }
      if (progress) progress(s.t);
    }
    output(s, work);
  }
  return st;
}

} // namespace flexuq::mbs
