// SPDX-License-Identifier: MIT
#include "flexuq/fe/BlockModes.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/BlockOps.hpp"
#include "flexuq/la/Blas.hpp"
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/Guards.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>

namespace flexuq::fe {

namespace {

using block::Block;

/// A value in [−1, 1) from (global row, column) alone (splitmix64): the start block is the same
/// whatever the partition.
double start_entry(std::uint64_t row, std::uint64_t col) {
  std::uint64_t z = row * 0x9E3779B97F4A7C15ULL + (col + 1) * 0xD1B54A32D192ED03ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

/// The default block: 8 columns per solve measured fewest solve-equivalents on the 25 k-DOF crank
/// (20 clamped modes: 136 right-hand sides in 17 solves; 12: 192 in 16; 25: 300 in 12), and MUMPS
/// solves 8 right-hand sides for ~0.36 of 8 single solves (docs/performance.md).
constexpr long long kDefaultBlock = 8;
/// The explicit residual ‖Wz − θx‖_M/θ of a pair that passed the estimate may exceed it by the
/// residual the locked pairs carry (tol × their θ, up to 1e8 × the others' for σ = −1e-8 s), which
/// Krylov–Schur's estimate does not see either: it is held to this multiple of tol (a pair 20 %
/// off would fail it by orders of magnitude). Measured 1.9e-12 and 6.1e-11 (tol 1e-12) on the free
/// rod of tests/fe/block_modes_test.cpp, 1 and 2 ranks.
constexpr double kExplicitSlack = 1e3;
/// Steps without halving the largest wanted error before the method gives up (its round-off floor
/// is above tol): ModeSolver then solves with Krylov–Schur.
constexpr int kStallSteps = 25;
/// A new block whose largest M-cosine with the basis, the locked pairs or itself (|YᵀMY − I|)
/// exceeds this after its SVQB is projected once more (round-off leaves ~1e-16 after CGS2; SVQB
/// can amplify it).
constexpr double kReorthCosine = 1e-12;

} // namespace

BlockEigenResult block_eigenpairs(Mat K, Mat M, KSP shifted, const BlockEigenSettings& s) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  BlockEigenResult out;
  PetscInt nloc = 0, N = 0, lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetLocalSize(K, &nloc, nullptr));
  FLEXUQ_PETSC(MatGetSize(K, &N, nullptr));
  FLEXUQ_PETSC(MatGetOwnershipRange(K, &lo, &hi));
  block::Operator Mop(M);
  const int guard = std::max(1, s.guard);
  const long long want0 = static_cast<long long>(s.count) + s.extra;
  const auto nstart = static_cast<long long>(s.start.size());
  const auto b = static_cast<Eigen::Index>(std::min<long long>(
      N, nstart > 0 ? nstart + std::max(0, s.start_extra)
                    : (s.block_size > 0 ? s.block_size : std::min<long long>(kDefaultBlock, want0 + guard))));
  // The widest basis before a thick restart (SLEPc's Krylov-Schur: ncv = 2 nev): the carried pairs
  // twice and two blocks.
  const auto carried = static_cast<Eigen::Index>(want0 + guard);
  const Eigen::Index max_dim = std::min<Eigen::Index>(N, s.max_basis > 0 ? s.max_basis : 2 * carried + 2 * b);

  // V: M-orthonormal basis; W = S⁻¹ M V for its first W.cols() columns; H = Vᵀ M S⁻¹ M V on them.
  // The start block: the given vectors (a reference basis, issue #38 item 2), then pseudo-random
  // columns that depend on the global row only.
  Block V(nloc, b);
  const auto given = static_cast<Eigen::Index>(std::min<long long>(nstart, b));
  for (Eigen::Index c = 0; c < given; ++c) {
    const la::VecReadArray a(s.start[static_cast<std::size_t>(c)]);
    FLEXUQ_ASSERT(a.size() == nloc, "block_eigenpairs: a start vector has another layout than K");
    V.col(c) = Eigen::Map<const Eigen::VectorXd>(a.data(), nloc);
  }
  for (Eigen::Index c = given; c < b; ++c)
    for (PetscInt i = 0; i < nloc; ++i) V(i, c) = start_entry(static_cast<std::uint64_t>(lo + i), static_cast<std::uint64_t>(c));
  Block MV = Mop.apply(V);
  block::svqb(comm, V, MV);
  MV = Mop.apply(V);
  block::svqb(comm, V, MV);
  Block W(nloc, 0);
  Eigen::MatrixXd H(0, 0);
  log::Progress progress(comm, "eigensolve", want0);
  // Locked pairs (converged at the top of θ, rigid-body modes first): Q, MQ, A Q, θ. They leave the
  // Rayleigh–Ritz problem (their θ, up to 1e8 times the others' for σ = −1e-8 s, would bound the
  // attainable accuracy of the others) and every new block is M-orthogonalised against them.
  Block Q(nloc, 0), MQ(nloc, 0), WQ(nloc, 0);
  std::vector<double> theta_q;
  bool explicit_failed = false;
  double best_worst = std::numeric_limits<double>::infinity();
  int best_step = 0;
  for (;;) {
    // The block Krylov step: W_new = S⁻¹ M V_new, one multi-right-hand-side solve.
    const Eigen::Index q = W.cols(), nb = V.cols() - q;
    const Block Wn = block::solve(shifted, K, MV.rightCols(nb));
    ++out.steps;
    out.columns += nb;
    // The next block Y starts as W_new M-orthogonalised against the locked pairs. Its coefficients
    // on the basis, C = MVᵀ Y, are both the new columns of H (= MVᵀ W_new: V is M-orthogonal to the
    // locked pairs, and the part along them is the solves' error, not the operator's) and the first
    // pass of the projection against the basis below: MV is read once for both.
    Block Y = Wn;
    block::project_out(comm, Q, MQ, Y);
    const bool reuse = Y.cols() == nb; // no column of W_new in span Q (else C from W_new itself)
    const Eigen::MatrixXd C = block::inner(comm, MV, reuse ? Y : Wn); // (q + nb) × nb
    Eigen::MatrixXd Hn(q + nb, q + nb);
    Hn.topLeftCorner(q, q) = H;
    Hn.rightCols(nb) = C;
    Hn.bottomLeftCorner(nb, q) = C.topRows(q).transpose();
    H = 0.5 * (Hn + Hn.transpose());
    W.conservativeResize(Eigen::NoChange, q + nb);
    W.rightCols(nb) = Wn;
    out.max_subspace = std::max(out.max_subspace, static_cast<int>(V.cols() + Q.cols()));
    // The next block Y: W_new M-orthogonalised against the locked pairs and the basis (twice) and
    // within itself (SVQB). Then S⁻¹M V = V H + Y B with B = Yᵀ M W (to round-off): a Ritz pair's
    // residual is Y B z.
    // project_out is already CGS2; the whole pass is repeated only when the SVQB lost the
    // M-orthogonality to the basis or within itself (it divides by the block's small singular
    // values): largest |VᵀMY|, |QᵀMY|, |YᵀMY − I| above kReorthCosine. MY is carried through
    // svqb (M(YT) = (MY)T): two M products per step fewer.
    Block MY;
    for (int pass = 0; pass < 2; ++pass) {
      if (pass > 0) block::project_out(comm, Q, MQ, Y);
      block::project_out(comm, V, MV, Y, pass == 0 && reuse ? &C : nullptr);
      MY = Mop.apply(Y);
      block::svqb(comm, Y, MY);
      if (pass == 1 || Y.cols() == 0) break;
      const Eigen::MatrixXd G = block::inner(comm, Y, MY) - Eigen::MatrixXd::Identity(Y.cols(), Y.cols());
      const double lost = std::max({Q.cols() ? block::inner(comm, Q, MY).cwiseAbs().maxCoeff() : 0.0,
                                    block::inner(comm, V, MY).cwiseAbs().maxCoeff(), G.cwiseAbs().maxCoeff()});
      if (lost <= kReorthCosine) break;
    }
    // B as the Krylov recurrence has it (Krylov–Schur's b): zero on the older columns, whose images
    // S⁻¹MV_old lie in span V. Their computed Yᵀ M W_old is not zero but the solves' error, which
    // grows as 1/|σ| on a free component (S nearly singular: 1.5e-20 against ‖W‖ = 4e-10 on the
    // free bar of tests/fe/block_modes_test.cpp at σ = −1e-8 s, 1e-24 against 1e-8 on the clamped
    // rod): taken into the estimate it put a floor of ~1e-11 under every wanted pair, and the method
    // stalled above tol = 1e-12 and fell back to Krylov–Schur.
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(MY.cols(), q + nb); // y × (q + nb)
    B.rightCols(nb) = block::inner(comm, MY, Wn);

    // Rayleigh–Ritz of A = S⁻¹M on the active basis: θ largest first, λ = σ + 1/θ.
    std::optional<block::ScopedEvent> timed_rr(block::Event::RayleighRitz);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(H);
    if (es.info() != Eigen::Success) {
      out.reason = "the Rayleigh-Ritz problem failed";
      return out;
    }
    std::vector<Eigen::Index> order; // columns of es by descending θ > 0
    for (Eigen::Index k = es.eigenvalues().size() - 1; k >= 0; --k)
      if (es.eigenvalues()(k) > 0) order.push_back(k);
    // All pairs, locked (−1 − index) and active (index into order), by ascending λ.
    struct Pair {
      double lambda, theta;
      long id;
    };
    std::vector<Pair> all;
    for (std::size_t i = 0; i < theta_q.size(); ++i) all.push_back({s.shift + 1.0 / theta_q[i], theta_q[i], -1 - static_cast<long>(i)});
    for (std::size_t i = 0; i < order.size(); ++i) {
      const double t = es.eigenvalues()(order[i]);
      all.push_back({s.shift + 1.0 / t, t, static_cast<long>(i)});
    }
    std::stable_sort(all.begin(), all.end(), [](const Pair& x, const Pair& y) { return x.lambda < y.lambda; });
    std::vector<double> ritz;
    for (const auto& pr : all) ritz.push_back(pr.lambda);
    const auto nlow = static_cast<std::size_t>(std::count_if(ritz.begin(), ritz.end(), [&](double l) { return l <= s.zero_tol; }));
    const std::vector<double> elastic(ritz.begin() + static_cast<std::ptrdiff_t>(nlow), ritz.end());
    const std::size_t nel =
        la::complete_multiplets(elastic, std::min<std::size_t>(elastic.size(), static_cast<std::size_t>(s.count)), s.cluster_tol);
    const std::size_t nw = nlow + nel;
    const bool enough = elastic.size() > nel && nel >= static_cast<std::size_t>(s.count); // a pair above the cut
    const auto ne = std::min(all.size(), nw + static_cast<std::size_t>(guard));
    // The test of SLEPc's Krylov–Schur for a shift-and-invert pair, ‖Ax − θx‖_M/θ (= ‖S⁻¹(Kx −
    // λMx)‖_M), from the Krylov relation (‖B z‖, Y being M-orthonormal) as Krylov–Schur does ...
    std::vector<double> est(order.size(), 0.0);
    for (std::size_t i = 0; i < order.size(); ++i)
      est[i] = (B * es.eigenvectors().col(order[i])).norm() / es.eigenvalues()(order[i]);
    double worst = 0;
    int passed_wanted = 0;
    for (std::size_t j = 0; j < nw; ++j) {
      const double e = all[j].id < 0 ? 0.0 : est[static_cast<std::size_t>(all[j].id)];
      worst = std::max(worst, e);
      passed_wanted += e <= s.tol;
    }
    out.max_error = worst;
    progress.update(std::min<long long>(want0, passed_wanted));
    timed_rr.reset();
    if (enough && (worst <= s.tol || explicit_failed)) {
      const block::ScopedEvent timed(block::Event::Check);
      // ... and explicitly (A x = W z, no solve) before the pairs are returned.
      Block X(nloc, static_cast<Eigen::Index>(ne)), R(nloc, static_cast<Eigen::Index>(ne));
      std::vector<Eigen::Index> act_cols, act_pos;
      for (std::size_t j = 0; j < ne; ++j) {
        const auto jj = static_cast<Eigen::Index>(j);
        if (all[j].id < 0) {
          const auto l = static_cast<Eigen::Index>(-1 - all[j].id);
          X.col(jj) = Q.col(l);
          R.col(jj) = WQ.col(l) - all[j].theta * Q.col(l);
        } else {
          act_cols.push_back(order[static_cast<std::size_t>(all[j].id)]);
          act_pos.push_back(jj);
        }
      }
      if (!act_cols.empty()) {
        const Eigen::MatrixXd Z = es.eigenvectors()(Eigen::all, act_cols);
        // V has q + nb columns here (as W): no copy of the basis for the product.
        const Block Xa = blas::gemm(V, false, Z, false), Wa = blas::gemm(W, false, Z, false);
        for (std::size_t c = 0; c < act_pos.size(); ++c) {
          const auto cc = static_cast<Eigen::Index>(c);
          X.col(act_pos[c]) = Xa.col(cc);
          R.col(act_pos[c]) = Wa.col(cc) - all[static_cast<std::size_t>(act_pos[c])].theta * Xa.col(cc);
        }
      }
      {
        // The residual of an elastic pair is taken in the complement of the locked zero-energy
        // pairs: S⁻¹ amplifies the solve's error along them by θ_rigid/θ (4.8e5 on the free bar).
        std::vector<Eigen::Index> rig, el;
        for (std::size_t i = 0; i < theta_q.size(); ++i)
          if (s.shift + 1.0 / theta_q[i] <= s.zero_tol) rig.push_back(static_cast<Eigen::Index>(i));
        for (std::size_t j = 0; j < ne; ++j)
          if (ritz[j] > s.zero_tol) el.push_back(static_cast<Eigen::Index>(j));
        if (!rig.empty() && !el.empty()) {
          const Block Qr = Q(Eigen::all, rig), MQr = MQ(Eigen::all, rig);
          Block Re = R(Eigen::all, el);
          Re -= blas::gemm(Qr, false, block::inner(comm, MQr, Re), false);
          R(Eigen::all, el) = Re;
        }
      }
      const Eigen::VectorXd rr = block::inner_diagonal(comm, R, Mop.apply(R));
      std::vector<char> pass(ne, 0);
      double worst_explicit = 0;
      for (std::size_t j = 0; j < ne; ++j) {
        const double err = std::sqrt(std::max(0.0, rr(static_cast<Eigen::Index>(j)))) / all[j].theta;
        pass[j] = err <= kExplicitSlack * s.tol;
        if (j < nw) worst_explicit = std::max(worst_explicit, err);
      }
      out.max_error = worst_explicit;
      explicit_failed = worst_explicit > kExplicitSlack * s.tol;
      if (!explicit_failed) {
        for (std::size_t j = 0; j < ne; ++j) {
          if (!pass[j]) continue;
          out.values.push_back(ritz[j]);
          out.vectors.push_back(block::column_vec(K, X, static_cast<Eigen::Index>(j)));
        }
        return out;
      }
    }
    // Stagnation: the best wanted error has not halved in kStallSteps steps (round-off floor).
    if (worst < best_worst / 2) {
      best_worst = worst;
      best_step = out.steps;
    } else if (out.steps - best_step >= kStallSteps) {
      std::ostringstream os;
      os << "the wanted pairs' error stalled at " << out.max_error << " > " << s.tol << " (" << out.steps << " block solves)";
      out.reason = os.str();
      return out;
    }
    if (out.steps >= s.max_steps) {
      std::ostringstream os;
      os << "a wanted pair has the error " << out.max_error << " > " << s.tol << " after " << out.steps << " block solves";
      out.reason = os.str();
      return out;
    }
    if (Y.cols() == 0) {
      out.reason = "the Krylov space stopped growing (an invariant subspace without the wanted pairs)";
      return out;
    }
    // Lock the leading active pairs (largest θ) that passed and are wanted; the basis keeps the
    // other Ritz vectors (all of them: nothing of the Krylov space is lost). Locking at once, not at
    // the next restart as SLEPc's Krylov–Schur does: deferred, it saved the rotations of the basis
    // (0.14 s against 0.39 s of 3.6 s on the 30 k crank) but took one block solve more there, and
    // the clamped rod's pairs of tests/fe/block_modes_test.cpp came out with residuals of
    // 1.02–1.04e-8, over the 1e-8 the test holds.
    std::size_t lead = 0;
    while (lead < order.size() && est[lead] <= s.tol && lead + theta_q.size() < nw) ++lead;
    const auto restart = V.cols() + Y.cols() > max_dim;
    if (lead > 0 || restart) {
      const block::ScopedEvent timed(block::Event::Restart);
      std::vector<Eigen::Index> rest(order.begin() + static_cast<std::ptrdiff_t>(lead), order.end());
      for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k)
        if (es.eigenvalues()(k) <= 0) rest.push_back(k);
      if (lead > 0) {
        const std::vector<Eigen::Index> lc(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(lead));
        const Eigen::MatrixXd Zl = es.eigenvectors()(Eigen::all, lc);
        const Eigen::Index nq = Q.cols(), nl = static_cast<Eigen::Index>(lead);
        Q.conservativeResize(Eigen::NoChange, nq + nl);
        Q.rightCols(nl) = blas::gemm(V, false, Zl, false);
        MQ.conservativeResize(Eigen::NoChange, nq + nl);
        MQ.rightCols(nl) = blas::gemm(MV, false, Zl, false);
        WQ.conservativeResize(Eigen::NoChange, nq + nl);
        WQ.rightCols(nl) = blas::gemm(W, false, Zl, false);
        for (auto k : lc) theta_q.push_back(es.eigenvalues()(k));
      }
      if (restart) {
        // Thick restart on the Ritz vectors of the largest θ: A X = X Θ + Y B Z, so [X, Y] is again
        // a block Krylov basis (Y is M-orthogonal to V, hence to X).
        const auto active_ne = static_cast<Eigen::Index>(ne) - static_cast<Eigen::Index>(theta_q.size());
        const auto room = std::max<Eigen::Index>(0, max_dim - Y.cols() - Q.cols() - std::max<Eigen::Index>(0, active_ne));
        const auto keep = std::min<Eigen::Index>(static_cast<Eigen::Index>(rest.size()),
                                                 std::max<Eigen::Index>(1, std::max<Eigen::Index>(0, active_ne) + room / 2));
        rest.resize(static_cast<std::size_t>(keep));
        ++out.restarts;
      }
      const Eigen::MatrixXd Zr = es.eigenvectors()(Eigen::all, rest);
      block::rotate(V, Zr);
      block::rotate(MV, Zr);
      block::rotate(W, Zr);
      H = Zr.transpose() * H * Zr;
    }
    const block::ScopedEvent timed(block::Event::Grow);
    const Eigen::Index d = V.cols(), y = Y.cols();
    V.conservativeResize(Eigen::NoChange, d + y);
    V.rightCols(y) = Y;
    MV.conservativeResize(Eigen::NoChange, d + y);
    MV.rightCols(y) = MY;
  }
}

} // namespace flexuq::fe
