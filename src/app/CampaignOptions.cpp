// SPDX-License-Identifier: MIT
// The job file → campaign::CampaignOptions. Keys are read under the same conditions as they are
// used (e.g. method.samples only for drawn samples), so the strict-key check rejects the others.
#include "flexuq/app/ModelFactory.hpp"

#include "flexuq/core/Error.hpp"

#include <string>

namespace flexuq::app {

namespace {

uq::Distribution parse_distribution(const io::Config& c, const std::string& key) {
  const std::string d = c.get<std::string>(key + ".dist");
  auto num = [&](const char* k) { return c.get<double>(key + "." + k); };
  auto has = [&](const char* k) { return c.has(key + "." + k); };
  if (d == "normal") return uq::Distribution::normal(num("mean"), num("std"));
  if (d == "lognormal") {
    // Moment-matched from mean and std (seed 000: the table's "mean/std" are those of the
    // log-normal variable itself), or given by the parameters of the underlying normal.
    if (has("mu_ln")) return uq::Distribution::lognormal(num("mu_ln"), num("sigma_ln"));
    return uq::Distribution::lognormal_from_moments(num("mean"), num("std"));
  }
  if (d == "uniform") return uq::Distribution::uniform(num("low"), num("high"));
  if (d == "beta") return uq::Distribution::beta(num("alpha"), num("beta"), num("low"), num("high"));
  if (d == "gamma") return uq::Distribution::gamma(num("shape"), num("scale"), has("loc") ? num("loc") : 0.0);
  if (d == "truncated_normal")
    return uq::Distribution::truncated_normal(num("mean"), num("std"), num("low"), num("high"));
  throw InputError(c.source() + ": " + key + ".dist '" + d +
                   "' is not one of normal, lognormal, uniform, beta, gamma, truncated_normal");
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
  for (const auto& kv : c.node("parameters")) {
    campaign::ParameterSpec s;
    s.name = kv.first.as<std::string>();
    s.dist = parse_distribution(c, "parameters." + s.name);
    if (c.has("parameters." + s.name + ".set")) s.set = c.get<std::string>("parameters." + s.name + ".set");
    c.mark_used("parameters." + s.name);
    o.params.push_back(s);
  }
  auto& m = o.method;
  m.type = c.get<std::string>("method.type", m.type);
  o.seed = c.get<std::uint64_t>("campaign.seed", o.seed);
  o.ranks_per_sample = c.get<int>("campaign.ranks_per_sample", o.ranks_per_sample);
  o.checkpoint_every = c.get<int>("campaign.checkpoint_every", o.checkpoint_every);
  o.checkpoint_seconds = c.get<double>("campaign.checkpoint_seconds", o.checkpoint_seconds);
  o.output = c.get<std::string>("output", o.output);
  if (c.has("method.pce.order")) {
    const auto s = c.node("method.pce.order").as<std::string>();
    m.order = s == "auto" ? -1 : std::stoi(s);
  }
  if (c.has("method.pce.max_order")) m.max_order = c.get<int>("method.pce.max_order");
  if (c.has("method.pce.fit")) m.fit = c.get<std::string>("method.pce.fit");
  m.sampling = c.get<std::string>("method.pce.sampling", m.sampling);
  if (m.draws_samples()) {
    if (c.has("method.samples")) m.samples = c.get<int>("method.samples");
  } else if (m.type == "pce" || m.type == "collocation") {
    m.grid = c.get<std::string>("method.pce.grid", m.grid);
    if (m.grid == "sparse" && c.has("method.pce.level")) m.level = c.get<int>("method.pce.level");
    if (m.grid == "tensor" && c.has("method.pce.points")) m.points = c.get<int>("method.pce.points");
  }
  o.model_description = "model:" + node_text(c.root()["model"]) + ";outputs:" + node_text(c.root()["outputs"]);
  return o;
}

} // namespace flexuq::app
