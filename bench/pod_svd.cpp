// SPDX-License-Identifier: MIT
// Benchmark (not a test): thin SVD of a tall-skinny snapshot matrix by TSQR + LAPACK, by SLEPc
// (leading triplets) and by the method of snapshots, plus the streaming update (one snapshot at a
// time). Wall time (max over ranks), rise of the peak resident memory per kernel (max over ranks),
// and the accuracy of σ against the prescribed spectrum. Issue #6 benchmark: 200 000 × 100, 2 ranks.
// Usage: mpirun -n 2 build/bench/bench_pod_svd [rows=200000] [cols=100] [slepc_triplets=10]
#include "flexuq/core/Log.hpp"
#include "flexuq/core/Session.hpp"
#include "flexuq/pod/Pod.hpp"
#include "flexuq/pod/StreamingPod.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

using namespace flexuq;
using namespace flexuq::pod;

int main(int argc, char** argv) {
  Session session(&argc, &argv);
  MPI_Comm comm = PETSC_COMM_WORLD;
  const long rows = argc > 1 ? std::atol(argv[1]) : 200000;
  const int cols = argc > 2 ? std::atoi(argv[2]) : 100;
  const int k = argc > 3 ? std::atoi(argv[3]) : 10;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto [b, nl] = split_rows(comm, static_cast<PetscInt>(rows));
  // A = X diag(σ) Yᵀ with σ_i = 10^{-8 i/(cols-1)} (8 decades), X with random local rows (its columns
  // are nearly orthogonal for tall X; the benchmark reports σ of the matrix as built, checked by TSQR).
  std::mt19937_64 gen(1234 + static_cast<unsigned>(rank));
  std::normal_distribution<double> nd;
  Eigen::MatrixXd X(nl, cols), Y(cols, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < nl; ++i) X(i, j) = nd(gen);
  std::mt19937_64 gy(99);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < cols; ++i) Y(i, j) = nd(gy);
  Eigen::MatrixXd Qx = la::thin_svd(comm, X, true).U_local; // orthonormal columns
  Eigen::HouseholderQR<Eigen::MatrixXd> qy(Y);
  const Eigen::MatrixXd Qy = qy.householderQ() * Eigen::MatrixXd::Identity(cols, cols);
  Eigen::VectorXd sig(cols);
  for (int i = 0; i < cols; ++i) sig(i) = std::pow(10.0, -8.0 * i / std::max(cols - 1, 1));
  const Eigen::MatrixXd A = Qx * sig.asDiagonal() * Qy.transpose();
  X.resize(0, 0);
  Qx.resize(0, 0);
  if (rank == 0)
    std::printf("# %ld x %d, %d ranks; sigma = 10^(-8 i/(n-1)); times are max over ranks\n"
                "| kernel | wall [s] | peak RSS rise per rank [MB] | max rel. error of sigma_1..%d | max rel. error of all computed sigma |\n"
                "|---|---|---|---|---|\n",
                rows, cols, size, k);
  const auto run = [&](const char* name, const std::function<Eigen::VectorXd()>& f) {
    MPI_Barrier(comm);
    const double peak0 = log::peak_rss_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    const Eigen::VectorXd s = f();
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double rise = (log::peak_rss_bytes() - peak0) / 1048576.0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &rise, 1, MPI_DOUBLE, MPI_MAX, comm);
    double ek = 0, eall = 0;
    for (Eigen::Index i = 0; i < s.size(); ++i) {
      const double e = std::abs(s(i) - sig(i)) / sig(i);
      if (i < k) ek = std::max(ek, e);
      eall = std::max(eall, e);
    }
    if (rank == 0) std::printf("| %s | %.3f | %.1f | %.1e | %.1e (%ld values) |\n", name, t, rise, ek, eall, static_cast<long>(s.size()));
  };
  run("TSQR + LAPACK SVD (U, sigma, V)", [&] { return svd_tsqr(comm, A).sigma; });
  run("method of snapshots + refinement", [&] { return svd_snapshots(comm, A, nullptr).sigma; });
  run("SLEPc SVD (trlanczos), leading triplets", [&] { return svd_slepc(comm, A, k, 1e-12).sigma; });
  run("streaming, 1 snapshot per update", [&] {
    StreamingOptions so;
    so.drop_tolerance = 1e-14;
    StreamingPod sp(comm, nl, so);
    for (int j = 0; j < cols; ++j) sp.append_local(A.col(j));
    return Eigen::VectorXd(sp.sigma());
  });
  run("streaming, 10 snapshots per update", [&] {
    StreamingOptions so;
    so.drop_tolerance = 1e-14;
    StreamingPod sp(comm, nl, so);
    for (int j = 0; j < cols; j += 10) sp.append_local(A.middleCols(j, std::min(10, cols - j)));
    return Eigen::VectorXd(sp.sigma());
  });
  return 0;
}
