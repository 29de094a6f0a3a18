// SPDX-License-Identifier: MIT
#include "flexuq/fe/Material.hpp"

#include "flexuq/core/Error.hpp"

#include <cmath>

namespace flexuq::fe {

double youngs_from_shear_bulk(double G, double C) { return 9.0 * C * G / (3.0 * C + G); }
double poisson_from_shear_bulk(double G, double C) { return (3.0 * C - 2.0 * G) / (6.0 * C + 2.0 * G); }

IsoMaterial IsoMaterial::checked(const std::string& context, double E, double nu, double rho) {
  FLEXUQ_REQUIRE(std::isfinite(E) && E > 0, context << ": Young's modulus must be positive, got E = " << E);
  FLEXUQ_REQUIRE(std::isfinite(nu) && nu >= 0.0 && nu <= 0.5,
                 context << ": Poisson's ratio must lie in [0, 0.5], got nu = " << nu);
  FLEXUQ_REQUIRE(nu < 0.5, context << ": nu = 0.5 (incompressible) cannot be represented by displacement elements "
                                      "(the Lame parameter lambda is infinite); use nu < 0.5");
  FLEXUQ_REQUIRE(std::isfinite(rho) && rho > 0, context << ": density must be positive, got rho = " << rho);
  IsoMaterial m;
  m.name = context;
  m.E = E;
  m.nu = nu;
  m.rho = rho;
  return m;
}

IsoMaterial IsoMaterial::from_input(const io::Material& in) {
  const std::string ctx = "material " + in.name + (in.where.file.empty() ? "" : " (" + in.where.str() + ")");
  FLEXUQ_REQUIRE(in.rho.has_value(), ctx << ": no density given");
  double E = 0, nu = 0;
  if (in.E && in.nu) {
    E = *in.E;
    nu = *in.nu;
  } else if (in.G && in.C) {
    FLEXUQ_REQUIRE(*in.G > 0 && *in.C > 0, ctx << ": shear and bulk moduli must be positive");
    E = youngs_from_shear_bulk(*in.G, *in.C);
    nu = poisson_from_shear_bulk(*in.G, *in.C);
  } else {
    throw InputError(ctx + ": give either (E, nu) or (G, C) (shear and bulk modulus)");
  }
  IsoMaterial m = checked(ctx, E, nu, *in.rho);
  m.name = in.name;
  return m;
}

} // namespace flexuq::fe
