// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticReduce.hpp
/// @brief `flexuq reduce` with `parameters:` and `reduce.stochastic`: the job file → a
/// workflow::StochasticBodyJob (every key and cross-option check, before any work), run by
/// workflow::run_stochastic_body. Keys: docs/config.md; theory: docs/stochastic-cb.md.

#include "flexuq/config/Config.hpp"
#include "flexuq/pod/Truncation.hpp"
#include "flexuq/workflow/StochasticBody.hpp"

#include <mpi.h>

namespace flexuq::app {

/// `reduce.stochastic.pod`: exactly one of energy (lost energy fraction in [0, 1)), sigma_ratio
/// (σ_i/σ_1 kept above, in [0, 1)) or rank (a positive integer); absent: energy 1e-10. Throws
/// InputError naming the file and key otherwise (before any work).
pod::Truncation pod_truncation(const io::Config& cfg);
/// A truncation map at key @p key ({energy: ε}, {sigma_ratio: τ} or {rank: r}); @p fallback when absent.
pod::Truncation truncation_at(const io::Config& cfg, const std::string& key, const pod::Truncation& fallback);

/// The whole stochastic reduce job parsed and checked (Config::check_all_used included); reads or
/// generates the mesh and checks that the output names no input. @note Collective.
workflow::StochasticBodyJob stochastic_reduce_job(MPI_Comm comm, const io::Config& cfg);

/// Parse, then workflow::run_stochastic_body. @note Collective. @p resume continues the run
/// journaled in `<output>.journal`.
void run_stochastic_reduce(MPI_Comm comm, const io::Config& cfg, bool resume);

} // namespace flexuq::app
