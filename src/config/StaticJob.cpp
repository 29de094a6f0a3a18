// SPDX-License-Identifier: MIT
// The `flexuq static` job file -> io::StaticJob (issue #36; moved from app/StaticCommand for issue #33's
// app bound): seed 002's nonlinear static problem, every key checked before any work.
#include "flexuq/config/StaticJob.hpp"

#include "flexuq/config/NodeReader.hpp"
#include "flexuq/core/Error.hpp"

#include <map>

namespace flexuq::io {

namespace {

const std::map<std::string, nl::Formulation> kFormulations{
    {"nfe", nl::Formulation::nfe},   {"nffb", nl::Formulation::nffb}, {"nffe", nl::Formulation::nffe},
    {"lfe", nl::Formulation::lfe},   {"lffb", nl::Formulation::lffb}, {"lffe", nl::Formulation::lffe}};
const std::map<std::string, nl::ElementKind> kElements{{"bar2", nl::ElementKind::bar2},
                                                       {"quad4", nl::ElementKind::quad4},
                                                       {"quad8", nl::ElementKind::quad8},
                                                       {"hex8", nl::ElementKind::hex8}};
const std::map<std::string, nl::LoadKind> kLoads{{"force", nl::LoadKind::force},
                                                 {"follower_force", nl::LoadKind::follower_force},
                                                 {"follower_couple", nl::LoadKind::follower_couple}};

template <class T> T choose(const Config& cfg, const std::map<std::string, T>& table, const std::string& key,
                            const std::string& value) {
  const auto it = table.find(value);
  if (it != table.end()) return it->second;
  std::string names;
  for (const auto& [n, v] : table) names += (names.empty() ? "" : ", ") + n;
  throw InputError(cfg.source() + ": " + key + " '" + value + "' is not one of " + names);
}

std::vector<bool> components(const NodeReader& rd, const YAML::Node& list, const std::string& key, int dim) {
  std::vector<bool> c(dim, false);
  if (!list.IsSequence()) rd.fail(list, key, "must be a list of components (x, y, z)");
  for (const auto& n : list) {
    const std::string s = n.as<std::string>();
    const int i = s == "x" ? 0 : s == "y" ? 1 : s == "z" ? 2 : -1;
    if (i < 0 || i >= dim) rd.fail(n, key, "'" + s + "' is not a component of this " + std::to_string(dim) + "-D mesh");
    c[i] = true;
  }
  return c;
}

} // namespace

std::string static_job_key(const std::string& field) {
  static const char* mesh_fields[] = {"cells", "length", "height", "depth"};
  for (const char* m : mesh_fields)
    if (field == m) return "static.mesh." + field;
  if (field == "rtol" || field == "atol" || field == "max_it" || field == "max_cuts") return "static.solver." + field;
  // loads[i].force is the job's value, loads[i].follower its type.
  for (const auto& [lib, job] : {std::pair<std::string, std::string>{".force", ".value"}, {".follower", ".type"}})
    if (field.size() > lib.size() && field.compare(field.size() - lib.size(), lib.size(), lib) == 0)
      return "static." + field.substr(0, field.size() - lib.size()) + job;
  return "static." + field;
}

StaticJob parse_static_job(const Config& cfg) {
  StaticJob job;
  const NodeReader rd(cfg.source());
  job.output = cfg.resolve_output(cfg.get<std::string>("output", "static.h5"));
  job.options.formulation =
      choose(cfg, kFormulations, "static.formulation", cfg.get<std::string>("static.formulation", "nfe"));
  // Mesh: a file (quad4, quad8, hex8) or the structured cantilever.
  const YAML::Node mesh = cfg.node("static.mesh");
  rd.keys(mesh, "static.mesh", {"file", "generator", "element", "length", "height", "depth", "cells"});
  if (mesh["file"]) {
    for (const char* k : {"generator", "element", "length", "height", "depth", "cells"})
      if (mesh[k]) rd.fail(mesh[k], std::string("static.mesh.") + k, "not with static.mesh.file (the file says it)");
    job.mesh = nl::mesh_from_file(cfg.resolve_path(rd.text(mesh, "static.mesh", "file")));
  } else {
    const std::string generator = rd.text(mesh, "static.mesh", "generator", "cantilever");
    if (generator != "cantilever")
      rd.fail(mesh["generator"], "static.mesh.generator", "'" + generator + "' is not one of cantilever");
    const auto kind = choose(cfg, kElements, "static.mesh.element", rd.text(mesh, "static.mesh", "element"));
    const int kd = nl::element_dim(kind);
    if (!mesh["cells"]) rd.fail(mesh, "static.mesh", "'cells' is missing");
    std::vector<int> cells;
    for (double c : rd.list(mesh["cells"], "static.mesh.cells")) {
      if (c != static_cast<int>(c)) rd.fail(mesh["cells"], "static.mesh.cells", "must be whole numbers");
      cells.push_back(static_cast<int>(c));
    }
    job.mesh = nl::cantilever_mesh(kind, rd.required(mesh, "static.mesh", "length"),
                                   kd > 1 ? rd.required(mesh, "static.mesh", "height") : 0.0,
                                   kd > 2 ? rd.required(mesh, "static.mesh", "depth") : 0.0, cells);
  }
  const int dim = job.mesh.dim();
  // Material.
  const YAML::Node mat = cfg.node("static.material");
  rd.keys(mat, "static.material", {"E", "nu", "thickness", "area"});
  job.options.material.E = rd.required(mat, "static.material", "E");
  job.options.material.nu = rd.required(mat, "static.material", "nu");
  job.options.material.thickness = dim == 2 ? rd.required(mat, "static.material", "thickness") : 1.0;
  job.options.material.area = dim == 1 ? rd.required(mat, "static.material", "area") : 1.0;
  // Supports and loads.
  const YAML::Node sup = cfg.node("static.supports");
  if (!sup.IsSequence()) rd.fail(sup, "static.supports", "must be a list of {set, fix, value}");
  for (std::size_t i = 0; i < sup.size(); ++i) {
    const std::string key = "static.supports[" + std::to_string(i) + "]";
    rd.keys(sup[i], key, {"set", "fix", "value", "rotation", "centre"});
    nl::StaticSupport s;
    s.set = rd.text(sup[i], key, "set");
    s.components = sup[i]["fix"] ? components(rd, sup[i]["fix"], key + ".fix", dim) : std::vector<bool>(dim, true);
    const auto v = rd.fixed_list(sup[i], key, "value", dim, "(one per component)", std::vector<double>(dim, 0.0));
    s.value = Eigen::Map<const Eigen::VectorXd>(v.data(), dim);
    s.rotation = rd.number(sup[i], key, "rotation", 0.0);
    if (sup[i]["centre"]) {
      const auto c = rd.fixed_list(sup[i], key, "centre", dim, "(the rotation's centre)", {});
      s.centre = Eigen::Map<const Eigen::VectorXd>(c.data(), dim);
    }
    job.supports.push_back(s);
  }
  if (cfg.has("static.loads")) {
    const YAML::Node loads = cfg.node("static.loads");
    if (!loads.IsSequence()) rd.fail(loads, "static.loads", "must be a list of {type, set, value | moment}");
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const std::string key = "static.loads[" + std::to_string(i) + "]";
      rd.keys(loads[i], key, {"type", "set", "value", "moment"});
      nl::StaticLoad l;
      l.kind = choose(cfg, kLoads, key + ".type", rd.text(loads[i], key, "type", "force"));
      l.set = rd.text(loads[i], key, "set");
      if (l.kind == nl::LoadKind::follower_couple) {
        if (loads[i]["value"]) rd.fail(loads[i]["value"], key + ".value", "a follower_couple takes 'moment', not 'value'");
        l.moment = rd.required(loads[i], key, "moment");
      } else {
        if (loads[i]["moment"]) rd.fail(loads[i]["moment"], key + ".moment", "a force takes 'value', not 'moment'");
        if (!loads[i]["value"]) rd.fail(loads[i], key, "'value' is missing");
        const auto v = rd.fixed_list(loads[i], key, "value", dim, "(one per component)", {});
        l.force = Eigen::Map<const Eigen::VectorXd>(v.data(), dim);
      }
      job.loads.push_back(l);
    }
  }
  job.options.steps = cfg.get<int>("static.steps", job.options.steps);
  job.options.frame_node = cfg.get<int>("static.frame_node", job.options.frame_node);
  job.options.terms = cfg.get<bool>("static.terms", false);
  job.options.rtol = cfg.get<double>("static.solver.rtol", job.options.rtol);
  job.options.atol = cfg.get<double>("static.solver.atol", job.options.atol);
  job.options.max_it = cfg.get<int>("static.solver.max_it", job.options.max_it);
  job.options.max_cuts = cfg.get<int>("static.solver.max_cuts", job.options.max_cuts);
  nl::validate(job.mesh, job.supports, job.loads, job.options); // at least one support from here on
  // The report set: given, or tip_mid, or the first load's (a file's mesh has no tip_mid).
  if (!job.mesh.sets.count(job.report)) job.report = job.loads.empty() ? job.supports.front().set : job.loads.front().set;
  job.report = cfg.get<std::string>("static.report", job.report);
  if (!job.mesh.sets.count(job.report)) {
    std::string names;
    for (const auto& [n, v] : job.mesh.sets) names += (names.empty() ? "" : ", ") + n;
    throw InputError(cfg.source() + ": static.report: no node set '" + job.report + "' (" + names + ")");
  }
  return job;
}

} // namespace flexuq::io
