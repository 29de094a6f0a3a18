// SPDX-License-Identifier: MIT
#pragma once
/// @file RunningStats.hpp
/// @brief Numerically stable streaming moments with an exact parallel merge (count, mean and the
/// central sums M2, M3, M4; Welford update, Chan/Pébay pairwise merge), and sample quantiles.
///
/// Merging the statistics of any split of a data set gives the one-pass result up to round-off,
/// so per-rank (or per-block) statistics can be combined in any order.

#include <array>
#include <cstdint>
#include <vector>

namespace flexuq::uq {

class RunningStats {
public:
  void add(double x);
  void merge(const RunningStats& other);

  std::uint64_t count() const { return n_; }
  double mean() const { return mean_; }
  double m2() const { return m2_; } ///< Σ (x − mean)²
  double m3() const { return m3_; }
  double m4() const { return m4_; }
  double variance() const;            ///< unbiased, M2/(n−1); 0 for n < 2
  double population_variance() const; ///< M2/n
  double std() const;                 ///< √variance()
  double skewness() const;            ///< g1 = √n M3 / M2^(3/2) (population)
  double kurtosis() const;            ///< n M4 / M2² (population, 3 for a Gaussian)
  double excess_kurtosis() const { return kurtosis() - 3.0; }
  double min() const { return min_; }
  double max() const { return max_; }

  /// Pack into / rebuild from 7 doubles (count, mean, M2, M3, M4, min, max), e.g. for MPI_Allgather.
  std::array<double, 7> pack() const;
  static RunningStats unpack(const double* p);

private:
  std::uint64_t n_ = 0;
  double mean_ = 0.0, m2_ = 0.0, m3_ = 0.0, m4_ = 0.0;
  double min_ = 0.0, max_ = 0.0;
};

/// Sample quantile of probability p ∈ [0,1], linear interpolation between order statistics
/// (Hyndman–Fan type 7, the default of R and NumPy): h = (n−1)p, x_(⌊h⌋) + (h−⌊h⌋)(x_(⌊h⌋+1) − x_(⌊h⌋)).
double sample_quantile(std::vector<double> x, double p);
/// Several quantiles with one sort.
std::vector<double> sample_quantiles(std::vector<double> x, const std::vector<double>& p);

} // namespace flexuq::uq
