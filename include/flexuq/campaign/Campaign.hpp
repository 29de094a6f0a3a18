// SPDX-License-Identifier: MIT
#pragma once
/// @file Campaign.hpp
/// @brief Sampling campaigns: the world is split into groups of `ranks_per_sample` ranks; each
/// group builds its model with the job's ModelFactory, takes samples dynamically (an atomic counter
/// in an MPI window), evaluates them on its own sub-communicator, and appends each finished sample
/// to the journal (Journal.hpp) so a killed run resumes without redoing or losing anything.
/// Statistics, PCE and Sobol' indices are computed at the end from all records, in sample order
/// (Results.hpp), so the results do not depend on the number of ranks or on interruptions.
///
/// The campaign knows models only through core/Model.hpp: it includes nothing from `fe` or `cms`.

#include "flexuq/campaign/Journal.hpp"
#include "flexuq/campaign/Plan.hpp"
#include "flexuq/campaign/Results.hpp"
#include "flexuq/core/Model.hpp"

#include <mpi.h>

namespace flexuq::campaign {

/// Run the campaign of @p plan on @p comm, one model per group from @p factory (`flexuq campaign`).
/// @p resume continues the run journaled in `<output>.journal`. @note Collective.
void run_campaign(MPI_Comm comm, const Plan& plan, const ModelFactory& factory, bool resume);

} // namespace flexuq::campaign
