// SPDX-License-Identifier: MIT
#pragma once
/// @file FitOptions.hpp
/// @brief How a polynomial chaos expansion is fitted, one struct for every place that fits one
/// (issue #33 item 4): the campaign's plan (campaign/Plan.hpp), the statistics of its outputs
/// (uq/Summary.hpp) and a stochastic body's expansions (cms/StochasticBody.hpp). The job keys that
/// fill it (method.pce.*, reduce.stochastic.pce.*, campaign.seed) are read in `app`.

#include "flexuq/core/EnumNames.hpp"

#include <cstdint>

namespace flexuq::uq {

/// Regression (least squares on the samples, order by leave-one-out) or projection (quadrature on
/// the nodes of a rule; falls back to regression when a node failed).
enum class FitMethod { regression, projection };
inline constexpr EnumNames<FitMethod, 2> kFitMethodNames{
    {{{FitMethod::regression, "regression"}, {FitMethod::projection, "projection"}}}};

struct FitOptions {
  FitMethod fit = FitMethod::regression;
  int order = -1;          ///< PCE total degree; −1: chosen by LOO in [1, max_order] (regression), max_order (projection)
  int max_order = 3;
  std::uint64_t seed = 42; ///< campaign.seed: the design's draws and the surrogate's Monte Carlo points
};

} // namespace flexuq::uq
