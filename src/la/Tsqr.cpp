// SPDX-License-Identifier: MIT
#include "flexuq/la/Tsqr.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace flexuq::la {

namespace {

/// Both stages of the TSQR. R is n × n; with @p Q_local, also this rank's rows of the thin Q
/// (local rows × n), such that A_local = Q_local R.
Eigen::MatrixXd tsqr_impl(MPI_Comm comm, const Eigen::MatrixXd& A, Eigen::MatrixXd* Q_local) {
  const Eigen::Index n = A.cols(), m = A.rows();
  // Every rank must agree on the column count (a rank may hold no rows at all).
  long long nc = n, nmax = 0, nmin = 0;
  FLEXUQ_MPI(MPI_Allreduce(&nc, &nmax, 1, MPI_LONG_LONG, MPI_MAX, comm));
  FLEXUQ_MPI(MPI_Allreduce(&nc, &nmin, 1, MPI_LONG_LONG, MPI_MIN, comm));
  if (nmax != nmin) throw Error(FLEXUQ_MSG("tsqr: ranks disagree on the column count (" << nmin << " vs " << nmax << ")"));
  if (Q_local) *Q_local = Eigen::MatrixXd::Zero(m, n);
  if (n == 0) return Eigen::MatrixXd(0, 0);
  // Local QR: R_p is k × n with k = min(rows, n), padded with zero rows to n × n.
  const Eigen::Index k = std::min(m, n);
  Eigen::MatrixXd Rp = Eigen::MatrixXd::Zero(n, n);
  Eigen::HouseholderQR<Eigen::MatrixXd> local(m > 0 ? A : Eigen::MatrixXd(0, n));
  if (m > 0) Rp.topRows(k) = local.matrixQR().topRows(k).triangularView<Eigen::Upper>();
  int size = 1, rank = 0;
  FLEXUQ_MPI(MPI_Comm_size(comm, &size));
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  // The second stage also runs on one rank, so every rank count does the same kind of arithmetic.
  std::vector<double> all(static_cast<std::size_t>(size) * static_cast<std::size_t>(n * n));
  FLEXUQ_MPI(MPI_Allgather(Rp.data(), static_cast<int>(n * n), MPI_DOUBLE, all.data(), static_cast<int>(n * n),
                           MPI_DOUBLE, comm));
  Eigen::MatrixXd stacked(size * n, n);
  for (int p = 0; p < size; ++p)
    stacked.middleRows(p * n, n) = Eigen::Map<const Eigen::MatrixXd>(all.data() + static_cast<std::size_t>(p) * n * n, n, n);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(stacked);
  Eigen::MatrixXd R = qr.matrixQR().topRows(n).triangularView<Eigen::Upper>();
  if (Q_local && m > 0) {
    // Q = diag(Q_p) Q_2: this rank's rows are Q_p (m × k) times the first k rows of its block of Q_2.
    const Eigen::MatrixXd Q2 = qr.householderQ() * Eigen::MatrixXd::Identity(size * n, n);
    const Eigen::MatrixXd Qp = local.householderQ() * Eigen::MatrixXd::Identity(m, k);
    *Q_local = Qp * Q2.block(rank * n, 0, k, n);
  }
  return R;
}

} // namespace

Eigen::MatrixXd tsqr(MPI_Comm comm, const Eigen::MatrixXd& local_rows) { return tsqr_impl(comm, local_rows, nullptr); }

ThinSvd thin_svd(MPI_Comm comm, const Eigen::MatrixXd& local_rows, bool left) {
  Eigen::MatrixXd Q;
  const Eigen::MatrixXd R = tsqr_impl(comm, local_rows, left ? &Q : nullptr);
  ThinSvd out;
  if (R.cols() == 0) {
    if (left) out.U_local = Eigen::MatrixXd(local_rows.rows(), 0);
    return out;
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(R, left ? (Eigen::ComputeFullU | Eigen::ComputeFullV) : Eigen::ComputeFullV);
  out.sigma = svd.singularValues();
  out.V = svd.matrixV();
  Eigen::MatrixXd Ur;
  if (left) Ur = svd.matrixU();
  // R is unique only up to the signs of its rows, so the SVD's signs depend on the rank count: fix them.
  for (Eigen::Index j = 0; j < out.V.cols(); ++j) {
    Eigen::Index imax = 0;
    out.V.col(j).cwiseAbs().maxCoeff(&imax);
    if (out.V(imax, j) < 0) {
      out.V.col(j) *= -1.0;
      if (left) Ur.col(j) *= -1.0;
    }
  }
  if (left) out.U_local = Q * Ur;
  return out;
}

double condition_number(const Eigen::VectorXd& s) {
  if (s.size() == 0) return std::numeric_limits<double>::quiet_NaN();
  const double smax = s.maxCoeff(), smin = s.minCoeff();
  if (!(smin > 0)) return std::numeric_limits<double>::infinity();
  return smax / smin;
}

} // namespace flexuq::la
