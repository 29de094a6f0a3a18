// SPDX-License-Identifier: MIT
#pragma once
/// @file EigenInstances.hpp
/// @brief The dense decompositions of Eigen::MatrixXd that flexuq uses, instantiated once
/// (src/core/EigenInstances*.cpp, in flexuq_core) instead of in every translation unit.
///
/// Instantiating JacobiSVD/BDCSVD, the self-adjoint eigensolvers and the QR/LU/Cholesky classes took
/// most of the compile time of the files that use them: tests/pod/kernels_test.cpp compiled in 77 s,
/// 29 s with the two SVDs declared extern (docs/performance.md, "The whole CI run"). The precompiled
/// header includes this file when FLEXUQ_PCH and FLEXUQ_EIGEN_INSTANCES are on (GCC; not in preset
/// asan), so every flexuq library and test sees the declarations; otherwise each file instantiates
/// what it uses, as before, and the instantiation files are not built.

#include <Eigen/Dense>

extern template class Eigen::JacobiSVD<Eigen::MatrixXd>;
extern template class Eigen::BDCSVD<Eigen::MatrixXd>;
extern template class Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
extern template class Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>;
extern template class Eigen::HouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>;
extern template class Eigen::PartialPivLU<Eigen::MatrixXd>;
extern template class Eigen::FullPivLU<Eigen::MatrixXd>;
extern template class Eigen::LLT<Eigen::MatrixXd>;
extern template class Eigen::LDLT<Eigen::MatrixXd>;
