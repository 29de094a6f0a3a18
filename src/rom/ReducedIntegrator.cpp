// SPDX-License-Identifier: MIT
// The reduced index-3 generalized-α integrator of seed 003's ROM (rom/ReducedIntegrator.hpp).
#include "flexuq/rom/ReducedIntegrator.hpp"

#include "flexuq/core/Error.hpp"

#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <limits>

namespace flexuq::rom {

ReducedIntegrator::ReducedIntegrator(mbs::System& sys, mbs::SolverOptions o, const ReducedBasis& b)
    : sys_(sys), o_(o), b_(b) {
  o_.validate();
  FLEXUQ_REQUIRE_OPTION(o_.scheme == mbs::Scheme::hht || o_.scheme == mbs::Scheme::generalized_alpha, "solver.type",
                        "{} = " << mbs::scheme_name(o_.scheme)
                                << ": a reduced-order run (rom) integrates with hht or generalized-alpha only");
  FLEXUQ_REQUIRE_OPTION(!o_.adaptive, "solver.adaptive", "{}: a reduced-order run (rom) takes fixed steps");
  if (b.n() != sys.n())
    throw InputError(FLEXUQ_MSG("rom: the reduced model has " << b.n() << " coordinates, the model " << sys.n()
                                                               << " (built from another model?)"));
  std::vector<std::string> rows;
  for (const int r : sys.active_rows()) rows.push_back(sys.row_label(r));
  if (rows != b.rows) {
    std::size_t k = 0;
    while (k < rows.size() && k < b.rows.size() && rows[k] == b.rows[k]) ++k;
    throw InputError(FLEXUQ_MSG("rom: the model's active constraint rows differ from the reduced model's ("
                                << rows.size() << " against " << b.rows.size() << "; first difference at row " << k
                                << ": '" << (k < rows.size() ? rows[k] : "") << "' against '"
                                << (k < b.rows.size() ? b.rows[k] : "") << "'): built from another model?"));
  }
  const int r = b.r();
  mass_const_ = Mat::Zero(r, r);
  for (std::size_t bd = 0; bd < sys.bodies().size(); ++bd) {
    const mbs::BodyModel& model = sys.body_model(static_cast<int>(bd));
    const int off = sys.offset(static_cast<int>(bd)), cnt = model.n_coordinates();
    if (sys.n_elastic(static_cast<int>(bd)) > 0) stiff_ = true;
    if (!(b.V.middleRows(off, cnt).cwiseAbs().maxCoeff() > 0)) continue;
    const Mat c = model.constant_mass_block();
    const int k = static_cast<int>(c.rows());
    if (k == 0) {
      bodies_.push_back({off, cnt});
      continue;
    }
    // M_b = blockdiag(C, N(q)) (BodyModel::constant_mass_block; a rigid body: m 1 and 4GᵀJG): V_kᵀ C V_k
    // once; per rebuild only N on the columns where V's rows past the k are not zero (a type-sensitive
    // basis: the rotational ones).
    const auto vk = b.V.middleRows(off, k);
    mass_const_.noalias() += vk.transpose() * c * vk;
    SplitPart part{off, k, cnt, {}, Mat()};
    for (int j = 0; j < r; ++j)
      if (cnt > k && b.V.block(off + k, j, cnt - k, 1).cwiseAbs().maxCoeff() > 0) part.cols.push_back(j);
    if (part.cols.empty()) continue;
    part.vp.resize(cnt - k, static_cast<Eigen::Index>(part.cols.size()));
    for (std::size_t j = 0; j < part.cols.size(); ++j)
      part.vp.col(static_cast<Eigen::Index>(j)) = b.V.block(off + k, part.cols[j], cnt - k, 1);
    split_.push_back(std::move(part));
  }
  kpos_.assign(static_cast<std::size_t>(sys.n()), -1);
  for (const auto& f : sys.forces())
    if (f.type == mbs::ForceType::spring || f.type == mbs::ForceType::rotational_damper) stiff_ = true;
  rc_.emplace(sys, b.V, b.gamma);
}

Mat ReducedIntegrator::reduced_matrix(const Vec& q, double ck, double cd) {
  const int r = b_.r();
  Mat out = mass_const_;
  for (const SplitPart& part : split_) {
    // N(q) on the part's columns (mass_into writes the constant block too; a GS body adds to zeros).
    mb_.setZero(part.cnt, part.cnt);
    sys_.body_model(sys_.body_of_coordinate(part.off)).mass_into(Vec(q.segment(part.off, part.cnt)), 0, 1.0, mb_);
    rot_w_.noalias() = mb_.bottomRightCorner(part.cnt - part.k, part.cnt - part.k) * part.vp;
    rot_.noalias() = part.vp.transpose() * rot_w_;
    const auto k = static_cast<Eigen::Index>(part.cols.size());
    for (Eigen::Index j = 0; j < k; ++j)
      for (Eigen::Index i = 0; i < k; ++i) out(part.cols[i], part.cols[j]) += rot_(i, j);
  }
  for (const auto& [off, cnt] : bodies_) {
    // The body's own mass block at its coordinates (a cnt × cnt matrix, the body model at offset 0).
    const Vec qb = q.segment(off, cnt);
    Mat mb = Mat::Zero(cnt, cnt);
    sys_.body_model(sys_.body_of_coordinate(off)).mass_into(qb, 0, 1.0, mb);
    const auto vb = b_.V.middleRows(off, cnt);
    out.noalias() += vb.transpose() * mb * vb;
  }
  if (stiff_ && (ck != 0 || cd != 0)) {
    // K̄ blocks and rank-one spring/damper terms as triplets (no n × n matrix per rebuild). Where they
    // touch few coordinates (springs and dampers on a few bodies: the mounted V8's 14 of 126), K̄ is
    // gathered densely on that support S and projected by V's rows there: V_Sᵀ K̄_SS V_S.
    triplets_.clear();
    sys_.stiffness_damping_triplets(q, ck, cd, triplets_);
    kcoord_.clear();
    for (const auto& t : triplets_)
      for (const int c : {t.row(), t.col()})
        if (kpos_[static_cast<std::size_t>(c)] < 0) {
          kpos_[static_cast<std::size_t>(c)] = static_cast<int>(kcoord_.size());
          kcoord_.push_back(c);
        }
    const auto ns = static_cast<Eigen::Index>(kcoord_.size());
    if (4 * ns <= sys_.n()) {
      ks_.setZero(ns, ns);
      for (const auto& t : triplets_)
        ks_(kpos_[static_cast<std::size_t>(t.row())], kpos_[static_cast<std::size_t>(t.col())]) += t.value();
      vs_.resize(ns, r);
      for (Eigen::Index i = 0; i < ns; ++i) vs_.row(i) = b_.V.row(kcoord_[static_cast<std::size_t>(i)]);
      rot_w_.noalias() = ks_ * vs_;
      out.noalias() += vs_.transpose() * rot_w_;
    } else {
      Eigen::SparseMatrix<double> ks(sys_.n(), sys_.n());
      ks.setFromTriplets(triplets_.begin(), triplets_.end());
      out.noalias() += b_.V.transpose() * (ks * b_.V);
    }
    for (const int c : kcoord_) kpos_[static_cast<std::size_t>(c)] = -1;
  }
  return out;
}

Mat ReducedIntegrator::reduced_jacobian(const Vec& q, double t) {
  if (b_.l() == 0) return Mat(0, b_.r());
  // Contracted body vector by body vector (rom/ReducedConstraints.hpp): no m × n C_q.
  const Mat j = rc_->jacobian(q, t);
  check_rank(j, t);
  return j;
}

void ReducedIntegrator::check_rank(const Mat& j, double t) {
  if (b_.l() == 0) return;
  // |R_ll|/|R_11| of a column-pivoted QR of (ΓᵀC_qV)ᵀ: a cheap estimate of σ_min/σ_max (a Jacobi SVD of
  // the 38 × 45 block of the mounted V8 took a quarter of its run).
  Eigen::ColPivHouseholderQR<Mat> qr(j.transpose());
  const Vec d = qr.matrixR().diagonal().cwiseAbs();
  const double ratio = d.size() < b_.l() || d(0) == 0 ? 0.0 : d(b_.l() - 1) / d(0);
  stats_.min_rank_ratio = std::min(stats_.min_rank_ratio, ratio);
  ++stats_.rank_checks;
  if (!(ratio > 1e-12))
    throw Error(FLEXUQ_MSG("rom: the reduced constraint Jacobian Γᵀ C_q V (" << b_.l() << " x " << b_.r()
                                                                             << ") lost rank at t = " << t
                                                                             << " (σ_min/σ_max ≈ " << ratio
                                                                             << "): the snapshots do not cover this motion; "
                                                                                "train the ROM on it (seed 003 §4.5)"));
}

mbs::State ReducedIntegrator::back_projected(const Reduced& s) const {
  mbs::State f;
  f.t = s.t;
  f.q = full_q(s.q);
  f.v = b_.V * s.v;
  f.a = b_.V * s.a;
  f.aux = b_.V * s.aux;
  f.lambda = b_.gamma * s.lambda;
  return f;
}

void ReducedIntegrator::initialise(const mbs::State& full) {
  const int r = b_.r(), l = b_.l();
  s_.t = full.t;
  s_.q = b_.V.transpose() * (full.q - b_.R0);
  s_.v = b_.V.transpose() * full.v;
  stats_.initial_offset = (full_q(s_.q) - full.q).lpNorm<Eigen::Infinity>();
  const Vec q = full_q(s_.q), v = b_.V * s_.v;
  Mat k = Mat::Zero(r + l, r + l);
  k.topLeftCorner(r, r) = reduced_matrix(q, 0, 0);
  const Mat j = reduced_jacobian(q, s_.t);
  k.topRightCorner(r, l) = j.transpose();
  k.bottomLeftCorner(l, r) = j;
  Vec rhs(r + l);
  rhs.head(r) = b_.V.transpose() * sys_.forces(q, v, s_.t);
  rhs.tail(l) = b_.gamma.transpose() * sys_.gamma(q, v, s_.t);
  Eigen::FullPivLU<Mat> lu(k);
  lu.setThreshold(1e-12);
  if (lu.rank() < r + l)
    throw InputError(FLEXUQ_MSG("rom: the reduced saddle matrix [VᵀMV, (ΓᵀC_qV)ᵀ; ΓᵀC_qV, 0] is singular at t = "
                                << s_.t << " (rank " << lu.rank() << " of " << r + l << ", r = " << r << ", l = " << l
                                << (r == l ? "): l = r leaves the reduced model no degree of freedom (a classical "
                                             "combined POD, seed 003 Table 4.3, fails so: use pod.method: type-sensitive)"
                                           : "): V and Γ do not determine the reduced accelerations (seed 003 §4.6)")));
  const Vec x = lu.solve(rhs);
  s_.a = x.head(r);
  s_.lambda = x.tail(l);
  s_.aux = s_.a;
  prev_h_ = 0;
  jac_h_ = -1;
}

bool ReducedIntegrator::step(double h, Reduced& out, mbs::RunStats& st) {
  const int r = b_.r(), l = b_.l();
  const mbs::NewmarkCoefficients k = mbs::newmark_coefficients(o_);
  const double t1 = s_.t + h, c = k.c();
  const Vec qa = s_.q + h * s_.v + h * h * (0.5 - k.beta) * s_.aux;
  const Vec va = s_.v + h * (1 - k.gamma) * s_.aux;
  const Vec d = (k.af * s_.a - k.am * s_.aux) / (1 - k.am);
  const double bq = k.beta * h * h * c, bv = k.gamma * h * c;
  Vec x = s_.a, lam = s_.lambda;
  if (prev_h_ > 0) {
    const double ratio = h / prev_h_;
    x += ratio * (s_.a - prev_a_);
    lam += ratio * (s_.lambda - prev_lambda_);
  }
  // q̃ = V q1 + R0 and q̃̇ = V v1 are affine in the iterate: with y = V q̈_r, q̃ = (V qa + R0) + βh²(c y
  // + V d) and q̃̇ = V va + γh(c y + V d); the n-vectors V qa + R0, V va, V d are formed once per step and
  // y is carried through the iterations (y += V Δq̈_r), so an iteration takes two products with V.
  const Vec qa_full = full_q(qa), vva = b_.V * va, vd = b_.V * d;
  Vec y = b_.V * x, q1, v1, qf, vf, ctl, ph;
  auto state_of = [&](const Vec& xx, const Vec& yy) {
    const Vec an = c * xx + d, anf = c * yy + vd;
    q1 = qa + k.beta * h * h * an;
    v1 = va + k.gamma * h * an;
    qf = qa_full + k.beta * h * h * anf;
    vf = vva + k.gamma * h * anf;
  };
  // The reduced residual [Vᵀ(M q̈ + C_qᵀΓλ_l − Q); ΓᵀC/(βh²c)] at q̈_r = xx (yy = V xx), λ_l = ll.
  auto residual = [&](const Vec& xx, const Vec& yy, const Vec& ll) -> Vec {
    state_of(xx, yy);
    rc_->residual(qf, t1, ll, ph, ctl); // ph = Γᵀ C (l), ctl = C_qᵀ Γ λ_l (n)
    Vec res(r + l);
    res.head(r) = b_.V.transpose() * (sys_.mass_times(qf, yy) + ctl - sys_.forces(qf, vf, t1));
    res.tail(l) = ph / bq;
    return res;
  };
  // The iteration matrix at the current iterate. Blocks (default): Σ_b V_bᵀ(M_b)V_b + Vᵀ(βh²c K̄ +
  // γhc D̄)V and ΓᵀC_qV, the full scheme's analytic blocks projected. Finite differences
  // (solver.matrix: finite-difference): the whole reduced residual's, by forward differences in the r
  // reduced accelerations (r residuals where the full model's takes 2n); its constraint rows are
  // ΓᵀC_qV exactly and its λ_l columns their transpose.
  auto refresh = [&](const Vec& r0) {
    jac_.setZero(r + l, r + l);
    Mat j;
    if (o_.fd_matrix) {
      const double qscale = std::max(1.0, qf.lpNorm<Eigen::Infinity>());
      for (int i = 0; i < r; ++i) {
        const double eps = std::max(1e-7 * (1.0 + std::abs(x(i))), 1e-8 * qscale / bq);
        Vec xp = x;
        xp(i) += eps;
        jac_.col(i) = (residual(xp, Vec(y + eps * b_.V.col(i)), lam) - r0) / eps;
      }
      state_of(x, y);
      j = jac_.bottomLeftCorner(l, r);
      check_rank(j, t1);
    } else { // at q̃ of the last residual (the iterate's)
      jac_.topLeftCorner(r, r) = reduced_matrix(qf, bq, bv);
      j = reduced_jacobian(qf, t1);
      jac_.bottomLeftCorner(l, r) = j;
    }
    jac_.topRightCorner(r, l) = j.transpose();
    lu_.compute(jac_);
    jac_h_ = h;
    ++st.jacobians;
  };
  int rebuilds = 0;
  double prev = INFINITY;
  bool converged = false;
  for (int it = 0; it < o_.max_iter; ++it) {
    const Vec res = residual(x, y, lam);
    if (!res.allFinite()) break;
    if (std::abs(jac_h_ - h) > 1e-9 * h || jac_.rows() != r + l) refresh(res);
    const Vec dx = lu_.solve(-res);
    if (!dx.allFinite()) break;
    x += dx.head(r);
    lam += dx.tail(l);
    const Vec dxf = b_.V * dx.head(r);
    y += dxf;
    const double corr = bq * dxf.lpNorm<Eigen::Infinity>();
    const double vcorr = bv * dxf.lpNorm<Eigen::Infinity>();
    ++st.newton_iterations;
    // The full scheme's index-3 tests (mbs/Integrator.cpp): the tolerance or round-off of q̃.
    constexpr double ulps = 64 * std::numeric_limits<double>::epsilon();
    const double roundoff = ulps * (qa_full.lpNorm<Eigen::Infinity>() + bq * y.lpNorm<Eigen::Infinity>());
    if (corr <= std::max(o_.tol, roundoff) &&
        vcorr <= std::max(o_.tol / std::min(o_.end - o_.start, 1.0), roundoff * bv / bq)) {
      converged = true;
      break;
    }
    // Rebuild when Newton contracts by less than 10 (as the full scheme); a finite-difference matrix
    // when it contracts by less than 1/0.3: it costs r residuals (on the V8 over 4.5 s, 0.1 took 108 561
    // iterations and 7 512 matrices, 0.3 150 819 and 2 531, 15 % less time; 0.5 and 0.03 were slower).
    if (it > 0 && corr > (o_.fd_matrix ? 0.3 : 0.1) * prev && rebuilds < 3) {
      // The analytic blocks need only the state at the iterate; the finite differences its residual.
      if (o_.fd_matrix) {
        refresh(residual(x, y, lam));
      } else {
        state_of(x, y);
        refresh(Vec());
      }
      ++rebuilds;
    }
    prev = corr;
  }
  if (!converged) {
    jac_h_ = -1;
    return false;
  }
  state_of(x, y);
  out.t = t1;
  out.q = q1;
  out.v = v1;
  out.a = x;
  out.lambda = lam;
  out.aux = c * x + d;
  return true;
}

ReducedStats ReducedIntegrator::run(const std::function<void(const mbs::State&, double)>& output,
                                    const std::function<void(double)>& progress) {
  mbs::RunStats& st = stats_.run;
  const mbs::OutputClock clock(o_);
  mbs::State full = back_projected(s_);
  double work = 0, power = sys_.nonconservative_power(full.q, full.v, full.t);
  output(full, work);
  st.max_drift = sys_.phi_all(full.q, full.t).lpNorm<Eigen::Infinity>();
  double h = o_.step;
  for (long kk = 1; kk <= clock.count; ++kk) {
    const double t_out = clock.time(kk);
    while (mbs::OutputClock::before(s_.t, t_out)) {
      bool last = false;
      const double hs = mbs::OutputClock::step(s_.t, h, t_out, last);
      Reduced next;
      if (!step(hs, next, st)) {
        ++st.rejected;
        h = 0.5 * hs;
        if (h < o_.min_step)
          throw OptionError("solver.min_step",
                            FLEXUQ_MSG("reduced-order time integration failed at t = "
                                       << s_.t << ": Newton did not converge with steps down to h = " << hs
                                       << " ({} = " << o_.min_step
                                       << "); the reduced basis may miss a direction of this motion"));
        continue;
      }
      ++st.steps;
      prev_a_ = s_.a;
      prev_lambda_ = s_.lambda;
      prev_h_ = next.t - s_.t;
      const Vec qf = full_q(next.q), vf = b_.V * next.v;
      const double p1 = sys_.nonconservative_power(qf, vf, next.t);
      work += 0.5 * (next.t - s_.t) * (power + p1);
      power = p1;
      s_ = std::move(next);
      const double drift = rc_->drift(qf, s_.t);
      st.max_drift = std::max(st.max_drift, drift);
      if (!(drift <= o_.drift_limit))
        throw OptionError("solver.drift_limit",
                          FLEXUQ_MSG("rom: the full model's constraints are violated at t = "
                                     << s_.t << " by " << drift << " at q = V q_r + R0, above {} = " << o_.drift_limit
                                     << ": the reduced basis does not hold this motion (seed 003 §4.3: a combined "
                                        "POD or a basis cut too short?)"));
      if (!last) h = std::min(o_.step, h * 2.0);
      if (progress) progress(s_.t);
    }
    output(back_projected(s_), work);
  }
  return stats_;
}

} // namespace flexuq::rom
