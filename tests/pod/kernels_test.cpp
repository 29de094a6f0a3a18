// SPDX-License-Identifier: MIT
// POD kernels on random low-rank matrices: every distributed result is compared with Eigen's SVD of
// the whole matrix (generated replicated from a fixed seed, each rank keeping its contiguous row
// block), by singular values and by subspace (principal angles), never entry by entry. Registered
// at 1, 2, 3 and 4 ranks, so agreement with the one reference is agreement across rank counts.
#include "flexuq/core/Handle.hpp"
#include "flexuq/pod/Pod.hpp"
#include "flexuq/pod/StreamingPod.hpp"
#include "flexuq/pod/Truncation.hpp"

#include "flexuq/core/Error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace flexuq;
using namespace flexuq::pod;

namespace {

/// n × m matrix X diag(σ) Yᵀ with random orthonormal X, Y (fixed seed, identical on every rank).
Eigen::MatrixXd low_rank(Eigen::Index n, Eigen::Index m, const Eigen::VectorXd& sigma, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Eigen::Index r = sigma.size();
  Eigen::MatrixXd X(n, r), Y(m, r);
  for (Eigen::Index j = 0; j < r; ++j)
    for (Eigen::Index i = 0; i < n; ++i) X(i, j) = u(gen);
  for (Eigen::Index j = 0; j < r; ++j)
    for (Eigen::Index i = 0; i < m; ++i) Y(i, j) = u(gen);
  Eigen::HouseholderQR<Eigen::MatrixXd> qx(X), qy(Y);
  const Eigen::MatrixXd Qx = qx.householderQ() * Eigen::MatrixXd::Identity(n, r);
  const Eigen::MatrixXd Qy = qy.householderQ() * Eigen::MatrixXd::Identity(m, r);
  return Qx * sigma.asDiagonal() * Qy.transpose();
}

Eigen::MatrixXd my_rows(MPI_Comm c, const Eigen::MatrixXd& A) {
  const auto [b, n] = split_rows(c, static_cast<PetscInt>(A.rows()));
  return A.middleRows(b, n);
}

/// sin of the largest principal angle between span(A) and span(B) (orthonormal columns, same count).
double subspace_sin(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  const Eigen::MatrixXd R = B - A * (A.transpose() * B);
  return Eigen::JacobiSVD<Eigen::MatrixXd>(R).singularValues()(0);
}

const Eigen::VectorXd kSigma = (Eigen::VectorXd(6) << 10.0, 5.0, 2.0, 1.0, 0.5, 0.1).finished();

struct Reference {
  Eigen::VectorXd sigma;
  Eigen::MatrixXd U;
};
Reference lapack(const Eigen::MatrixXd& A) {
  Eigen::BDCSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeThinU);
  return {svd.singularValues(), svd.matrixU()};
}

void expect_matches(const ThinSvd& t, const Eigen::MatrixXd& A, int r, double tol, const char* what) {
  const Reference ref = lapack(A);
  ASSERT_GE(t.sigma.size(), r) << what;
  for (int i = 0; i < r; ++i) EXPECT_NEAR(t.sigma(i), ref.sigma(i), tol * ref.sigma(0)) << what << " σ" << i;
  const Eigen::MatrixXd U = gather_rows(PETSC_COMM_WORLD, t.U_local.leftCols(r));
  EXPECT_LT((U.transpose() * U - Eigen::MatrixXd::Identity(r, r)).norm(), 1e-13) << what;
  // Each vector on its own (the σ are distinct) and the whole subspace.
  for (int i = 0; i < r; ++i) EXPECT_LT(subspace_sin(ref.U.col(i), U.col(i)), tol) << what << " u" << i;
  EXPECT_LT(subspace_sin(ref.U.leftCols(r), U), tol) << what;
}

} // namespace

TEST(PodKernels, TsqrMatchesLapackOnLowRank) {
  const Eigen::MatrixXd A = low_rank(301, 40, kSigma, 11);
  const ThinSvd t = svd_tsqr(PETSC_COMM_WORLD, my_rows(PETSC_COMM_WORLD, A));
  expect_matches(t, A, 6, 1e-12, "tsqr");
  // The exact zeros stay at round-off: TSQR does not square the matrix.
  EXPECT_LT(t.sigma(6), 1e-14 * t.sigma(0));
  ASSERT_EQ(t.V.rows(), 40);
  EXPECT_LT((t.V.transpose() * t.V - Eigen::MatrixXd::Identity(40, 40)).norm(), 1e-12);
}

TEST(PodKernels, TsqrWithFewerLocalRowsThanColumns) {
  // 9 rows × 6 columns: at 3 and 4 ranks some rank holds fewer rows than columns.
  const Eigen::MatrixXd A = low_rank(9, 6, (Eigen::VectorXd(6) << 6, 5, 4, 3, 2, 1).finished(), 5);
  const ThinSvd t = svd_tsqr(PETSC_COMM_WORLD, my_rows(PETSC_COMM_WORLD, A));
  expect_matches(t, A, 6, 1e-13, "tsqr small");
}

TEST(PodKernels, SnapshotsMatchLapack) {
  const Eigen::MatrixXd A = low_rank(301, 40, kSigma, 12);
  const ThinSvd t = svd_snapshots(PETSC_COMM_WORLD, my_rows(PETSC_COMM_WORLD, A), nullptr);
  expect_matches(t, A, 6, 1e-12, "snapshots");
}

TEST(PodKernels, SlepcLeadingTripletsMatchLapack) {
  const Eigen::MatrixXd A = low_rank(301, 40, kSigma, 13);
  const ThinSvd t = svd_slepc(PETSC_COMM_WORLD, my_rows(PETSC_COMM_WORLD, A), 4, 1e-13);
  ASSERT_EQ(t.sigma.size(), 4);
  expect_matches(t, A, 4, 1e-10, "slepc");
}

TEST(PodKernels, CentredPodIsPodOfTheCentredMatrix) {
  Eigen::MatrixXd A = low_rank(200, 25, kSigma, 14);
  A.colwise() += Eigen::VectorXd::LinSpaced(200, 1.0, 3.0); // a large common offset
  Eigen::MatrixXd Ac = A.colwise() - A.rowwise().mean();
  SnapshotMatrix S(PETSC_COMM_WORLD, split_rows(PETSC_COMM_WORLD, 200).second);
  S.append_local(my_rows(PETSC_COMM_WORLD, A));
  PodOptions o;
  o.centre = true;
  o.truncation = Truncation::fixed_rank(5);
  const PodResult p = compute_pod(S, o);
  ASSERT_EQ(p.rank, 5);
  ThinSvd t;
    t.U_local = p.U_local;
    t.sigma = p.sigma;
    t.V = p.V;
  expect_matches(t, Ac, 5, 1e-12, "centred");
  const Eigen::VectorXd mean = gather_rows(PETSC_COMM_WORLD, p.mean_local);
  EXPECT_LT((mean - A.rowwise().mean()).norm(), 1e-14 * mean.norm());
}

TEST(PodKernels, WeightedPodIsMOrthonormalAndMatchesCholeskyForm) {
  const Eigen::Index n = 240;
  const Eigen::MatrixXd A = low_rank(n, 30, kSigma, 15);
  // M: SPD tridiagonal (a 1-D consistent-mass-like matrix with varying density).
  Eigen::MatrixXd Md = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    Md(i, i) = 4.0 + std::sin(0.1 * static_cast<double>(i));
    if (i + 1 < n) Md(i, i + 1) = Md(i + 1, i) = 1.0;
  }
  const auto [b, nl] = split_rows(PETSC_COMM_WORLD, static_cast<PetscInt>(n));
  MatH M;
  ASSERT_EQ(MatCreateAIJ(PETSC_COMM_WORLD, nl, nl, n, n, 3, nullptr, 2, nullptr, M.out()), 0);
  for (PetscInt i = b; i < b + nl; ++i)
    for (PetscInt j = std::max<PetscInt>(0, i - 1); j <= std::min<PetscInt>(n - 1, i + 1); ++j)
      ASSERT_EQ(MatSetValue(M.get(), i, j, Md(i, j), INSERT_VALUES), 0);
  ASSERT_EQ(MatAssemblyBegin(M.get(), MAT_FINAL_ASSEMBLY), 0);
  ASSERT_EQ(MatAssemblyEnd(M.get(), MAT_FINAL_ASSEMBLY), 0);

  SnapshotMatrix S(PETSC_COMM_WORLD, nl);
  S.append_local(my_rows(PETSC_COMM_WORLD, A));
  PodOptions o;
  o.weight = M.get();
  const PodResult p = compute_pod(S, o);
  ASSERT_EQ(p.rank, 6);
  const Eigen::MatrixXd U = gather_rows(PETSC_COMM_WORLD, p.U_local);
  EXPECT_LT((U.transpose() * Md * U - Eigen::MatrixXd::Identity(6, 6)).norm(), 1e-13);
  // Oracle: M = L Lᵀ, σ(Lᵀ A) and U = L⁻ᵀ Ũ, compared in the M inner product.
  Eigen::LLT<Eigen::MatrixXd> llt(Md);
  const Eigen::MatrixXd LtA = llt.matrixU() * A;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(LtA, Eigen::ComputeThinU);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(p.sigma(i), svd.singularValues()(i), 1e-12 * svd.singularValues()(0));
  const Eigen::MatrixXd LtU = llt.matrixU() * U; // Euclidean-orthonormal image
  EXPECT_LT(subspace_sin(svd.matrixU().leftCols(6), LtU), 1e-12);
  for (int i = 0; i < 6; ++i) EXPECT_LT(subspace_sin(svd.matrixU().col(i), LtU.col(i)), 1e-12) << i;
  // method slepc has no weighted form: a clear error.
  o.method = SvdMethod::slepc;
  EXPECT_THROW(compute_pod(S, o), InputError);
}

TEST(PodKernels, StreamingEqualsBatch) {
  const Eigen::MatrixXd A = low_rank(257, 31, kSigma, 16);
  const Eigen::MatrixXd mine = my_rows(PETSC_COMM_WORLD, A);
  StreamingPod one(PETSC_COMM_WORLD, static_cast<PetscInt>(mine.rows()));
  for (Eigen::Index j = 0; j < A.cols(); ++j) one.append_local(mine.col(j));
  StreamingPod blocks(PETSC_COMM_WORLD, static_cast<PetscInt>(mine.rows()));
  for (Eigen::Index j = 0; j < A.cols(); j += 4) blocks.append_local(mine.middleCols(j, std::min<Eigen::Index>(4, A.cols() - j)));
  for (const StreamingPod* s : {&one, &blocks}) {
    EXPECT_EQ(s->snapshots(), 31);
    EXPECT_EQ(s->rank(), 6); // rank-revealing: the exact zeros were dropped on the way
    const PodResult p = s->result();
    ThinSvd t;
    t.U_local = p.U_local;
    t.sigma = p.sigma;
    t.V = p.V;
    expect_matches(t, A, 6, 1e-12, "streaming");
    // Right vectors too: S V = U Σ reproduces the snapshots.
    const Eigen::MatrixXd U = gather_rows(PETSC_COMM_WORLD, p.U_local);
    EXPECT_LT((U * p.sigma.asDiagonal() * p.V.transpose() - A).norm(), 1e-12 * A.norm());
  }
  // Centred streaming (incremental PCA) = batch centred POD.
  Eigen::MatrixXd B = A;
  B.colwise() += Eigen::VectorXd::Constant(257, 2.0);
  const Eigen::MatrixXd Bc = B.colwise() - B.rowwise().mean();
  StreamingOptions so;
  so.centre = true;
  StreamingPod c(PETSC_COMM_WORLD, static_cast<PetscInt>(mine.rows()), so);
  const Eigen::MatrixXd bmine = my_rows(PETSC_COMM_WORLD, B);
  for (Eigen::Index j = 0; j < B.cols(); j += 3) c.append_local(bmine.middleCols(j, std::min<Eigen::Index>(3, B.cols() - j)));
  const PodResult pc = c.result(Truncation::fixed_rank(6));
  const Reference ref = lapack(Bc);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(pc.sigma(i), ref.sigma(i), 1e-12 * ref.sigma(0));
  const Eigen::MatrixXd Uc = gather_rows(PETSC_COMM_WORLD, pc.U_local);
  EXPECT_LT(subspace_sin(ref.U.leftCols(6), Uc), 1e-12);
  const Eigen::VectorXd mean = gather_rows(PETSC_COMM_WORLD, pc.mean_local);
  EXPECT_LT((mean - B.rowwise().mean()).norm(), 1e-13 * mean.norm());
  // A rank cap keeps the leading subspace.
  StreamingOptions capped;
  capped.max_rank = 3;
  StreamingPod cp(PETSC_COMM_WORLD, static_cast<PetscInt>(mine.rows()), capped);
  cp.append_local(mine);
  EXPECT_EQ(cp.rank(), 3);
}

TEST(PodTruncation, RulesOnAKnownSpectrum) {
  const Eigen::VectorXd s = (Eigen::VectorXd(7) << 1.0, 0.1, 0.01, 1e-3, 1e-9, 1e-10, 0.0).finished();
  EXPECT_EQ(truncation_rank(s, Truncation::energy(1e-5)), 3);  // lost 1e-6/1.0101 after 3, 1e-4/1.0101 after 2
  EXPECT_EQ(truncation_rank(s, Truncation::energy(9.8e-7)), 4); // 9.9e-7 lost after 3 is just too much
  EXPECT_EQ(truncation_rank(s, Truncation::energy(0.0)), 6);
  EXPECT_EQ(truncation_rank(s, Truncation::sigma_ratio(1e-5)), 4);
  EXPECT_EQ(truncation_rank(s, Truncation::sigma_ratio(1e-9)), 4);  // strict: σ5/σ1 = 1e-9 is not above
  EXPECT_EQ(truncation_rank(s, Truncation::sigma_ratio(1e-10)), 5); // σ6/σ1 = 1e-10 is not above
  EXPECT_EQ(truncation_rank(s, Truncation::log_gap()), 4);          // 1e-3 → 1e-9 is the largest drop
  EXPECT_EQ(truncation_rank(s, Truncation::fixed_rank(2)), 2);
  EXPECT_EQ(truncation_rank(s, Truncation::fixed_rank(20)), 7);
  EXPECT_EQ(truncation_rank(s, Truncation{}), 6); // numerical rank
  Truncation capped = Truncation::sigma_ratio(1e-12);
  capped.max_rank = 2;
  EXPECT_EQ(truncation_rank(s, capped), 2);
  // log-gap to an exact zero is measured against the noise floor, so a clean rank-3 set gives 3.
  const Eigen::VectorXd z = (Eigen::VectorXd(5) << 3.0, 2.0, 1.0, 0.0, 0.0).finished();
  EXPECT_EQ(truncation_rank(z, Truncation::log_gap()), 3);
  EXPECT_NEAR(normalised(s).squaredNorm(), 1.0, 1e-15);
  EXPECT_NEAR(lost_energy(s, 3), (1e-6 + 1e-18 + 1e-20) / s.squaredNorm(), 1e-20);
  EXPECT_EQ(truncation_rank(Eigen::VectorXd::Zero(3), Truncation::energy(0.1)), 0);
}

TEST(PodTruncation, ConfigKeys) {
  const auto rule = [](const char* name) { return *parse_enum(kTruncationRuleNames, name); };
  EXPECT_EQ(Truncation::of(rule("energy"), 1e-10).rule, Truncation::Rule::energy);
  EXPECT_EQ(Truncation::of(rule("rank"), 4).value, 4.0);
  EXPECT_EQ(Truncation::of(rule("log_gap"), 7).rule, Truncation::Rule::log_gap);
  EXPECT_FALSE(parse_enum(kTruncationRuleNames, "energie"));
  EXPECT_EQ(enum_choices(kTruncationRuleNames), "energy, sigma_ratio, log_gap or rank");
  EXPECT_THROW(Truncation::of(Truncation::Rule::sigma_ratio, -0.1), InputError);
  EXPECT_THROW(Truncation::of(Truncation::Rule::rank, 2.5), InputError);
  try {
    Truncation::of(Truncation::Rule::energy, 1.5);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "energy (lost energy fraction) must be in [0, 1), got 1.5");
  }
  EXPECT_EQ(parse_enum(kSvdMethodNames, "snapshots"), SvdMethod::snapshots);
  EXPECT_FALSE(parse_enum(kSvdMethodNames, "qr"));
  EXPECT_STREQ(enum_name(kSvdMethodNames, SvdMethod::slepc), "slepc");
}
