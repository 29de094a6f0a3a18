// SPDX-License-Identifier: MIT
#include "flexuq/la/Projection.hpp"

#include "flexuq/la/Blas.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/la/BlockProduct.hpp"
#include "flexuq/la/Guards.hpp"

#include <algorithm>

namespace flexuq::la {

Eigen::MatrixXd local_block(const std::vector<VecH>& cols) {
  if (cols.empty()) return Eigen::MatrixXd(0, 0);
  PetscInt nloc = 0;
  FLEXUQ_PETSC(VecGetLocalSize(cols[0].get(), &nloc));
  Eigen::MatrixXd X(nloc, static_cast<Eigen::Index>(cols.size()));
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const VecReadArray a(cols[static_cast<std::size_t>(j)].get());
    std::copy(a.begin(), a.end(), X.col(j).data());
  }
  return X;
}

Eigen::MatrixXd project(Mat A, const std::vector<VecH>& cols) { return project_pair(A, nullptr, cols).first; }

std::pair<Eigen::MatrixXd, Eigen::MatrixXd> project_pair(Mat A, Mat B, const std::vector<VecH>& cols) {
  const auto n = static_cast<Eigen::Index>(cols.size());
  std::pair<Eigen::MatrixXd, Eigen::MatrixXd> out{Eigen::MatrixXd(n, n), Eigen::MatrixXd(n, n)};
  if (n == 0) return out;
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(cols[0].get()));
  // The local rows of the columns as one contiguous block X (n_loc × n): Xᵀ(AX) is then a BLAS-3
  // product of the local rows plus one reduction, instead of n² dot products (O(N n²) either way,
  // but the column-by-column VecMDot form runs at a few percent of the machine's speed).
  const Eigen::MatrixXd X = local_block(cols);
  const Eigen::Index nloc = X.rows();
  // A X in blocks of 64 columns (BlockProduct: A streamed once per block; n separate MatMults are
  // bound by memory bandwidth), then DGEMM of the local rows for the upper block triangle.
  constexpr Eigen::Index kBlock = 64;
  std::vector<double> buf(static_cast<std::size_t>((B ? 2 : 1) * n * n));
  std::vector<double> Xr(static_cast<std::size_t>(nloc * std::min(kBlock, n))), Yr(Xr.size());
  for (Mat M : {A, B}) {
    if (!M) continue;
    double* G = buf.data() + (M == A ? 0 : n * n);
    BlockProduct bp(M);
    for (Eigen::Index j0 = 0; j0 < n; j0 += kBlock) {
      const Eigen::Index b = std::min(kBlock, n - j0);
      for (Eigen::Index r = 0; r < nloc; ++r)
        for (Eigen::Index j = 0; j < b; ++j) Xr[static_cast<std::size_t>(r * b + j)] = X(r, j0 + j);
      bp.apply(Xr.data(), static_cast<PetscInt>(b), Yr.data());
      // Upper block triangle only (the product is symmetric): rows 0 .. j0 + b of this column block.
      blas::gemm_tn_rowmajor(X.data(), nloc, j0 + b, std::max<Eigen::Index>(1, nloc), Yr.data(), b, G + j0 * n, n);
    }
  }
  Eigen::Map<Eigen::MatrixXd> GA(buf.data(), n, n);
  Eigen::Map<Eigen::MatrixXd> GB(buf.data() + (B ? n * n : 0), n, n);
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, MPI_SUM, comm));
  out.first = GA.triangularView<Eigen::Upper>();
  out.first.triangularView<Eigen::StrictlyLower>() = GA.transpose();
  if (B) {
    out.second = GB.triangularView<Eigen::Upper>();
    out.second.triangularView<Eigen::StrictlyLower>() = GB.transpose();
  }
  return out;
}

} // namespace flexuq::la
