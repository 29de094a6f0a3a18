// SPDX-License-Identifier: MIT
#include "flexuq/fe/MaterialParametrisation.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace flexuq::fe {

MaterialProperty material_property(const std::string& name, const std::string& context) {
  if (name == "E") return MaterialProperty::E;
  if (name == "nu") return MaterialProperty::nu;
  if (name == "rho") return MaterialProperty::rho;
  if (name == "G") return MaterialProperty::G;
  if (name == "C") return MaterialProperty::C;
  throw InputError(context + " must be one of E, nu, rho, G, C (or give param: E|nu|rho|G|C)");
}

const char* to_string(MaterialProperty p) {
  switch (p) {
  case MaterialProperty::E: return "E";
  case MaterialProperty::nu: return "nu";
  case MaterialProperty::rho: return "rho";
  case MaterialProperty::G: return "G";
  case MaterialProperty::C: return "C";
  }
  return "?";
}

MaterialParametrisation::MaterialParametrisation(const Component& c, std::vector<MaterialParameter> params)
    : params_(std::move(params)), constant_k_(c.has_constant_stiffness()), constant_m_(c.has_constant_mass()) {
  const auto& groups = c.groups();
  for (const auto& g : groups) {
    nominal_.push_back(g.material);
    beam_.push_back(g.beam ? 1 : 0);
    shell_.push_back(g.shell ? 1 : 0);
  }
  const auto& elem_group = c.element_group();
  for (const auto& p : params_) {
    std::vector<int> gs;
    if (!p.element_set) {
      for (std::size_t g = 0; g < groups.size(); ++g) gs.push_back(static_cast<int>(g));
    } else {
      // The groups of the set's elements; each must lie inside the set, or the parameter would
      // change elements outside it.
      const auto& elems = c.mesh().element_set(*p.element_set);
      std::set<int> in_set(elems.begin(), elems.end()), touched;
      for (int e : elems) touched.insert(elem_group[static_cast<std::size_t>(e)]);
      bool owned = !touched.empty();
      for (std::size_t e = 0; e < elem_group.size() && owned; ++e)
        if (touched.count(elem_group[e]) && !in_set.count(static_cast<int>(e))) owned = false;
      FLEXUQ_REQUIRE_OPTION(owned, "component.set_materials",
                            "parameter " << p.name << " acts on element set '" << *p.element_set
                                         << "', which has no material of its own: give it one under {}."
                                         << *p.element_set);
      gs.assign(touched.begin(), touched.end());
    }
    groups_.push_back(std::move(gs));
  }
}

std::vector<IsoMaterial> MaterialParametrisation::materials(const std::vector<double>& theta) const {
  FLEXUQ_REQUIRE(theta.size() == params_.size(),
                 "material parametrisation: " << theta.size() << " values for " << params_.size() << " parameters");
  std::vector<IsoMaterial> mats = nominal_;
  const std::size_t ng = mats.size();
  std::vector<double> G(ng), C(ng);
  std::vector<char> gc(ng, 0);
  for (std::size_t g = 0; g < ng; ++g) {
    G[g] = mats[g].G();
    C[g] = mats[g].E / (3 * (1 - 2 * mats[g].nu));
  }
  for (std::size_t p = 0; p < params_.size(); ++p)
    for (int g : groups_[p]) {
      switch (params_[p].property) {
      case MaterialProperty::E: mats[g].E = theta[p]; break;
      case MaterialProperty::nu: mats[g].nu = theta[p]; break;
      case MaterialProperty::rho: mats[g].rho = theta[p]; break;
      case MaterialProperty::G: G[g] = theta[p]; gc[g] = 1; break;
      case MaterialProperty::C: C[g] = theta[p]; gc[g] = 1; break;
      }
    }
  for (std::size_t g = 0; g < ng; ++g) {
    const std::string context = "material " + nominal_[g].name;
    if (gc[g]) {
      FLEXUQ_REQUIRE(G[g] > 0 && C[g] > 0, "shear and bulk moduli must be positive (G = " << G[g] << ", C = " << C[g] << ")");
      // Poisson guard (seed 000, eq. 7.3): ν = (3C − 2G)/(6C + 2G) ≥ 0 ⇔ G ≤ 1.5 C.
      FLEXUQ_REQUIRE(G[g] <= 1.5 * C[g], context << ": shear modulus G = " << G[g] << " exceeds 1.5 x bulk modulus C = "
                                                 << C[g] << ", so Poisson's ratio would be negative (nu = "
                                                 << poisson_from_shear_bulk(G[g], C[g]) << " < 0)");
      mats[g].E = youngs_from_shear_bulk(G[g], C[g]);
      mats[g].nu = poisson_from_shear_bulk(G[g], C[g]);
    }
    mats[g] = IsoMaterial::checked(context, mats[g].E, mats[g].nu, mats[g].rho);
  }
  return mats;
}

MaterialParametrisation::Coefficients MaterialParametrisation::coefficients(const std::vector<double>& theta) const {
  const auto mats = materials(theta);
  std::vector<MaterialGroup> groups(mats.size());
  for (std::size_t g = 0; g < mats.size(); ++g) {
    groups[g].material = mats[g];
    groups[g].beam = beam_[g] != 0;
    groups[g].shell = shell_[g] != 0;
  }
  return {Component::stiffness_theta(groups, constant_k_), Component::mass_theta(groups, constant_m_)};
}

MaterialParametrisation::Coefficients MaterialParametrisation::nominal_coefficients() const {
  std::vector<MaterialGroup> groups(nominal_.size());
  for (std::size_t g = 0; g < nominal_.size(); ++g) {
    groups[g].material = nominal_[g];
    groups[g].beam = beam_[g] != 0;
    groups[g].shell = shell_[g] != 0;
  }
  return {Component::stiffness_theta(groups, constant_k_), Component::mass_theta(groups, constant_m_)};
}

bool MaterialParametrisation::scales_uniformly() const {
  // K(θ) ∝ K(θ0) and M(θ) ∝ M(θ0) exactly when every term stays proportional to every other one.
  const auto t = proportional_terms();
  return t.stiffness.size() == 1 && t.mass.size() == 1;
}

std::pair<double, double> MaterialParametrisation::scale_factors(const std::vector<double>& theta,
                                                                 const std::vector<double>& theta0) const {
  FLEXUQ_REQUIRE(scales_uniformly(), "material parametrisation: the parameters do not scale K and M uniformly");
  const auto m = materials(theta), m0 = materials(theta0);
  if (m.empty()) return {1.0, 1.0};
  // Every group has the same E (the last E parameter's value) and the same ρ, or its nominal ones
  // when no parameter sets them (ratio 1); group 0 stands for all.
  return {m[0].E / m0[0].E, m[0].rho / m0[0].rho};
}

MaterialParametrisation::TermSets MaterialParametrisation::proportional_terms() const {
  const std::size_t ng = nominal_.size();
  std::vector<int> e_src(ng, -1), rho_src(ng, -1);
  std::vector<char> fixed_ratio(ng, 1);
  for (std::size_t p = 0; p < params_.size(); ++p)
    for (int g : groups_[p]) switch (params_[p].property) {
      case MaterialProperty::E: e_src[g] = static_cast<int>(p); break;
      case MaterialProperty::rho: rho_src[g] = static_cast<int>(p); break;
      default: fixed_ratio[g] = 0; break; // nu, G, C change lambda/mu (and E)
      }
  // key → set, in order of first appearance; key −2 − term: a term of its own.
  const auto group_by = [](const std::vector<std::pair<long, std::size_t>>& keyed) {
    std::vector<std::vector<std::size_t>> sets;
    std::vector<long> keys;
    for (const auto& [key, term] : keyed) {
      const auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end() || key <= -2) {
        keys.push_back(key);
        sets.push_back({term});
      } else {
        sets[static_cast<std::size_t>(it - keys.begin())].push_back(term);
      }
    }
    return sets;
  };
  std::vector<std::pair<long, std::size_t>> k, m;
  for (std::size_t g = 0; g < ng; ++g) {
    for (std::size_t t = 2 * g; t < 2 * g + 2; ++t)
      k.emplace_back(fixed_ratio[g] ? static_cast<long>(e_src[g]) : -2 - static_cast<long>(t), t);
    m.emplace_back(static_cast<long>(rho_src[g]), g);
  }
  if (constant_k_) k.emplace_back(-1L, 2 * ng);
  if (constant_m_) m.emplace_back(-1L, ng);
  return {group_by(k), group_by(m)};
}

void MaterialParametrisation::apply(Component& c, const std::vector<double>& theta) const {
  c.set_materials(materials(theta));
}

} // namespace flexuq::fe
