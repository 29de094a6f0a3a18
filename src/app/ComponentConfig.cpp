// SPDX-License-Identifier: MIT
#include "flexuq/app/ComponentConfig.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/Generators.hpp"
#include "flexuq/config/ConfigCounts.hpp"
#include "flexuq/io/Limits.hpp"
#include "flexuq/io/MeshReader.hpp"
#include "flexuq/config/NodeReader.hpp"

#include <cmath>

namespace flexuq::app {

namespace {
template <std::size_t N> std::array<double, N> get_array(const io::Config& c, const std::string& key, std::array<double, N> def) {
  if (!c.has(key)) return def;
  const auto v = c.get<std::vector<double>>(key);
  FLEXUQ_REQUIRE(v.size() == N, c.source() << ": key '" << key << "' needs " << N << " numbers, got " << v.size());
  std::array<double, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = v[i];
  return a;
}
/// The generators name the option at fault (OptionError "generator.cells": the verb names its key);
/// prefix the job file.
template <class F> io::Mesh with_source(const io::Config& c, F&& generate) {
  try {
    return generate();
  } catch (const InputError& e) {
    rethrow_input_error(e, c.source() + ": ");
  }
}
} // namespace

void parse_fixed(const io::Config& c, const std::string& key, fe::ComponentOptions& o) {
  const YAML::Node list = c.node(key);
  const io::NodeReader rd(c.source());
  if (!list.IsSequence()) rd.fail(list, key, "give a list of node sets or {set: S, dofs: [1, 2, 3]} entries");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node e = list[i];
    const std::string at = key + "[" + std::to_string(i) + "]";
    if (e.IsScalar()) {
      o.fixed_sets.push_back(e.as<std::string>());
      continue;
    }
    if (!e.IsMap()) rd.fail(e, at, "give a node set name or {set: S, dofs: [1, 2, 3]}");
    rd.keys(e, at, {"set", "dofs"});
    fe::FixedComponents fc;
    fc.set = rd.text(e, at, "set");
    fc.key = c.source() + ": " + at + rd.at(e);
    const YAML::Node d = e["dofs"];
    if (!d) rd.fail(e, at, "'dofs' is missing (the fixed components, e.g. [1, 2, 3])");
    if (!d.IsSequence() || d.size() == 0) rd.fail(d, at + ".dofs", "give a non-empty list of components 1-6");
    for (std::size_t k = 0; k < d.size(); ++k) {
      const double v = rd.number(d[k], at + ".dofs");
      if (v != std::floor(v) || v < 1 || v > 6)
        rd.fail(d[k], at + ".dofs", "component " + d[k].Scalar() + " is not one of 1-6 (1-3 translations, 4-6 rotations)");
      fc.dofs.push_back(static_cast<int>(v));
    }
    o.fixed_components.push_back(std::move(fc));
  }
}

io::Mesh load_mesh(const io::Config& c) {
  const bool has_mesh = c.has("model.mesh"), has_gen = c.has("model.generator");
  FLEXUQ_REQUIRE(has_mesh != has_gen, c.source() << ": give exactly one of model.mesh and model.generator");
  if (has_mesh) return io::read_mesh(c.resolve_path(c.get<std::string>("model.mesh")), c.has("model.plane"));
  const std::string type = c.get<std::string>("model.generator.type");
  if (type == "box") {
    io::BoxSpec s;
    s.origin = get_array<3>(c, "model.generator.origin", s.origin);
    s.size = get_array<3>(c, "model.generator.size", s.size);
    if (c.has("model.generator.cells")) { // integers that fit Mesh's int indices (io/Limits.hpp)
      const auto cells = io::get_counts(c, "model.generator.cells", 3, 1, io::limits::max_mesh_entities);
      for (int d = 0; d < 3; ++d) s.cells[d] = static_cast<int>(cells[d]);
    }
    s.order = static_cast<int>(io::get_count(c, "model.generator.order", 1, 2, 1));
    return with_source(c, [&] { return io::generate_box(s); });
  }
  if (type == "beam") {
    io::BeamSpec s;
    s.origin = get_array<3>(c, "model.generator.origin", s.origin);
    s.direction = get_array<3>(c, "model.generator.direction", s.direction);
    s.length = c.get<double>("model.generator.length");
    s.elements = static_cast<int>(io::get_count(c, "model.generator.elements", 1, io::limits::max_mesh_entities - 1));
    s.section.shape = c.get<std::string>("model.generator.section.shape");
    s.section.dims = c.get<std::vector<double>>("model.generator.section.dims");
    s.section.n1 = get_array<3>(c, "model.generator.section.n1", s.section.n1);
    return with_source(c, [&] { return io::generate_beam(s); });
  }
  throw InputError(c.source() + ": unknown model.generator.type '" + type + "' (box or beam)");
}

io::Material parse_material(const io::Config& c, const std::string& key) {
  io::Material m;
  m.name = key;
  m.where.file = c.source();
  auto opt = [&](const char* k) -> std::optional<double> {
    const std::string full = key + "." + k;
    if (!c.has(full)) return std::nullopt;
    return c.get<double>(full);
  };
  m.E = opt("E");
  m.nu = opt("nu");
  m.G = opt("G");
  m.C = opt("C");
  m.rho = opt("rho");
  return m;
}

fe::ComponentOptions component_options(const io::Config& c) {
  fe::ComponentOptions o;
  if (c.has("model.material")) o.default_material = parse_material(c, "model.material");
  if (c.has("model.materials")) {
    for (const auto& kv : c.node("model.materials")) {
      const std::string set = kv.first.as<std::string>();
      o.set_materials[set] = parse_material(c, "model.materials." + set);
      o.set_materials[set].name = "model.materials." + set;
    }
  }
  // model.fixed and modes.fixed are the same key placed by different issues: accept both. Each
  // entry is a node set (all its DOFs) or {set: S, dofs: [1, 2, 3]} (those components only).
  for (const char* key : {"model.fixed", "modes.fixed"})
    if (c.has(key)) parse_fixed(c, key, o);
  o.partitioner = c.get<std::string>("model.partitioner", "");
  // model.shell {thickness, [shear_ratio, bending_ratio, nsm]}: the shell section of the shell
  // elements no mesh section covers (a gmsh mesh's triangles and quadrangles); model.shells
  // {ELSET: {…}} per element set.
  auto shell = [&](const std::string& key) {
    io::ShellSection s;
    s.thickness = c.get<double>(key + ".thickness");
    s.shear_ratio = c.get<double>(key + ".shear_ratio", s.shear_ratio);
    s.bending_ratio = c.get<double>(key + ".bending_ratio", s.bending_ratio);
    s.nsm = c.get<double>(key + ".nsm", s.nsm);
    s.validate(io::SourceLocation{c.source() + ": " + key, 0});
    return s;
  };
  if (c.has("model.shell")) o.shell_section = shell("model.shell");
  // model.plane {state: stress|strain, thickness}: the section of the 2-D elements no mesh section
  // covers; a .msh mesh is read as 2-D (its triangles and quadrangles become tri3/tri6/quad4/quad8).
  if (c.has("model.plane")) {
    io::PlaneSection p;
    const std::string state = c.get<std::string>("model.plane.state");
    FLEXUQ_REQUIRE(state == "stress" || state == "strain",
                   c.source() << ": model.plane.state is '" << state << "'; give stress or strain");
    p.strain = state == "strain";
    p.thickness = c.get<double>("model.plane.thickness", p.thickness);
    p.validate(io::SourceLocation{c.source() + ": model.plane.thickness", 0});
    o.plane_section = p;
  }
  if (c.has("model.shells"))
    for (const auto& kv : c.node("model.shells")) {
      const std::string set = kv.first.as<std::string>();
      o.set_shell_sections[set] = shell("model.shells." + set);
    }
  return o;
}

} // namespace flexuq::app
