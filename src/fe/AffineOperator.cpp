// SPDX-License-Identifier: MIT
#include "flexuq/fe/AffineOperator.hpp"

#include "flexuq/core/Error.hpp"

namespace flexuq::fe {

MatH AffineOperator::evaluate(const std::vector<double>& theta) const {
  FLEXUQ_REQUIRE(!terms_.empty(), "affine operator has no terms");
  MatH out;
  FLEXUQ_PETSC(MatDuplicate(terms_[0].get(), MAT_DO_NOT_COPY_VALUES, out.out()));
  evaluate_into(theta, out.get());
  return out;
}

void AffineOperator::evaluate_into(const std::vector<double>& theta, Mat out) const {
  FLEXUQ_REQUIRE(theta.size() == terms_.size(),
                 "affine operator: " << theta.size() << " coefficients given for " << terms_.size() << " terms");
  FLEXUQ_PETSC(MatZeroEntries(out));
  for (std::size_t k = 0; k < terms_.size(); ++k)
    if (theta[k] != 0.0) FLEXUQ_PETSC(MatAXPY(out, theta[k], terms_[k].get(), SAME_NONZERO_PATTERN));
  FLEXUQ_PETSC(MatSetOption(out, MAT_SYMMETRIC, PETSC_TRUE));
}

} // namespace flexuq::fe
