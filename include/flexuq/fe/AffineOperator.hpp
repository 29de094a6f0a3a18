// SPDX-License-Identifier: MIT
#pragma once
/// @file AffineOperator.hpp
/// @brief A(θ) = Σ_k θ_k A_k with parameter-free sparse terms A_k sharing one nonzero pattern, so a
/// changed material rescales without re-assembly: evaluate() is a few MatAXPY on equal patterns.

#include "flexuq/core/Handle.hpp"

#include <string>
#include <vector>

namespace flexuq::fe {

class AffineOperator {
public:
  AffineOperator() = default;
  void add_term(std::string name, MatH term) {
    names_.push_back(std::move(name));
    terms_.push_back(std::move(term));
  }
  std::size_t size() const { return terms_.size(); }
  Mat term(std::size_t k) const { return terms_.at(k).get(); }
  const std::string& name(std::size_t k) const { return names_.at(k); }
  const std::vector<std::string>& names() const { return names_; }
  /// The terms' handles (owned by this object), e.g. for operators built on the terms.
  std::vector<Mat> terms() const {
    std::vector<Mat> out;
    for (const auto& t : terms_) out.push_back(t.get());
    return out;
  }

  /// A new matrix with the common pattern, holding A(θ). @note Collective.
  MatH evaluate(const std::vector<double>& theta) const;
  /// Overwrite @p out (same pattern, e.g. from a previous evaluate) with A(θ); allocates nothing.
  /// @note Collective.
  void evaluate_into(const std::vector<double>& theta, Mat out) const;
  /// Replace each set of terms by one: Σ_{k∈set} w_k A_k, formed in place in the set's first term
  /// (no new matrix); the others are freed. Every term must be in exactly one set; names are
  /// joined with '+'. @note Collective.
  void merge(const std::vector<std::vector<std::size_t>>& sets, const std::vector<double>& weights);

private:
  std::vector<std::string> names_;
  std::vector<MatH> terms_;
};

} // namespace flexuq::fe
