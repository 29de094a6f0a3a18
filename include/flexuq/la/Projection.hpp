// SPDX-License-Identifier: MIT
#pragma once
/// @file Projection.hpp
/// @brief Galerkin projections Xᵀ A X of sparse operators onto a basis of distributed vectors,
/// through BlockProduct (A streamed once per block of 64 columns) and one DGEMM of the local rows.

#include "flexuq/core/Handle.hpp"

#include <Eigen/Dense>

#include <utility>
#include <vector>

namespace flexuq::la {

/// The local rows of @p cols as one column-major block (local rows × cols.size()).
Eigen::MatrixXd local_block(const std::vector<VecH>& cols);

/// Xᵀ A X for the columns X = @p cols (symmetric A; the result is symmetrised from its upper
/// triangle). A must be AIJ. @note Collective.
Eigen::MatrixXd project(Mat A, const std::vector<VecH>& cols);

/// (Xᵀ A X, Xᵀ B X) in one pass over the columns; B may be null (then the second is left
/// uninitialised). @note Collective.
std::pair<Eigen::MatrixXd, Eigen::MatrixXd> project_pair(Mat A, Mat B, const std::vector<VecH>& cols);

} // namespace flexuq::la
