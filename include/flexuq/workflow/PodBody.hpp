// SPDX-License-Identifier: MIT
#pragma once
/// @file PodBody.hpp
/// @brief `reduce.stochastic.method: pod` (issue #6, seed 000 §2.12 Algorithm 4): the points of the
/// regression design run through the campaign engine like collocation/regression (journaled,
/// resumable, a failed point recorded); each successful point's aligned Craig–Bampton columns are
/// snapshots; one streaming POD per column family (boundary/constraint columns, fixed-interface
/// modes), rows distributed over the ranks, truncated by `reduce.stochastic.pod`; the union is
/// orthonormalised into one deterministic basis V (docs/stochastic-cb.md "POD bodies").

#include "flexuq/campaign/Journal.hpp"
#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/pod/Truncation.hpp"
#include "flexuq/workflow/BodyAt.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::workflow {

/// What the POD found (identical on every rank).
struct PodBasisSummary {
  long long snapshots_boundary = 0, snapshots_internal = 0;
  int rank_boundary = 0, rank_internal = 0, rank = 0;
  double energy_lost_boundary = 0, energy_lost_internal = 0;
  Eigen::MatrixXd V_local;  ///< this rank's rows (pod::split_rows of nodes × dofs per node) of V, orthonormal
  Eigen::MatrixXd Ui_local; ///< the same rows of the internal family's POD modes (zero on the interface)
  std::vector<std::vector<double>> point_free_free; ///< rank 0: each point's journaled free-free frequencies
};

/// The POD of the journaled point bases and its datasets under `/stochastic_body/pod` of @p output.
/// @p points (the successful points' journal records, sample order) and @p nominal are read on
/// rank 0 only; nodes × dofs per node are the rows. The records are read one at a time and each
/// point's columns scattered by rows, so no rank holds more than one point's snapshots beyond its
/// own rows. A point that journaled column scales (exact scaling, Model::column_scaled_fields) is
/// rebuilt from @p nominal_basis (rank 0; input node order). @note Collective.
PodBasisSummary pod_basis(MPI_Comm comm, const std::vector<campaign::Journal::Location>& points,
                          const cms::ReducedBody& nominal, const std::vector<double>& nominal_basis, std::uint64_t nodes,
                          int dofs_per_node, const pod::Truncation& truncation, const std::string& output);

/// What the projection needs besides V: the component (assembled again on @p comm with its affine
/// terms), the parameters and the points.
struct PodProjection {
  const io::Mesh* mesh = nullptr;
  fe::ComponentOptions component;
  std::vector<fe::MaterialParameter> parameters;
  std::vector<std::string> names;
  std::vector<double> nominal;                 ///< θ̄
  std::vector<std::vector<double>> points;     ///< θ of every successful point, sample order (rank 0)
  std::vector<std::vector<double>> point_free_free; ///< their Craig–Bampton free-free frequencies [Hz] (rank 0)
  int free_free = 0;
  int fixed_interface = 0;                     ///< fixed-interface frequencies reported per point
};

/// V made M(θ̄)-orthonormal, the reduced affine terms K̄_t = VᵀK_tV, M̄_t = VᵀM_tV with the map
/// θ → coefficients, a check of the affine sum against VᵀK(θ)V assembled at a point, the POD-reduced
/// free-free (V) and fixed-interface (internal family) frequencies at every point and their
/// statistics: datasets under `/stochastic_body/pod` and `/statistics/pod_*` of @p output.
/// Throws InputError for a parameter that does not scale its affine terms linearly. @note Collective.
struct PodProjectionSummary {
  int rank = 0;
  double affine_check = 0;       ///< max relative difference of Σ c_t(θ) K̄_t and VᵀK(θ)V, θ a point
  double max_free_free_error = 0; ///< max over points and frequencies of |f_pod − f_cb| / f_cb
  /// max of (f_pod − f_cb) / f_cb: span V holds each point's CB basis up to the truncation, so by
  /// Rayleigh–Ritz the POD body's frequencies lie below the CB ones but for the truncated part.
  double max_free_free_above = -1;
};
PodProjectionSummary pod_project(MPI_Comm comm, const PodBasisSummary& basis, const PodProjection& p,
                                 const std::string& output);

/// `flexuq body-at` for a file written by method pod: K̄(θ), M̄(θ) from the reduced affine terms
/// (exact for every θ: no expansion), the reduced free-free frequencies, V under /reduced/basis.
/// job.settings NAME=value (physical values; unset parameters at their means). @note Collective.
void pod_body_at(MPI_Comm comm, const BodyAtJob& job);

/// True when @p path holds a POD body (`/stochastic_body/pod/K_terms`). @note Collective (reads on rank 0).
bool is_pod_body(MPI_Comm comm, const std::string& path);

} // namespace flexuq::workflow
