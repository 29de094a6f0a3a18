// SPDX-License-Identifier: MIT
#pragma once
/// @file MassProperties.hpp
/// @brief The physical checks of a rigid body's mass properties, made before any solve (a massless
/// body the joints hold is allowed; the saddle matrix's rank test names it otherwise).

#include "flexuq/mbs/Body.hpp"

namespace flexuq::mbs {

/// Mass finite and >= 0; inertia finite, symmetric, positive semi-definite and within the triangle
/// inequality of its principal moments. @throws OptionError naming the field ("mass" or "inertia").
void check_mass_properties(const RigidBody& body);

} // namespace flexuq::mbs
