// SPDX-License-Identifier: MIT
#pragma once
/// @file Pct.hpp
/// @brief `flexuq simulate` with `uncertainty: {method: galerkin}` as a run (issue #35, docs/pct.md):
/// the intrusive polynomial chaos of a planar mechanism (module pct, seed 004) integrated by
/// generalized-α, the output statistics, Sobol' indices and chaos coefficients written to HDF5
/// (docs/hdf5-schema.md "simulate with uncertainty"). The job struct (pct/Job.hpp) is built by config/PctJob.

#include "flexuq/pct/Job.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::workflow {

using pct::PctJob;

/// Sobol' indices of one output from its chaos coefficients in an orthonormal basis (@p coef: one per
/// term of @p basis, the constant first): the variance share of the terms in parameter i alone
/// (first[i]) and of all terms containing it (total[i]), i < basis.dim(); all 0 where the variance is 0.
struct SobolShares {
  std::vector<double> first, total;
};
SobolShares sobol_from_chaos(const uq::MultiIndexSet& basis, const double* coef);

/// Build the Galerkin system, integrate it from job.start to job.solver.end and write job.output_path
/// (every rank integrates the same small system; rank 0 writes, through io::OutputFile); logs one
/// line on rank 0. @throws OptionError naming the field (order, quadrature_points, or the solver's
/// step, end, …) for the caller to map to its job key; InputError "<job.source>: …" when the
/// mechanism admits no initial configuration. @note Collective.
void run_pct(MPI_Comm comm, const PctJob& job);

} // namespace flexuq::workflow
