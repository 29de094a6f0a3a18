// SPDX-License-Identifier: MIT
// The offline step of seed 003 (rom/Basis.hpp): POD blocks → V, R0, and the constraint reduction Γ.
#include "flexuq/rom/Basis.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/la/Tsqr.hpp"
#include "flexuq/pod/Pod.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace flexuq::rom {

const char* type_name(int type) {
  switch (type) {
  case translational:
    return "translational";
  case rotational:
    return "rotational";
  default:
    return "flexible";
  }
}

int ReducedBasis::rank_of(int type) const {
  int k = 0;
  const std::string t = type_name(type);
  for (const auto& b : blocks) {
    const auto dot = b.name.rfind('.');
    if ((dot == std::string::npos ? b.name : b.name.substr(dot + 1)) == t) k += b.rank;
  }
  return k;
}

namespace {

/// The left singular vectors and values of a wide or tall block @p X (rows × snapshots) by the pod
/// module: X = Rᵀ Qᵀ with Xᵀ = Q R (la::tsqr), so the POD of Rᵀ (rows × rows) has X's σ and left
/// vectors. Returns the kept columns (rows × rank); @p sigma gets every σ.
Mat left_vectors(const Mat& X, const pod::Truncation& t, Vec& sigma, double& lost) {
  const Mat R = la::tsqr(MPI_COMM_SELF, Mat(X.transpose()));
  pod::PodOptions po;
  po.truncation = t;
  const pod::PodResult res = pod::compute_pod(pod::SnapshotMatrix::from_local(MPI_COMM_SELF, Mat(R.transpose())), po);
  sigma = res.sigma;
  lost = res.energy_lost;
  return res.U_local;
}

/// The coordinates of type @p type of body @p body (−1: every body) in body-wise q order.
std::vector<int> rows_of(const mbs::System& sys, int type, int body) {
  std::vector<int> rows;
  for (int k = 0; k < sys.n(); ++k) {
    const int b = sys.body_of_coordinate(k), local = k - sys.offset(b);
    const int ty = local < 3 ? translational : (local < 7 ? rotational : flexible);
    if ((type < 0 || ty == type) && (body < 0 || b == body)) rows.push_back(k);
  }
  return rows;
}

/// pod.method sod: the smooth modes of all coordinates, orthonormalised (q ≈ V q_r needs a basis
/// of the projective modes' span). Refused where Σ_Ẋ is singular: the seed's conclusion (§3.4.5).
Mat sod_columns(const std::vector<Training>& runs, const RomOptions& o, Vec& sigma) {
  Eigen::Index h = 0;
  for (const auto& tr : runs) h += tr.q.cols();
  const Eigen::Index n = runs.front().q.rows();
  Mat X(n, h), Xd(n, h);
  Eigen::Index c = 0;
  for (const auto& tr : runs) {
    X.middleCols(c, tr.q.cols()) = tr.q;
    Xd.middleCols(c, tr.q.cols()) = tr.v;
    c += tr.q.cols();
  }
  const SodReport rep = smooth_orthogonal_decomposition(X, Xd);
  FLEXUQ_REQUIRE_OPTION(rep.rank_xdot == rep.n,
                        "pod.method", "{} = sod: Σ_Ẋ = ẊẊᵀ/h of the centred velocity snapshots is singular ("
                                          << rep.summary()
                                          << "): the pencil (Σ_X, Σ_Ẋ) is singular and its smooth orthogonal "
                                             "modes are undefined (seed 003 §3.4.5: SOD is unusable on multibody "
                                             "snapshots, whose coordinates are tied by the constraints); use "
                                             "pod.method: type-sensitive or combined");
  sigma = rep.sigma;
  const int r = o.rank[0] >= 1 ? std::min<int>(o.rank[0], static_cast<int>(sigma.size()))
                               : pod::truncation_rank(sigma, o.truncation);
  const Eigen::HouseholderQR<Mat> qr(rep.modes.leftCols(r));
  return qr.householderQ() * Mat::Identity(n, r);
}

int numerical_rank(const Mat& A) {
  if (A.size() == 0) return 0;
  const Vec s = Eigen::BDCSVD<Mat>(A).singularValues();
  int k = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s(i) > 1e-8 * s(0)) ++k;
  return k;
}

} // namespace

SodReport smooth_orthogonal_decomposition(const Mat& X, const Mat& Xdot) {
  FLEXUQ_REQUIRE(X.rows() == Xdot.rows() && X.cols() == Xdot.cols() && X.cols() >= 2,
                 "SOD: position and velocity snapshots must have the same shape with at least 2 snapshots, got "
                     << X.rows() << " x " << X.cols() << " and " << Xdot.rows() << " x " << Xdot.cols());
  SodReport rep;
  rep.n = static_cast<int>(X.rows());
  rep.snapshots = static_cast<int>(X.cols());
  const Mat Xc = X.colwise() - X.rowwise().mean(), Vc = Xdot.colwise() - Xdot.rowwise().mean();
  rep.rank_x = numerical_rank(Xc);
  rep.rank_xdot = numerical_rank(Vc);
  const double h = static_cast<double>(X.cols());
  const Mat Sx = Xc * Xc.transpose() / h, Sv = Vc * Vc.transpose() / h;
  const Eigen::GeneralizedEigenSolver<Mat> qz(Sx, Sv, false);
  rep.lambda.resize(rep.n);
  // The QZ's orthogonal transformations keep the norms: α, β below 1e-12 of ‖Σ_X‖, ‖Σ_Ẋ‖ are round-off.
  const double ta = 1e-12 * Sx.norm(), tb = 1e-12 * Sv.norm();
  for (int i = 0; i < rep.n; ++i) {
    const auto a = qz.alphas()(i);
    const double b = qz.betas()(i);
    rep.lambda(i) = a.real() / b;
    if (a.imag() != 0.0) ++rep.complex;
    else if (std::abs(a.real()) <= ta && std::abs(b) <= tb) ++rep.indeterminate;
    else if (std::abs(b) <= tb) ++rep.infinite;
    else if (rep.lambda(i) < 0) ++rep.negative;
    else if (rep.lambda(i) == 0) ++rep.zero;
    else ++rep.positive;
  }
  if (rep.rank_xdot == rep.n) {
    // A regular symmetric-definite pencil: Σ_X Φ = Σ_Ẋ Φ Λ with ΦᵀΣ_ẊΦ = I, so the projective
    // modes Φ^{-T} = Σ_Ẋ Φ; largest λ (smoothest) first.
    const Eigen::GeneralizedSelfAdjointEigenSolver<Mat> ges(Sx, Sv);
    const Vec lam = ges.eigenvalues().reverse().cwiseMax(0.0);
    rep.sigma = lam.cwiseSqrt();
    rep.modes = Sv * ges.eigenvectors().rowwise().reverse();
  }
  return rep;
}

std::string SodReport::summary() const {
  std::ostringstream os;
  os << "numerical rank of Σ_Ẋ " << rank_xdot << " of " << n << ", of Σ_X " << rank_x << " of " << n << ", "
     << snapshots << " snapshots; the generalized eigenvalues λ = α/β of (Σ_X, Σ_Ẋ): " << indeterminate
     << " indeterminate (α ≈ β ≈ 0: 0/0, NaN or round-off's ratio), " << infinite << " infinite (β ≈ 0), " << negative
     << " negative, " << zero << " zero, " << positive << " positive";
  if (complex > 0) os << ", " << complex << " complex";
  return os.str();
}

ReducedBasis build_basis(const mbs::System& sys, const std::vector<Training>& runs, const RomOptions& o) {
  const int n = sys.n(), m = sys.m();
  FLEXUQ_REQUIRE_OPTION(!runs.empty(), "training", "{}: no training run given");
  int h = 0;
  for (const auto& tr : runs) {
    FLEXUQ_REQUIRE_OPTION(tr.q.rows() == n && tr.v.rows() == n, "training",
                          "{}: a run has " << tr.q.rows() << " coordinates, the model " << n);
    h += static_cast<int>(tr.q.cols());
  }
  FLEXUQ_REQUIRE_OPTION(h >= 2, "training", "{}: at least two snapshots are needed, got " << h);
  ReducedBasis b;
  b.options = o;
  b.snapshots = h;
  b.q0 = runs[0].q.col(0);
  // The snapshot matrix of every coordinate (n × h), velocities or positions.
  Mat X(n, h);
  {
    int c = 0;
    for (const auto& tr : runs) {
      X.middleCols(c, tr.q.cols()) = o.snapshots == SnapshotKind::velocity ? tr.v : tr.q;
      c += static_cast<int>(tr.q.cols());
    }
  }
  if (o.centre) X = X.colwise() - X.rowwise().mean();
  // Blocks.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  std::vector<int> group_type;
  if (o.pod != PodKind::type_sensitive) {
    groups.push_back({o.pod == PodKind::sod ? "sod" : "combined", rows_of(sys, -1, -1)});
    group_type.push_back(-1);
  } else if (!o.per_body) {
    for (int ty = 0; ty < 3; ++ty) {
      auto rows = rows_of(sys, ty, -1);
      if (!rows.empty()) {
        groups.push_back({type_name(ty), std::move(rows)});
        group_type.push_back(ty);
      }
    }
  } else {
    for (std::size_t bd = 0; bd < sys.bodies().size(); ++bd)
      for (int ty = 0; ty < 3; ++ty) {
        auto rows = rows_of(sys, ty, static_cast<int>(bd));
        if (!rows.empty()) {
          groups.push_back({sys.bodies()[bd].name + "." + type_name(ty), std::move(rows)});
          group_type.push_back(ty);
        }
      }
  }
  std::vector<Mat> phis;
  int r = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    PodBlock blk;
    blk.name = groups[g].first;
    blk.rows = groups[g].second;
    Mat Xb(blk.rows.size(), h);
    for (std::size_t i = 0; i < blk.rows.size(); ++i) Xb.row(static_cast<Eigen::Index>(i)) = X.row(blk.rows[i]);
    pod::Truncation t = o.truncation;
    const int ty = group_type[g];
    // pod.ranks.<type>: the system-wide block of that type, or (per_body) each body's block of it.
    const int fixed = o.pod != PodKind::type_sensitive ? o.rank[0] : (ty >= 0 ? o.rank[ty] : -1);
    if (fixed >= 0) t = pod::Truncation::fixed_rank(std::max(fixed, 1));
    Mat phi = o.pod == PodKind::sod ? sod_columns(runs, o, blk.sigma) : left_vectors(Xb, t, blk.sigma, blk.energy_lost);
    if (fixed == 0 || Xb.norm() == 0.0) phi.resize(Xb.rows(), 0); // a block that does not move
    blk.rank = static_cast<int>(phi.cols());
    blk.energy_lost = pod::lost_energy(blk.sigma, blk.rank);
    blk.first_column = r;
    r += blk.rank;
    phis.push_back(std::move(phi));
    b.blocks.push_back(std::move(blk));
  }
  // A block whose coordinates do not move carries only the integrator's round-off (a body held
  // against rotation keeps |ṗ| ~ 1e-17): rank 0 when its σ₁ is below 1e-10 of the largest block's.
  double top = 0;
  for (const auto& blk : b.blocks) top = std::max(top, blk.sigma.size() > 0 ? blk.sigma(0) : 0.0);
  r = 0;
  for (std::size_t g = 0; g < b.blocks.size(); ++g) {
    auto& blk = b.blocks[g];
    if (blk.sigma.size() == 0 || blk.sigma(0) <= 1e-10 * top) {
      blk.rank = 0;
      phis[g].resize(phis[g].rows(), 0);
      blk.energy_lost = 0;
    }
    blk.first_column = r;
    r += blk.rank;
  }
  FLEXUQ_REQUIRE_OPTION(r > 0, "pod.truncation", "{}: every POD block has rank 0 (no coordinate moves in the training runs)");
  b.V = Mat::Zero(n, r);
  for (std::size_t g = 0; g < b.blocks.size(); ++g) {
    const auto& blk = b.blocks[g];
    for (std::size_t i = 0; i < blk.rows.size(); ++i)
      b.V.row(blk.rows[i]).segment(blk.first_column, blk.rank) = phis[g].row(static_cast<Eigen::Index>(i));
  }
  b.orthonormality = (b.V.transpose() * b.V - Mat::Identity(r, r)).cwiseAbs().maxCoeff();
  b.R0 = b.q0 - b.V * (b.V.transpose() * b.q0);
  for (const int row : sys.active_rows()) b.rows.push_back(sys.row_label(row));
  // Constraint reduction on the projected Jacobians C_q(q_k) V of every snapshot.
  std::vector<Mat> cqv;
  cqv.reserve(static_cast<std::size_t>(h));
  for (const auto& tr : runs)
    for (Eigen::Index k = 0; k < tr.q.cols(); ++k)
      cqv.push_back(sys.jacobian(tr.q.col(k), tr.t[static_cast<std::size_t>(k)]) * b.V);
  if (o.constraints == ConstraintMethod::none) {
    b.gamma = Mat::Identity(m, m);
  } else if (o.constraints == ConstraintMethod::is_needed) {
    Vec rownorm = Vec::Zero(m);
    for (const auto& c : cqv) rownorm = rownorm.cwiseMax(c.rowwise().norm());
    const double top = m > 0 ? rownorm.maxCoeff() : 0.0;
    b.needed.assign(static_cast<std::size_t>(m), 0);
    std::vector<int> keep;
    for (int j = 0; j < m; ++j)
      if (rownorm(j) > o.is_needed_tol * top && top > 0) {
        b.needed[static_cast<std::size_t>(j)] = 1;
        keep.push_back(j);
      }
    b.gamma = Mat::Zero(m, static_cast<Eigen::Index>(keep.size()));
    for (std::size_t i = 0; i < keep.size(); ++i) b.gamma(keep[i], static_cast<Eigen::Index>(i)) = 1.0;
  } else {
    // Every snapshot's C_q V side by side (the digest's reading), or the first one's only (`start`).
    const int used = o.constraints_at_start ? 1 : h;
    Mat stacked(m, r * used);
    for (int k = 0; k < used; ++k) stacked.middleCols(static_cast<Eigen::Index>(k) * r, r) = cqv[static_cast<std::size_t>(k)];
    double lost = 0;
    if (stacked.norm() == 0.0) {
      b.gamma = Mat(m, 0); // every constraint is met by V itself (seed §4.5: l = 0)
      b.constraint_sigma = Vec::Zero(std::min(m, r * used));
    } else {
      b.gamma = left_vectors(stacked, o.constraint_truncation, b.constraint_sigma, lost);
    }
  }
  FLEXUQ_REQUIRE_OPTION(b.l() <= b.r(), "constraints.method",
                        "{} = " << enum_name(kConstraintMethodNames, o.constraints) << " keeps l = " << b.l()
                                << " constraint directions for r = " << b.r()
                                << " reduced coordinates: the reduced DAE would be over-determined (l <= r is "
                                   "needed; seed 003 §4.3: reduce the constraints with method svd)");
  return b;
}

RankCheck reduced_jacobian_rank(const mbs::System& sys, const ReducedBasis& b, const Vec& q, double t) {
  RankCheck rc;
  if (b.l() == 0) {
    rc.ratio = 1.0;
    return rc;
  }
  const Mat j = b.gamma.transpose() * (sys.jacobian(q, t) * b.V);
  Eigen::JacobiSVD<Mat> svd(j);
  const Vec s = svd.singularValues();
  rc.ratio = s(0) > 0 ? s(s.size() - 1) / s(0) : 0.0;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s(i) > 1e-10 * s(0)) ++rc.rank;
  if (s.size() < b.l()) rc.ratio = 0.0; // l > r: not full row rank
  return rc;
}

} // namespace flexuq::rom
