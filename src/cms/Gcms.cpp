// SPDX-License-Identifier: MIT
// GCMS preconditioning (seed-001 §2.7–2.9) and the build_gcms entry point.
#include "flexuq/cms/Gcms.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/Config.hpp"

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

const char* strategy_name(GcmsStrategy s) {
  switch (s) {
  case GcmsStrategy::none: return "none";
  case GcmsStrategy::cosine: return "cosine";
  case GcmsStrategy::gram_schmidt: return "gram-schmidt";
  }
  return "?";
}

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
  FLEXUQ_REQUIRE(o.gs_tolerance > 0 && o.gs_tolerance < 1, "gcms: gs_tolerance must lie in (0, 1), got " << o.gs_tolerance);
  FLEXUQ_REQUIRE(o.zero_field_tolerance >= 0 && o.zero_field_tolerance < 1,
                 "gcms: zero_tolerance must lie in [0, 1), got " << o.zero_field_tolerance);
  FLEXUQ_REQUIRE(o.svd_tolerance > 0 && o.svd_tolerance < 1,
                 "gcms: svd_tolerance must lie in (0, 1), got " << o.svd_tolerance);
  FLEXUQ_REQUIRE(o.gap_ratio > 1, "gcms: gap_ratio must be > 1, got " << o.gap_ratio);
  FLEXUQ_REQUIRE(o.svd_max_iterations >= 0, "gcms: svd_max_iterations must be >= 0, got " << o.svd_max_iterations);
}

void parse_gcms_options(const io::Config& cfg, const std::string& prefix, GcmsOptions& o) {
  const std::string p = prefix.empty() ? std::string() : prefix + ".";
  if (cfg.has(p + "strategy")) {
    const std::string s = cfg.get<std::string>(p + "strategy");
    if (s == "cosine")
      o.strategy = GcmsStrategy::cosine;
    else if (s == "gram-schmidt" || s == "gram_schmidt" || s == "gs")
      o.strategy = GcmsStrategy::gram_schmidt;
    else if (s == "none")
      o.strategy = GcmsStrategy::none;
    else
      throw InputError(cfg.source() + ": key '" + p + "strategy' is '" + s +
                       "'; expected cosine, gram-schmidt or none");
  }
  o.cosine_threshold = cfg.get<double>(p + "cosine_threshold", o.cosine_threshold);
  o.cosine_floor = cfg.get<double>(p + "cosine_floor", o.cosine_floor);
  o.gs_tolerance = cfg.get<double>(p + "gs_tolerance", o.gs_tolerance);
  o.zero_field_tolerance = cfg.get<double>(p + "zero_tolerance", o.zero_field_tolerance);
  o.scaling = cfg.get<bool>(p + "scaling", o.scaling);
  o.svd_loop = cfg.get<bool>(p + "svd_loop", o.svd_loop);
  o.svd_tolerance = cfg.get<double>(p + "svd_tolerance", o.svd_tolerance);
  o.gap_ratio = cfg.get<double>(p + "gap_ratio", o.gap_ratio);
  o.svd_max_iterations = cfg.get<int>(p + "svd_max_iterations", o.svd_max_iterations);
  o.unit_norm_modes = cfg.get<bool>(p + "unit_norm_modes", o.unit_norm_modes);
  if (cfg.has(p + "origin")) {
    const auto v = cfg.get<std::vector<double>>(p + "origin");
    FLEXUQ_REQUIRE(v.size() == 3, cfg.source() << ": key '" << p << "origin' needs 3 numbers, got " << v.size());
    o.origin = std::array<double, 3>{v[0], v[1], v[2]};
  }
  if (cfg.has(p + "csv")) o.csv = cfg.resolve_output(cfg.get<std::string>(p + "csv"));
  if (cfg.has(p + "csv_final")) o.csv_final = cfg.resolve_output(cfg.get<std::string>(p + "csv_final"));
  try {
    validate(o);
  } catch (const InputError& e) {
    throw InputError(cfg.source() + " (" + prefix + "): " + e.what());
  }
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

std::vector<GcmsRemoval> cosine_removal(GcmsBasis& b, double threshold) {
  const auto flex = b.flexible_fields();
  const Eigen::MatrixXd C = cosine_from_gram(b.field_gram());
  std::vector<int> kept, drop;
  std::vector<GcmsRemoval> out;
  for (int j : flex) {
    int partner = -1;
    double best = 0;
    for (int i : kept)
      if (std::abs(C(i, j)) > best) {
        best = std::abs(C(i, j));
        partner = i;
      }
    if (partner >= 0 && best >= threshold) {
      drop.push_back(j);
      out.push_back({b.fields()[static_cast<std::size_t>(j)].label(), "cosine", best,
                     "|cos| with " + b.fields()[static_cast<std::size_t>(partner)].label()});
    } else {
      kept.push_back(j);
    }
  }
  b.remove_fields(drop);
  log::info(b.comm(), FLEXUQ_MSG("gcms: cosine-similarity removal, threshold c_th = " << threshold << ": "
                                                                                      << 3 * out.size()
                                                                                      << " flexible columns removed"));
  for (const auto& r : out)
    log::info(b.comm(), "gcms:   removed " + r.field + " (" + r.detail + " = " + fmt(r.measure, 6) + ")");
  return out;
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
    const SvdResult s = tsqr_svd(b.comm(), b.local_fields());
    int at = -1;
    const int d = gap_deficiency(s.sigma, opt.svd_tolerance, opt.gap_ratio, &at);
    const double cond = condition_number(s.sigma);
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
    const SvdResult s2 = tsqr_svd(trial.comm(), trial.local_fields());
    const int d2 = gap_deficiency(s2.sigma, opt.svd_tolerance, opt.gap_ratio);
    const double cond2 = condition_number(s2.sigma);
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
                                      << "); strategy " << strategy_name(opt.strategy)
                                      << ", cosine_threshold " << opt.cosine_threshold << " (floor "
                                      << opt.cosine_floor << "), gs_tolerance " << opt.gs_tolerance
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
  switch (opt.strategy) {
  case GcmsStrategy::cosine: append(cosine_removal(basis, opt.cosine_threshold)); break;
  case GcmsStrategy::gram_schmidt: append(shortened_gram_schmidt(basis, opt.gs_tolerance, &ratios)); break;
  case GcmsStrategy::none: break;
  }
  stage(std::string("after ") + strategy_name(opt.strategy));
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
  GcmsResult res{std::move(basis), {}, {}, std::move(stages), std::move(removed), std::move(ratios), 0.0, target};
  for (int c = 0; c < res.basis.num_columns(); ++c) res.columns.push_back(res.basis.column(c));
  res.labels = res.basis.column_labels();
  return res;
}

GcmsResult build_gcms(MPI_Comm comm, const fe::Component& c, const std::vector<VecH>& modes, const GcmsOptions& opt) {
  validate(opt);
  int cmp = MPI_UNEQUAL;
  FLEXUQ_MPI(MPI_Comm_compare(comm, c.comm(), &cmp));
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    throw Error("build_gcms: the communicator must be the component's (or congruent with it)");
  FLEXUQ_REQUIRE(!modes.empty(), "gcms: no elastic modes given");
  std::vector<Vec> raw;
  for (const auto& m : modes) raw.push_back(m.get());
  GcmsBasis basis = GcmsBasis::from_component(c, raw, opt.unit_norm_modes, opt.origin);
  const double cond_psi = mode_matrix_condition(basis);
  log::info(comm, "gcms: cond(Psi) of the " + std::to_string(modes.size()) + " modes = " + fmt(cond_psi));
  GcmsResult res = precondition(std::move(basis), opt);
  res.cond_psi = cond_psi;
  return res;
}

} // namespace flexuq::cms
