// SPDX-License-Identifier: MIT
#pragma once
/// @file EnumOptions.hpp
/// @brief The job file's (and the command line's) names of library enums → the enums (issue #33
/// item 2). Each library declares one name table beside its enum (core/EnumNames.hpp) and uses it
/// for messages and files; no library parses a user's string. These parsers do, throwing InputError
/// with the message the libraries gave before (and the key, where they named it).

#include "flexuq/campaign/Plan.hpp"
#include "flexuq/cms/Reduction.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/io/ExternalMatrices.hpp"
#include "flexuq/mbs/Integrator.hpp"
#include "flexuq/mbs/Joint.hpp"
#include "flexuq/mbs/SaddleSolver.hpp"
#include "flexuq/sg/EigenSolver.hpp"

#include <string>

namespace flexuq::app {

/// `--log-level` / `log.level`: "unknown log level 'loud' (expected error, warn, info or debug)".
log::Level parse_log_level(const std::string& name);
/// `reduce.method`: "reduce.method: unknown method 'x' (one of guyan, craig-bampton, …, gcms)".
cms::Method parse_reduce_method(const std::string& name);
/// `reduce.scaling`: "reduce.scaling: unknown value 'x' (none, max or norm)".
cms::Scaling parse_reduce_scaling(const std::string& name);
/// `<key>.solver` of a Galerkin section: "<key>.solver: unknown value 'x' (inverse-subspace | straight-forward)".
sg::Method parse_galerkin_solver(const std::string& name, const std::string& key);
/// `<key>.normalization`: "<key>.normalization: unknown value 'x' (galerkin | thesis)".
sg::Normalization parse_galerkin_normalization(const std::string& name, const std::string& key);
/// `joints[].type`: "unknown joint type 'x' (revolute, …, point-on-line-2d, perpendicular = dot1)".
mbs::JointType parse_joint_type(const std::string& name);
/// `solver.type` (without newmark, which the caller maps): "unknown solver type 'x' (hht,
/// generalized-alpha, rk45, euler)".
mbs::Scheme parse_solver_scheme(const std::string& name);
/// `solver.linear_algebra`: "must be auto, dense or sparse, got 'x'".
mbs::LinearAlgebra parse_linear_algebra(const std::string& name);
/// `method.type` (galerkin is the caller's): "method.type 'x' is not one of monte-carlo, lhs, sobol,
/// collocation, pce".
campaign::MethodType parse_method_type(const std::string& name);
/// The design of a regression PCE: "sampling 'x' is not one of monte-carlo, lhs, sobol".
uq::SamplingMethod parse_sampling(const std::string& name);
/// `<key>` naming a quadrature grid: "<key> must be sparse or tensor, got 'x'".
campaign::Grid parse_grid(const std::string& name, const std::string& key);
/// `format:` of a model.matrices term, ignoring case: "<path>: unknown matrix format 'x'
/// (matrix-market, abaqus, petsc or op4)".
io::MatrixFormat parse_matrix_format(const std::string& name, const std::string& path);

} // namespace flexuq::app
