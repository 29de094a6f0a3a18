// SPDX-License-Identifier: MIT
// The self-adjoint eigensolvers of include/flexuq/core/EigenInstances.hpp.
#include "flexuq/core/EigenInstances.hpp"

template class Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
template class Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>;
