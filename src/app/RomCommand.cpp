// SPDX-License-Identifier: MIT
// `flexuq rom job.yaml`: seed 003's offline reduction from training snapshots (docs/rom.md).
// Sample run:
//   python3 configs/make_v8.py --train > v8-train.yaml && build/bin/flexuq simulate v8-train.yaml
//   build/bin/flexuq rom configs/v8-rom.yaml
#include "flexuq/app/Commands.hpp"
#include "flexuq/app/JobKeys.hpp"
#include "flexuq/app/JobOptions.hpp"
#include "flexuq/app/SimulationOptions.hpp"
#include "flexuq/app/StochasticReduce.hpp"
#include "flexuq/core/EnumNames.hpp"
#include "flexuq/workflow/Rom.hpp"

namespace flexuq::app {

namespace {

template <class E, std::size_t N>
E enum_key(const io::Config& cfg, const std::string& key, const EnumNames<E, N>& names, E fallback) {
  if (!cfg.has(key)) return fallback;
  const auto s = cfg.get<std::string>(key);
  if (const auto v = parse_enum(names, s)) return *v;
  std::string known;
  for (const auto& e : names.entries) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw InputError(cfg.source() + ": " + key + ": unknown value '" + s + "' (known: " + known + ")");
}

workflow::RomJobSpec parse_rom_job(MPI_Comm comm, const io::Config& cfg) {
  workflow::RomJobSpec spec;
  const auto model_path = cfg.resolve_path(cfg.get<std::string>("model"));
  const auto model = io::Config::load(comm, model_path);
  model.mark_used("snapshots");
  model.mark_used("rom");
  spec.model = parse_simulation_job(model);
  const YAML::Node tr = cfg.node("training");
  if (tr.IsScalar()) spec.training.push_back(cfg.resolve_path(tr.as<std::string>()));
  else if (tr.IsSequence())
    for (const auto& t : tr) spec.training.push_back(cfg.resolve_path(t.as<std::string>()));
  FLEXUQ_REQUIRE(!spec.training.empty(), cfg.source() << ": training must name one or several result files of "
                                                         "`flexuq simulate` with `snapshots: true`");
  auto& o = spec.options;
  o.pod = enum_key(cfg, "pod.method", rom::kPodKindNames, o.pod);
  o.snapshots = enum_key(cfg, "pod.snapshots", rom::kSnapshotKindNames, o.snapshots);
  o.per_body = cfg.get<bool>("pod.per_body", false);
  o.centre = cfg.get<bool>("pod.centre", false);
  o.truncation = truncation_at(cfg, "pod.truncation", o.truncation);
  static const char* kTypes[3] = {"translational", "rotational", "flexible"};
  for (int t = 0; t < 3; ++t) {
    const std::string key = std::string("pod.ranks.") + kTypes[t];
    o.rank[t] = cfg.get<int>(key, -1);
    FLEXUQ_REQUIRE(o.rank[t] >= -1, cfg.source() << ": " << key << " must be >= 0, got " << o.rank[t]);
  }
  if (cfg.has("pod.rank")) {
    FLEXUQ_REQUIRE(o.pod != rom::PodKind::type_sensitive,
                   cfg.source() << ": pod.rank is the combined POD's (or SOD's) rank; a type-sensitive POD takes pod.ranks.<type>");
    o.rank[0] = cfg.get<int>("pod.rank");
    FLEXUQ_REQUIRE(o.rank[0] >= 1, cfg.source() << ": pod.rank must be >= 1, got " << o.rank[0]);
  }
  FLEXUQ_REQUIRE(!(o.per_body && o.pod != rom::PodKind::type_sensitive),
                 cfg.source() << ": pod.per_body applies to the type-sensitive POD (pod.method: type-sensitive)");
  o.constraints = enum_key(cfg, "constraints.method", rom::kConstraintMethodNames, o.constraints);
  o.constraint_truncation = truncation_at(cfg, "constraints.truncation", o.constraint_truncation);
  if (cfg.has("constraints.at")) {
    const auto at = cfg.get<std::string>("constraints.at");
    FLEXUQ_REQUIRE(at == "all" || at == "start",
                   cfg.source() << ": constraints.at: unknown value '" << at << "' (known: all, start)");
    o.constraints_at_start = at == "start";
  }
  o.is_needed_tol = cfg.get<double>("constraints.tolerance", o.is_needed_tol);
  FLEXUQ_REQUIRE(o.is_needed_tol > 0 && o.is_needed_tol < 1,
                 cfg.source() << ": constraints.tolerance must be in (0, 1), got " << o.is_needed_tol);
  spec.output_path = cfg.resolve_output(cfg.get<std::string>("output", "rom.h5"));
  return spec;
}

} // namespace

void run_rom(MPI_Comm comm, const io::Config& cfg) {
  static const JobKeys keys{{}};
  with_job_keys(keys, [&] {
    const auto spec = parse_rom_job(comm, cfg);
    cfg.check_all_used();
    check_job_output(comm, cfg, spec.output_path, "output");
    workflow::build_rom(comm, spec);
  });
}

} // namespace flexuq::app
