// SPDX-License-Identifier: MIT
// The SVDs of include/flexuq/core/EigenInstances.hpp (one file per group: they compile in parallel).
#include "flexuq/core/EigenInstances.hpp"

template class Eigen::JacobiSVD<Eigen::MatrixXd>;
template class Eigen::BDCSVD<Eigen::MatrixXd>;
