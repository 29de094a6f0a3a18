// SPDX-License-Identifier: MIT
#pragma once
/// @file PodReduce.hpp
/// @brief `reduce.stochastic.method: pod` (issue #6, seed 000 §2.12 Algorithm 4): the points of the
/// regression design run through the campaign engine like collocation/regression (journaled,
/// resumable, a failed point recorded); each successful point's aligned Craig–Bampton columns are
/// snapshots; one streaming POD per column family (boundary/constraint columns, fixed-interface
/// modes), rows distributed over the ranks, truncated by `reduce.stochastic.pod`; the union is
/// orthonormalised into one deterministic basis V (docs/stochastic-cb.md "POD bodies").

#include "flexuq/campaign/Journal.hpp"
#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/io/Config.hpp"
#include "flexuq/pod/Truncation.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::app {

/// `reduce.stochastic.pod`: exactly one of energy (lost energy fraction in [0, 1)), sigma_ratio
/// (σ_i/σ_1 kept above, in [0, 1)) or rank (a positive integer); absent: energy 1e-10. Throws
/// InputError naming the file and key otherwise (before any work).
pod::Truncation pod_truncation(const io::Config& cfg);

/// What the POD found (identical on every rank).
struct PodBasisSummary {
  long long snapshots_boundary = 0, snapshots_internal = 0;
  int rank_boundary = 0, rank_internal = 0, rank = 0;
  double energy_lost_boundary = 0, energy_lost_internal = 0;
};

/// The POD of the journaled point bases and its datasets under `/stochastic_body/pod` of @p output.
/// @p records (successful and failed points, any order) and @p nominal are read on rank 0 only;
/// @p rows = nodes × dofs per node. Each point's columns are scattered by rows, so no rank holds the
/// snapshots of more than one point beyond its own rows. @note Collective.
PodBasisSummary pod_basis(MPI_Comm comm, const std::vector<campaign::SampleRecord>& records,
                          const cms::ReducedBody& nominal, std::uint64_t nodes, int dofs_per_node,
                          const pod::Truncation& truncation, const std::string& output);

} // namespace flexuq::app
