// SPDX-License-Identifier: MIT
// GCMS preconditioning (seed-001 §2.7–2.9) and the build_gcms entry point.
#include "flexuq/cms/Gcms.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/Tsqr.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>

namespace flexuq::cms {

namespace {

std::string fmt(double v, int digits = 4) {
  std::ostringstream os;
  os << std::setprecision(digits) << v;
  return os.str();
}

double allreduce_sum_d(MPI_Comm comm, double v) {
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, comm));
  return v;
}

} // namespace

int GcmsResult::removed_columns(const std::string& reason) const {
  return 3 * static_cast<int>(std::count_if(removed.begin(), removed.end(),
                                            [&](const GcmsRemoval& r) { return r.reason == reason; }));
}

void validate(const GcmsOptions& o) {
  FLEXUQ_REQUIRE(o.cosine_floor > 0 && o.cosine_floor <= 1,
                 "gcms: cosine_floor must lie in (0, 1], got " << o.cosine_floor);
  FLEXUQ_REQUIRE(o.cosine_threshold >= o.cosine_floor && o.cosine_threshold <= 1,
                 "gcms: cosine_threshold must lie in [cosine_floor = " << o.cosine_floor << ", 1], got "
                                                                       << o.cosine_threshold
                                                                       << " (|cos| below 0.95 is not a dependency)");
  FLEXUQ_REQUIRE(o.cosine_sweep_start >= o.cosine_floor && o.cosine_sweep_start <= 1,
                 "gcms: cosine_sweep_start must lie in [cosine_floor = " << o.cosine_floor << ", 1], got "
                                                                        << o.cosine_sweep_start);
  FLEXUQ_REQUIRE(o.cosine_sweep_step > 0 && o.cosine_sweep_step <= 0.05,
                 "gcms: cosine_sweep_step must lie in (0, 0.05], got " << o.cosine_sweep_step);
  FLEXUQ_REQUIRE(o.cosine_sweep_rtol > 0 && o.cosine_sweep_rtol < 1,
                 "gcms: cosine_sweep_rtol must lie in (0, 1), got " << o.cosine_sweep_rtol);
  FLEXUQ_REQUIRE(o.degeneracy_tol >= 0 && o.degeneracy_tol < 1e-2,
                 "gcms: degeneracy_tol must lie in [0, 1e-2), got " << o.degeneracy_tol
                                                                    << " (a relative eigenvalue gap)");
  FLEXUQ_REQUIRE(o.gs_tolerance > 0 && o.gs_tolerance < 1, "gcms: gs_tolerance must lie in (0, 1), got " << o.gs_tolerance);
  FLEXUQ_REQUIRE(o.zero_field_tolerance >= 0 && o.zero_field_tolerance < 1,
                 "gcms: zero_tolerance must lie in [0, 1), got " << o.zero_field_tolerance);
  FLEXUQ_REQUIRE(o.svd_tolerance > 0 && o.svd_tolerance < 1,
                 "gcms: svd_tolerance must lie in (0, 1), got " << o.svd_tolerance);
  FLEXUQ_REQUIRE(o.gap_ratio > 1, "gcms: gap_ratio must be > 1, got " << o.gap_ratio);
  FLEXUQ_REQUIRE(o.svd_max_iterations >= 0, "gcms: svd_max_iterations must be >= 0, got " << o.svd_max_iterations);
}

std::vector<std::vector<int>> degenerate_clusters(const std::vector<double>& ev, double tol) {
  std::vector<int> order(ev.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ev[a] < ev[b]; });
  std::vector<double> sorted;
  for (int i : order) sorted.push_back(ev[static_cast<std::size_t>(i)]);
  const std::vector<int> mult = la::cluster_multiplicity(sorted, tol);
  std::vector<std::vector<int>> out;
  for (std::size_t i = 0; i < order.size(); i += static_cast<std::size_t>(mult[i])) {
    if (mult[i] < 2) continue;
    std::vector<int> g(order.begin() + static_cast<std::ptrdiff_t>(i),
                       order.begin() + static_cast<std::ptrdiff_t>(i) + mult[i]);
    std::sort(g.begin(), g.end());
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
/// +1 or −1: the sign of the entry of largest magnitude of the distributed field @p v; entries
/// within a relative 1e-6 of the largest tie, and the tie goes to the lexicographically smallest
/// node coordinates (x, y, z), so the result does not depend on how the nodes are split.
double extreme_sign(MPI_Comm comm, const Eigen::VectorXd& v, const Eigen::MatrixXd& X) {
  double vmax = v.size() ? v.cwiseAbs().maxCoeff() : 0.0;
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  std::array<double, 5> mine{0, 0, 0, 0, 0}; // has, x, y, z, value
  for (Eigen::Index r = 0; r < v.size(); ++r) {
    if (std::abs(v(r)) < (1 - 1e-6) * vmax) continue;
    const std::array<double, 5> c{1, X(r, 0), X(r, 1), X(r, 2), v(r)};
    if (mine[0] == 0 || std::lexicographical_compare(c.begin() + 1, c.begin() + 4, mine.begin() + 1, mine.begin() + 4))
      mine = c;
  }
  int size = 1;
  FLEXUQ_MPI(MPI_Comm_size(comm, &size));
  std::vector<double> all(5 * static_cast<std::size_t>(size));
  FLEXUQ_MPI(MPI_Allgather(mine.data(), 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, comm));
  const double* best = nullptr;
  for (int p = 0; p < size; ++p) {
    const double* c = all.data() + 5 * p;
    if (c[0] != 0 && (!best || std::lexicographical_compare(c + 1, c + 4, best + 1, best + 4))) best = c;
  }
  return best && best[4] < 0 ? -1.0 : 1.0;
}
} // namespace

std::vector<GcmsCluster> canonicalize_degenerate(GcmsBasis& b, const std::vector<double>& ev, double tol) {
  FLEXUQ_REQUIRE(static_cast<int>(ev.size()) == b.num_modes(),
                 "gcms: canonicalisation needs one eigenvalue per mode, got " << ev.size() << " for "
                                                                              << b.num_modes() << " modes");
  std::vector<GcmsCluster> out;
  const auto clusters = degenerate_clusters(ev, tol);
  log::info(b.comm(), FLEXUQ_MSG("gcms: canonicalisation of degenerate eigenspaces (relative eigenvalue gap <= "
                                 << tol << "): " << clusters.size() << " found"));
  for (const auto& cl : clusters) {
    const auto d = static_cast<Eigen::Index>(cl.size());
    // A[k](i, j) = Σ_nodes ψ_i,k ψ_j,k: the Gram matrix of the k-components; G = Σ_k A[k].
    std::vector<double> buf(static_cast<std::size_t>(3 * d * d));
    for (int k = 0; k < 3; ++k)
      for (Eigen::Index i = 0; i < d; ++i)
        for (Eigen::Index j = 0; j < d; ++j)
          buf[static_cast<std::size_t>((k * d + j) * d + i)] =
              b.local_mode(cl[static_cast<std::size_t>(i)]).col(k).dot(b.local_mode(cl[static_cast<std::size_t>(j)]).col(k));
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, MPI_SUM, b.comm()));
    std::array<Eigen::MatrixXd, 3> A;
    for (int k = 0; k < 3; ++k) A[k] = Eigen::Map<const Eigen::MatrixXd>(buf.data() + k * d * d, d, d);
    const Eigen::MatrixXd G = A[0] + A[1] + A[2];
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eg(G);
    FLEXUQ_REQUIRE(eg.eigenvalues()(0) > 1e-12 * eg.eigenvalues()(d - 1),
                   "gcms: the modes of a degenerate cluster are linearly dependent (Gram eigenvalues "
                       << eg.eigenvalues().transpose() << ")");
    // W = Ψ G^{-1/2} is an orthonormal basis of the span; Â_k = G^{-1/2} A_k G^{-1/2}, Σ_k Â_k = I,
    // and cᵀ Â_k c is the share of axis k in the unit vector W c.
    const Eigen::MatrixXd Gm12 =
        eg.eigenvectors() * eg.eigenvalues().cwiseSqrt().cwiseInverse().asDiagonal() * eg.eigenvectors().transpose();
    std::array<Eigen::MatrixXd, 3> Ah;
    for (int k = 0; k < 3; ++k) Ah[k] = Gm12 * A[k] * Gm12;
    struct Member {
      Eigen::VectorXd c;
      int axis;
      double share;
    };
    std::vector<Member> members;
    Eigen::MatrixXd Cb = Eigen::MatrixXd::Identity(d, d); // orthonormal basis of the remaining subspace
    while (Cb.cols() > 0) {
      int best_k = 0;
      double best = -1;
      Eigen::MatrixXd best_vecs;
      for (int k = 0; k < 3; ++k) {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Cb.transpose() * Ah[k] * Cb);
        const double top = es.eigenvalues()(Cb.cols() - 1);
        if (top > best * (1 + 1e-12)) { // near-ties keep the lower axis
          best = top;
          best_k = k;
          best_vecs = es.eigenvectors();
        }
      }
      const Eigen::Index r = Cb.cols();
      members.push_back({Cb * best_vecs.col(r - 1), best_k, best});
      // The other eigenvectors of the same symmetric matrix span the complement.
      Cb = Eigen::MatrixXd(Cb * best_vecs.leftCols(r - 1));
    }
    std::stable_sort(members.begin(), members.end(), [](const Member& x, const Member& y) {
      return x.axis != y.axis ? x.axis < y.axis : x.share > y.share;
    });
    const double rms = std::sqrt(G.trace() / static_cast<double>(d));
    GcmsCluster rec;
    rec.rotation.resize(d, d);
    for (Eigen::Index i = 0; i < d; ++i) {
      const auto& mb = members[static_cast<std::size_t>(i)];
      Eigen::VectorXd col = rms * (Gm12 * mb.c);
      Eigen::VectorXd dominant = Eigen::VectorXd::Zero(b.num_local_nodes());
      for (Eigen::Index j = 0; j < d; ++j) dominant += col(j) * b.local_mode(cl[static_cast<std::size_t>(j)]).col(mb.axis);
      rec.rotation.col(i) = extreme_sign(b.comm(), dominant, b.local_coords()) * col;
      rec.axis.push_back(mb.axis);
      rec.share.push_back(mb.share);
    }
    b.rotate_modes(cl, rec.rotation);
    double lmin = ev[static_cast<std::size_t>(cl.front())], lmax = lmin;
    for (int m : cl) {
      rec.modes.push_back(m + 1);
      rec.eigenvalues.push_back(ev[static_cast<std::size_t>(m)]);
      lmin = std::min(lmin, ev[static_cast<std::size_t>(m)]);
      lmax = std::max(lmax, ev[static_cast<std::size_t>(m)]);
    }
    rec.spread = lmax != 0 ? (lmax - lmin) / std::abs(lmax) : 0.0;
    std::ostringstream os;
    os << "gcms:   modes";
    for (int m : rec.modes) os << ' ' << m;
    os << " (eigenvalue spread " << fmt(rec.spread, 3) << "): canonical";
    const char axes[3] = {'x', 'y', 'z'};
    for (Eigen::Index i = 0; i < d; ++i) {
      os << " mode " << rec.modes[static_cast<std::size_t>(i)] << " = " << axes[rec.axis[static_cast<std::size_t>(i)]]
         << " (share " << fmt(rec.share[static_cast<std::size_t>(i)], 4) << ", coefficients";
      for (Eigen::Index j = 0; j < d; ++j) os << ' ' << fmt(rec.rotation(j, i), 6);
      os << ')';
    }
    log::info(b.comm(), os.str());
    out.push_back(std::move(rec));
  }
  return out;
}

std::vector<GcmsRemoval> remove_zero_fields(GcmsBasis& b, double tol) {
  const auto flex = b.flexible_fields();
  std::vector<GcmsRemoval> out;
  if (flex.empty()) return out;
  const Eigen::VectorXd norms = b.field_norms();
  double mean = 0;
  for (int j : flex) mean += norms(j);
  mean /= static_cast<double>(flex.size());
  std::vector<int> drop;
  for (int j : flex)
    if (!(norms(j) > tol * mean)) {
      drop.push_back(j);
      out.push_back({b.fields()[static_cast<std::size_t>(j)].label(), "zero", mean > 0 ? norms(j) / mean : 0.0,
                     "norm / mean flexible norm"});
    }
  b.remove_fields(drop);
  log::info(b.comm(), FLEXUQ_MSG("gcms: zero fields (norm <= " << tol << " x mean flexible norm " << fmt(mean)
                                                                << "): " << out.size() << " removed"));
  for (const auto& r : out) log::info(b.comm(), "gcms:   removed " + r.field + " (zero field)");
  return out;
}

namespace {
/// Greedy cosine selection in basis order: field j is dropped if |cos| ≥ threshold with an earlier
/// kept field (partner = the kept field of largest |cos|).
struct CosineDrops {
  std::vector<int> drop, partner;
  std::vector<double> value;
};

CosineDrops greedy_cosine(const Eigen::MatrixXd& C, const std::vector<int>& flex, double threshold) {
  CosineDrops out;
  std::vector<int> kept;
  for (int j : flex) {
    int partner = -1;
    double best = 0;
    for (int i : kept)
      if (std::abs(C(i, j)) > best) {
        best = std::abs(C(i, j));
        partner = i;
      }
    if (partner >= 0 && best >= threshold) {
      out.drop.push_back(j);
      out.partner.push_back(partner);
      out.value.push_back(best);
    } else {
      kept.push_back(j);
    }
  }
  return out;
}
} // namespace

std::vector<GcmsRemoval> cosine_removal(GcmsBasis& b, double threshold) {
  const CosineDrops g = greedy_cosine(cosine_from_gram(b.field_gram()), b.flexible_fields(), threshold);
  std::vector<GcmsRemoval> out;
  for (std::size_t i = 0; i < g.drop.size(); ++i)
    out.push_back({b.fields()[static_cast<std::size_t>(g.drop[i])].label(), "cosine", g.value[i],
                   "|cos| with " + b.fields()[static_cast<std::size_t>(g.partner[i])].label()});
  b.remove_fields(g.drop);
  log::info(b.comm(), FLEXUQ_MSG("gcms: cosine-similarity removal, threshold c_th = " << threshold << ": "
                                                                                      << 3 * out.size()
                                                                                      << " flexible columns removed"));
  for (const auto& r : out)
    log::info(b.comm(), "gcms:   removed " + r.field + " (" + r.detail + " = " + fmt(r.measure, 6) + ")");
  return out;
}

GcmsSweep cosine_sweep(const GcmsBasis& b, const GcmsOptions& opt) {
  validate(opt);
  const auto flex = b.flexible_fields();
  const Eigen::MatrixXd C = cosine_from_gram(b.field_gram());
  const Eigen::VectorXd norms = b.field_norms();
  log::info(b.comm(), FLEXUQ_MSG("gcms: cosine threshold sweep from " << opt.cosine_sweep_start << " in steps of "
                                                                      << opt.cosine_sweep_step << " down to the floor "
                                                                      << opt.cosine_floor
                                                                      << "; a change of the kept set improves if it "
                                                                         "lowers cond_xs (kept Phi_f, columns scaled "
                                                                         "to one norm) by >= "
                                                                      << opt.cosine_sweep_rtol
                                                                      << " (relative); converged after two changes "
                                                                         "in a row that do not"));
  GcmsSweep sw;
  std::vector<int> last_drop;
  double best = 0;  // cond_xs of the chosen kept set
  int flat = 0;     // changes of the kept set in a row that did not improve cond_xs
  for (int i = 0;; ++i) {
    const double c = opt.cosine_sweep_start - i * opt.cosine_sweep_step;
    if (c < opt.cosine_floor - 1e-12) break;
    const CosineDrops g = greedy_cosine(C, flex, c);
    GcmsSweepStep st;
    st.threshold = c;
    st.removed_columns = 3 * static_cast<int>(g.drop.size());
    const bool change = i == 0 || g.drop != last_drop;
    if (!change) {
      st.cond_x = sw.steps.back().cond_x;
      st.cond_xs = sw.steps.back().cond_xs;
    } else {
      std::vector<int> kept;
      for (int j : flex)
        if (std::find(g.drop.begin(), g.drop.end(), j) == g.drop.end()) kept.push_back(j);
      Eigen::MatrixXd S(b.num_local_nodes(), static_cast<Eigen::Index>(kept.size()));
      Eigen::MatrixXd Sn(S.rows(), S.cols());
      for (std::size_t k = 0; k < kept.size(); ++k) {
        const auto col = static_cast<Eigen::Index>(k);
        S.col(col) = b.local_fields().col(kept[k]);
        const double n = norms(kept[k]);
        Sn.col(col) = n > 0 ? Eigen::VectorXd(S.col(col) / n) : Eigen::VectorXd(S.col(col));
      }
      st.cond_x = la::condition_number(la::thin_svd(b.comm(), S).sigma);
      st.cond_xs = la::condition_number(la::thin_svd(b.comm(), Sn).sigma);
      last_drop = g.drop;
    }
    sw.steps.push_back(st);
    std::string verdict;
    if (i == 0) {
      best = st.cond_xs;
      sw.threshold = c;
    } else if (change) {
      // NaN/inf-safe: an infinite reference improves to anything finite.
      if (st.cond_xs <= (1 - opt.cosine_sweep_rtol) * best || (!std::isfinite(best) && std::isfinite(st.cond_xs))) {
        best = st.cond_xs;
        sw.threshold = c;
        flat = 0;
        verdict = " (improves)";
      } else {
        ++flat;
        verdict = " (no improvement)";
      }
    }
    log::info(b.comm(), FLEXUQ_MSG("gcms:   sweep c_th = " << fmt(c, 6) << ": n_x = " << st.removed_columns
                                                           << ", cond_x = " << fmt(st.cond_x) << ", cond_xs = "
                                                           << fmt(st.cond_xs) << verdict));
    if (flat == 2) {
      sw.converged = true;
      break;
    }
  }
  if (sw.steps.empty()) sw.threshold = opt.cosine_floor;
  log::info(b.comm(), FLEXUQ_MSG("gcms: cosine threshold sweep "
                                 << (sw.converged ? "converged (two changes without improvement)"
                                                  : "reached the floor")
                                 << "; chosen c_th = " << fmt(sw.threshold, 6)
                                 << " (the last threshold that improved cond_xs), cond_xs = " << fmt(best)));
  return sw;
}

namespace {
/// One CGS2 sweep over the columns of S; outputs whose norm is ≤ drop(j, norm, input norm) are
/// dropped (not used for later projections). Returns the outputs (local rows) and their norms.
struct GsPass {
  Eigen::MatrixXd out;
  std::vector<double> norms;
  std::vector<bool> kept;
};

template <class Drop> GsPass gram_schmidt_pass(MPI_Comm comm, const Eigen::MatrixXd& S, Drop drop) {
  GsPass p;
  const Eigen::Index nl = S.rows(), n = S.cols();
  p.out = Eigen::MatrixXd::Zero(nl, n);
  std::vector<Eigen::Index> basis;
  std::vector<double> basis_n2;
  for (Eigen::Index j = 0; j < n; ++j) {
    Eigen::VectorXd v = S.col(j);
    const double in_norm = std::sqrt(allreduce_sum_d(comm, v.squaredNorm()));
    for (int pass = 0; pass < 2 && !basis.empty(); ++pass) {
      Eigen::VectorXd d(static_cast<Eigen::Index>(basis.size()));
      for (std::size_t i = 0; i < basis.size(); ++i) d(static_cast<Eigen::Index>(i)) = p.out.col(basis[i]).dot(v);
      FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, d.data(), static_cast<int>(d.size()), MPI_DOUBLE, MPI_SUM, comm));
      for (std::size_t i = 0; i < basis.size(); ++i)
        v -= (d(static_cast<Eigen::Index>(i)) / basis_n2[i]) * p.out.col(basis[i]);
    }
    const double n2 = allreduce_sum_d(comm, v.squaredNorm());
    const double nrm = std::sqrt(n2);
    p.norms.push_back(nrm);
    const bool keep = !drop(nrm, in_norm);
    p.kept.push_back(keep);
    if (keep) {
      p.out.col(j) = v;
      basis.push_back(j);
      basis_n2.push_back(n2);
    }
  }
  return p;
}
} // namespace

std::vector<GcmsRemoval> shortened_gram_schmidt(GcmsBasis& b, double tol, std::vector<double>* ratios) {
  const auto flex = b.flexible_fields();
  std::vector<GcmsRemoval> out;
  if (flex.empty()) return out;
  const Eigen::MatrixXd S = b.local_flexible();
  // Pass 1 drops only vectors that are in the span to round-off; its output norms define the
  // reference "average norm of the full set of the arising vectors" (seed-001 §2.5, Eq. 73).
  const GsPass p1 = gram_schmidt_pass(b.comm(), S, [](double n, double in) { return !(n > 1e-12 * in); });
  const double mean = std::accumulate(p1.norms.begin(), p1.norms.end(), 0.0) / static_cast<double>(p1.norms.size());
  std::vector<double> r;
  for (double n : p1.norms) r.push_back(mean > 0 ? n / mean : 0.0);
  // Pass 2: the actual shortened Gram–Schmidt with the zero test ‖φ'‖ ≤ tol · mean.
  const double cut = tol * mean;
  const GsPass p2 = gram_schmidt_pass(b.comm(), S, [cut](double n, double) { return !(n > cut); });
  std::vector<int> drop;
  std::ostringstream ratio_log;
  for (std::size_t i = 0; i < flex.size(); ++i) {
    const int j = flex[i];
    ratio_log << ' ' << b.fields()[static_cast<std::size_t>(j)].label() << '=' << fmt(r[i], 3);
    if (p2.kept[i]) {
      b.set_field_values(j, p2.out.col(static_cast<Eigen::Index>(i)), true);
    } else {
      drop.push_back(j);
      out.push_back({b.fields()[static_cast<std::size_t>(j)].label(), "gram-schmidt", mean > 0 ? p2.norms[i] / mean : 0.0,
                     "|phi'| / mean GS output norm"});
    }
  }
  b.remove_fields(drop);
  log::info(b.comm(), FLEXUQ_MSG("gcms: shortened Gram-Schmidt (CGS2), zero test |phi'| <= " << tol
                                                                                              << " x mean output norm "
                                                                                              << fmt(mean) << ": "
                                                                                              << 3 * out.size()
                                                                                              << " flexible columns removed"));
  log::debug(b.comm(), "gcms:   |phi'| / mean:" + ratio_log.str());
  for (const auto& x : out)
    log::info(b.comm(), "gcms:   removed " + x.field + " (|phi'| / mean = " + fmt(x.measure, 3) + ")");
  if (ratios) *ratios = r;
  return out;
}

double scale_to_rotation_norm(GcmsBasis& b) {
  const Eigen::VectorXd norms = b.field_norms();
  double target = 0;
  int nr = 0;
  for (int j = 0; j < b.num_fields(); ++j)
    if (b.fields()[static_cast<std::size_t>(j)].kind == GcmsFieldKind::rotation) {
      target += norms(j);
      ++nr;
    }
  if (nr == 0 || !(target > 0)) throw Error("gcms: cannot scale: the rotation fields are missing or zero");
  target /= nr;
  for (int j = 0; j < b.num_fields(); ++j)
    if (b.fields()[static_cast<std::size_t>(j)].kind != GcmsFieldKind::rotation && norms(j) > 0)
      b.scale_field(j, target / norms(j));
  log::info(b.comm(), "gcms: scaled Phi_t and Phi_f columns to the mean Phi_r column norm " + fmt(target, 6));
  return target;
}

std::vector<GcmsRemoval> svd_null_space_loop(GcmsBasis& b, const GcmsOptions& opt) {
  std::vector<GcmsRemoval> out;
  log::info(b.comm(), FLEXUQ_MSG("gcms: SVD null-space loop: a sharp drop is sigma_i/sigma_(i+1) >= "
                                 << opt.gap_ratio << " with sigma_(i+1) <= " << opt.svd_tolerance
                                 << " x sigma_1; at most " << opt.svd_max_iterations << " removals"));
  for (int it = 0; it < opt.svd_max_iterations; ++it) {
    const la::ThinSvd s = la::thin_svd(b.comm(), b.local_fields());
    int at = -1;
    const int d = gap_deficiency(s.sigma, opt.svd_tolerance, opt.gap_ratio, &at);
    const double cond = la::condition_number(s.sigma);
    if (d == 0) {
      log::info(b.comm(), "gcms:   no sharp drop in sigma(Phi); cond(Phi) = " + fmt(cond));
      break;
    }
    // The flexible field with the largest weight in the null space (rows of the trailing V columns).
    const Eigen::MatrixXd Vn = s.V.rightCols(d);
    int pick = -1;
    double w = 0;
    for (int j : b.flexible_fields())
      if (Vn.row(j).norm() > w) {
        w = Vn.row(j).norm();
        pick = j;
      }
    if (pick < 0 || w < 1e-8) {
      log::warn(b.comm(), FLEXUQ_MSG("gcms: " << 3 * d << " vanishing sigma of Phi involve no flexible field (are "
                                              << "the nodes coplanar?); stopping the null-space loop"));
      break;
    }
    GcmsBasis trial(b);
    trial.remove_fields({pick});
    const la::ThinSvd s2 = la::thin_svd(trial.comm(), trial.local_fields());
    const int d2 = gap_deficiency(s2.sigma, opt.svd_tolerance, opt.gap_ratio);
    const double cond2 = la::condition_number(s2.sigma);
    const std::string name = b.fields()[static_cast<std::size_t>(pick)].label();
    if (d2 < d || cond2 < cond) {
      log::info(b.comm(), FLEXUQ_MSG("gcms:   removed " << name << " (null-space weight " << fmt(w, 3) << "; vanishing "
                                                        << 3 * d << " -> " << 3 * d2 << ", cond " << fmt(cond) << " -> "
                                                        << fmt(cond2) << ")"));
      out.push_back({name, "svd", w,
                     FLEXUQ_MSG("null-space weight; drop after sigma_" << at << ", cond " << fmt(cond) << " -> "
                                                                      << fmt(cond2))});
      b = std::move(trial);
    } else {
      log::info(b.comm(), FLEXUQ_MSG("gcms:   removing " << name << " would not lower cond(Phi) (" << fmt(cond)
                                                         << " -> " << fmt(cond2)
                                                         << "): the drop is not a dependency; kept"));
      break;
    }
  }
  return out;
}

GcmsResult precondition(GcmsBasis basis, const GcmsOptions& opt) {
  validate(opt);
  MPI_Comm comm = basis.comm();
  log::info(comm, FLEXUQ_MSG("gcms: " << basis.num_modes() << " modes, " << basis.num_nodes() << " nodes; origin ("
                                      << basis.origin()[0] << ", " << basis.origin()[1] << ", " << basis.origin()[2]
                                      << "); strategy " << enum_name(kGcmsStrategyNames, opt.strategy)
                                      << ", cosine_threshold " << opt.cosine_threshold << " (floor "
                                      << opt.cosine_floor << "), cosine_sweep "
                                      << (opt.cosine_sweep ? "on" : "off") << " (start " << opt.cosine_sweep_start
                                      << ", step " << opt.cosine_sweep_step << ", rtol " << opt.cosine_sweep_rtol
                                      << "), gs_tolerance " << opt.gs_tolerance
                                      << ", zero_tolerance " << opt.zero_field_tolerance << ", scaling "
                                      << (opt.scaling ? "on" : "off") << ", svd_loop "
                                      << (opt.svd_loop ? "on" : "off") << ", svd_tolerance " << opt.svd_tolerance
                                      << ", gap_ratio " << opt.gap_ratio << ", unit_norm_modes "
                                      << (opt.unit_norm_modes ? "on" : "off")));
  std::vector<GcmsStage> stages;
  std::vector<GcmsRemoval> removed;
  auto stage = [&](const std::string& name) {
    stages.push_back(diagnose(basis, name, opt.svd_tolerance, opt.gap_ratio));
    log::info(comm, "gcms: " + stages.back().summary());
  };
  stage("initial");
  if (!opt.csv.empty()) {
    write_cosine_csv(basis, opt.csv);
    log::info(comm, "gcms: cosine-similarity matrix of the initial Phi written to " + opt.csv);
  }
  auto append = [&](std::vector<GcmsRemoval> r) { removed.insert(removed.end(), r.begin(), r.end()); };
  append(remove_zero_fields(basis, opt.zero_field_tolerance));
  std::vector<double> ratios;
  GcmsSweep sweep;
  double c_th = 0;
  switch (opt.strategy) {
  case GcmsStrategy::cosine:
    c_th = opt.cosine_threshold;
    if (opt.cosine_sweep) {
      sweep = cosine_sweep(basis, opt);
      c_th = sweep.threshold;
    }
    append(cosine_removal(basis, c_th));
    break;
  case GcmsStrategy::gram_schmidt: append(shortened_gram_schmidt(basis, opt.gs_tolerance, &ratios)); break;
  case GcmsStrategy::none: break;
  }
  stage(std::string("after ") + enum_name(kGcmsStrategyNames, opt.strategy));
  double target = 0;
  if (opt.scaling) {
    target = scale_to_rotation_norm(basis);
    stage("after scaling");
  }
  if (opt.svd_loop) {
    append(svd_null_space_loop(basis, opt));
    stage("final");
  }
  if (!opt.csv_final.empty()) {
    write_cosine_csv(basis, opt.csv_final);
    log::info(comm, "gcms: cosine-similarity matrix of the final Phi written to " + opt.csv_final);
  }
  log::info(comm, FLEXUQ_MSG("gcms: kept " << basis.num_columns() << " columns (" << 3 * basis.num_flexible_fields()
                                           << " flexible); removed " << 3 * removed.size() << " flexible columns"));
  GcmsResult res{std::move(basis), {}, {},  std::move(stages), std::move(removed), std::move(ratios),
                 0.0,              target, {}, c_th,              std::move(sweep)};
  for (int c = 0; c < res.basis.num_columns(); ++c) res.columns.push_back(res.basis.column(c));
  res.labels = res.basis.column_labels();
  return res;
}

GcmsResult build_gcms(MPI_Comm comm, const fe::Component& c, const std::vector<VecH>& modes, const GcmsOptions& opt,
                      const std::vector<double>& eigenvalues) {
  validate(opt);
  int cmp = MPI_UNEQUAL;
  FLEXUQ_MPI(MPI_Comm_compare(comm, c.comm(), &cmp));
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    throw Error("build_gcms: the communicator must be the component's (or congruent with it)");
  FLEXUQ_REQUIRE(!modes.empty(), "gcms: no elastic modes given");
  std::vector<Vec> raw;
  for (const auto& m : modes) raw.push_back(m.get());
  GcmsBasis basis = GcmsBasis::from_component(c, raw, opt.unit_norm_modes, opt.origin);
  std::vector<GcmsCluster> clusters;
  if (opt.canonicalize) {
    std::vector<double> ev = eigenvalues;
    if (ev.empty())
      for (Vec v : raw) ev.push_back(fe::rayleigh_refine(c.K(), c.M(), v).first);
    FLEXUQ_REQUIRE(ev.size() == modes.size(), "gcms: " << ev.size() << " eigenvalues for " << modes.size() << " modes");
    clusters = canonicalize_degenerate(basis, ev, opt.degeneracy_tol);
  } else {
    log::info(comm, "gcms: canonicalisation of degenerate eigenspaces off (canonicalize: false)");
  }
  const double cond_psi = mode_matrix_condition(basis);
  log::info(comm, "gcms: cond(Psi) of the " + std::to_string(modes.size()) + " modes = " + fmt(cond_psi));
  GcmsResult res = precondition(std::move(basis), opt);
  res.cond_psi = cond_psi;
  res.clusters = std::move(clusters);
  return res;
}

std::map<std::string, Eigen::MatrixXd> diagnostic_tables(const GcmsResult& g) {
  std::map<std::string, Eigen::MatrixXd> dg;
  dg["gcms_cosine_threshold"] = Eigen::MatrixXd::Constant(1, 1, g.cosine_threshold);
  dg["gcms_cond_psi"] = Eigen::MatrixXd::Constant(1, 1, g.cond_psi);
  // Stages (initial, after the strategy, after scaling, final).
  Eigen::MatrixXd st(static_cast<Eigen::Index>(g.stages.size()), 8);
  for (std::size_t k = 0; k < g.stages.size(); ++k) {
    const auto& q = g.stages[k];
    st.row(static_cast<Eigen::Index>(k)) << q.n_columns, q.n_flexible_columns, q.cond_phi, q.cond_phi_t, q.cond_phi_r,
        q.cond_phi_f, q.deficiency_phi, q.deficiency_phi_f;
  }
  dg["gcms_stages"] = st;
  if (!g.sweep.steps.empty()) {
    Eigen::MatrixXd sw(static_cast<Eigen::Index>(g.sweep.steps.size()), 4);
    for (std::size_t k = 0; k < g.sweep.steps.size(); ++k) {
      const auto& q = g.sweep.steps[k];
      sw.row(static_cast<Eigen::Index>(k)) << q.threshold, q.removed_columns, q.cond_x, q.cond_xs;
    }
    dg["gcms_cosine_sweep"] = sw;
  }
  if (!g.clusters.empty()) {
    // One row per canonicalised cluster member.
    std::size_t n = 0;
    for (const auto& c : g.clusters) n += c.modes.size();
    Eigen::MatrixXd cl(static_cast<Eigen::Index>(n), 5);
    Eigen::Index r = 0;
    for (std::size_t c = 0; c < g.clusters.size(); ++c) {
      const auto& cc = g.clusters[c];
      for (std::size_t i = 0; i < cc.modes.size(); ++i, ++r)
        cl.row(r) << static_cast<double>(c), cc.modes[i], cc.eigenvalues[i], i < cc.axis.size() ? cc.axis[i] : -1,
            i < cc.share.size() ? cc.share[i] : 0.0;
    }
    dg["gcms_clusters"] = cl;
  }
  return dg;
}

} // namespace flexuq::cms
