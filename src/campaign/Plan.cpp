// SPDX-License-Identifier: MIT
#include "flexuq/campaign/Plan.hpp"

#include "Fnv1a.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/Quadrature.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <cmath>
#include <sstream>

namespace flexuq::campaign {

namespace {

uq::SamplingMethod sampling_method(const std::string& m) {
  if (m == "monte-carlo") return uq::SamplingMethod::MonteCarlo;
  if (m == "lhs") return uq::SamplingMethod::LatinHypercube;
  return uq::SamplingMethod::Sobol;
}

} // namespace

void CampaignOptions::check() const {
  const auto& m = method;
  FLEXUQ_REQUIRE(!params.empty(), source << ": 'parameters' is empty");
  FLEXUQ_REQUIRE(ranks_per_sample >= 1, source << ": campaign.ranks_per_sample must be >= 1");
  FLEXUQ_REQUIRE(checkpoint_every >= 1, source << ": campaign.checkpoint_every must be >= 1");
  FLEXUQ_REQUIRE(checkpoint_seconds >= 0 && std::isfinite(checkpoint_seconds),
                 source << ": campaign.checkpoint_seconds must be >= 0, got " << checkpoint_seconds);
  const std::string fit = m.resolved_fit();
  FLEXUQ_REQUIRE(fit == "regression" || fit == "projection",
                 source << ": method.pce.fit must be regression or projection, got '" << fit << "'");
  const int max_order = m.resolved_max_order();
  FLEXUQ_REQUIRE(max_order >= 1 && max_order <= 12, source << ": method.pce.max_order must be in [1, 12]");
  if (m.draws_samples()) {
    FLEXUQ_REQUIRE(!m.samples || *m.samples >= 2, source << ": method.samples must be at least 2");
    const std::string how = m.sampling_type() ? m.type : m.sampling;
    FLEXUQ_REQUIRE(how == "monte-carlo" || how == "lhs" || how == "sobol",
                   source << ": sampling '" << how << "' is not one of monte-carlo, lhs, sobol");
  } else if (m.type == "pce" || m.type == "collocation") {
    FLEXUQ_REQUIRE(m.grid == "sparse" || m.grid == "tensor",
                   source << ": method.pce.grid must be sparse or tensor, got '" << m.grid << "'");
  } else {
    throw InputError(source + ": method.type '" + m.type + "' is not one of monte-carlo, lhs, sobol, collocation, pce");
  }
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
  p.method = m.type;
  p.seed = o.seed;
  p.ranks_per_sample = o.ranks_per_sample;
  p.checkpoint_every = o.checkpoint_every;
  p.checkpoint_seconds = o.checkpoint_seconds;
  p.output = o.output;
  p.order = m.order;
  p.max_order = m.resolved_max_order();
  p.fit = m.resolved_fit();
  p.sampling = m.sampling;
  const int d = static_cast<int>(p.params.size());
  // The fingerprint text is kept exactly as before the options were typed, so journals of
  // earlier versions still resume.
  std::ostringstream fp;
  uq::StochasticSpace space;
  for (const auto& s : p.params) {
    space.add(s.name, s.dist);
    fp << s.name << ":" << s.dist.describe() << "@" << s.set << ";";
  }
  if (m.draws_samples()) {
    const std::string how = m.sampling_type() ? m.type : m.sampling;
    const int P = uq::MultiIndexSet::total_degree_size(d, p.order > 0 ? p.order : p.max_order);
    const int n = m.samples.value_or(m.sampling_type() ? 100 : 2 * P + 1);
    uq::Sampler sampler(sampling_method(how), d, p.seed, static_cast<std::uint64_t>(n));
    p.germ = space.germ_from_uniform(sampler.samples(0, static_cast<std::uint64_t>(n)));
    fp << "sampling:" << how << ":" << n << ":" << p.seed << ";";
  } else {
    // Projection on a quadrature rule: Smolyak sparse grid (default) or tensor Gauss.
    uq::Quadrature q;
    if (m.grid == "sparse") {
      const int level = m.level.value_or(p.max_order);
      q = space.sparse_grid(level);
      fp << "sparse:" << level << ";";
    } else {
      const int n = m.points.value_or(p.max_order + 1);
      q = space.gauss_rule(n);
      fp << "tensor:" << n << ";";
    }
    p.fit = "projection";
    p.germ = q.points;
    p.weights.assign(q.weights.data(), q.weights.data() + q.weights.size());
  }
  p.theta = space.from_germ(p.germ);
  fp << "method:" << p.method << ":" << p.fit << ":" << p.order << ":" << p.max_order << ";";
  fp << o.model_description;
  std::ostringstream h;
  const std::string text = fp.str();
  h << std::hex << detail::fnv1a(text.data(), text.size());
  p.fingerprint = h.str();
  return p;
}

} // namespace flexuq::campaign
