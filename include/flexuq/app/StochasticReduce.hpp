// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticReduce.hpp
/// @brief `flexuq reduce` with `parameters:` and `reduce.stochastic`: a stochastic Craig–Bampton
/// (or Herting, Hurty, …) body by collocation or regression. Every point is a full reduction on a
/// group of `campaign.ranks_per_sample` ranks, scheduled, journaled and resumable by the campaign
/// engine (campaign::run_campaign with cms::StochasticBodyModel); the expansions are fitted at the
/// end (cms::fit_stochastic_body) and written beside the campaign layout. `flexuq body-at` rebuilds a
/// deterministic body from the file. Keys: docs/config.md; theory: docs/stochastic-cb.md.

#include "flexuq/io/Config.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::app {

/// @note Collective. @p resume continues the run journaled in `<output>.journal`.
void run_stochastic_reduce(MPI_Comm comm, const io::Config& cfg, bool resume);

/// `flexuq body-at file.h5 --set E=2.05e11 [--set xi.rho=0.5] -o at.h5`: the deterministic body at
/// the given parameters (unset ones at their means; `xi.NAME` gives a germ value) with the `/reduced`
/// layout of `flexuq reduce` (and /mesh copied). @note Collective.
void run_body_at(MPI_Comm comm, const std::string& stochastic_file, const std::vector<std::string>& settings,
                 const std::string& output);

} // namespace flexuq::app
