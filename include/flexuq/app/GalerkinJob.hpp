// SPDX-License-Identifier: MIT
#pragma once
/// @file GalerkinJob.hpp
/// @brief The `method.galerkin.*` (and `reduce.stochastic.galerkin.*`) keys of a job file → the
/// typed Galerkin options; `flexuq campaign` with `method.type: galerkin` → workflow::GalerkinJob
/// (run by workflow::run_galerkin_campaign).

#include "flexuq/config/Config.hpp"
#include "flexuq/workflow/GalerkinCampaign.hpp"

namespace flexuq::app {

/// The keys of one Galerkin solve under @p key (`method.galerkin` or `reduce.stochastic.galerkin`):
/// order, operator_order, solver, normalization, tol, max_it, guard, rayleigh_ritz, preconditioner, assemble,
/// memory_limit_mb,
/// regression.{samples, seed} (default seed @p seed). Throws InputError naming the key.
void galerkin_keys(const io::Config& cfg, const std::string& key, std::uint64_t seed, sg::EigenOptions& e,
                   sg::ExpansionOptions& x);

/// Read the `method.galerkin.*`, `outputs.frequencies` and `model.*` keys of @p cfg (the rest of
/// the campaign keys are in @p o). Not collective (every rank reads the mesh).
workflow::GalerkinJob galerkin_job(const io::Config& cfg, const campaign::CampaignOptions& o);

} // namespace flexuq::app
