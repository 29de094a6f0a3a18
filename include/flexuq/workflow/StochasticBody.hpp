// SPDX-License-Identifier: MIT
#pragma once
/// @file StochasticBody.hpp
/// @brief A stochastic Craig–Bampton (or Herting, Hurty, …) body by collocation, regression, POD
/// of the point bases or stochastic Galerkin (`flexuq reduce` with `reduce.stochastic`; the job
/// file → StochasticBodyJob parse is app/StochasticReduce.hpp). Every point is a full reduction
/// on a group of `ranks_per_sample` ranks, scheduled, journaled and resumable by the campaign
/// engine (campaign::run_campaign with cms::StochasticBodyModel); the expansions are fitted at the
/// end (cms::fit_stochastic_body) and written beside the campaign layout. Theory:
/// docs/stochastic-cb.md; file layout: docs/hdf5-schema.md.

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/cms/StochasticBodyModel.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/pod/Truncation.hpp"
#include "flexuq/sg/EigenSolver.hpp"
#include "flexuq/sg/Expansion.hpp"

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

namespace flexuq::workflow {

/// How the body's parameter dependence is found.
enum class StochasticMethod {
  collocation, ///< projection on the nodes of a sparse/tensor grid (plan.pce.fit projection)
  regression,  ///< least squares on a drawn design (plan.pce.fit regression)
  pod,         ///< the regression design's points, then one POD basis V and exact affine K̄(θ), M̄(θ)
  galerkin,    ///< SG fixed-interface and constraint modes, the body projected on the plan's Gauss nodes
};

/// Everything a stochastic body needs, parsed and checked before any work (app/StochasticReduce.hpp
/// builds it from a job file; a test may build it in C++).
struct StochasticBodyJob {
  std::string source = "<job>"; ///< the job file, for messages
  StochasticMethod method = StochasticMethod::collocation;
  /// The points (campaign::make_plan); plan.output is the body file, `<output>.journal` the journal.
  campaign::Plan plan;
  /// interfaces, reducer, build, free_free, basis, min_mac, exact_scaling, the material parameters
  /// (plan order) and their means (plan.nominal()).
  cms::StochasticReduceOptions body;
  fe::ComponentOptions component;
  std::shared_ptr<const io::Mesh> mesh;
  pod::Truncation truncation = pod::Truncation::energy(1e-10); ///< method pod: of each column family
  /// Method galerkin: the SG solve (order, solver, normalization, tol, …) and the operator
  /// expansion; n_modes, checkpoint and resume are set by the run.
  sg::EigenOptions galerkin_eigen;
  sg::ExpansionOptions galerkin_expansion;
  /// Optional: wraps the factory of the point models (app: the model.delay_seconds test knob).
  std::function<ModelFactory(ModelFactory)> wrap_model;
};

/// Run the points (or the Galerkin solve), fit and write the body to job.plan.output under a
/// temporary name renamed at the end. @p resume continues the run journaled in `<output>.journal`
/// (method galerkin: from its SG checkpoint). @note Collective.
void run_stochastic_body(MPI_Comm comm, const StochasticBodyJob& job, bool resume = false);

} // namespace flexuq::workflow
