// SPDX-License-Identifier: MIT
#include "flexuq/fe/AffineOperator.hpp"

#include <algorithm>

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

void AffineOperator::merge(const std::vector<std::vector<std::size_t>>& sets, const std::vector<double>& weights) {
  FLEXUQ_REQUIRE(weights.size() == terms_.size(), "affine operator: " << weights.size() << " weights for " << terms_.size() << " terms");
  std::vector<char> seen(terms_.size(), 0);
  for (const auto& s : sets)
    for (std::size_t k : s) {
      FLEXUQ_REQUIRE(k < terms_.size() && !seen[k], "affine operator: term " << k << " merged twice or unknown");
      seen[k] = 1;
    }
  FLEXUQ_REQUIRE(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(terms_.size()),
                 "affine operator: a term is in no merged set");
  std::vector<std::string> names;
  std::vector<MatH> terms;
  for (const auto& s : sets) {
    FLEXUQ_REQUIRE(!s.empty(), "affine operator: an empty merged set");
    MatH rep = std::move(terms_[s[0]]);
    std::string name = names_[s[0]];
    if (weights[s[0]] != 1.0) FLEXUQ_PETSC(MatScale(rep.get(), weights[s[0]]));
    for (std::size_t i = 1; i < s.size(); ++i) {
      FLEXUQ_PETSC(MatAXPY(rep.get(), weights[s[i]], terms_[s[i]].get(), SAME_NONZERO_PATTERN));
      terms_[s[i]].reset();
      name += "+" + names_[s[i]];
    }
    names.push_back(std::move(name));
    terms.push_back(std::move(rep));
  }
  names_ = std::move(names);
  terms_ = std::move(terms);
}

} // namespace flexuq::fe
