// SPDX-License-Identifier: MIT
#include "flexuq/fe/Component.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/Element.hpp"

#include <chrono>

namespace flexuq::fe {

std::array<double, 2> MaterialGroup::stiffness_coefficients() const {
  if (beam) return {material.E, material.G()};
  return {material.lambda(), material.mu()};
}

std::vector<double> Component::stiffness_theta(const std::vector<MaterialGroup>& groups) {
  std::vector<double> t;
  for (const auto& g : groups) {
    const auto c = g.stiffness_coefficients();
    t.push_back(c[0]);
    t.push_back(c[1]);
  }
  return t;
}

std::vector<double> Component::mass_theta(const std::vector<MaterialGroup>& groups) {
  std::vector<double> t;
  for (const auto& g : groups) t.push_back(g.material.rho);
  return t;
}

std::vector<double> Component::stiffness_theta() const {
  return external_ ? external_k_theta_ : stiffness_theta(groups_);
}
std::vector<double> Component::mass_theta() const { return external_ ? external_m_theta_ : mass_theta(groups_); }

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
  for (std::size_t e = 0; e < ne; ++e) {
    std::string& name = elem_mat[e];
    if (name.empty()) {
      FLEXUQ_REQUIRE(opt.default_material.has_value(),
                     mesh_.source << ": no material for element " << mesh_.elem_ids[e]
                                  << " (no section assigns one and the job gives no model.material)");
      name = "DEFAULT";
    }
    if (!materials.count(name)) {
      if (name == "DEFAULT" && opt.default_material) {
        materials["DEFAULT"] = *opt.default_material;
        if (materials["DEFAULT"].name.empty()) materials["DEFAULT"].name = "model.material";
      } else {
        const auto& sec = mesh_.sections[elem_section_[e]];
        throw InputError(sec.where.str() + ": section references material '" + sec.material +
                         "', which is not defined" +
                         (sec.material == "DEFAULT" ? " (give model.material in the job)" : ""));
      }
    }
    const bool beam = !io::is_solid(mesh_.elem_type[e]);
    FLEXUQ_REQUIRE(!beam || (elem_section_[e] >= 0 && mesh_.sections[elem_section_[e]].beam),
                   mesh_.source << ": beam element " << mesh_.elem_ids[e] << " has no *BEAM SECTION");
  }
  // --- groups in first-appearance order (deterministic on every rank) ---
  std::map<std::string, int> group_of;
  elem_group_.assign(ne, -1);
  for (std::size_t e = 0; e < ne; ++e) {
    auto it = group_of.find(elem_mat[e]);
    if (it == group_of.end()) {
      MaterialGroup g;
      g.material = IsoMaterial::from_input(materials[elem_mat[e]]);
      g.beam = !io::is_solid(mesh_.elem_type[e]);
      it = group_of.emplace(elem_mat[e], static_cast<int>(groups_.size())).first;
      groups_.push_back(g);
    }
    elem_group_[e] = it->second;
  }

  // --- fixed nodes ---
  std::vector<int> fixed;
  for (const auto& name : opt.fixed_sets) {
    const auto& nodes = mesh_.node_set(name);
    FLEXUQ_REQUIRE(!nodes.empty(), mesh_.source << ": fixed node set '" << name << "' is empty");
    fixed.insert(fixed.end(), nodes.begin(), nodes.end());
    fixed_sets_.push_back(io::upper(name));
  }
  std::sort(fixed.begin(), fixed.end());
  fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
  n_fixed_nodes_ = fixed.size();

  dofs_ = std::make_unique<DofMap>(comm, mesh_, dpn, fixed, opt.partitioner);
  const auto t0 = std::chrono::steady_clock::now();
  assemble(opt.keep_affine);
  assembly_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {
MatH create_pattern(const DofMap& d) {
  MatH A;
  FLEXUQ_PETSC(MatCreate(d.comm(), A.out()));
  FLEXUQ_PETSC(MatSetSizes(A.get(), d.local_size(), d.local_size(), d.global_size(), d.global_size()));
  FLEXUQ_PETSC(MatSetType(A.get(), MATAIJ));
  FLEXUQ_PETSC(MatSetBlockSize(A.get(), d.dofs_per_node()));
  FLEXUQ_PETSC(MatSeqAIJSetPreallocation(A.get(), 0, d.d_nnz().data()));
  FLEXUQ_PETSC(MatMPIAIJSetPreallocation(A.get(), 0, d.d_nnz().data(), 0, d.o_nnz().data()));
  FLEXUQ_PETSC(MatSetOption(A.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
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
  std::vector<double> buf;
  auto element_indices = [&](std::size_t e) {
    const int n = mesh_.element_size(e);
    idx.resize(static_cast<std::size_t>(n * dpn));
    for (int a = 0; a < n; ++a) {
      const PetscInt base = d.node_dof(mesh_.element(e)[a]);
      for (int c = 0; c < dpn; ++c) idx[static_cast<std::size_t>(a * dpn + c)] = base < 0 ? -1 : base + c;
    }
  };
  MatH pattern;
  if (keep_affine) {
    // Pattern pass: zeros for every element, so all term matrices share one nonzero structure
    // even when a term (a material group) touches only part of the mesh.
    pattern = create_pattern(d);
    for (int e : d.local_elements()) {
      element_indices(static_cast<std::size_t>(e));
      buf.assign(idx.size() * idx.size(), 0.0);
      FLEXUQ_PETSC(MatSetValues(pattern.get(), static_cast<PetscInt>(idx.size()), idx.data(),
                                static_cast<PetscInt>(idx.size()), idx.data(), buf.data(), ADD_VALUES));
    }
    FLEXUQ_PETSC(MatAssemblyBegin(pattern.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(pattern.get(), MAT_FINAL_ASSEMBLY));
  }
  auto add_target = [&](std::vector<std::array<double, 3>> w) {
    MatH A;
    if (pattern)
      FLEXUQ_PETSC(MatDuplicate(pattern.get(), MAT_COPY_VALUES, A.out()));
    else
      A = create_pattern(d); // direct K and M: every element adds to both, so their patterns agree
    targets.push_back(std::move(A));
    weight.push_back(std::move(w));
  };
  if (keep_affine) {
    for (std::size_t g = 0; g < ng; ++g)
      for (int k = 0; k < 3; ++k) {
        std::vector<std::array<double, 3>> w(ng, {0, 0, 0});
        w[g][k] = 1.0;
        add_target(w);
      }
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
  pattern.reset();

  ElemMat T0, T1, TM;
  std::vector<double> X;
  for (int e : d.local_elements()) {
    const auto ue = static_cast<std::size_t>(e);
    const int n = mesh_.element_size(ue);
    element_indices(ue);
    X.resize(static_cast<std::size_t>(3 * n));
    for (int a = 0; a < n; ++a)
      for (int k = 0; k < 3; ++k) X[static_cast<std::size_t>(3 * a + k)] = mesh_.coords[mesh_.element(ue)[a]][k];
    if (io::is_solid(mesh_.elem_type[ue])) {
      auto t = [&] {
        try {
          return solid_terms(mesh_.elem_type[ue], X.data(), mesh_.elem_ids[ue]);
        } catch (const InputError& e) {
          throw InputError(mesh_.source + ": " + e.what());
        }
      }();
      T0 = std::move(t.K_lambda);
      T1 = std::move(t.K_mu);
      TM = std::move(t.M1);
    } else {
      auto t = beam_terms(mesh_.coords[mesh_.element(ue)[0]], mesh_.coords[mesh_.element(ue)[1]],
                          mesh_.sections[elem_section_[ue]].beam_section, mesh_.elem_ids[ue]);
      T0 = std::move(t.K_E);
      T1 = std::move(t.K_G);
      TM = std::move(t.M1);
    }
    const int g = elem_group_[ue];
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const auto& w = weight[t][static_cast<std::size_t>(g)];
      if (w[0] == 0 && w[1] == 0 && w[2] == 0) continue;
      ElemMat B = w[0] * T0 + w[1] * T1 + w[2] * TM;
      FLEXUQ_PETSC(MatSetValues(targets[t].get(), static_cast<PetscInt>(idx.size()), idx.data(),
                                static_cast<PetscInt>(idx.size()), idx.data(), B.data(), ADD_VALUES));
    }
  }
  for (auto& A : targets) {
    FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRIC, PETSC_TRUE));
    FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
  if (keep_affine) {
    for (std::size_t g = 0; g < ng; ++g) {
      const std::string gname = groups_[g].material.name;
      const bool beam = groups_[g].beam;
      K_terms_.add_term((beam ? "E:" : "lambda:") + gname, std::move(targets[3 * g + 0]));
      K_terms_.add_term((beam ? "G:" : "mu:") + gname, std::move(targets[3 * g + 1]));
      M_terms_.add_term("rho:" + gname, std::move(targets[3 * g + 2]));
    }
    K_ = K_terms_.evaluate(stiffness_theta());
    M_ = M_terms_.evaluate(mass_theta());
  } else {
    K_ = std::move(targets[0]);
    M_ = std::move(targets[1]);
  }
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
