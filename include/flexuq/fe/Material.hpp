// SPDX-License-Identifier: MIT
#pragma once
/// @file Material.hpp
/// @brief Isotropic linear elasticity: (E, ν) or (G, C) input, the seed-000 conversion and checks.

#include "flexuq/io/Mesh.hpp"

#include <string>

namespace flexuq::fe {

/// Young's modulus from shear modulus G and bulk modulus C: E = 9CG/(3C+G) (seed 000, eq. 7.1).
double youngs_from_shear_bulk(double G, double C);
/// Poisson's ratio from G and C: ν = (3C−2G)/(6C+2G) (seed 000, eq. 7.2).
double poisson_from_shear_bulk(double G, double C);

/// @brief A checked isotropic material. Lamé parameters λ = Eν/((1+ν)(1−2ν)), μ = G = E/(2(1+ν)).
struct IsoMaterial {
  std::string name;
  double E = 0, nu = 0, rho = 0;
  double lambda() const { return E * nu / ((1 + nu) * (1 - 2 * nu)); }
  double mu() const { return E / (2 * (1 + nu)); }
  double G() const { return mu(); }

  /// From the input record: needs rho and either (E, nu) or (G, C). Checks E > 0, rho > 0 and
  /// 0 ≤ ν < 0.5 (ν = 0.5 is incompressible: λ is infinite and displacement elements lock).
  /// Throws InputError naming the material and where it was defined.
  static IsoMaterial from_input(const io::Material& m);
  /// Same checks on plain values; @p context names the material or sample in messages.
  static IsoMaterial checked(const std::string& context, double E, double nu, double rho);
};

} // namespace flexuq::fe
