// SPDX-License-Identifier: MIT
#include "flexuq/pod/PodCb.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/Subspace.hpp"
#include "flexuq/uq/Distribution.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace flexuq::pod {

namespace {

double sum_over(MPI_Comm comm, double x) {
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, comm));
  return x;
}

Eigen::MatrixXd select(const Eigen::MatrixXd& A, const std::vector<int>& rows, const std::vector<int>& cols) {
  Eigen::MatrixXd out(rows.size(), cols.size());
  for (std::size_t j = 0; j < cols.size(); ++j)
    for (std::size_t i = 0; i < rows.size(); ++i) out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = A(rows[i], cols[j]);
  return out;
}

} // namespace

Eigen::MatrixXd CbBar::block(const Eigen::MatrixXd& A, const std::vector<int>& rows, const std::vector<int>& cols) const {
  return select(A, rows, cols);
}

CbPieces cb_pieces(const CbBar& bar, double E, double G, int n_modes) {
  const Eigen::MatrixXd K = E * bar.K_E + G * bar.K_G;
  const Eigen::MatrixXd Kii = select(K, bar.internal, bar.internal), Kib = select(K, bar.internal, bar.boundary);
  const Eigen::MatrixXd Mii = select(bar.M, bar.internal, bar.internal);
  CbPieces p;
  Eigen::LLT<Eigen::MatrixXd> llt(Kii);
  if (llt.info() != Eigen::Success) throw Error("POD-CB: K_ii is not positive definite");
  p.B = -llt.solve(Kib);
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(Kii, Mii);
  if (es.info() != Eigen::Success) throw Error("POD-CB: the fixed-interface eigensolver failed");
  const int k = std::min<int>(n_modes, static_cast<int>(Kii.rows()));
  p.lambda = es.eigenvalues().head(k);
  p.Phi = es.eigenvectors().leftCols(k);
  return p;
}

std::vector<int> eigenvalue_clusters(const Eigen::VectorXd& lambda, double rel_tol) {
  return la::cluster_ids(std::vector<double>(lambda.data(), lambda.data() + lambda.size()), rel_tol);
}

double align_modes(Eigen::MatrixXd& Phi, const Eigen::MatrixXd& Phi_ref, const Eigen::MatrixXd& M,
                   const std::vector<int>& clusters) {
  double worst = 1.0;
  std::size_t i = 0;
  while (i < clusters.size()) {
    std::size_t j = i;
    while (j < clusters.size() && clusters[j] == clusters[i]) ++j;
    const Eigen::Index b = static_cast<Eigen::Index>(i), n = static_cast<Eigen::Index>(j - i);
    const Eigen::MatrixXd C = Phi_ref.middleCols(b, n).transpose() * M * Phi.middleCols(b, n); // ⟨Φ_ref, Φ⟩
    worst = std::min(worst, la::principal_cosines(C).minCoeff());
    Phi.middleCols(b, n) = Phi.middleCols(b, n) * la::procrustes_rotation(C);
    i = j;
  }
  return worst;
}

ReducedMode reduced_internal_mode(const Eigen::MatrixXd& Uhat, const Eigen::MatrixXd& K, const Eigen::MatrixXd& M,
                                  double pair_tol) {
  // Orthonormal basis Z = Û T of span(Û) (rank-revealing), then the reduced GEP on Z.
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Uhat, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd& s = svd.singularValues();
  Eigen::Index k = 0;
  while (k < s.size() && s(k) > 1e-10 * s(0)) ++k;
  const Eigen::MatrixXd T = svd.matrixV().leftCols(k) * s.head(k).cwiseInverse().asDiagonal();
  const Eigen::MatrixXd Z = svd.matrixU().leftCols(k);
  const Eigen::MatrixXd Kr = Z.transpose() * K * Z, Mr = Z.transpose() * M * Z;
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (Kr + Kr.transpose()), 0.5 * (Mr + Mr.transpose()));
  if (es.info() != Eigen::Success) throw Error("POD-CB: the reduced eigenproblem failed");
  const Eigen::MatrixXd A = T * es.eigenvectors(); // coefficients in Û, each column M-normalised
  // The Ritz vector closest to Φ̄ˢ in the M inner product (largest |cosine|; the Ritz vectors are
  // M-normalised). Not the largest â(1): a junk direction of U_r (a null singular vector when r ≥ m)
  // can carry a large Φ̄ coefficient after M-orthogonalisation.
  const Eigen::VectorXd zm = Z.transpose() * (M * Uhat.col(0));
  Eigen::Index best = 0;
  (es.eigenvectors().transpose() * zm).cwiseAbs().maxCoeff(&best);
  const double lb = es.eigenvalues()(best);
  ReducedMode out;
  out.lambda = lb;
  out.a = Eigen::VectorXd::Zero(Uhat.cols());
  out.group = 0;
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    if (std::abs(es.eigenvalues()(j) - lb) <= pair_tol * std::abs(lb)) {
      out.a += (A(0, j) < 0 ? -1.0 : 1.0) * A.col(j);
      ++out.group;
    }
  out.a /= out.a(0);
  return out;
}

std::vector<double> lognormal_samples(int count, double mean, double std, unsigned long long seed) {
  const uq::Distribution d = uq::Distribution::lognormal_from_moments(mean, std);
  std::mt19937_64 gen(seed);
  const double two_pi = 2.0 * M_PI, scale = 1.0 / 18446744073709551616.0; // 2⁻⁶⁴
  std::vector<double> out;
  while (static_cast<int>(out.size()) < count) {
    const double u1 = (static_cast<double>(gen()) + 0.5) * scale, u2 = (static_cast<double>(gen()) + 0.5) * scale;
    const double r = std::sqrt(-2.0 * std::log(u1));
    out.push_back(d.from_germ(r * std::cos(two_pi * u2)));
    if (static_cast<int>(out.size()) < count) out.push_back(d.from_germ(r * std::sin(two_pi * u2)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<PodCbLooRow> pod_cb_loo(MPI_Comm comm, const CbBar& bar, std::vector<double> G, double C,
                                    const PodCbLooOptions& o) {
  FLEXUQ_REQUIRE(G.size() >= 3, "POD-CB LOO: needs at least 3 samples, got " << G.size());
  std::sort(G.begin(), G.end());
  const int m = static_cast<int>(G.size()) - 1; // training-set size
  const auto E_of = [C](double g) { return 9.0 * C * g / (3.0 * C + g); };
  double gmean = 0;
  for (double g : G) gmean += g / static_cast<double>(G.size());
  const Eigen::MatrixXd Mii = bar.block(bar.M, bar.internal, bar.internal);
  const CbPieces ref = cb_pieces(bar, E_of(gmean), gmean, o.n_modes);
  const std::vector<int> ref_clusters = eigenvalue_clusters(ref.lambda);

  // Pieces at every sample ("Monte Carlo"), aligned copies for the snapshots.
  std::vector<CbPieces> mc;
  std::vector<Eigen::MatrixXd> aligned;
  double min_align = 1.0;
  for (double g : G) {
    mc.push_back(cb_pieces(bar, E_of(g), g, o.n_modes));
    aligned.push_back(mc.back().Phi);
    if (o.align) min_align = std::min(min_align, align_modes(aligned.back(), ref.Phi, Mii, ref_clusters));
  }
  const Eigen::Index ni = static_cast<Eigen::Index>(bar.internal.size());
  const Eigen::Index nb = static_cast<Eigen::Index>(bar.boundary.size());
  const int nm = static_cast<int>(ref.lambda.size());
  const auto [row0, nrows] = split_rows(comm, static_cast<PetscInt>(ni));
  const int rmax = *std::max_element(o.ranks.begin(), o.ranks.end());

  std::vector<PodCbLooRow> rows(o.ranks.size());
  for (std::size_t q = 0; q < rows.size(); ++q) {
    rows[q].m = m;
    rows[q].r = o.ranks[q];
    rows[q].min_alignment = min_align;
  }
  PodOptions po;
  po.method = o.method;
  po.centre = true;
  po.truncation = Truncation::fixed_rank(rmax);
  log::Progress progress(comm, FLEXUQ_MSG("POD-CB LOO m=" << m), static_cast<long long>(G.size()));
  for (std::size_t te = 0; te < G.size(); ++te) {
    const double Gte = G[te];
    const Eigen::MatrixXd K = E_of(Gte) * bar.K_E + Gte * bar.K_G;
    const Eigen::MatrixXd Kii = bar.block(K, bar.internal, bar.internal);
    const CbPieces& test = mc[te];
    const std::vector<int> test_clusters = eigenvalue_clusters(test.lambda);
    // Boundary modes (7.8): projection of the test column on Φ̄ˢ + U_rˢ.
    for (Eigen::Index s = 0; s < nb; ++s) {
      SnapshotMatrix S(comm, nrows);
      for (std::size_t j = 0; j < G.size(); ++j)
        if (j != te) S.append_local(mc[j].B.col(s).segment(row0, nrows));
      const PodResult p = compute_pod(S, po);
      const Eigen::VectorXd x = test.B.col(s).segment(row0, nrows);
      const Eigen::VectorXd d = x - p.mean_local;
      // (7.8) compares whole columns [e_s; Bˢ]: the unit entry is in the denominator, not the error.
      const double norm2 = 1.0 + sum_over(comm, x.squaredNorm());
      for (std::size_t q = 0; q < rows.size(); ++q) {
        const int r = std::min(rows[q].r, p.rank);
        const Eigen::MatrixXd Ur = p.U_local.leftCols(r);
        const Eigen::MatrixXd a = inner(comm, Ur, d);
        const double e = sum_over(comm, (Ur * a - d).squaredNorm()) / norm2;
        rows[q].boundary_error += e / static_cast<double>(nb * static_cast<Eigen::Index>(G.size()));
        rows[q].max_boundary_error = std::max(rows[q].max_boundary_error, e);
      }
    }
    // Internal modes: POD per mode, reduced (r+1) eigenproblem at the test parameter.
    std::vector<std::vector<Eigen::VectorXd>> pod_modes(rows.size(), std::vector<Eigen::VectorXd>(static_cast<std::size_t>(nm)));
    std::vector<std::vector<double>> pod_lambda(rows.size(), std::vector<double>(static_cast<std::size_t>(nm)));
    for (int s = 0; s < nm; ++s) {
      SnapshotMatrix S(comm, nrows);
      for (std::size_t j = 0; j < G.size(); ++j)
        if (j != te) S.append_local((o.align ? aligned[j] : mc[j].Phi).col(s).segment(row0, nrows));
      const PodResult p = compute_pod(S, po);
      for (std::size_t q = 0; q < rows.size(); ++q) {
        const int r = std::min(rows[q].r, p.rank);
        Eigen::MatrixXd Uloc(nrows, r + 1);
        Uloc.col(0) = p.mean_local;
        Uloc.rightCols(r) = p.U_local.leftCols(r);
        const Eigen::MatrixXd Uhat = gather_rows(comm, Uloc);
        const ReducedMode red = reduced_internal_mode(Uhat, Kii, Mii, o.pair_tol);
        if (red.group >= 2) ++rows[q].pair_groups;
        pod_modes[q][static_cast<std::size_t>(s)] = Uhat * red.a;
        pod_lambda[q][static_cast<std::size_t>(s)] = red.lambda;
      }
    }
    for (std::size_t q = 0; q < rows.size(); ++q)
      for (int s = 0; s < nm; ++s) {
        // (7.9)/(7.10): least squares of the MC mode on the POD modes of its degenerate cluster.
        std::vector<int> members;
        for (int t = 0; t < nm; ++t)
          if (test_clusters[static_cast<std::size_t>(t)] == test_clusters[static_cast<std::size_t>(s)]) members.push_back(t);
        Eigen::MatrixXd P(ni, static_cast<Eigen::Index>(members.size()));
        for (std::size_t t = 0; t < members.size(); ++t)
          P.col(static_cast<Eigen::Index>(t)) = pod_modes[q][static_cast<std::size_t>(members[t])];
        const Eigen::VectorXd phi = test.Phi.col(s);
        const Eigen::VectorXd coef = P.completeOrthogonalDecomposition().solve(phi);
        const double em = (P * coef - phi).squaredNorm() / phi.squaredNorm();
        const double lm = test.lambda(s), lp = pod_lambda[q][static_cast<std::size_t>(s)];
        const double el = ((lp - lm) / lm) * ((lp - lm) / lm);
        const double w = 1.0 / static_cast<double>(nm * static_cast<int>(G.size()));
        rows[q].mode_error += w * em;
        rows[q].eigenvalue_error += w * el;
        rows[q].max_mode_error = std::max(rows[q].max_mode_error, em);
        rows[q].max_eigenvalue_error = std::max(rows[q].max_eigenvalue_error, el);
      }
    progress.update(static_cast<long long>(te + 1));
  }
  return rows;
}

} // namespace flexuq::pod
