// SPDX-License-Identifier: MIT
#include "flexuq/app/MatrixModel.hpp"
#include "flexuq/app/EnumOptions.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/config/SetsFile.hpp"
#include "flexuq/workflow/Component.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace flexuq::app {

bool has_matrix_model(const io::Config& cfg) { return cfg.has("model.matrices"); }

namespace {

/// model.matrices.<kind>: {name: file} or {name: {file, format, matrix, scale}}, in file order.
std::vector<fe::MatrixTerm> parse_terms(const io::Config& cfg, const std::string& kind, const std::string& format) {
  const std::string key = "model.matrices." + kind;
  FLEXUQ_REQUIRE(cfg.has(key), cfg.source() << ": model.matrices needs '" << kind << "' (name: file, one per term)");
  const YAML::Node node = cfg.node(key);
  FLEXUQ_REQUIRE(node.IsMap() && node.size() > 0,
                 cfg.source() << ": key '" << key << "' must map term names to files, e.g. {K: k.mtx}");
  std::vector<fe::MatrixTerm> terms;
  for (const auto& kv : node) {
    fe::MatrixTerm t;
    t.name = kv.first.as<std::string>();
    const std::string k = key + "." + t.name;
    std::string given = format;
    if (kv.second.IsScalar()) {
      t.file.path = cfg.resolve_path(cfg.get<std::string>(k));
    } else {
      // cfg.node() marked the subtree used: check the keys here (strict keys, docs/config.md).
      FLEXUQ_REQUIRE(kv.second.IsMap(),
                     cfg.source() << ": key '" << k << "' must be a file name or {file, format, matrix, scale}");
      for (const auto& sub : kv.second) {
        const auto name = sub.first.as<std::string>();
        FLEXUQ_REQUIRE(name == "file" || name == "format" || name == "matrix" || name == "scale",
                       cfg.source() << ": unknown key '" << k << "." << name << "' (file, format, matrix, scale)");
      }
      t.file.path = cfg.resolve_path(cfg.get<std::string>(k + ".file"));
      given = cfg.get<std::string>(k + ".format", format);
      t.file.op4_name = cfg.get<std::string>(k + ".matrix", "");
      t.coefficient = cfg.get<double>(k + ".scale", 1.0);
      FLEXUQ_REQUIRE(std::isfinite(t.coefficient) && t.coefficient > 0,
                     cfg.source() << ": key '" << k << ".scale' must be a positive number");
    }
    try {
      t.file.format = given.empty() ? io::matrix_format(t.file.path) : parse_matrix_format(given, t.file.path);
    } catch (const InputError& e) {
      throw InputError(cfg.source() + ": key '" + k + "': " + e.what());
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

} // namespace

fe::MatrixModelSpec parse_matrix_model(const io::Config& cfg) {
  for (const char* k : {"model.mesh", "model.generator", "model.material", "model.materials"})
    FLEXUQ_REQUIRE(!cfg.has(k), cfg.source() << ": model.matrices and " << k
                                             << " exclude each other (the matrices hold geometry and materials)");
  fe::MatrixModelSpec s;
  s.source = cfg.source();
  const std::string format = cfg.get<std::string>("model.matrices.format", "");
  s.stiffness = parse_terms(cfg, "stiffness", format);
  s.mass = parse_terms(cfg, "mass", format);
  if (cfg.has("model.matrices.labels")) s.labels = cfg.resolve_path(cfg.get<std::string>("model.matrices.labels"));
  if (cfg.has("model.matrices.sets") && cfg.node("model.matrices.sets").IsScalar()) {
    s.extra_sets = io::read_sets_file(cfg.resolve_path(cfg.get<std::string>("model.matrices.sets")));
  } else if (cfg.has("model.matrices.sets")) {
    const YAML::Node sets = cfg.node("model.matrices.sets");
    FLEXUQ_REQUIRE(sets.IsMap(), cfg.source() << ": key 'model.matrices.sets' must map set names to node id lists");
    for (const auto& kv : sets) {
      const std::string name = kv.first.as<std::string>();
      s.node_sets[name] = cfg.get<std::vector<long>>("model.matrices.sets." + name);
    }
  }
  return s;
}

std::unique_ptr<fe::Component> load_component(MPI_Comm comm, const io::Config& cfg, const fe::ComponentOptions& copts,
                                              log::PhaseTimes& times, const std::string& headline,
                                              const std::function<void(const io::Mesh*)>& check) {
  if (has_matrix_model(cfg)) {
    const auto spec = parse_matrix_model(cfg);
    if (check) check(nullptr);
    cfg.check_all_used();
    return workflow::build_component(comm, spec, copts, times, headline);
  }
  std::unique_ptr<io::Mesh> mesh;
  {
    log::Phase p(comm, "read mesh", &times);
    mesh = std::make_unique<io::Mesh>(app::load_mesh(cfg));
  }
  if (check) check(mesh.get());
  cfg.check_all_used();
  return workflow::build_component(comm, std::move(*mesh), copts, times, headline);
}

workflow::MatrixFrequencySpec parse_matrix_frequency(const io::Config& cfg, const std::vector<campaign::ParameterSpec>& params,
                                                    const fe::FrequencyModelOptions& options) {
  workflow::MatrixFrequencySpec spec;
  spec.model = parse_matrix_model(cfg);
  spec.component = app::component_options(cfg);
  spec.options = options;
  std::map<std::string, std::string> taken;
  for (const auto& p : params) {
    const std::string key = "parameters." + p.name + ".param";
    const std::string term = cfg.has(key) ? cfg.get<std::string>(key) : p.name;
    FLEXUQ_REQUIRE(p.set.empty(), cfg.source()
                                      << ": parameter '" << p.name
                                      << "': 'set' does not apply to model.matrices (a parameter scales a term)");
    std::string known;
    std::optional<workflow::MatrixTermTarget> t;
    for (bool stiff : {true, false}) {
      const auto& terms = stiff ? spec.model.stiffness : spec.model.mass;
      for (std::size_t k = 0; k < terms.size(); ++k) {
        known += (known.empty() ? "" : ", ") + terms[k].name;
        if (terms[k].name == term) t = workflow::MatrixTermTarget{stiff, k};
      }
    }
    FLEXUQ_REQUIRE(t, cfg.source() << ": parameter '" << p.name << "': unknown term '" << term
                                   << "' in param (model.matrices has " << known << ")");
    const auto ins = taken.emplace(term, p.name); // not a structured binding: FLEXUQ_REQUIRE captures it
    FLEXUQ_REQUIRE(ins.second, cfg.source() << ": parameters '" << ins.first->second << "' and '" << p.name
                                            << "' both set term '" << term << "'");
    spec.targets.push_back(*t);
  }
  return spec;
}

} // namespace flexuq::app
