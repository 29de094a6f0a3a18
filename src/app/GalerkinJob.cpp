// SPDX-License-Identifier: MIT
// The Galerkin keys of a job file → typed options (the solve itself: workflow/GalerkinCampaign.cpp).
#include "flexuq/app/GalerkinJob.hpp"

#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/app/EnumOptions.hpp"
#include "flexuq/app/ModelFactory.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/sg/EigenSolver.hpp"

#include <cmath>

namespace flexuq::app {

void galerkin_keys(const io::Config& cfg, const std::string& key, std::uint64_t seed, sg::EigenOptions& e,
                   sg::ExpansionOptions& x) {
  e.key = x.key = key;
  e.partitioner_key = "model.partitioner";
  e.order = cfg.get<int>(key + ".order", 2);
  x.order = cfg.get<int>(key + ".operator_order", 2);
  FLEXUQ_REQUIRE(e.order >= 1 && e.order <= 20, cfg.source() << ": " << key << ".order must be in [1, 20], got " << e.order);
  FLEXUQ_REQUIRE(x.order >= 1 && x.order <= 20,
                 cfg.source() << ": " << key << ".operator_order must be in [1, 20], got " << x.order);
  e.method = parse_galerkin_solver(cfg.get<std::string>(key + ".solver", "inverse-subspace"), cfg.source() + ": " + key);
  e.normalization =
      parse_galerkin_normalization(cfg.get<std::string>(key + ".normalization", "galerkin"), cfg.source() + ": " + key);
  x.regression_samples = cfg.get<int>(key + ".regression.samples", 0);
  x.regression_seed = cfg.get<std::uint64_t>(key + ".regression.seed", seed);
  e.tol = cfg.get<double>(key + ".tol", e.tol);
  e.max_it = cfg.get<int>(key + ".max_it", e.max_it);
  e.guard = cfg.get<int>(key + ".guard", e.guard);
  e.ritz = cfg.get<bool>(key + ".rayleigh_ritz", e.ritz);
  e.assemble = cfg.get<bool>(key + ".assemble", e.assemble);
  e.memory_limit_bytes = cfg.get<double>(key + ".memory_limit_mb", 0.0) * 1048576.0;
  e.stagnation_tol = cfg.get<double>(key + ".stagnation_tol", e.stagnation_tol);
  const auto pre = cfg.get<std::string>(key + ".preconditioner", enum_name(sg::kPreconditionerNames, e.preconditioner));
  const auto parsed = parse_enum(sg::kPreconditionerNames, pre);
  FLEXUQ_REQUIRE(parsed.has_value(), cfg.source() << ": " << key << ".preconditioner: unknown value '" << pre
                                                   << "' (mean | kronecker)");
  e.preconditioner = *parsed;
  FLEXUQ_REQUIRE(e.tol > 0 && e.max_it >= 1 && e.memory_limit_bytes >= 0,
                 cfg.source() << ": " << key << ".tol, .max_it and .memory_limit_mb must be positive");
  FLEXUQ_REQUIRE(e.stagnation_tol >= 0 && std::isfinite(e.stagnation_tol),
                 cfg.source() << ": " << key << ".stagnation_tol must be >= 0 (0: never stop on stagnation), got "
                              << e.stagnation_tol);
}

workflow::GalerkinJob galerkin_job(const io::Config& cfg, const campaign::CampaignOptions& o) {
  workflow::GalerkinJob j;
  j.options = o;
  const std::string key = "method.galerkin";
  FLEXUQ_REQUIRE(!cfg.has("model.function"),
                 cfg.source() << ": method.type: galerkin needs an FE model (model.mesh or model.generator), "
                                 "not model.function");
  FLEXUQ_REQUIRE(!o.params.empty(), cfg.source() << ": 'parameters' is empty");
  for (const char* k : {"method.pce", "method.samples"})
    FLEXUQ_REQUIRE(!cfg.has(k), cfg.source() << ": " << k << " does not apply to method.type: galerkin (see "
                                                                "method.galerkin.*)");
  FLEXUQ_REQUIRE(o.ranks_per_sample >= 1, cfg.source() << ": campaign.ranks_per_sample must be >= 1");
  galerkin_keys(cfg, key, o.seed, j.eigen, j.expansion);
  auto& e = j.eigen;
  e.n_modes = cfg.get<int>("outputs.frequencies", 10);
  FLEXUQ_REQUIRE(e.n_modes >= 1, cfg.source() << ": outputs.frequencies must be at least 1");
  j.mode_shapes = cfg.get<bool>("outputs.mode_shapes", true);
  j.component = app::component_options(cfg);
  FLEXUQ_REQUIRE(j.component.keep_affine, cfg.source() << ": method.type: galerkin needs the affine terms");
  j.parameters = material_parameters(cfg, o.params);
  j.mesh = app::load_mesh(cfg);
  return j;
}

} // namespace flexuq::app
