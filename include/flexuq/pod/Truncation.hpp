// SPDX-License-Identifier: MIT
#pragma once
/// @file Truncation.hpp
/// @brief Choice of the POD rank from the singular values (seed 003 F8 and §5.2 item 1). Every rule
/// reads σ descending; the thresholds are stated on the normalised values σ̂_i = σ_i / sqrt(Σσ²)
/// (so Σσ̂² = 1), which is also what is reported.
///
/// | rule        | value v            | rank r                                                         |
/// |-------------|--------------------|----------------------------------------------------------------|
/// | energy      | lost energy ε      | smallest r with Σ_{k>r} σ_k² / Σ σ_k² ≤ ε                      |
/// | sigma_ratio | τ                  | number of σ_i with σ_i / σ_1 > τ                               |
/// | log_gap     | (unused)           | i at the largest log(σ_i/σ_{i+1}) among σ above the noise floor |
/// | rank        | r                  | min(r, number of σ)                                            |
/// | numerical   | (unused)           | number of σ_i > n ε_mach σ_1 (numerical rank; the default)     |
///
/// The noise floor of log_gap is n ε_mach σ_1 (n = number of σ): a value below it counts as zero,
/// so the gap to an exact zero is measured against the floor, not against round-off.

#include "flexuq/core/EnumNames.hpp"

#include <Eigen/Dense>

#include <string>

namespace flexuq::pod {

struct Truncation {
  enum class Rule { numerical, energy, sigma_ratio, log_gap, rank };
  Rule rule = Rule::numerical;
  double value = 0.0;
  int max_rank = -1; ///< cap applied after the rule (−1: none)

  static Truncation energy(double lost) { return {Rule::energy, lost, -1}; }
  static Truncation sigma_ratio(double tau) { return {Rule::sigma_ratio, tau, -1}; }
  static Truncation log_gap() { return {Rule::log_gap, 0.0, -1}; }
  static Truncation fixed_rank(int r) { return {Rule::rank, static_cast<double>(r), -1}; }
  /// The rule @p r with @p value (ignored by log_gap and numerical), checked: energy and sigma_ratio
  /// in [0, 1), rank a positive integer. Throws InputError ("energy (lost energy fraction) must be in
  /// [0, 1), got 1.5") for a value out of range; the caller adds where it was given.
  static Truncation of(Rule r, double value);
  std::string describe() const;
};

/// The rules' names as a job writes them (core/EnumNames.hpp); numerical is the default, not a choice.
inline constexpr EnumNames<Truncation::Rule, 4> kTruncationRuleNames{
    {{{Truncation::Rule::energy, "energy"}, {Truncation::Rule::sigma_ratio, "sigma_ratio"},
      {Truncation::Rule::log_gap, "log_gap"}, {Truncation::Rule::rank, "rank"}}}};

/// The rank @p t selects from @p sigma (descending, non-negative).
int truncation_rank(const Eigen::VectorXd& sigma, const Truncation& t);

/// σ / sqrt(Σσ²) (all zeros stay zero).
Eigen::VectorXd normalised(const Eigen::VectorXd& sigma);

/// Σ_{k>r} σ_k² / Σ σ_k² (0 for an all-zero σ).
double lost_energy(const Eigen::VectorXd& sigma, int r);

} // namespace flexuq::pod
