// SPDX-License-Identifier: MIT
// The offline step of seed 003 (rom/Basis.hpp): POD blocks → V, R0, and the constraint reduction Γ.
#include "flexuq/rom/Basis.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/la/Tsqr.hpp"
#include "flexuq/pod/Pod.hpp"

#include <algorithm>
#include <cmath>

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

} // namespace

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
  if (o.pod == PodKind::combined) {
    groups.push_back({"combined", rows_of(sys, -1, -1)});
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
    const int fixed = o.pod == PodKind::combined ? o.rank[0] : (ty >= 0 ? o.rank[ty] : -1);
    if (fixed >= 0) t = pod::Truncation::fixed_rank(std::max(fixed, 1));
    Mat phi = left_vectors(Xb, t, blk.sigma, blk.energy_lost);
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
