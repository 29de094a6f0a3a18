// SPDX-License-Identifier: MIT
#pragma once
/// @file Kde.hpp
/// @brief Gaussian kernel density estimate of a sample (e.g. a PCE evaluated at 10⁶ points).

#include <Eigen/Dense>

#include <cstddef>

namespace flexuq::uq {

/// Silverman's rule of thumb h = 0.9 min(σ̂, IQR/1.34) n^(−1/5).
double silverman_bandwidth(const Eigen::VectorXd& samples);
/// The same from a sample's standard deviation, quartiles and size (already known to a summary).
double silverman_bandwidth(double std, double q25, double q75, std::size_t n);

/// f̂(x) = 1/(n h) Σ φ((x − x_i)/h) at every grid point; @p bandwidth ≤ 0 selects Silverman's.
/// Kernels are cut at 8h. On a uniform grid (LinSpaced, as every summary's) the kernel values along
/// the grid come from a product recurrence, two (vectorised) exp per sample: cost O(n · window) multiplications,
/// equal to the direct sum to ~1e-13; otherwise O(n · grid) exp on a sorted copy of the sample.
Eigen::VectorXd kde_gaussian(const Eigen::VectorXd& samples, const Eigen::VectorXd& grid, double bandwidth = 0.0);

} // namespace flexuq::uq
