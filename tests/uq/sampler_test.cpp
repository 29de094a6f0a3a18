// SPDX-License-Identifier: MIT
// Samplers: Sobol' points and the Joe–Kuo table (primitive polynomials, odd initial numbers,
// net properties), LHS strata, MC statistics, and rank-count independence of sample i.
#include "flexuq/core/Error.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/SpecialFunctions.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

using namespace flexuq::uq;

namespace {
// Multiply polynomials over GF(2) modulo poly (bit i = coefficient of x^i), degree s.
std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t poly, int s) {
  std::uint64_t r = 0;
  while (b) {
    if (b & 1) r ^= a;
    b >>= 1;
    a <<= 1;
    if (a & (1ULL << s)) a ^= poly;
  }
  return r;
}
// x^e mod poly.
std::uint64_t xpow(std::uint64_t e, std::uint64_t poly, int s) {
  std::uint64_t r = 1, base = 2; // x, reduced below when s = 1 (x ≡ 1 mod x+1)
  if (base & (1ULL << s)) base ^= poly;
  while (e) {
    if (e & 1) r = mulmod(r, base, poly, s);
    base = mulmod(base, base, poly, s);
    e >>= 1;
  }
  return r;
}
bool is_primitive(std::uint64_t poly, int s) {
  // Primitive iff the order of x modulo poly is exactly 2^s − 1.
  const std::uint64_t N = (1ULL << s) - 1;
  if (xpow(N, poly, s) != 1) return false;
  for (std::uint64_t q = 2; q <= N; ++q) // prime factors of N
    if (N % q == 0) {
      bool prime = true;
      for (std::uint64_t t = 2; t * t <= q; ++t) prime = prime && (q % t != 0);
      if (prime && xpow(N / q, poly, s) == 1) return false;
    }
  return true;
}
} // namespace

TEST(Sobol, FirstPointsOfTheFirstTwoDimensions) {
  const Sampler s(SamplingMethod::Sobol, 2, 0);
  // Dimension 1 is the van der Corput sequence in Gray-code order; dimension 2 has m = 1, poly x+1.
  const double d1[] = {0, 0.5, 0.75, 0.25, 0.375, 0.875, 0.625, 0.125};
  const double d2[] = {0, 0.5, 0.25, 0.75, 0.375, 0.875, 0.125, 0.625};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(s.sobol_integer(i, 0) * 0x1.0p-32, d1[i]) << i;
    EXPECT_EQ(s.sobol_integer(i, 1) * 0x1.0p-32, d2[i]) << i;
    EXPECT_EQ(s.sample(i)[0], d1[i] + 0x1.0p-33);
  }
}

TEST(Sobol, DirectionNumberRecurrenceByHand) {
  // Joe–Kuo recurrence m_k = 2c_1 m_{k−1} ⊕ 4c_2 m_{k−2} ⊕ … ⊕ 2^s m_{k−s} ⊕ m_{k−s}, worked by hand:
  // dim 4 (s = 3, a = 1 → c_1 = 0, c_2 = 1, m = 1, 3, 1): m_4 = 4·3 ⊕ 8 ⊕ 1 = 5;
  // dim 5 (s = 3, a = 2 → c_1 = 1, c_2 = 0, m = 1, 1, 1): m_4 = 2·1 ⊕ 8 ⊕ 1 = 11.
  // Point 8 has Gray code 12 = bits 3 and 4: x = v_3 ⊕ v_4 with v_k = m_k/2^k.
  // dim 4: 2/16 ⊕ 5/16 = 7/16; dim 5: 2/16 ⊕ 11/16 = 9/16.
  const Sampler s(SamplingMethod::Sobol, 5, 0);
  EXPECT_EQ(s.sobol_integer(8, 3) * 0x1.0p-32, 7.0 / 16.0);
  EXPECT_EQ(s.sobol_integer(8, 4) * 0x1.0p-32, 9.0 / 16.0);
  // Point 1 (Gray 1) is v_1 = 1/2 in every dimension; point 2 (Gray 3) is v_1 ⊕ v_2 = 1/2 ⊕ m_2/4.
  EXPECT_EQ(s.sobol_integer(2, 3) * 0x1.0p-32, 0.25); // m_2 = 3: 2/4 ⊕ 3/4 = 1/4
  EXPECT_EQ(s.sobol_integer(2, 4) * 0x1.0p-32, 0.75); // m_2 = 1: 2/4 ⊕ 1/4 = 3/4
}

TEST(Sobol, TableRowsArePrimitivePolynomialsWithValidInitialNumbers) {
  ASSERT_GE(sobol_max_dim(), 21);
  std::set<std::uint64_t> seen;
  int prev_s = 0;
  for (const auto& row : sobol_table()) {
    const std::uint64_t poly = (1ULL << row.s) | (static_cast<std::uint64_t>(row.a) << 1) | 1ULL;
    EXPECT_TRUE(is_primitive(poly, row.s)) << "s=" << row.s << " a=" << row.a;
    EXPECT_TRUE(seen.insert(poly).second);
    EXPECT_GE(row.s, prev_s); // table sorted by degree
    prev_s = row.s;
    for (int k = 0; k < row.s; ++k) {
      EXPECT_EQ(row.m[k] % 2, 1u);
      EXPECT_LT(row.m[k], 1u << (k + 1));
    }
  }
  // Number of primitive polynomials of degree s is φ(2^s − 1)/s: 1, 1, 2, 2, 6, 6, 18 for s = 1..7;
  // the table must list all of degree ≤ 6 before any of degree 7.
  const int expected[] = {0, 1, 1, 2, 2, 6, 6};
  int count[8] = {0};
  for (const auto& row : sobol_table()) ++count[row.s];
  for (int s = 1; s <= 6; ++s) EXPECT_EQ(count[s], expected[s]) << s;
}

TEST(Sobol, NetProperties) {
  const int dim = sobol_max_dim();
  const Sampler s(SamplingMethod::Sobol, dim, 0);
  const int m = 10, N = 1 << m;
  // Each 1-D projection of the first 2^m points hits every interval [k/2^m, (k+1)/2^m) once.
  for (int j = 0; j < dim; ++j) {
    std::vector<int> hit(N, 0);
    for (int i = 0; i < N; ++i) ++hit[s.sobol_integer(i, j) >> (32 - m)];
    for (int k = 0; k < N; ++k) ASSERT_EQ(hit[k], 1) << "dim " << j;
  }
  // Dimensions 1 and 2 form a (0, m, 2)-net: every 2^a × 2^(m−a) box holds one point.
  // top(x, b): the b leading bits of a 32-bit integer; b = 0 gives none (x >> 32 would be undefined).
  auto top = [](std::uint32_t x, int b) -> std::uint32_t { return b == 0 ? 0u : x >> (32 - b); };
  for (int a = 0; a <= m; ++a) {
    std::vector<int> hit(N, 0);
    for (int i = 0; i < N; ++i) ++hit[(top(s.sobol_integer(i, 0), a) << (m - a)) | top(s.sobol_integer(i, 1), m - a)];
    for (int k = 0; k < N; ++k) ASSERT_EQ(hit[k], 1) << "a=" << a;
  }
  // QMC on a smooth product function f = Π (1 + c_j (u_j − ½)), E f = 1, in all dimensions: the
  // error must be far below the Monte Carlo standard error σ/√n, σ² = Π (1 + c_j²/12) − 1.
  const int n = 1 << 14;
  double sum = 0.0, var = 1.0;
  for (int j = 0; j < dim; ++j) var *= 1.0 + std::pow(6.0 / (j + 4.0), 2) / 12.0;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd u = s.sample(i);
    double f = 1.0;
    for (int j = 0; j < dim; ++j) f *= 1.0 + (u[j] - 0.5) * 6.0 / (j + 4.0);
    sum += f;
  }
  EXPECT_LT(std::abs(sum / n - 1.0), 0.1 * std::sqrt((var - 1.0) / n));
}

TEST(LatinHypercube, EveryStratumOnce) {
  for (std::uint64_t n : {1ULL, 2ULL, 7ULL, 1000ULL, 4097ULL}) {
    const Sampler s(SamplingMethod::LatinHypercube, 5, 42, n);
    std::vector<std::vector<int>> hit(5, std::vector<int>(n, 0));
    for (std::uint64_t i = 0; i < n; ++i) {
      const Eigen::VectorXd u = s.sample(i);
      for (int j = 0; j < 5; ++j) {
        ASSERT_GT(u[j], 0.0);
        ASSERT_LT(u[j], 1.0);
        ++hit[j][static_cast<size_t>(std::floor(u[j] * n))];
      }
    }
    for (int j = 0; j < 5; ++j)
      for (std::uint64_t k = 0; k < n; ++k) ASSERT_EQ(hit[j][k], 1) << "n=" << n << " dim " << j;
  }
  EXPECT_THROW(Sampler(SamplingMethod::LatinHypercube, 2, 1, 0), flexuq::InputError);
}

TEST(LatinHypercube, KeyedPermutationIsBijective) {
  for (std::uint64_t n = 1; n <= 300; ++n) {
    std::vector<char> seen(n, 0);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto p = keyed_permutation(5, 3, n, i);
      ASSERT_LT(p, n);
      ASSERT_FALSE(seen[p]);
      seen[p] = 1;
    }
  }
  // Different keys give different permutations.
  int same = 0;
  for (std::uint64_t i = 0; i < 100; ++i) same += keyed_permutation(5, 3, 100, i) == keyed_permutation(5, 4, 100, i);
  EXPECT_LT(same, 10);
}

TEST(MonteCarlo, UniformStatisticsAndSeeds) {
  const Sampler s(SamplingMethod::MonteCarlo, 3, 123);
  const int n = 200000;
  double m[3] = {0, 0, 0}, c01 = 0;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd u = s.sample(i);
    for (int j = 0; j < 3; ++j) m[j] += u[j];
    c01 += (u[0] - 0.5) * (u[1] - 0.5);
  }
  // Mean 1/2 with standard error √(1/12/n) ≈ 6.5e-4; correlation 0 with s.e. ≈ 1/(12√n) = 1.9e-4.
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(m[j] / n, 0.5, 4 * 6.5e-4);
  EXPECT_NEAR(c01 / n, 0.0, 4 * 1.9e-4);
  const Sampler t(SamplingMethod::MonteCarlo, 3, 124);
  EXPECT_NE(s.sample(5)[0], t.sample(5)[0]);
  EXPECT_EQ(s.sample(5)[2], Sampler(SamplingMethod::MonteCarlo, 3, 123).sample(5)[2]);
}

TEST(Sampler, SampleIIsIndependentOfRankCount) {
  // Each rank computes its share (i ≡ rank mod size) of three designs; the sum over ranks must
  // equal, bit for bit, the full design computed serially on every rank.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 257, d = 6;
  const Sampler designs[] = {Sampler(SamplingMethod::MonteCarlo, d, 99), Sampler(SamplingMethod::LatinHypercube, d, 99, n),
                             Sampler(SamplingMethod::Sobol, d, 99, 0, true)};
  for (const auto& s : designs) {
    std::vector<double> local(n * d, 0.0), global(n * d, 0.0);
    for (int i = rank; i < n; i += size) s.sample(i, local.data() + i * d);
    MPI_Allreduce(local.data(), global.data(), n * d, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int mismatch = 0;
    for (int i = 0; i < n; ++i) {
      const Eigen::VectorXd u = s.sample(i);
      mismatch += std::memcmp(u.data(), global.data() + i * d, d * sizeof(double)) != 0;
    }
    int total = 0;
    MPI_Allreduce(&mismatch, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(total, 0) << "method " << static_cast<int>(s.method());
    // Rank 0's value of sample n−1 broadcast to all ranks equals their own computation.
    Eigen::VectorXd ref = s.sample(n - 1);
    MPI_Bcast(ref.data(), d, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    EXPECT_EQ(ref, s.sample(n - 1));
  }
}
