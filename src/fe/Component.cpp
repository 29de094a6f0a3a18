// SPDX-License-Identifier: MIT
#include "flexuq/fe/Component.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/AssemblyProfile.hpp"
#include "flexuq/fe/Element.hpp"
#include "flexuq/fe/Plane.hpp"
#include "flexuq/fe/Shell.hpp"

#include <Eigen/Dense>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

namespace flexuq::fe {

std::array<double, 2> MaterialGroup::stiffness_coefficients() const {
  if (beam) return {material.E, material.G()};
  if (shell) return {material.E / (1 - material.nu), material.G()};
  return {material.lambda(), material.mu()};
}

std::vector<double> Component::stiffness_theta(const std::vector<MaterialGroup>& groups, bool constant) {
  std::vector<double> t;
  for (const auto& g : groups) {
    const auto c = g.stiffness_coefficients();
    t.push_back(c[0]);
    t.push_back(c[1]);
  }
  if (constant) t.push_back(1.0);
  return t;
}

std::vector<double> Component::mass_theta(const std::vector<MaterialGroup>& groups, bool constant) {
  std::vector<double> t;
  for (const auto& g : groups) t.push_back(g.material.rho);
  if (constant) t.push_back(1.0);
  return t;
}

namespace {
std::vector<double> pick(std::vector<double> c, const std::vector<std::size_t>& rep) {
  if (rep.empty()) return c;
  std::vector<double> out;
  for (std::size_t r : rep) out.push_back(c.at(r));
  return out;
}
} // namespace

std::vector<double> Component::stiffness_theta() const {
  return external_ ? external_k_theta_ : pick(stiffness_theta(groups_, constant_k_), k_rep_);
}
std::vector<double> Component::mass_theta() const {
  return external_ ? external_m_theta_ : pick(mass_theta(groups_, constant_m_), m_rep_);
}

void Component::merge_affine_terms(const std::vector<std::vector<std::size_t>>& stiffness,
                                   const std::vector<std::vector<std::size_t>>& mass,
                                   const std::vector<double>& k_coefficients, const std::vector<double>& m_coefficients) {
  FLEXUQ_REQUIRE(!external_ && k_rep_.empty() && m_rep_.empty() && K_terms_.size() > 0,
                 "merge_affine_terms: needs the unmerged affine terms of an assembled component");
  const auto merge = [](AffineOperator& A, const std::vector<double>& c, std::vector<std::vector<std::size_t>> sets,
                        std::vector<std::size_t>& rep) {
    std::vector<double> w(c.size(), 1.0);
    for (auto& s : sets) {
      // The largest coefficient leads (so no weight divides by a zero coefficient, e.g. lambda at nu = 0).
      auto r = std::max_element(s.begin(), s.end(), [&](std::size_t a, std::size_t b) { return std::abs(c.at(a)) < std::abs(c.at(b)); });
      std::iter_swap(s.begin(), r);
      const double cr = c.at(s[0]);
      for (std::size_t k : s) w.at(k) = cr != 0.0 ? c.at(k) / cr : 1.0;
      rep.push_back(s[0]);
    }
    A.merge(sets, w);
  };
  FLEXUQ_REQUIRE(k_coefficients.size() == K_terms_.size() && m_coefficients.size() == M_terms_.size(),
                 "merge_affine_terms: " << k_coefficients.size() << " + " << m_coefficients.size() << " coefficients for "
                                        << K_terms_.size() << " + " << M_terms_.size() << " terms");
  merge(K_terms_, k_coefficients, stiffness, k_rep_);
  merge(M_terms_, m_coefficients, mass, m_rep_);
}

Component::Component(io::Mesh mesh, ExternalOperators ops)
    : mesh_(std::move(mesh)), dofs_(std::move(ops.dofs)), fixed_sets_(std::move(ops.fixed_sets)),
      n_fixed_nodes_(ops.n_fixed_nodes), K_terms_(std::move(ops.stiffness)), M_terms_(std::move(ops.mass)),
      external_(true), coordinates_(ops.coordinates), external_k_theta_(std::move(ops.stiffness_theta)), external_m_theta_(std::move(ops.mass_theta)) {
  FLEXUQ_REQUIRE(dofs_ && K_terms_.size() > 0 && M_terms_.size() > 0,
                 mesh_.source << ": a component from matrices needs at least one stiffness and one mass term");
  K_ = K_terms_.evaluate(external_k_theta_);
  M_ = M_terms_.evaluate(external_m_theta_);
}

void Component::set_coefficients(const std::vector<double>& stiffness, const std::vector<double>& mass) {
  FLEXUQ_REQUIRE(K_terms_.size() > 0, "set_coefficients needs the affine terms (keep_affine)");
  K_terms_.evaluate_into(stiffness, K_.get());
  M_terms_.evaluate_into(mass, M_.get());
  if (external_) {
    external_k_theta_ = stiffness;
    external_m_theta_ = mass;
  }
}

Component::Component(MPI_Comm comm, io::Mesh mesh, const ComponentOptions& opt) : mesh_(std::move(mesh)) {
  std::optional<assembly_profile::Scope> setup(std::in_place, assembly_profile::Part::setup);
  mesh_.validate();
  const int dpn = mesh_.dofs_per_node();
  const std::size_t ne = mesh_.num_elements();

  // --- sections per element ---
  elem_section_.assign(ne, -1);
  for (std::size_t s = 0; s < mesh_.sections.size(); ++s) {
    const auto& sec = mesh_.sections[s];
    for (int e : mesh_.element_set(sec.elset)) {
      FLEXUQ_REQUIRE(elem_section_[e] < 0, sec.where.str() << ": element " << mesh_.elem_ids[e]
                                                           << " already has a section (from "
                                                           << mesh_.sections[elem_section_[e]].where.str() << ")");
      elem_section_[e] = static_cast<int>(s);
    }
  }
  // --- shell sections from the options for shell elements without one (a gmsh mesh's 2-D elements) ---
  auto add_shell_sections = [&](const io::ShellSection& sh, const std::vector<int>* elems, const std::string& name) {
    io::Section sec;
    sec.elset = name;
    sec.shell = true;
    sec.shell_section = sh;
    sec.where.file = mesh_.source + " (" + name + ")";
    sh.validate(sec.where);
    const int idx = static_cast<int>(mesh_.sections.size());
    bool used = false;
    for (std::size_t k = 0; k < (elems ? elems->size() : ne); ++k) {
      const std::size_t e = elems ? static_cast<std::size_t>((*elems)[k]) : k;
      if (elem_section_[e] >= 0 || !io::is_shell(mesh_.elem_type[e])) continue;
      elem_section_[e] = idx;
      used = true;
    }
    if (used) mesh_.sections.push_back(sec);
  };
  for (const auto& [set, sh] : opt.set_shell_sections)
    add_shell_sections(sh, &mesh_.element_set(set), "shell section of element set " + io::upper(set));
  if (opt.shell_section) add_shell_sections(*opt.shell_section, nullptr, "default shell section");
  if (opt.plane_section) { // the 2-D elements without a section (a gmsh mesh read as 2-D)
    io::Section sec;
    sec.elset = "default plane section";
    sec.plane = true;
    sec.plane_section = *opt.plane_section;
    sec.where.file = mesh_.source + " (default plane section)";
    sec.plane_section.validate(sec.where);
    bool used = false;
    for (std::size_t e = 0; e < ne; ++e)
      if (elem_section_[e] < 0 && io::is_plane(mesh_.elem_type[e])) {
        elem_section_[e] = static_cast<int>(mesh_.sections.size());
        used = true;
      }
    if (used) mesh_.sections.push_back(sec);
  }
  // --- material per element: set override > section material > default ---
  std::vector<std::string> elem_mat(ne);
  std::map<std::string, io::Material> materials = mesh_.materials;
  for (std::size_t e = 0; e < ne; ++e) {
    const int s = elem_section_[e];
    if (s >= 0) elem_mat[e] = mesh_.sections[s].material;
  }
  for (const auto& [set, mat] : opt.set_materials) {
    const std::string key = "SET:" + io::upper(set);
    materials[key] = mat;
    materials[key].name = "of element set " + io::upper(set);
    for (int e : mesh_.element_set(set)) elem_mat[e] = key;
  }
  // A shell without a section lacks its thickness first of all: say so before a missing material.
  const auto require_shell_section = [&](std::size_t e) {
    FLEXUQ_REQUIRE_OPTION(!io::is_shell(mesh_.elem_type[e]) || elem_section_[e] >= 0, "component.shell_section",
                          mesh_.source << ": shell element " << mesh_.elem_ids[e] << " ("
                                       << io::element_name(mesh_.elem_type[e])
                                       << ") has no shell section (*SHELL SECTION, a PSHELL, or {} in the job)");
  };
  for (std::size_t e = 0; e < ne; ++e) {
    std::string& name = elem_mat[e];
    if (name.empty()) {
      require_shell_section(e);
      FLEXUQ_REQUIRE_OPTION(opt.default_material.has_value(), "component.default_material",
                            mesh_.source << ": no material for element " << mesh_.elem_ids[e]
                                         << " (no section assigns one and the job gives no {})");
      name = "DEFAULT";
    }
    if (!materials.count(name)) {
      if (name == "DEFAULT" && opt.default_material) {
        materials["DEFAULT"] = *opt.default_material;
        if (materials["DEFAULT"].name.empty()) materials["DEFAULT"].name = "component.default_material";
      } else {
        const auto& sec = mesh_.sections[elem_section_[e]];
        const std::string what =
            sec.where.str() + ": section references material '" + sec.material + "', which is not defined";
        if (sec.material == "DEFAULT") throw OptionError("component.default_material", what + " (give {} in the job)");
        throw InputError(what);
      }
    }
    const bool beam = mesh_.elem_type[e] == io::ElementType::beam2, shell = io::is_shell(mesh_.elem_type[e]);
    FLEXUQ_REQUIRE(!beam || (elem_section_[e] >= 0 && mesh_.sections[elem_section_[e]].beam),
                   mesh_.source << ": beam element " << mesh_.elem_ids[e] << " has no *BEAM SECTION");
    require_shell_section(e);
    FLEXUQ_REQUIRE(!shell || mesh_.sections[elem_section_[e]].shell,
                   mesh_.sections[elem_section_[e]].where.str()
                       << ": shell element " << mesh_.elem_ids[e] << " is in a section that is not a shell section");
    FLEXUQ_REQUIRE(shell || elem_section_[e] < 0 || !mesh_.sections[elem_section_[e]].shell,
                   mesh_.sections[elem_section_[e]].where.str()
                       << ": element " << mesh_.elem_ids[e] << " (" << io::element_name(mesh_.elem_type[e])
                       << ") is in a shell section, but it is not a shell element");
    const bool plane = io::is_plane(mesh_.elem_type[e]), bar = mesh_.elem_type[e] == io::ElementType::bar2;
    FLEXUQ_REQUIRE_OPTION(!plane || (elem_section_[e] >= 0 && mesh_.sections[elem_section_[e]].plane),
                          "component.plane_section",
                          mesh_.source << ": 2-D element " << mesh_.elem_ids[e] << " ("
                                       << io::element_name(mesh_.elem_type[e])
                                       << ") has no plane stress or plane strain section (*SOLID SECTION on "
                                          "CPS*/CPE* elements, or {} in the job)");
    FLEXUQ_REQUIRE(!bar || (elem_section_[e] >= 0 && mesh_.sections[elem_section_[e]].bar),
                   mesh_.source << ": bar element " << mesh_.elem_ids[e]
                                << " has no bar section (*SOLID SECTION with its cross-section area)");
  }
  // --- groups per element kind and material, in first-appearance order (deterministic on every rank) ---
  std::map<std::string, int> group_of;
  elem_group_.assign(ne, -1);
  for (std::size_t e = 0; e < ne; ++e) {
    const io::ElementType type = mesh_.elem_type[e];
    const bool plane = io::is_plane(type), bar = type == io::ElementType::bar2;
    const bool strain = plane && mesh_.sections[elem_section_[e]].plane_section.strain;
    const std::string kind = io::is_shell(type) ? "shell:"
                             : bar              ? "bar:"
                             : plane            ? (strain ? "plane strain:" : "plane stress:")
                                                : ""; // solids and beams never mix
    const std::string key = kind + elem_mat[e];
    auto it = group_of.find(key);
    if (it == group_of.end()) {
      MaterialGroup g;
      try {
        g.material = IsoMaterial::from_input(materials[elem_mat[e]]);
      } catch (const InputError& err) { // name the element kind that refused it
        if (!plane && !bar) throw;
        throw InputError(std::string(err.what()) + " (used by " + io::element_name(type) + " element " +
                         std::to_string(mesh_.elem_ids[e]) + (plane ? (strain ? ", plane strain)" : ", plane stress)") : ")"));
      }
      g.beam = type == io::ElementType::beam2 || bar;
      g.shell = io::is_shell(type) || (plane && !strain);
      it = group_of.emplace(key, static_cast<int>(groups_.size())).first;
      groups_.push_back(g);
    }
    elem_group_[e] = it->second;
  }

  // --- fixed DOFs: whole nodes, the mesh's single-component supports, the options' components ---
  FixedDofs fixed;
  const unsigned all = (1u << dpn) - 1u;
  auto fix = [&](int v, unsigned m) {
    if (fixed.mask.empty()) fixed.mask.assign(mesh_.num_nodes(), 0);
    fixed.mask[static_cast<std::size_t>(v)] |= static_cast<std::uint8_t>(m);
  };
  const auto dof_range = dpn == 2 ? "1-2 (ux, uy) on a 2-D component" : dpn == 3 ? "1-3 (translations) on solid nodes"
                                                                              : "1-6 (translations 1-3, rotations 4-6)";
  for (const auto& name : opt.fixed_sets) {
    const auto& nodes = mesh_.node_set(name);
    FLEXUQ_REQUIRE(!nodes.empty(), mesh_.source << ": fixed node set '" << name << "' is empty");
    const auto it = mesh_.set_components.find(io::upper(name));
    if (it == mesh_.set_components.end()) {
      for (int v : nodes) fix(v, all);
    } else {
      for (const auto& [v, m] : it->second) {
        const auto node = mesh_.node_ids[static_cast<std::size_t>(v)]; // clang cannot capture a structured binding in FLEXUQ_MSG's lambda
        FLEXUQ_REQUIRE((m >> dpn) == 0, mesh_.source << ": support set " << io::upper(name) << " fixes a component above "
                                                     << dpn << " at node " << node
                                                     << "; components are " << dof_range);
        fix(v, m);
      }
    }
    fixed_sets_.push_back(io::upper(name));
  }
  for (const auto& fc : opt.fixed_components) {
    const auto& nodes = mesh_.node_set(fc.set);
    FLEXUQ_REQUIRE(!nodes.empty(), fc.key << ": fixed node set '" << fc.set << "' is empty");
    FLEXUQ_REQUIRE(!fc.dofs.empty(), fc.key << ": dofs of set " << fc.set << " is empty; list components " << dof_range);
    unsigned m = 0;
    for (int c : fc.dofs) {
      FLEXUQ_REQUIRE(c >= 1 && c <= dpn, fc.key << ": dofs of set " << fc.set << " has component " << c
                                                << ", outside the nodes' DOFs: components are " << dof_range);
      m |= 1u << (c - 1);
    }
    for (int v : nodes) fix(v, m);
    std::string name = io::upper(fc.set) + "[";
    for (int c = 0; c < dpn; ++c)
      if ((m >> c) & 1u) name += std::to_string(c + 1);
    fixed_sets_.push_back(name + "]");
  }
  n_fixed_nodes_ = 0;
  for (auto m : fixed.mask) n_fixed_nodes_ += m != 0 ? 1 : 0;
  // Solids beside beams or shells: 6 DOFs on every node (shared translations tie the solid to the
  // shells and beams), and the rotations of the nodes no beam or shell touches, which no element
  // stiffens, are eliminated, as Nastran's AUTOSPC does (not counted as supports: the component
  // stays free-free). A shell edge on solid nodes alone is a hinge about that edge (docs/config.md
  // "Mixed meshes").
  if (dpn == 6 && std::any_of(mesh_.elem_type.begin(), mesh_.elem_type.end(), io::is_solid)) {
    std::vector<char> rotations(mesh_.num_nodes(), 0);
    for (std::size_t e = 0; e < ne; ++e)
      if (mesh_.elem_type[e] == io::ElementType::beam2 || io::is_shell(mesh_.elem_type[e]))
        for (int k = 0; k < mesh_.element_size(e); ++k) rotations[static_cast<std::size_t>(mesh_.element(e)[k])] = 1;
    for (const auto* list : {&mesh_.springs, &mesh_.scalar_masses})
      for (const auto& sp : *list)
        for (int end = 0; end < 2; ++end) {
          const int node = end ? sp.node_b : sp.node_a, comp = end ? sp.comp_b : sp.comp_a;
          FLEXUQ_REQUIRE(node < 0 || comp <= 3 || rotations[static_cast<std::size_t>(node)],
                         sp.where.str() << ": " << (list == &mesh_.springs ? "spring " : "scalar mass ") << sp.id
                                        << " acts on rotation " << comp << " of node " << mesh_.node_ids[static_cast<std::size_t>(node)]
                                        << ", which only solid elements touch (no rotations)");
        }
    for (std::size_t v = 0; v < mesh_.num_nodes(); ++v)
      if (!rotations[v]) fix(static_cast<int>(v), 0x38u);
  }

  setup.reset();
  dofs_ = std::make_unique<DofMap>(comm, mesh_, dpn, fixed, opt.partitioner);
  const auto t0 = std::chrono::steady_clock::now();
  assemble(opt.keep_affine);
  if (mesh_.autospc) {
    const assembly_profile::Scope timed(assembly_profile::Part::autospc);
    apply_autospc();
  }
  assembly_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#if defined(__GLIBC__)
  // The partition, numbering and pattern's temporaries are freed by now, but glibc keeps the freed heap
  // (20-25 MB per rank on the 294 k crank at 16 ranks, 0.32 GB summed): give it back to the system
  // before the eigensolve's factorisation asks for its own memory.
  malloc_trim(0);
#endif
}

namespace {

/// A small dense symmetric block on global DOF indices (−1: a fixed DOF, ignored by PETSc).
struct DenseBlock {
  std::vector<PetscInt> idx;
  std::vector<double> v; ///< row-major idx.size()²
};

/// The constant stiffness (springs) or mass (scalar and concentrated masses) blocks of @p mesh. Made on rank 0
/// only (PETSc sends entries of rows other ranks own to them at assembly), on every rank with @p every_rank
/// (their indices for the pattern).
std::vector<DenseBlock> constant_blocks(const io::Mesh& mesh, const DofMap& d, bool stiffness, bool every_rank = false) {
  std::vector<DenseBlock> out;
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(d.comm(), &rank));
  if (rank != 0 && !every_rank) return out;
  const int dpn = d.dofs_per_node();
  auto dof = [&](int node, int c) { return d.dof(node, c); }; // c: 0-based component
  {
    // ½ k (e_aᵀ u_a − e_bᵀ u_b)², e the component's axis of the node's displacement frame (CD) in
    // basic axes: K += k g gᵀ with g = (e_a, −e_b) on the three DOFs of each end. A scalar mass
    // (CMASS1/CMASS2, ½ m (e_aᵀ u̇_a − e_bᵀ u̇_b)²) adds m g gᵀ to M the same way.
    auto axis = [&](int node, int comp) {
      const int k = (comp - 1) % 3;
      std::array<double, 3> e{0, 0, 0};
      if (mesh.node_frames.empty()) e[static_cast<std::size_t>(k)] = 1.0;
      else e = mesh.node_frames[static_cast<std::size_t>(node)].axes[static_cast<std::size_t>(k)];
      return e;
    };
    for (const auto& sp : stiffness ? mesh.springs : mesh.scalar_masses) {
      DenseBlock b;
      std::vector<double> g;
      for (int end = 0; end < 2; ++end) {
        const int node = end ? sp.node_b : sp.node_a, comp = end ? sp.comp_b : sp.comp_a;
        if (node < 0) continue;
        const auto e = axis(node, comp);
        for (int j = 0; j < 3; ++j) {
          b.idx.push_back(dof(node, (comp > 3 ? 3 : 0) + j));
          g.push_back(end ? -e[static_cast<std::size_t>(j)] : e[static_cast<std::size_t>(j)]);
        }
      }
      for (double gi : g)
        for (double gj : g) b.v.push_back(sp.k * gi * gj);
      out.push_back(std::move(b));
    }
    if (stiffness) return out;
  }
  for (const auto& pm : mesh.point_masses) {
    DenseBlock b;
    for (int c = 0; c < dpn; ++c) b.idx.push_back(dof(pm.node, c));
    // Rigid body with its centre of mass at node + s: [[m I, −m S], [m S, J − m S²]], S = skew(s)
    // (velocity of the centre u̇ + θ̇ × s = u̇ − S θ̇). Solids: m I only (no rotations).
    Eigen::Matrix<double, 6, 6> B = Eigen::Matrix<double, 6, 6>::Zero();
    const auto& s = pm.offset;
    Eigen::Matrix3d S, J;
    S << 0, -s[2], s[1], s[2], 0, -s[0], -s[1], s[0], 0;
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) J(a, c) = pm.inertia[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)];
    B.topLeftCorner<3, 3>() = pm.m * Eigen::Matrix3d::Identity();
    B.topRightCorner<3, 3>() = -pm.m * S;
    B.bottomLeftCorner<3, 3>() = pm.m * S;
    B.bottomRightCorner<3, 3>() = J - pm.m * S * S;
    for (int a = 0; a < dpn; ++a)
      for (int c = 0; c < dpn; ++c) b.v.push_back(B(a, c));
    out.push_back(std::move(b));
  }
  return out;
}

void add_blocks(Mat A, const std::vector<DenseBlock>& blocks, bool zeros) {
  std::vector<double> z;
  for (const auto& b : blocks) {
    const auto n = static_cast<PetscInt>(b.idx.size());
    if (zeros) z.assign(b.v.size(), 0.0);
    FLEXUQ_PETSC(MatSetValues(A, n, b.idx.data(), n, b.idx.data(), zeros ? z.data() : b.v.data(), ADD_VALUES));
  }
}

/// K's and M's exact nonzero pattern on the rows owned here, set as zeros and assembled: the union of the
/// DOFs of every element that touches the row (solids: their translations only, as the element loop
/// adds them) and of every constant block (@p blocks, on every rank). The element loop's MatSetValues
/// then only adds into entries that exist: before, each new entry of the first assembly was inserted
/// into its row (a search and a shift of the row's tail), 90 % of the partition+assemble phase
/// (docs/performance.md, "The phases outside the eigensolve"). The pattern is the one the elements gave
/// before, entry for entry, so the values, added in the same order, are the same.
void set_exact_pattern(Mat A, const io::Mesh& mesh, const DofMap& d, const std::vector<DenseBlock>& blocks) {
  const int dpn = d.dofs_per_node();
  std::map<PetscInt, std::vector<PetscInt>> extra; // rows here the constant blocks reach → their columns
  for (const auto& b : blocks)
    for (PetscInt r : b.idx)
      if (r >= d.begin() && r < d.end())
        for (PetscInt c : b.idx)
          if (c >= 0) extra[r].push_back(c);
  const NodeElements ne(mesh);
  // width[u]: the widest element (in DOFs per node) the row's node shares with node u; 0 = none.
  std::vector<int> width(mesh.num_nodes(), 0), nbrs;
  std::vector<PetscInt> cols;
  std::vector<double> zeros;
  // Every row once, whole and sorted: PETSc appends its columns without searching (as in
  // MatMPIAIJSetPreallocationCSR, without a second copy of the pattern).
  FLEXUQ_PETSC(MatSetOption(A, MAT_SORTED_FULL, PETSC_TRUE));
  for (int v : d.owned_nodes()) {
    if (d.is_fixed(v)) continue;
    nbrs.clear();
    for (PetscInt k = ne.offsets[static_cast<std::size_t>(v)]; k < ne.offsets[static_cast<std::size_t>(v) + 1]; ++k) {
      const auto e = static_cast<std::size_t>(ne.elements[static_cast<std::size_t>(k)]);
      const int w = io::is_solid(mesh.elem_type[e]) ? std::min(3, dpn) : dpn;
      for (int j = 0; j < mesh.element_size(e); ++j) {
        const auto u = static_cast<std::size_t>(mesh.element(e)[j]);
        if (d.is_fixed(static_cast<int>(u))) continue;
        if (width[u] == 0) nbrs.push_back(static_cast<int>(u));
        width[u] = std::max(width[u], w);
      }
    }
    // Free nodes in DOF order give each row its columns sorted (a node's free DOFs are consecutive).
    std::sort(nbrs.begin(), nbrs.end(), [&](int a, int b) { return d.node_dof(a) < d.node_dof(b); });
    for (int c = 0; c < dpn; ++c) {
      const PetscInt row = d.dof(v, c);
      if (row < 0) continue;
      cols.clear();
      for (int u : nbrs) {
        const int w = width[static_cast<std::size_t>(u)];
        if (c >= w) continue;
        for (int c2 = 0; c2 < w; ++c2) {
          const PetscInt col = d.dof(u, c2);
          if (col >= 0) cols.push_back(col);
        }
      }
      const auto it = extra.find(row);
      if (it != extra.end()) {
        cols.insert(cols.end(), it->second.begin(), it->second.end());
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      }
      if (cols.empty()) continue;
      zeros.assign(cols.size(), 0.0);
      FLEXUQ_PETSC(MatSetValues(A, 1, &row, static_cast<PetscInt>(cols.size()), cols.data(), zeros.data(), INSERT_VALUES));
    }
    for (int u : nbrs) width[static_cast<std::size_t>(u)] = 0;
  }
  FLEXUQ_PETSC(MatSetOption(A, MAT_SORTED_FULL, PETSC_FALSE));
  FLEXUQ_PETSC(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
}

/// Adds element matrices straight into the local CSR arrays of matrices that share one assembled pattern
/// (set_exact_pattern): an element's positions are found once, one search per row and node (a node's
/// free DOFs are consecutive columns), not one per entry and matrix as MatSetValues does, and every
/// target adds its values there. Rows owned elsewhere still go through MatSetValues (PETSc's stash)
/// as before; each entry gets its terms in the same order as before, so the sums are the same to the bit.
class DirectAdd {
public:
  DirectAdd(const DofMap& d, const std::vector<MatH>& targets) : begin_(d.begin()), end_(d.end()) {
    for (const auto& A : targets) {
      Mat Ad = A.get(), Ao = nullptr;
      PetscBool mpi = PETSC_FALSE;
      FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A.get()), MATMPIAIJ, &mpi));
      if (mpi) FLEXUQ_PETSC(MatMPIAIJGetSeqAIJ(A.get(), &Ad, &Ao, &garray_));
      PetscScalar *ad = nullptr, *ao = nullptr;
      FLEXUQ_PETSC(MatSeqAIJGetArray(Ad, &ad));
      if (Ao) FLEXUQ_PETSC(MatSeqAIJGetArray(Ao, &ao));
      blocks_.push_back({Ad, Ao, ad, ao});
    }
    PetscInt nr = 0;
    PetscBool done = PETSC_FALSE;
    FLEXUQ_PETSC(MatGetRowIJ(blocks_.front().d, 0, PETSC_FALSE, PETSC_FALSE, &nr, &id_, &jd_, &done));
    FLEXUQ_REQUIRE(done, "assembly: no row structure of the diagonal block");
    if (blocks_.front().o) {
      FLEXUQ_PETSC(MatGetRowIJ(blocks_.front().o, 0, PETSC_FALSE, PETSC_FALSE, &nr, &io_, &jo_, &done));
      FLEXUQ_REQUIRE(done, "assembly: no row structure of the off-diagonal block");
    }
  }
  ~DirectAdd() { finish(); }
  DirectAdd(const DirectAdd&) = delete;
  DirectAdd& operator=(const DirectAdd&) = delete;

  /// The positions of the element with global DOFs @p idx (node by node, @p width per node, −1 fixed).
  void locate(const std::vector<PetscInt>& idx, int width) {
    idx_ = &idx;
    const std::size_t n = idx.size();
    pos_.assign(n * n, -1);
    rows_off_.assign(idx.begin(), idx.end());
    hint_.assign(n, -1);
    off_ = false;
    for (std::size_t i = 0; i < n; ++i) {
      const PetscInt r = idx[i];
      if (r < 0) continue;
      if (r < begin_ || r >= end_) {
        off_ = true;
        continue;
      }
      rows_off_[i] = -1; // added here, not through MatSetValues
      const PetscInt lr = r - begin_;
      for (std::size_t b = 0; b < n; b += static_cast<std::size_t>(width)) {
        std::size_t c0 = b;
        while (c0 < b + static_cast<std::size_t>(width) && idx[c0] < 0) ++c0;
        if (c0 == b + static_cast<std::size_t>(width)) continue; // a fixed node
        const PetscInt col0 = idx[c0];
        const bool diag = col0 >= begin_ && col0 < end_;
        const PetscInt* lo = diag ? jd_ + id_[lr] : jo_ + io_[lr];
        const PetscInt* hi = diag ? jd_ + id_[lr + 1] : jo_ + io_[lr + 1];
        const auto column = [&](const PetscInt* k) { return diag ? *k + begin_ : garray_[*k]; };
        // The rows of one node usually share their layout: try the previous row's offset first.
        const PetscInt* k0 = lo + hint_[b];
        if (hint_[b] < 0 || k0 >= hi || column(k0) != col0) {
          k0 = std::lower_bound(lo, hi, col0, [&](const PetscInt& k, PetscInt c) { return column(&k) < c; });
          hint_[b] = k0 - lo;
        }
        for (std::size_t j = c0; j < b + static_cast<std::size_t>(width); ++j) {
          if (idx[j] < 0) continue;
          const PetscInt* k = k0 + (idx[j] - col0); // the node's free DOFs: consecutive columns
          FLEXUQ_REQUIRE(k < hi && column(k) == idx[j], "assembly: DOF " << idx[j] << " is not in the pattern of row " << r);
          pos_[i * n + j] = diag ? k - jd_ : -2 - (k - jo_);
        }
      }
    }
  }
  /// Adds the row-major element matrix @p v (located last) to target @p t.
  void add(std::size_t t, Mat A, const double* v) {
    const Block& m = blocks_[t];
    for (std::size_t k = 0; k < pos_.size(); ++k) {
      const PetscInt p = pos_[k];
      if (p >= 0)
        m.ad[p] += v[k];
      else if (p <= -2)
        m.ao[-2 - p] += v[k];
    }
    if (off_) {
      const auto n = static_cast<PetscInt>(idx_->size());
      FLEXUQ_PETSC(MatSetValues(A, n, rows_off_.data(), n, idx_->data(), v, ADD_VALUES));
    }
  }
  /// Gives the arrays back (before the assembly). Idempotent.
  void finish() {
    if (blocks_.empty()) return;
    PetscInt nr = 0;
    PetscBool done = PETSC_FALSE;
    MatRestoreRowIJ(blocks_.front().d, 0, PETSC_FALSE, PETSC_FALSE, &nr, &id_, &jd_, &done);
    if (blocks_.front().o) MatRestoreRowIJ(blocks_.front().o, 0, PETSC_FALSE, PETSC_FALSE, &nr, &io_, &jo_, &done);
    for (auto& m : blocks_) {
      MatSeqAIJRestoreArray(m.d, &m.ad);
      if (m.o) MatSeqAIJRestoreArray(m.o, &m.ao);
    }
    blocks_.clear();
  }

private:
  struct Block {
    Mat d, o;
    PetscScalar *ad, *ao;
  };
  PetscInt begin_, end_;
  std::vector<Block> blocks_;
  const PetscInt *id_ = nullptr, *jd_ = nullptr, *io_ = nullptr, *jo_ = nullptr, *garray_ = nullptr;
  const std::vector<PetscInt>* idx_ = nullptr;
  std::vector<std::ptrdiff_t> hint_;      ///< per node of the element: its first column's offset in the last row
  std::vector<PetscInt> pos_, rows_off_; ///< per entry: ≥ 0 diagonal block, ≤ −2 off-diagonal (−2 − k), −1 none
  bool off_ = false;
};

MatH create_pattern(const DofMap& d, const io::Mesh& mesh, const std::vector<DenseBlock>& blocks) {
  const assembly_profile::Scope timed(assembly_profile::Part::create);
  MatH A;
  FLEXUQ_PETSC(MatCreate(d.comm(), A.out()));
  FLEXUQ_PETSC(MatSetSizes(A.get(), d.local_size(), d.local_size(), d.global_size(), d.global_size()));
  FLEXUQ_PETSC(MatSetType(A.get(), MATAIJ));
  // Nodes with single fixed components carry fewer DOFs: no block structure then.
  if (!d.has_partly_fixed()) FLEXUQ_PETSC(MatSetBlockSize(A.get(), d.dofs_per_node()));
  FLEXUQ_PETSC(MatSeqAIJSetPreallocation(A.get(), 0, d.d_nnz().data()));
  FLEXUQ_PETSC(MatMPIAIJSetPreallocation(A.get(), 0, d.d_nnz().data(), 0, d.o_nnz().data()));
  FLEXUQ_PETSC(MatSetOption(A.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  set_exact_pattern(A.get(), mesh, d, blocks);
  return A;
}
} // namespace

void Component::assemble(bool keep_affine) {
  const DofMap& d = *dofs_;
  const int dpn = d.dofs_per_node();
  const std::size_t ng = groups_.size();

  // Targets: in affine mode one matrix per term (2 K terms + 1 M term per group), then K and M by
  // evaluation; in direct mode K and M only, with the group coefficients applied element by element.
  // weight[t][g] = coefficients of the group's (K term 0, K term 1, M term) in target t.
  std::vector<MatH> targets;
  std::vector<std::vector<std::array<double, 3>>> weight;
  std::vector<PetscInt> idx;
  auto element_indices = [&](std::size_t e) {
    const int n = mesh_.element_size(e);
    // Solids take the translations of their nodes only (a mesh with beams or shells has 6 per node).
    const int w = io::is_solid(mesh_.elem_type[e]) ? 3 : dpn;
    idx.resize(static_cast<std::size_t>(n * w));
    for (int a = 0; a < n; ++a) {
      const int v = mesh_.element(e)[a];
      for (int c = 0; c < w; ++c) idx[static_cast<std::size_t>(a * w + c)] = d.dof(v, c);
    }
  };
  const std::vector<DenseBlock> spring_blocks = constant_blocks(mesh_, d, true);
  const std::vector<DenseBlock> mass_blocks = constant_blocks(mesh_, d, false);
  constant_k_ = keep_affine && !mesh_.springs.empty(); // direct assembly: no terms at all
  // Shells' nonstructural mass joins the concentrated masses' constant term.
  bool nsm = false;
  for (const auto& sec : mesh_.sections)
    nsm = nsm || (sec.shell && sec.shell_section.nsm > 0) || (sec.beam && sec.beam_section.nsm > 0);
  constant_m_ = keep_affine && (!mesh_.point_masses.empty() || !mesh_.scalar_masses.empty() || nsm);
  // One nonzero structure for every target (K and M; all term matrices, even when a term - a material
  // group - touches only part of the mesh): the exact pattern, set once, as zeros.
  auto add_target = [&](std::vector<std::array<double, 3>> w) { weight.push_back(std::move(w)); };
  if (keep_affine) {
    for (std::size_t g = 0; g < ng; ++g)
      for (int k = 0; k < 3; ++k) {
        std::vector<std::array<double, 3>> w(ng, {0, 0, 0});
        w[g][k] = 1.0;
        add_target(w);
      }
    // The constant terms: no element adds to them (all weights zero), only the blocks below.
    if (constant_k_) add_target(std::vector<std::array<double, 3>>(ng, {0, 0, 0}));
    if (constant_m_) add_target(std::vector<std::array<double, 3>>(ng, {0, 0, 0}));
  } else {
    std::vector<std::array<double, 3>> wk(ng), wm(ng);
    for (std::size_t g = 0; g < ng; ++g) {
      const auto c = groups_[g].stiffness_coefficients();
      wk[g] = {c[0], c[1], 0.0};
      wm[g] = {0.0, 0.0, groups_[g].material.rho};
    }
    add_target(wk);
    add_target(wm);
  }
  {
    std::vector<DenseBlock> blocks = constant_blocks(mesh_, d, true, true);
    for (auto& b : constant_blocks(mesh_, d, false, true)) blocks.push_back(std::move(b));
    MatH pattern = create_pattern(d, mesh_, blocks);
    targets.resize(weight.size());
    for (std::size_t t = 0; t + 1 < weight.size(); ++t)
      FLEXUQ_PETSC(MatDuplicate(pattern.get(), MAT_COPY_VALUES, targets[t].out()));
    targets.back() = std::move(pattern); // the last target takes the pattern itself: no extra copy at the peak
  }

  ElemMat T0, T1, TM;
  std::vector<double> X;
  // Where a shell's nonstructural mass goes: the constant mass term, or M itself.
  const std::size_t nsm_target = keep_affine ? 3 * ng + (constant_k_ ? 1 : 0) : 1;
  // Element terms with the mesh named in the message of a bad element.
  auto with_source = [&](auto&& terms) {
    try {
      return terms();
    } catch (const InputError& e) {
      throw InputError(mesh_.source + ": " + e.what());
    }
  };
  std::optional<assembly_profile::Scope> loop(std::in_place, assembly_profile::Part::element_loop);
  DirectAdd direct(d, targets);
  for (int e : d.local_elements()) {
    const auto ue = static_cast<std::size_t>(e);
    const int n = mesh_.element_size(ue);
    element_indices(ue);
    {
      const assembly_profile::Tick locating(assembly_profile::Part::set_values);
      direct.locate(idx, io::is_solid(mesh_.elem_type[ue]) ? 3 : dpn);
    }
    std::optional<assembly_profile::Tick> integrating(std::in_place, assembly_profile::Part::integrate);
    X.resize(static_cast<std::size_t>(3 * n));
    for (int a = 0; a < n; ++a)
      for (int k = 0; k < 3; ++k) X[static_cast<std::size_t>(3 * a + k)] = mesh_.coords[mesh_.element(ue)[a]][k];
    if (io::is_solid(mesh_.elem_type[ue])) {
      auto t = with_source([&] { return solid_terms(mesh_.elem_type[ue], X.data(), mesh_.elem_ids[ue]); });
      T0 = std::move(t.K_lambda);
      T1 = std::move(t.K_mu);
      TM = std::move(t.M1);
    } else if (io::is_shell(mesh_.elem_type[ue])) {
      const io::ShellSection& sec = mesh_.sections[elem_section_[ue]].shell_section;
      auto t = with_source([&] { return shell_terms(mesh_.elem_type[ue], X.data(), sec, mesh_.elem_ids[ue]); });
      T0 = std::move(t.K_A);
      T1 = std::move(t.K_G);
      TM = std::move(t.M1);
      if (sec.nsm > 0) {
        const ElemMat B = sec.nsm * shell_area_mass(mesh_.elem_type[ue], X.data(), mesh_.elem_ids[ue]);
        direct.add(nsm_target, targets[nsm_target].get(), B.data());
      }
    } else if (io::is_plane(mesh_.elem_type[ue])) {
      const io::PlaneSection& sec = mesh_.sections[elem_section_[ue]].plane_section;
      auto t = with_source([&] { return plane_terms(mesh_.elem_type[ue], X.data(), sec, mesh_.elem_ids[ue]); });
      T0 = std::move(t.K0);
      T1 = std::move(t.K1);
      TM = std::move(t.M1);
    } else if (mesh_.elem_type[ue] == io::ElementType::bar2) {
      auto t = with_source([&] {
        return bar_terms(mesh_.coords[mesh_.element(ue)[0]], mesh_.coords[mesh_.element(ue)[1]],
                         mesh_.sections[elem_section_[ue]].bar_area, dpn, mesh_.elem_ids[ue]);
      });
      T0 = std::move(t.K_E);
      T1 = ElemMat::Zero(T0.rows(), T0.cols()); // no shear term
      TM = std::move(t.M1);
    } else {
      const io::BeamSection& sec = mesh_.sections[elem_section_[ue]].beam_section;
      auto t = with_source([&] {
        return beam_terms(mesh_.coords[mesh_.element(ue)[0]], mesh_.coords[mesh_.element(ue)[1]], sec,
                          mesh_.elem_ids[ue]);
      });
      if (sec.nsm > 0) { // a beam's nonstructural mass joins the shells' (constant term)
        const ElemMat B = sec.nsm * t.M_nsm;
        direct.add(nsm_target, targets[nsm_target].get(), B.data());
      }
      T0 = std::move(t.K_E);
      T1 = std::move(t.K_G);
      TM = std::move(t.M1);
    }
    integrating.reset();
    const assembly_profile::Tick setting(assembly_profile::Part::set_values);
    const int g = elem_group_[ue];
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const auto& w = weight[t][static_cast<std::size_t>(g)];
      if (w[0] == 0 && w[1] == 0 && w[2] == 0) continue;
      ElemMat B = w[0] * T0 + w[1] * T1 + w[2] * TM;
      direct.add(t, targets[t].get(), B.data());
    }
  }
  direct.finish();
  if (keep_affine) {
    std::size_t t = 3 * ng;
    if (constant_k_) add_blocks(targets[t++].get(), spring_blocks, false);
    if (constant_m_) add_blocks(targets[t].get(), mass_blocks, false);
  } else {
    add_blocks(targets[0].get(), spring_blocks, false);
    add_blocks(targets[1].get(), mass_blocks, false);
    add_blocks(targets[1].get(), spring_blocks, true); // K and M keep one pattern
    add_blocks(targets[0].get(), mass_blocks, true);
  }
  loop.reset();
  std::optional<assembly_profile::Scope> assembling(std::in_place, assembly_profile::Part::assembly);
  for (auto& A : targets) {
    FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRIC, PETSC_TRUE));
    FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
  assembling.reset();
  if (keep_affine) {
    for (std::size_t g = 0; g < ng; ++g) {
      const std::string gname = groups_[g].material.name;
      const bool beam = groups_[g].beam, shell = groups_[g].shell;
      K_terms_.add_term((beam ? "E:" : shell ? "E/(1-nu):" : "lambda:") + gname, std::move(targets[3 * g + 0]));
      K_terms_.add_term((beam || shell ? "G:" : "mu:") + gname, std::move(targets[3 * g + 1]));
      M_terms_.add_term("rho:" + gname, std::move(targets[3 * g + 2]));
    }
    std::size_t t = 3 * ng;
    if (constant_k_) K_terms_.add_term("constant:springs", std::move(targets[t++]));
    if (constant_m_)
      M_terms_.add_term(mesh_.point_masses.empty() && mesh_.scalar_masses.empty() ? "constant:nonstructural mass"
                                                                                   : "constant:point masses",
                        std::move(targets[t]));
    K_ = K_terms_.evaluate(stiffness_theta());
    M_ = M_terms_.evaluate(mass_theta());
  } else {
    K_ = std::move(targets[0]);
    M_ = std::move(targets[1]);
  }
}

// AUTOSPC, as Nastran's PARAM,AUTOSPC,YES (MSC QRG; singularity ratio EPZERO = 1e-8): at every
// node, the 3×3 blocks of K on its translations and on its rotations are diagonalised; a direction
// n whose eigenvalue is at most 1e-8 times the block's largest diagonal term (any direction of an
// all-zero block) has no stiffness of its own and is constrained.
//
// flexuq keeps the DOF numbering (n need not be a coordinate axis, which fe::DofMap's elimination
// of single components needs) and instead gives n a mode of its own far above the structure's spectrum:
//   M ← P M P + Σ μ_n n nᵀ,   K ← K + Σ c μ_n n nᵀ,   P = I − Σ n nᵀ,
// with μ_n = max(nᵀ M n, 1e-8 max_i M_ii) the direction's mass (floored: lumped rotations have
// none) and c = 10 max_i K_ii/M_ii, the diagonal estimate of the top of the spectrum (the scale
// fe::ModeSolver uses). P removes the mass coupling between n and the free directions, so for a
// direction K does not couple either (what AUTOSPC finds) n is an exact eigenvector with
// eigenvalue c and every other mode is the one of Nastran's eliminated system. Why not μ = 0: a
// projected mass is positive semi-definite only up to rounding (±1e-17 m along a skew n), which
// breaks the B-inner product of SLEPc's symmetric solver; and why not a huge penalty: the diagonal
// ratio K_ii/M_ii sets the solver's shift and zero-mode tolerance, which c inflates at most 10×.
// In the affine terms, penalty and floor mass scale with the material of the node (see below).
void Component::apply_autospc() {
  const DofMap& d = *dofs_;
  const int dpn = d.dofs_per_node();
  autospc_.clear();
  for (int v : d.owned_nodes()) {
    if (d.is_fixed(v)) continue;
    for (int first = 0; first < dpn; first += 3) {
      // A block with a fixed component is left alone (its free directions are the support's).
      if (d.dof(v, first) < 0 || d.dof(v, first + 1) < 0 || d.dof(v, first + 2) < 0) continue;
      const PetscInt base = d.dof(v, first);
      const PetscInt rows[3] = {base, base + 1, base + 2};
      double b[9];
      FLEXUQ_PETSC(MatGetValues(K_.get(), 3, rows, 3, rows, b));
      Eigen::Matrix3d B;
      B << b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8];
      B = 0.5 * (B + B.transpose()).eval();
      const double scale = B.diagonal().cwiseAbs().maxCoeff();
      const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(B);
      for (int k = 0; k < 3; ++k)
        if (es.eigenvalues()[k] <= 1e-8 * scale) {
          AutospcDirection a;
          a.node = v;
          a.first_component = first;
          for (int j = 0; j < 3; ++j) a.n[static_cast<std::size_t>(j)] = es.eigenvectors()(j, k);
          autospc_.push_back(a);
        }
    }
  }
  autospc_global_ = allreduce_sum(comm(), static_cast<long long>(autospc_.size()));
  if (autospc_global_ == 0) return;

  // c = 10 max K_ii/M_ii over the DOFs with mass; the largest M_ii for the floor.
  double top = 0, mmax = 0;
  {
    VecH dk, dm;
    FLEXUQ_PETSC(MatCreateVecs(K_.get(), dk.out(), nullptr));
    FLEXUQ_PETSC(VecDuplicate(dk.get(), dm.out()));
    FLEXUQ_PETSC(MatGetDiagonal(K_.get(), dk.get()));
    FLEXUQ_PETSC(MatGetDiagonal(M_.get(), dm.get()));
    const PetscScalar *k = nullptr, *m = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(dk.get(), &k));
    FLEXUQ_PETSC(VecGetArrayRead(dm.get(), &m));
    for (PetscInt i = 0; i < d.local_size(); ++i) {
      mmax = std::max(mmax, std::abs(m[i]));
      if (m[i] > 0) top = std::max(top, k[i] / m[i]);
    }
    FLEXUQ_PETSC(VecRestoreArrayRead(dk.get(), &k));
    FLEXUQ_PETSC(VecRestoreArrayRead(dm.get(), &m));
    top = allreduce_max(comm(), top);
    mmax = allreduce_max(comm(), mmax);
  }
  FLEXUQ_REQUIRE(top > 0 && mmax > 0, mesh_.source << ": AUTOSPC needs a stiffness and a mass matrix with positive diagonals");
  const double c = 10 * top;

  // Affine terms: each direction's penalty and floor mass go to the material group of the node's
  // first element, divided by the group's nominal coefficients (the K term E for beams, μ for
  // solids, G for shells; the ρ term), so K(θ), M(θ) keep them at c and μ for the nominal materials and c tracks
  // the group's stiffness-to-density ratio when θ changes (a sampled E cannot move the structure's
  // modes past the constrained ones). Direct assembly: added to K and M as they are.
  const bool affine = K_terms_.size() > 0;
  std::vector<int> node_group;
  if (affine) {
    node_group.assign(mesh_.num_nodes(), -1);
    for (std::size_t e = 0; e < mesh_.num_elements(); ++e)
      for (int k = 0; k < mesh_.element_size(e); ++k) {
        int& g = node_group[static_cast<std::size_t>(mesh_.element(e)[k])];
        if (g < 0) g = elem_group_[e];
      }
  }
  const std::size_t nslots = affine ? groups_.size() : 1;
  std::vector<MatH> penalty(nslots), floor_mass(nslots);
  std::vector<char> used(nslots, 0);
  MatH P;
  FLEXUQ_PETSC(MatCreateAIJ(comm(), d.local_size(), d.local_size(), d.global_size(), d.global_size(), 3, nullptr, 0,
                            nullptr, P.out()));
  // The slots any rank uses, agreed first: MatDuplicate is collective, so every rank creates the
  // same matrices in the same order before any values are set.
  for (const auto& a : autospc_)
    used[affine ? static_cast<std::size_t>(node_group[static_cast<std::size_t>(a.node)]) : 0] = 1;
  {
    std::vector<char> any(nslots, 0);
    FLEXUQ_MPI(MPI_Allreduce(used.data(), any.data(), static_cast<int>(nslots), MPI_CHAR, MPI_MAX, comm()));
    used = any;
    for (std::size_t k = 0; k < nslots; ++k)
      if (used[k]) {
        FLEXUQ_PETSC(MatDuplicate(K_.get(), MAT_DO_NOT_COPY_VALUES, penalty[k].out()));
        FLEXUQ_PETSC(MatDuplicate(M_.get(), MAT_DO_NOT_COPY_VALUES, floor_mass[k].out()));
      }
  }
  std::map<PetscInt, Eigen::Matrix3d> proj; // first row of a 3×3 block → I − Σ n nᵀ
  for (const auto& a : autospc_) {
    const Eigen::Vector3d n(a.n[0], a.n[1], a.n[2]);
    const PetscInt r0 = d.dof(a.node, a.first_component); // the block's 3 DOFs are free, hence consecutive
    const PetscInt rows[3] = {r0, r0 + 1, r0 + 2};
    double mb[9];
    FLEXUQ_PETSC(MatGetValues(M_.get(), 3, rows, 3, rows, mb));
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Mb(mb);
    const double mu = std::max(n.dot(Mb * n), 1e-8 * mmax);
    const std::size_t slot = affine ? static_cast<std::size_t>(node_group[static_cast<std::size_t>(a.node)]) : 0;
    double ks = 1, ms = 1; // nominal coefficients of the slot's K and M terms
    if (affine) {
      const auto& g = groups_[slot];
      ks = g.beam ? g.material.E : g.material.mu();
      ms = g.material.rho;
    }
    const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> nn = n * n.transpose();
    const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> pen = (c * mu / ks) * nn, fl = (mu / ms) * nn;
    FLEXUQ_PETSC(MatSetValues(penalty[slot].get(), 3, rows, 3, rows, pen.data(), ADD_VALUES));
    FLEXUQ_PETSC(MatSetValues(floor_mass[slot].get(), 3, rows, 3, rows, fl.data(), ADD_VALUES));
    auto it = proj.emplace(r0, Eigen::Matrix3d::Identity()).first;
    it->second -= n * n.transpose();
  }
  for (PetscInt r = d.begin(); r < d.end(); ++r) {
    // The block holding row r starts at r0 ≤ r < r0 + 3 (single fixed components shift the blocks
    // off multiples of 3).
    auto it = proj.upper_bound(r);
    if (it != proj.begin()) --it;
    if (it == proj.end() || r < it->first || r >= it->first + 3) {
      FLEXUQ_PETSC(MatSetValue(P.get(), r, r, 1.0, INSERT_VALUES));
      continue;
    }
    const PetscInt r0 = it->first, cols[3] = {r0, r0 + 1, r0 + 2};
    const Eigen::Vector3d row = it->second.row(r - r0);
    FLEXUQ_PETSC(MatSetValues(P.get(), 1, &r, 3, cols, row.data(), INSERT_VALUES));
  }
  std::vector<Mat> to_assemble{P.get()};
  for (std::size_t k = 0; k < nslots; ++k)
    if (used[k]) {
      to_assemble.push_back(penalty[k].get());
      to_assemble.push_back(floor_mass[k].get());
    }
  for (Mat A : to_assemble) {
    FLEXUQ_PETSC(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  // M ← P M P in place (the product's pattern lies inside M's: P only mixes a node's 3 DOFs).
  auto project = [&](Mat M) {
    MatH C;
    FLEXUQ_PETSC(MatPtAP(M, P.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, C.out()));
    FLEXUQ_PETSC(MatCopy(C.get(), M, DIFFERENT_NONZERO_PATTERN));
  };
  if (affine) {
    for (std::size_t t = 0; t < M_terms_.size(); ++t) project(M_terms_.term(t));
    for (std::size_t g = 0; g < nslots; ++g) {
      if (!used[g]) continue;
      const std::size_t kt = 2 * g + (groups_[g].beam ? 0 : 1);
      FLEXUQ_PETSC(MatAXPY(K_terms_.term(kt), 1.0, penalty[g].get(), SAME_NONZERO_PATTERN));
      FLEXUQ_PETSC(MatAXPY(M_terms_.term(g), 1.0, floor_mass[g].get(), SAME_NONZERO_PATTERN));
    }
    K_terms_.evaluate_into(stiffness_theta(), K_.get());
    M_terms_.evaluate_into(mass_theta(), M_.get());
  } else {
    project(M_.get());
    FLEXUQ_PETSC(MatAXPY(K_.get(), 1.0, penalty[0].get(), SAME_NONZERO_PATTERN));
    FLEXUQ_PETSC(MatAXPY(M_.get(), 1.0, floor_mass[0].get(), SAME_NONZERO_PATTERN));
  }
  std::ostringstream os;
  os << mesh_.source << ": AUTOSPC constrained " << autospc_global_
     << " DOF direction(s) without stiffness (each now a mode of its own at " << std::sqrt(c) / (2 * M_PI)
     << " Hz, far above the structure's; PARAM,AUTOSPC,NO in the deck turns this off)";
  log::warn(comm(), os.str());
}

void Component::set_materials(const std::vector<IsoMaterial>& materials) {
  FLEXUQ_REQUIRE(K_terms_.size() > 0, "set_materials needs a component assembled with keep_affine");
  FLEXUQ_REQUIRE(materials.size() == groups_.size(),
                 "set_materials: " << materials.size() << " materials for " << groups_.size() << " groups");
  for (std::size_t g = 0; g < groups_.size(); ++g) groups_[g].material = materials[g];
  K_terms_.evaluate_into(stiffness_theta(), K_.get());
  M_terms_.evaluate_into(mass_theta(), M_.get());
}

} // namespace flexuq::fe
