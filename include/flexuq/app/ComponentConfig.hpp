// SPDX-License-Identifier: MIT
#pragma once
/// @file ComponentConfig.hpp
/// @brief The `model:` section of a job file → mesh and typed `fe::ComponentOptions` (shared by every
/// verb). Part of the app layer's job parsing (library `flexuq_job`): `fe` itself reads no YAML.
///
/// Keys: model.mesh (path, .inp/.msh) or model.generator {type: box|beam, …}; model.material
/// {E, nu, rho} or {G, C, rho}; model.materials {ELSET: {…}}; model.fixed (node sets, or {set, dofs}
/// entries fixing single components; also accepted as modes.fixed); model.partitioner; model.shell {thickness, shear_ratio, bending_ratio, nsm} and
/// model.shells {ELSET: {…}} (shell sections for shell elements no mesh section covers);
/// model.plane {state: stress|strain, thickness} (the section of 2-D elements no mesh section
/// covers; a .msh mesh is then read as a 2-D component).

#include "flexuq/fe/Component.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/io/Mesh.hpp"

namespace flexuq::app {

/// Read or generate the mesh named by model.mesh / model.generator. Not collective (every rank
/// reads the file; see docs/architecture.md).
io::Mesh load_mesh(const io::Config& cfg);
/// Parse a material mapping {E, nu, rho} | {G, C, rho} at @p key.
io::Material parse_material(const io::Config& cfg, const std::string& key);
/// Component options from model.* (and the modes.fixed alias).
fe::ComponentOptions component_options(const io::Config& cfg);
/// The supports at @p key (model.fixed or modes.fixed) into @p o: each entry a node set name (all its
/// DOFs, o.fixed_sets) or {set: S, dofs: [c, …]} with components 1–6 (o.fixed_components).
/// Throws InputError naming the file, the entry and its line.
void parse_fixed(const io::Config& cfg, const std::string& key, fe::ComponentOptions& o);

} // namespace flexuq::app
