// SPDX-License-Identifier: MIT
// The QR, LU and Cholesky factorisations of include/flexuq/core/EigenInstances.hpp.
#include "flexuq/core/EigenInstances.hpp"

template class Eigen::HouseholderQR<Eigen::MatrixXd>;
template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
template class Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>;
template class Eigen::PartialPivLU<Eigen::MatrixXd>;
template class Eigen::FullPivLU<Eigen::MatrixXd>;
template class Eigen::LLT<Eigen::MatrixXd>;
template class Eigen::LDLT<Eigen::MatrixXd>;
