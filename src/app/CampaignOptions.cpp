// SPDX-License-Identifier: MIT
// The job file → campaign::CampaignOptions. Keys are read under the same conditions as they are
// used (e.g. method.samples only for drawn samples), so the strict-key check rejects the others.
#include "flexuq/app/EnumOptions.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/ModelFactory.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/config/ConfigCounts.hpp"

#include <limits>
#include <string>

namespace flexuq::app {

namespace {

/// At most this many campaign parameters (docs/config.md "Limits"): refused before any is parsed.
constexpr std::size_t kMaxParameters = 10000;

/// One `parameters.<name>` mapping, read from its own node: a lookup by dotted key from the root
/// walks the whole `parameters` map, which made 10⁵ parameters cost 10¹⁰ node copies.
class ParameterNode {
public:
  ParameterNode(const io::Config& c, const YAML::Node& n, std::string key) : c_(c), n_(n), key_(std::move(key)) {}
  bool has(const char* k) const {
    const YAML::Node v = n_[k];
    return v.IsDefined() && !v.IsNull();
  }
  template <class T> T get(const char* k) const {
    const std::string full = key_ + "." + k;
    const YAML::Node v = n_[k];
    FLEXUQ_REQUIRE(v.IsDefined() && !v.IsNull(), c_.source() << ": missing required key '" << full << "'");
    c_.mark_used(full);
    try {
      return v.as<T>();
    } catch (const YAML::Exception&) {
      throw InputError(c_.source() + ": key '" + full + "' has a value of the wrong type" +
                       (v.IsScalar() ? " ('" + io::shorten(v.Scalar()) + "')" : std::string()) +
                       (v.Mark().line >= 0 ? " (line " + std::to_string(v.Mark().line + 1) + ")" : std::string()));
    }
  }
  const std::string& key() const { return key_; }

private:
  const io::Config& c_;
  const YAML::Node& n_;
  std::string key_;
};

uq::Distribution make_distribution(const io::Config& c, const ParameterNode& p) {
  const std::string d = p.get<std::string>("dist");
  auto num = [&](const char* k) { return p.get<double>(k); };
  if (d == "normal") return uq::Distribution::normal(num("mean"), num("std"));
  if (d == "lognormal") {
    // Moment-matched from mean and std (seed 000: the table's "mean/std" are those of the
    // log-normal variable itself), or given by the parameters of the underlying normal.
    if (p.has("mu_ln")) return uq::Distribution::lognormal(num("mu_ln"), num("sigma_ln"));
    return uq::Distribution::lognormal_from_moments(num("mean"), num("std"));
  }
  if (d == "uniform") return uq::Distribution::uniform(num("low"), num("high"));
  if (d == "beta") return uq::Distribution::beta(num("alpha"), num("beta"), num("low"), num("high"));
  if (d == "gamma") return uq::Distribution::gamma(num("shape"), num("scale"), p.has("loc") ? num("loc") : 0.0);
  if (d == "truncated_normal")
    return uq::Distribution::truncated_normal(num("mean"), num("std"), num("low"), num("high"));
  throw InputError(c.source() + ": " + p.key() + ".dist '" + io::shorten(d) +
                   "' is not one of normal, lognormal, uniform, beta, gamma, truncated_normal");
}

/// The distribution of one parameter; the uq library's complaint about its numbers ("std must be
/// positive") is given the job file and the parameter's key.
uq::Distribution parse_distribution(const io::Config& c, const ParameterNode& p) {
  try {
    return make_distribution(c, p);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.rfind(c.source() + ": ", 0) == 0) throw; // already names the job and the key
    throw InputError(c.source() + ": " + p.key() + ": " + what);
  }
}

std::string node_text(const YAML::Node& n) {
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

} // namespace

campaign::CampaignOptions campaign_options(const io::Config& c) {
  campaign::CampaignOptions o;
  o.source = c.source();
  FLEXUQ_REQUIRE(c.has("parameters"), c.source() << ": a campaign needs a 'parameters' section");
  const YAML::Node params = c.node("parameters");
  FLEXUQ_REQUIRE(params.IsMap(), c.source() << ": 'parameters' must be a mapping of names to distributions");
  FLEXUQ_REQUIRE(params.size() <= kMaxParameters, c.source() << ": 'parameters' has " << params.size()
                                                             << " entries; a campaign takes at most " << kMaxParameters
                                                             << " parameters");
  for (const auto& kv : params) {
    campaign::ParameterSpec s;
    s.name = kv.first.as<std::string>();
    const std::string key = "parameters." + s.name;
    FLEXUQ_REQUIRE(kv.second.IsMap(), c.source() << ": " << io::shorten(key) << " must be a mapping ({dist: …})");
    const ParameterNode p(c, kv.second, key);
    s.dist = parse_distribution(c, p);
    if (p.has("set")) s.set = p.get<std::string>("set");
    c.mark_used(key); // its other keys (param, scale, …) belong to the model
    o.params.push_back(s);
  }
  auto& m = o.method;
  const std::string type = c.get<std::string>("method.type", "monte-carlo");
  const bool galerkin = type == "galerkin"; // intrusive, no plan: app/GalerkinJob
  if (!galerkin) m.type = in_job(c, [&] { return parse_method_type(type); });
  o.seed = c.get<std::uint64_t>("campaign.seed", o.seed);
  // Integers are read as integers: 2.5 or 1e12 is refused with the range, never truncated.
  constexpr long long int_max = std::numeric_limits<int>::max();
  o.ranks_per_sample = static_cast<int>(io::get_count(c, "campaign.ranks_per_sample", 1, int_max, o.ranks_per_sample));
  o.checkpoint_every = static_cast<int>(io::get_count(c, "campaign.checkpoint_every", 1, int_max, o.checkpoint_every));
  o.checkpoint_seconds = c.get<double>("campaign.checkpoint_seconds", o.checkpoint_seconds);
  o.output = c.get<std::string>("output", o.output);
  if (c.has("method.pce.order")) m.order = static_cast<int>(io::get_count_or(c, "method.pce.order", "auto", 1, 12).value_or(-1));
  if (c.has("method.pce.max_order")) m.max_order = static_cast<int>(io::get_count(c, "method.pce.max_order", 1, 12));
  if (c.has("method.pce.fit")) {
    const auto fit = c.get<std::string>("method.pce.fit");
    m.fit = parse_enum(uq::kFitMethodNames, fit);
    FLEXUQ_REQUIRE(m.fit, c.source() << ": method.pce.fit must be " << enum_choices(uq::kFitMethodNames) << ", got '"
                                     << fit << "'");
  }
  const std::string sampling = c.get<std::string>("method.pce.sampling", "lhs");
  m.sampling = in_job(c, [&] { return parse_sampling(sampling); });
  if (galerkin) {
  } else if (m.draws_samples()) {
    if (c.has("method.samples")) m.samples = static_cast<int>(io::get_count(c, "method.samples", 2, int_max));
  } else { // a projection: collocation, or pce with fit projection
    const std::string grid = c.get<std::string>("method.pce.grid", "sparse");
    m.grid = in_job(c, [&] { return parse_grid(grid, "method.pce.grid"); });
    using campaign::Grid;
    if (m.grid == Grid::sparse && c.has("method.pce.level")) m.level = static_cast<int>(io::get_count(c, "method.pce.level", 0, 29));
    if (m.grid == Grid::tensor && c.has("method.pce.points")) m.points = static_cast<int>(io::get_count(c, "method.pce.points", 1, 256));
  }
  o.model_description = "model:" + node_text(c.root()["model"]) + ";outputs:" + node_text(c.root()["outputs"]);
  return o;
}

} // namespace flexuq::app
