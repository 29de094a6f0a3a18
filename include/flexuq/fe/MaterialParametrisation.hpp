// SPDX-License-Identifier: MIT
#pragma once
/// @file MaterialParametrisation.hpp
/// @brief Uncertain material parameters θ → per-group isotropic materials → the affine coefficients
/// of K(θ) and M(θ). One parameter acts on one material property (E, ν, ρ, or the shear and bulk
/// moduli G, C of seed 000) of every element, or of one element set. This is the map a sampling
/// campaign applies per sample and a stochastic Galerkin solver expands: both get the same
/// coefficients from coefficients(θ), in the order of Component::stiffness_terms()/mass_terms().
///
/// (G, C) parametrisation (seed 000, eqs. 7.1–7.3): when a group has G or C among its parameters,
/// its E and ν follow from both, E = 9CG/(3C+G), ν = (3C−2G)/(6C+2G), the other one taken from the
/// nominal material (C = E/(3(1−2ν)), G = E/(2(1+ν))). With G and C sampled independently ν can
/// leave [0, 0.5]: the Poisson guard rejects G > 1.5·C (ν < 0) with an InputError naming the
/// values (ν < 0.5 always holds for G > 0).

#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/Material.hpp"

#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace flexuq::fe {

/// The material property a parameter sets.
enum class MaterialProperty { E, nu, rho, G, C };

/// "E", "nu", "rho", "G", "C" → the property; throws InputError naming @p context otherwise.
MaterialProperty material_property(const std::string& name, const std::string& context);
const char* to_string(MaterialProperty p);

/// One uncertain parameter: which property, and where (an element set, or every element).
struct MaterialParameter {
  std::string name;                 ///< for messages (the campaign's parameter name)
  MaterialProperty property = MaterialProperty::E;
  std::optional<std::string> element_set; ///< nullopt: every material group of the component
};

/// @brief θ → materials → affine coefficients, for one component.
class MaterialParametrisation {
public:
  struct Coefficients {
    std::vector<double> stiffness, mass;
  };
  /// Resolve each parameter's element set to the material groups of @p c. A set must own its
  /// groups: every group holding an element of the set holds no element outside it (a set given
  /// its own material under model.materials does). Throws InputError otherwise, or for an unknown
  /// set. The component's current materials are the nominal ones (properties no parameter sets).
  MaterialParametrisation(const Component& c, std::vector<MaterialParameter> params);

  std::size_t size() const { return params_.size(); }
  const std::vector<MaterialParameter>& parameters() const { return params_; }
  /// Material groups parameter @p p acts on (indices into Component::groups()).
  const std::vector<int>& groups_of(std::size_t p) const { return groups_[p]; }
  const std::vector<IsoMaterial>& nominal() const { return nominal_; }
  /// Number of stiffness and mass coefficients (with the component's constant terms, if any).
  int n_stiffness_terms() const { return 2 * static_cast<int>(nominal_.size()) + (constant_k_ ? 1 : 0); }
  int n_mass_terms() const { return static_cast<int>(nominal_.size()) + (constant_m_ ? 1 : 0); }
  /// The coefficients of the nominal materials (the component's at construction).
  Coefficients nominal_coefficients() const;

  /// Per-group materials at @p theta (one value per parameter), checked (E > 0, 0 ≤ ν < 0.5,
  /// ρ > 0, the Poisson guard for G, C). Throws InputError naming the group's material.
  std::vector<IsoMaterial> materials(const std::vector<double>& theta) const;

  /// Affine coefficients at @p theta: stiffness (two per group: λ, μ for solids, E, G for beams,
  /// E/(1−ν), G for shells) and mass (ρ per group), in the order of the component's affine terms,
  /// each followed by 1 for the component's constant term (springs, AUTOSPC; concentrated masses,
  /// nonstructural mass) when it has one.
  Coefficients coefficients(const std::vector<double>& theta) const;

  /// True when every θ only scales the whole K and the whole M: K(θ) = a(θ) K(θ0), M(θ) = b(θ) M(θ0)
  /// for any θ, θ0: proportional_terms() has a single stiffness set and a single mass set. That
  /// holds when every group takes its E, and its ρ, from the same parameter (or none) and no
  /// parameter sets ν, G or C (they change λ/μ), and no parameter-free term (springs, AUTOSPC,
  /// concentrated masses) sits beside a scaled operator.
  bool scales_uniformly() const;
  /// a = K(θ)/K(θ0) and b = M(θ)/M(θ0) when scales_uniformly() (Error otherwise): the ratios of
  /// E and of ρ, which every group shares. Both θ are checked like materials().
  std::pair<double, double> scale_factors(const std::vector<double>& theta, const std::vector<double>& theta0) const;

  /// The affine terms (in the component's order) whose coefficients stay proportional for every θ,
  /// as sets for Component::merge_affine_terms. λ_g and μ_g (E_g and G_g for beams) are
  /// proportional unless a parameter sets ν, G or C of group g; the terms of groups whose E comes
  /// from the same parameter (or from none: constant) are proportional, and so are the mass terms of
  /// groups whose ρ comes from the same parameter (the last one in parameter order that acts on the
  /// group, as materials() applies them); the constant spring (point-mass) term joins the constant
  /// set. Sets in order of their first term.
  struct TermSets {
    std::vector<std::vector<std::size_t>> stiffness, mass;
  };
  TermSets proportional_terms() const;

  /// K(θ), M(θ) of @p c re-evaluated in place (needs keep_affine). @note Collective.
  void apply(Component& c, const std::vector<double>& theta) const;

private:
  std::vector<MaterialParameter> params_;
  std::vector<std::vector<int>> groups_;
  std::vector<IsoMaterial> nominal_;
  std::vector<char> beam_, shell_;
  bool constant_k_ = false, constant_m_ = false;
};

} // namespace flexuq::fe
