// SPDX-License-Identifier: MIT
#pragma once
/// @file ModeTracking.hpp
/// @brief Follow reference modes across samples: each reference multiplet (cluster) takes the
/// sample modes that carry most of its subspace (by mass-weighted projection, i.e. MAC summed over
/// the cluster), greedily in reference order. Frequencies of a multiplet are reported sorted, so a
/// degenerate pair is handled as a subspace, not as two arbitrary vectors.

#include "flexuq/la/Subspace.hpp"

#include <Eigen/Dense>

#include <vector>

namespace flexuq::fe {

struct TrackingResult {
  std::vector<int> assignment;   ///< per reference mode: index of the sample mode (−1: none)
  std::vector<double> mac;       ///< per reference mode: its cluster's captured share of that mode
  std::vector<int> sign;         ///< per reference mode: +1/−1 so that sign·φ_sample aligns with φ_ref
  double min_mac = 1.0;
};

/// @param C  reference × sample matrix of mass-weighted inner products φ_refᵀ M φ_sample
///           (both mass-normalised, so |C_jk| ≤ 1 and C_jk² is the MAC).
/// @param cluster  per reference mode: cluster id (consecutive modes with the same id form a multiplet).
/// @param sample_values  sample eigenvalues (ascending), used to sort within a multiplet.
TrackingResult track_modes(const Eigen::MatrixXd& C, const std::vector<int>& cluster,
                           const std::vector<double>& sample_values);

/// Orthogonal Procrustes for one multiplet (R = V Uᵀ from C_JS = Φ_Jᵀ M Φ_S = U Σ Vᵀ): the one
/// implementation lives in `la` (la/Subspace.hpp).
using la::procrustes_rotation;

} // namespace flexuq::fe
