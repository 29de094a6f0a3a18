// SPDX-License-Identifier: MIT
#include "flexuq/campaign/Plan.hpp"

#include "Fnv1a.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Limits.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/Quadrature.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace flexuq::campaign {

namespace {

/// Terms of a total-degree PCE of degree @p p in @p d variables, C(d + p, p), as a double (no overflow).
double pce_terms(int d, int p) {
  double r = 1;
  for (int j = 1; j <= p; ++j) r = r * (d + j) / j;
  return r;
}

/// "1e+12" for large counts, "43" for small ones.
std::string count_text(double n) {
  std::ostringstream os;
  if (n < 1e15)
    os << std::fixed << std::setprecision(0) << n;
  else
    os << std::setprecision(3) << n;
  return os.str();
}

/// Memory of one sample (point) of the plan: its germ and θ rows and their transient copies while
/// drawn (4 × 8d bytes), the sparse grid's merge key, and the scheduler's and the statistics' record
/// of it (a journaled SampleRecord read back, about 400 bytes): 48 d + 400 bytes.
double bytes_per_sample(int d) { return 48.0 * d + 400.0; }

/// Every size the plan implies, checked before it is built (docs/config.md "Limits"): the sample or
/// grid-point count against the int range the campaign indexes with and, with the PCE fits the
/// results make, against the memory this process has (io::limits::require_memory: MemAvailable,
/// the cgroup / SLURM limit, FLEXUQ_MAX_MEMORY).
void require_samples(const CampaignOptions& o, double n, const std::string& what) {
  const int d = static_cast<int>(o.params.size());
  FLEXUQ_REQUIRE(n <= std::numeric_limits<int>::max(),
                 o.source << ": " << what << " gives " << count_text(n) << " samples; a campaign takes at most "
                          << std::numeric_limits<int>::max() << " (each one a model evaluation)");
  io::limits::require_memory(n * bytes_per_sample(d), o.source + ": " + what + " (" + count_text(n) + " samples of " +
                                                          std::to_string(d) + " parameters)");
}

/// The PCE the results fit to @p n samples: a projection on all terms of degree @p p_hi, or a
/// regression of each degree p_lo … p_hi with fewer terms than samples (the LOO order choice).
void require_pce(const CampaignOptions& o, double n, int p_lo, int p_hi, bool projection) {
  const int d = static_cast<int>(o.params.size());
  const std::string key = o.method_keys + (o.method.order > 0 ? "pce.order" : "pce.max_order");
  for (int p = projection ? p_hi : p_lo; p <= p_hi; ++p) {
    const double P = pce_terms(d, p);
    if (!projection && P >= n) break; // the fit stops below the sample count
    FLEXUQ_REQUIRE(P <= std::numeric_limits<int>::max(),
                   o.source << ": a PCE of degree " << p << " in " << d << " parameters has " << count_text(P)
                            << " terms, more than flexuq can index; lower " << key);
    // The basis evaluated at every sample and the least-squares (or projection) work copy of it.
    io::limits::require_memory(16.0 * n * P, o.source + ": the PCE of degree " + std::to_string(p) + " (" + count_text(P) +
                                                 " terms on " + count_text(n) + " samples; lower " + key + ")");
  }
}

} // namespace

void CampaignOptions::check() const {
  const auto& m = method;
  FLEXUQ_REQUIRE(!params.empty(), source << ": 'parameters' is empty");
  // The options are named by their fields (OptionError: the caller names the job key), the method's
  // by the keys the parser gave (method_keys).
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) throw OptionError(option, message).wrapped(source + ": ");
  };
  require(ranks_per_sample >= 1, "ranks_per_sample", "{} must be >= 1");
  require(checkpoint_every >= 1, "checkpoint_every", "{} must be >= 1");
  require(checkpoint_seconds >= 0 && std::isfinite(checkpoint_seconds), "checkpoint_seconds",
          FLEXUQ_MSG("{} must be >= 0, got " << checkpoint_seconds));
  const int max_order = m.resolved_max_order();
  FLEXUQ_REQUIRE(max_order >= 1 && max_order <= 12,
                 source << ": " << method_keys << "pce.max_order must be in [1, 12]");
  if (m.draws_samples())
    FLEXUQ_REQUIRE(!m.samples || *m.samples >= 2, source << ": " << method_keys << "samples must be at least 2");
}

std::vector<double> Plan::sample(std::size_t i) const {
  std::vector<double> th(static_cast<std::size_t>(theta.cols()));
  for (Eigen::Index j = 0; j < theta.cols(); ++j) th[static_cast<std::size_t>(j)] = theta(static_cast<Eigen::Index>(i), j);
  return th;
}

std::vector<double> Plan::nominal() const {
  std::vector<double> m;
  for (const auto& p : params) m.push_back(p.dist.mean());
  return m;
}

Plan make_plan(const CampaignOptions& o) {
  o.check();
  const auto& m = o.method;
  Plan p;
  p.params = o.params;
  p.method = enum_name(kMethodTypeNames, m.type);
  p.pce.seed = o.seed;
  p.ranks_per_sample = o.ranks_per_sample;
  p.checkpoint_every = o.checkpoint_every;
  p.checkpoint_seconds = o.checkpoint_seconds;
  p.output = o.output;
  p.pce.order = m.order;
  p.pce.max_order = m.resolved_max_order();
  p.pce.fit = m.resolved_fit();
  p.sampling = enum_name(kSamplingNames, m.sampling);
  const int d = static_cast<int>(p.params.size());
  // The fingerprint text is kept exactly as before the options were typed, so journals of
  // earlier versions still resume.
  std::ostringstream fp;
  uq::StochasticSpace space;
  for (const auto& s : p.params) {
    space.add(s.name, s.dist);
    fp << s.name << ":" << s.dist.describe() << "@" << s.set << ";";
  }
  const int p_lo = p.pce.order > 0 ? p.pce.order : 1, p_hi = p.pce.order > 0 ? p.pce.order : p.pce.max_order;
  if (m.draws_samples()) {
    const uq::SamplingMethod how = m.design();
    const double P = pce_terms(d, p_hi);
    const double n_want = m.samples ? double(*m.samples) : m.sampling_type() ? 100.0 : 2 * P + 1;
    require_samples(o, n_want, m.samples ? o.method_keys + "samples = " + std::to_string(*m.samples)
                                         : "the default design of 2P + 1 samples for P = " + count_text(P) + " PCE terms");
    require_pce(o, n_want, p_lo, p_hi, false);
    const int n = static_cast<int>(n_want);
    uq::Sampler sampler(how, d, p.pce.seed, static_cast<std::uint64_t>(n));
    p.germ = space.germ_from_uniform(sampler.samples(0, static_cast<std::uint64_t>(n)));
    fp << "sampling:" << enum_name(kSamplingNames, how) << ":" << n << ":" << p.pce.seed << ";";
  } else {
    // Projection on a quadrature rule: Smolyak sparse grid (default) or tensor Gauss.
    uq::Quadrature q;
    double n_points = 0;
    std::string what;
    if (m.grid == Grid::sparse) {
      const int level = m.level.value_or(p.pce.max_order);
      n_points = uq::smolyak_size_bound(space.families(), level);
      what = "a sparse grid of level " + std::to_string(level) + " (up to " + count_text(n_points) + " points)";
    } else {
      const int n = m.points.value_or(p.pce.max_order + 1);
      n_points = std::pow(double(n), d);
      what = "a tensor grid of " + std::to_string(n) + " points per parameter (" + std::to_string(n) + "^" +
             std::to_string(d) + " = " + count_text(n_points) + " points)";
    }
    require_samples(o, n_points, what);
    require_pce(o, n_points, p_hi, p_hi, true);
    if (m.grid == Grid::sparse) {
      const int level = m.level.value_or(p.pce.max_order);
      q = space.sparse_grid(level);
      fp << "sparse:" << level << ";";
    } else {
      const int n = m.points.value_or(p.pce.max_order + 1);
      q = space.gauss_rule(n);
      fp << "tensor:" << n << ";";
    }
    p.pce.fit = uq::FitMethod::projection;
    p.germ = q.points;
    p.weights.assign(q.weights.data(), q.weights.data() + q.weights.size());
  }
  p.theta = space.from_germ(p.germ);
  fp << "method:" << p.method << ":" << enum_name(uq::kFitMethodNames, p.pce.fit) << ":" << p.pce.order << ":"
     << p.pce.max_order << ";";
  fp << o.model_description;
  std::ostringstream h;
  const std::string text = fp.str();
  h << std::hex << detail::fnv1a(text.data(), text.size());
  p.fingerprint = h.str();
  return p;
}

} // namespace flexuq::campaign
