// SPDX-License-Identifier: MIT
#include "flexuq/uq/Sampler.hpp"

#include "flexuq/core/Error.hpp"

#include <Random123/philox.h>

namespace flexuq::uq {

namespace {

enum Stream : std::uint32_t { kMonteCarlo = 1, kLhsJitter = 2, kLhsPermutation = 3, kSobolShift = 4 };

r123::Philox4x32::ctr_type philox(std::uint64_t seed, std::uint32_t c0, std::uint32_t c1, std::uint32_t c2,
                                  std::uint32_t c3) {
  r123::Philox4x32 gen;
  r123::Philox4x32::key_type k = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  r123::Philox4x32::ctr_type c = {{c0, c1, c2, c3}};
  return gen(c, k);
}

} // namespace

double philox_uniform(std::uint64_t seed, std::uint32_t stream, std::uint64_t i, std::uint32_t j) {
  const auto r = philox(seed, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), j / 2, stream);
  const std::uint32_t hi = r[2 * (j % 2)], lo = r[2 * (j % 2) + 1];
  const std::uint64_t bits = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11; // 53 bits
  return (static_cast<double>(bits) + 0.5) * 0x1.0p-53;
}

std::uint64_t keyed_permutation(std::uint64_t seed, std::uint32_t key, std::uint64_t n, std::uint64_t i) {
  FLEXUQ_REQUIRE(n >= 1 && i < n, "keyed_permutation: index " << i << " not in [0, " << n << ")");
  if (n == 1) return 0;
  int half = 1; // domain 4^half >= n
  while ((1ULL << (2 * half)) < n) ++half;
  FLEXUQ_REQUIRE(half <= 31, "keyed_permutation: n = " << n << " too large");
  const std::uint64_t mask = (1ULL << half) - 1;
  std::uint64_t x = i;
  do {
    std::uint64_t L = x >> half, R = x & mask;
    for (std::uint32_t round = 0; round < 4; ++round) {
      const auto f = philox(seed, static_cast<std::uint32_t>(R), key, round, kLhsPermutation);
      const std::uint64_t F = ((static_cast<std::uint64_t>(f[0]) << 32) | f[1]) & mask;
      const std::uint64_t nL = R;
      R = L ^ F;
      L = nL;
    }
    x = (L << half) | R;
  } while (x >= n); // cycle walking keeps the map a bijection of [0, n)
  return x;
}

// Joe & Kuo, "Constructing Sobol sequences with better two-dimensional projections" (2008),
// direction numbers file new-joe-kuo-6.21201, rows d = 2..31 (d, s, a, m_1..m_s).
const std::vector<SobolTableRow>& sobol_table() {
  static const std::vector<SobolTableRow> rows = {
      {1, 0, {1}},
      {2, 1, {1, 3}},
      {3, 1, {1, 3, 1}},
      {3, 2, {1, 1, 1}},
      {4, 1, {1, 1, 3, 3}},
      {4, 4, {1, 3, 5, 13}},
      {5, 2, {1, 1, 5, 5, 17}},
      {5, 4, {1, 1, 5, 5, 5}},
      {5, 7, {1, 1, 7, 11, 19}},
      {5, 11, {1, 1, 5, 1, 1}},
      {5, 13, {1, 1, 1, 3, 11}},
      {5, 14, {1, 3, 5, 5, 31}},
      {6, 1, {1, 3, 3, 9, 7, 49}},
      {6, 13, {1, 1, 1, 15, 21, 21}},
      {6, 16, {1, 3, 1, 13, 27, 49}},
      {6, 19, {1, 1, 1, 15, 7, 5}},
      {6, 22, {1, 3, 1, 15, 13, 25}},
      {6, 25, {1, 1, 5, 5, 19, 61}},
      {7, 1, {1, 3, 7, 11, 23, 15, 103}},
      {7, 4, {1, 3, 7, 13, 13, 15, 69}},
      {7, 7, {1, 1, 3, 13, 7, 35, 63}},
      {7, 8, {1, 3, 5, 9, 1, 25, 53}},
      {7, 14, {1, 3, 1, 13, 9, 35, 107}},
      {7, 19, {1, 3, 1, 5, 27, 61, 31}},
      {7, 21, {1, 1, 5, 11, 19, 41, 61}},
      {7, 28, {1, 3, 5, 3, 3, 13, 69}},
      {7, 31, {1, 1, 7, 13, 1, 19, 1}},
      {7, 32, {1, 3, 7, 5, 13, 19, 59}},
      {7, 37, {1, 1, 3, 9, 25, 29, 41}},
      {7, 41, {1, 3, 5, 13, 23, 1, 55}},
  };
  return rows;
}

int sobol_max_dim() { return 1 + static_cast<int>(sobol_table().size()); }

Sampler::Sampler(SamplingMethod method, int dim, std::uint64_t seed, std::uint64_t n_total, bool shift)
    : method_(method), dim_(dim), seed_(seed), n_(n_total) {
  FLEXUQ_REQUIRE(dim >= 1, "Sampler: dimension " << dim << " must be >= 1");
  if (method == SamplingMethod::LatinHypercube)
    FLEXUQ_REQUIRE(n_total >= 1, "Sampler: Latin hypercube needs the number of samples n_total >= 1");
  if (method != SamplingMethod::Sobol) return;
  FLEXUQ_REQUIRE(dim <= sobol_max_dim(), "Sampler: Sobol' direction numbers are tabulated for " << sobol_max_dim()
                                                                                          << " dimensions, asked for " << dim);
  v_.resize(dim);
  for (int k = 0; k < 32; ++k) v_[0][k] = 1u << (31 - k); // dimension 1: m_k = 1
  for (int j = 1; j < dim; ++j) {
    const SobolTableRow& row = sobol_table()[j - 1];
    const int s = row.s;
    std::array<std::uint32_t, 32>& v = v_[j];
    for (int k = 0; k < s && k < 32; ++k) v[k] = row.m[k] << (31 - k);
    for (int k = s; k < 32; ++k) {
      // m_k = 2c_1 m_{k−1} ⊕ 4c_2 m_{k−2} ⊕ … ⊕ 2^s m_{k−s} ⊕ m_{k−s}, written on v = m·2^(32−k).
      std::uint32_t x = v[k - s] ^ (v[k - s] >> s);
      for (int t = 1; t < s; ++t)
        if ((row.a >> (s - 1 - t)) & 1u) x ^= v[k - t];
      v[k] = x;
    }
  }
  shift_.assign(dim, 0u);
  if (shift)
    for (int j = 0; j < dim; ++j) {
      const auto r = philox(seed, static_cast<std::uint32_t>(j), 0, 0, kSobolShift);
      shift_[j] = r[0];
    }
}

std::uint32_t Sampler::sobol_integer(std::uint64_t i, int j) const {
  FLEXUQ_REQUIRE(method_ == SamplingMethod::Sobol && j >= 0 && j < dim_, "sobol_integer: not a Sobol' sampler or bad dimension");
  FLEXUQ_REQUIRE(i < (1ULL << 32), "Sobol': sample index " << i << " exceeds 2^32");
  std::uint64_t g = i ^ (i >> 1); // Gray code
  std::uint32_t x = 0;
  for (int k = 0; g != 0; ++k, g >>= 1)
    if (g & 1u) x ^= v_[j][k];
  return x ^ shift_[j];
}

void Sampler::sample(std::uint64_t i, double* u) const {
  switch (method_) {
  case SamplingMethod::MonteCarlo:
    for (int j = 0; j < dim_; ++j) u[j] = philox_uniform(seed_, kMonteCarlo, i, static_cast<std::uint32_t>(j));
    break;
  case SamplingMethod::LatinHypercube:
    FLEXUQ_REQUIRE(i < n_, "Latin hypercube: sample " << i << " beyond the design size " << n_);
    for (int j = 0; j < dim_; ++j) {
      const std::uint64_t stratum = keyed_permutation(seed_, static_cast<std::uint32_t>(j), n_, i);
      u[j] = (static_cast<double>(stratum) + philox_uniform(seed_, kLhsJitter, i, static_cast<std::uint32_t>(j))) /
             static_cast<double>(n_);
    }
    break;
  case SamplingMethod::Sobol:
    for (int j = 0; j < dim_; ++j) u[j] = (static_cast<double>(sobol_integer(i, j)) + 0.5) * 0x1.0p-32;
    break;
  }
}

Eigen::VectorXd Sampler::sample(std::uint64_t i) const {
  Eigen::VectorXd u(dim_);
  sample(i, u.data());
  return u;
}

Eigen::MatrixXd Sampler::samples(std::uint64_t first, std::uint64_t count) const {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(count), dim_);
  Eigen::VectorXd u(dim_);
  for (std::uint64_t r = 0; r < count; ++r) {
    sample(first + r, u.data());
    out.row(static_cast<Eigen::Index>(r)) = u.transpose();
  }
  return out;
}

} // namespace flexuq::uq
