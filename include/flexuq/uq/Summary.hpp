// SPDX-License-Identifier: MIT
#pragma once
/// @file Summary.hpp
/// @brief Everything a campaign reports about one output vector, computed from the successful
/// samples in memory (no files, no communication): moments, quantiles, a kernel density, and a PCE
/// (projection on the campaign's quadrature, or regression with its order chosen by leave-one-out)
/// with its Sobol' indices. For `pce`/`collocation` campaigns the moments, quantiles and density
/// come from the expansion (mean and std exactly, the rest from 1e5 surrogate points); otherwise
/// from the samples. Results depend only on the samples and their order (moments are merged block
/// by block in sample order), never on how they were computed.

#include "flexuq/uq/FitOptions.hpp"
#include "flexuq/uq/Pce.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <vector>

namespace flexuq::uq {

struct SummaryOptions {
  std::string method = "monte-carlo"; ///< monte-carlo | lhs | sobol | collocation | pce
  /// The PCE: fit, order (−1: chosen by LOO in [1, max_order]), max_order, and the seed of the
  /// surrogate's Monte Carlo points.
  FitOptions pce;
  /// Quadrature weights of the rows (projection). Give them only when every quadrature node
  /// succeeded; otherwise the PCE falls back to regression.
  std::vector<double> weights;
  int pdf_points = 200;
  std::vector<double> quantile_levels{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};
};

/// @brief Statistics of one output vector (n_out entries) over the successful samples.
struct OutputSummary {
  std::size_t samples_used = 0;
  /// False with fewer than 2 samples: then only samples_used is meaningful.
  bool has_statistics = false;
  std::vector<double> mean, std, skewness, kurtosis; ///< per entry
  std::vector<double> quantile_levels;
  Eigen::MatrixXd quantiles;       ///< levels × n_out
  Eigen::MatrixXd pdf_grid, pdf;   ///< pdf_points × n_out (Gaussian KDE; 0 for a constant output)
  std::string moments_from;        ///< "samples" or "pce surrogate (…)"
  std::string pce_note;            ///< "projection", "regression", "no PCE: why" or ""
  bool has_pce = false;
  Pce pce;
  std::vector<double> loo_orders, loo; ///< regression: the candidate orders and their LOO errors
  Eigen::MatrixXd sobol_first, sobol_total; ///< d × n_out (with a PCE)
  int pce_order() const;           ///< largest total degree of the expansion's terms
};

/// Summarise @p Y (successful samples × n_out) at germ points @p X (same rows × d) of @p space.
OutputSummary summarize(const StochasticSpace& space, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
                        const SummaryOptions& opt);

/// Summarise an output given by its expansion @p pce (an intrusive method, e.g. stochastic
/// Galerkin: no samples). Mean and std are the expansion's exact moments; skewness, kurtosis,
/// quantiles and the density come from 1e5 surrogate points (seed opt.pce.seed), Sobol' indices from
/// the coefficients: the same fields, computed the same way, as summarize() of a projection PCE.
/// samples_used = 0; pce_note = @p note.
OutputSummary summarize_pce(const StochasticSpace& space, const Pce& pce, const std::string& note,
                            const SummaryOptions& opt = {});

/// "  name: m1 ± s1, m2 ± s2, …" (at most @p max_entries), the campaign's closing lines.
std::string format_summary(const std::string& name, const OutputSummary& s, std::size_t max_entries = 10);

} // namespace flexuq::uq
