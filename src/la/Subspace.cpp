// SPDX-License-Identifier: MIT
#include "flexuq/la/Subspace.hpp"

#include <algorithm>

namespace flexuq::la {

double mac(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  const double ab = a.dot(b), aa = a.squaredNorm(), bb = b.squaredNorm();
  return aa > 0 && bb > 0 ? ab * ab / (aa * bb) : 0.0;
}

Eigen::MatrixXd mac_matrix(const Eigen::MatrixXd& C, const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(C.rows(), C.cols());
  for (Eigen::Index j = 0; j < C.cols(); ++j)
    for (Eigen::Index i = 0; i < C.rows(); ++i)
      if (a(i) > 0 && b(j) > 0) out(i, j) = C(i, j) * C(i, j) / (a(i) * b(j));
  return out;
}

Eigen::VectorXd principal_cosines(const Eigen::MatrixXd& C) {
  if (C.size() == 0) return Eigen::VectorXd(0);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(C);
  return svd.singularValues().cwiseMin(1.0).cwiseMax(0.0);
}

Eigen::MatrixXd procrustes_rotation(const Eigen::MatrixXd& C_js) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(C_js, Eigen::ComputeFullU | Eigen::ComputeFullV);
  return svd.matrixV() * svd.matrixU().transpose();
}

} // namespace flexuq::la
