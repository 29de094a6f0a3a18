// SPDX-License-Identifier: MIT
// Running statistics: merge of any split equals one pass; moments equal the two-pass values;
// merge across MPI ranks equals the serial result; type-7 quantiles.
#include "flexuq/uq/RunningStats.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace flexuq::uq;

namespace {
std::vector<double> data(int n, double offset = 100.0) {
  // Skewed data with an offset (stresses cancellation): offset + exp(N(0,1)).
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = offset + std::exp(special::normal_quantile(philox_uniform(7, 9, i, 0)));
  return x;
}
void expect_close(const RunningStats& a, const RunningStats& b, double tol) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_NEAR(a.mean(), b.mean(), tol * std::abs(b.mean()));
  EXPECT_NEAR(a.m2(), b.m2(), tol * b.m2());
  EXPECT_NEAR(a.m3(), b.m3(), tol * std::abs(b.m3()));
  EXPECT_NEAR(a.m4(), b.m4(), tol * b.m4());
}
} // namespace

TEST(RunningStats, MergedSplitsEqualOnePass) {
  const auto x = data(10000);
  RunningStats all;
  for (double v : x) all.add(v);
  for (size_t cut : {size_t(1), size_t(37), size_t(5000), size_t(9999)}) {
    RunningStats a, b;
    for (size_t i = 0; i < x.size(); ++i) (i < cut ? a : b).add(x[i]);
    RunningStats ab = a, ba = b;
    ab.merge(b);
    ba.merge(a);
    expect_close(ab, all, 1e-12);
    expect_close(ba, all, 1e-12);
  }
  // Many small blocks merged pairwise.
  std::vector<RunningStats> blocks(13);
  for (size_t i = 0; i < x.size(); ++i) blocks[(i * 7) % 13].add(x[i]);
  RunningStats m;
  for (const auto& b : blocks) m.merge(b);
  expect_close(m, all, 1e-12);
}

TEST(RunningStats, MatchesTwoPassMoments) {
  // Offset 1e6 on unit spread: the data themselves carry relative errors 1e-10 in the deviations,
  // so agreement with the exact (long double) two-pass values is to ~1e-10.
  const auto x = data(5000, 1e6);
  RunningStats s;
  for (double v : x) s.add(v);
  long double mean = 0;
  for (double v : x) mean += v;
  mean /= x.size();
  long double m2 = 0, m3 = 0, m4 = 0;
  for (double v : x) {
    const long double d = v - mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  const double n = static_cast<double>(x.size());
  EXPECT_NEAR(s.mean(), static_cast<double>(mean), 1e-15 * 1e6);
  EXPECT_NEAR(s.variance(), static_cast<double>(m2) / (n - 1), 1e-9 * static_cast<double>(m2) / n);
  EXPECT_NEAR(s.skewness(), std::sqrt(n) * static_cast<double>(m3) / std::pow(static_cast<double>(m2), 1.5), 1e-8);
  EXPECT_NEAR(s.kurtosis(), n * static_cast<double>(m4) / static_cast<double>(m2 * m2), 1e-7);
  // Log-normal(0,1) skewness (e+2)√(e−1) ≈ 6.18: the sample value is in a broad band.
  EXPECT_GT(s.skewness(), 2.0);
}

TEST(RunningStats, MergeAcrossRanksEqualsSerial) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto x = data(3001);
  RunningStats local, serial;
  for (size_t i = 0; i < x.size(); ++i) {
    serial.add(x[i]);
    if (static_cast<int>(i % size) == rank) local.add(x[i]);
  }
  const auto packed = local.pack();
  std::vector<double> all(7 * size);
  MPI_Allgather(packed.data(), 7, MPI_DOUBLE, all.data(), 7, MPI_DOUBLE, MPI_COMM_WORLD);
  RunningStats merged;
  for (int r = 0; r < size; ++r) merged.merge(RunningStats::unpack(all.data() + 7 * r));
  expect_close(merged, serial, 1e-12);
  EXPECT_EQ(merged.min(), serial.min());
  EXPECT_EQ(merged.max(), serial.max());
}

TEST(RunningStats, QuantilesType7) {
  EXPECT_DOUBLE_EQ(sample_quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(sample_quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(sample_quantile({4, 1, 3, 2}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(sample_quantile({4, 1, 3, 2}, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(sample_quantile({5}, 0.3), 5.0);
  // Large N(0,1) sample: the 97.5 % quantile near 1.96 (statistical; standard error ≈ 0.0134).
  std::vector<double> z(40000);
  for (size_t i = 0; i < z.size(); ++i) z[i] = special::normal_quantile(philox_uniform(3, 1, i, 0));
  EXPECT_NEAR(sample_quantile(z, 0.975), 1.959964, 0.055); // 4 standard errors
}

TEST(RunningStats, QuantilesBySelectionEqualTheSortedSample) {
  // sample_quantiles selects the order statistics (nth_element per level, levels in any order)
  // instead of sorting: each level must be exactly the type-7 interpolation of the sorted sample,
  // with levels unsorted, repeated, at 0 and 1, adjacent (same lo), and with ties in the sample.
  for (std::size_t n : {1u, 2u, 7u, 1000u, 1001u}) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::floor(20 * philox_uniform(8, 2, i, 0)) + (i % 3 == 0 ? 0.5 : 0.0);
    const std::vector<double> p{0.95, 0.0, 0.5, 0.25, 0.5, 1.0, 0.01, 0.011, 0.75, 0.99, 0.999};
    std::vector<double> s = x;
    std::sort(s.begin(), s.end());
    const auto q = sample_quantiles(x, p);
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double h = (static_cast<double>(n) - 1) * p[i];
      const auto lo = static_cast<std::size_t>(std::floor(h));
      const std::size_t hi = std::min(lo + 1, n - 1);
      EXPECT_EQ(q[i], s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo])) << "n = " << n << ", p = " << p[i];
    }
  }
}
