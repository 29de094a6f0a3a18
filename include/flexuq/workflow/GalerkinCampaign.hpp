// SPDX-License-Identifier: MIT
#pragma once
/// @file GalerkinCampaign.hpp
/// @brief `flexuq campaign` with `method.type: galerkin`: an FE component and its material
/// parameters → sg::solve_component on a two-level layout (`ranks_per_sample` spatial ranks per
/// Galerkin block group) → the campaign result layout (docs/hdf5-schema.md, "Stochastic Galerkin
/// campaign"). The job struct is built by `app` (app/GalerkinJob.hpp) or by a test in C++.

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/sg/EigenSolver.hpp"
#include "flexuq/sg/Expansion.hpp"

#include <mpi.h>

namespace flexuq::io {
class H5File;
}

namespace flexuq::workflow {

/// Everything a Galerkin campaign needs, parsed and checked before any solve (options.source names
/// the job in messages; options.output is the result file).
struct GalerkinJob {
  campaign::CampaignOptions options; ///< parameters, seed, ranks_per_sample, output
  sg::EigenOptions eigen;            ///< method.galerkin.{order, solver, normalization, tol, …}, outputs.frequencies
  sg::ExpansionOptions expansion;    ///< method.galerkin.{operator_order, regression.*}
  fe::ComponentOptions component;
  std::vector<fe::MaterialParameter> parameters;
  io::Mesh mesh;
  bool mode_shapes = true; ///< outputs.mode_shapes: write the mode-shape coefficients
};

/// The record of one Galerkin eigen solve under @p group: attributes order, operator_order, solver,
/// normalization, iterations, pcg_iterations, converged, change, block_groups, ranks_per_group;
/// datasets mean_eigenvalues, multiplicity and (straight-forward) spectrum. Campaigns write it under
/// `/galerkin`, Galerkin bodies under `/stochastic_body/galerkin`. Rank-local on @p f.
void write_galerkin_solve(io::H5File& f, const std::string& group, const sg::EigenOptions& e,
                          const sg::ExpansionOptions& x, const sg::StochasticLayout& layout, const sg::EigenResult& r);

/// Solve and write the results (@p resume: a Galerkin run keeps no journal, so it solves anew).
/// @note Collective on @p comm.
void run_galerkin_campaign(MPI_Comm comm, const GalerkinJob& job, bool resume = false);

} // namespace flexuq::workflow
