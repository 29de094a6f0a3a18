// SPDX-License-Identifier: MIT
#include "flexuq/mbs/MassProperties.hpp"

#include "flexuq/core/Error.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <sstream>

namespace flexuq::mbs {

void check_mass_properties(const RigidBody& body) {
  FLEXUQ_REQUIRE_OPTION(std::isfinite(body.mass) && body.mass >= 0, "mass",
                        "must be finite and >= 0, got " << std::to_string(body.mass));
  FLEXUQ_REQUIRE_OPTION(body.inertia.allFinite(), "inertia", "must be finite");
  const Mat3& I = body.inertia;
  const double scale = I.cwiseAbs().maxCoeff();
  FLEXUQ_REQUIRE_OPTION((I - I.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * scale, "inertia",
                        "is not symmetric (Ixy = Iyx, Iyz = Izy, Ixz = Izx)");
  const Eigen::Vector3d pm = Eigen::SelfAdjointEigenSolver<Mat3>(I).eigenvalues();
  const double tol = 1e-9 * scale;
  FLEXUQ_REQUIRE_OPTION(pm(0) >= -tol, "inertia",
                        "is not positive semi-definite (principal moment " << std::to_string(pm(0)) << ")");
  FLEXUQ_REQUIRE_OPTION(pm(2) <= pm(0) + pm(1) + tol, "inertia",
                        "violates the triangle inequality: principal moments "
                            << pm(0) << ", " << pm(1) << ", " << pm(2)
                            << " (each must be at most the sum of the other two for a real mass distribution)");
}

} // namespace flexuq::mbs
