// SPDX-License-Identifier: MIT
#pragma once
/// @file Sampler.hpp
/// @brief Reproducible sample designs on the unit cube (0,1)^d: Monte Carlo, Latin hypercube and
/// Sobol' (Joe–Kuo direction numbers). Sample i is a pure function of (method, dim, seed, n, i):
/// the same on every rank and for every rank count, because all randomness comes from the
/// counter-based Random123 Philox4x32-10 generator keyed by the seed and counted by the sample
/// index — there is no per-rank generator state.
///
/// Mapping to physical inputs: u → ξ_j = Distribution::germ_quantile(u_j) → x_j = from_germ(ξ_j)
/// (StochasticSpace::germ_from_uniform does this per dimension).

#include <Eigen/Dense>

#include <array>
#include <cstdint>
#include <vector>

namespace flexuq::uq {

enum class SamplingMethod { MonteCarlo, LatinHypercube, Sobol };

/// Uniform (0,1) number j of sample i in stream @p stream: Philox4x32-10 with key
/// (seed_lo, seed_hi) and counter (i_lo, i_hi, j/2, stream); 53-bit resolution, never 0 or 1.
double philox_uniform(std::uint64_t seed, std::uint32_t stream, std::uint64_t i, std::uint32_t j);

/// A keyed random bijection of {0, …, n−1} (4-round Feistel network with Philox round
/// function on the next power of 4, plus cycle walking). O(1) memory and time per lookup.
std::uint64_t keyed_permutation(std::uint64_t seed, std::uint32_t key, std::uint64_t n, std::uint64_t i);

/// One row of the published Joe–Kuo table (new-joe-kuo-6.21201): degree s, coefficient code a of
/// the primitive polynomial x^s + c_1 x^(s−1) + … + c_(s−1) x + 1 (a = c_1…c_(s−1) in binary) and the
/// initial direction integers m_1..m_s. Dimension 1 (all m = 1, no polynomial) is not a row.
struct SobolTableRow {
  int s;
  unsigned a;
  std::array<unsigned, 8> m;
};
/// Rows for dimensions 2..sobol_max_dim().
const std::vector<SobolTableRow>& sobol_table();
int sobol_max_dim();

class Sampler {
public:
  /// @param n_total number of samples of the design: required (> 0) for Latin hypercube (the
  ///        strata), ignored otherwise.
  /// @param shift Sobol' only: apply a random digital shift keyed by @p seed (otherwise the seed
  ///        has no effect on Sobol' points).
  Sampler(SamplingMethod method, int dim, std::uint64_t seed, std::uint64_t n_total = 0, bool shift = false);

  SamplingMethod method() const { return method_; }
  int dim() const { return dim_; }
  std::uint64_t seed() const { return seed_; }

  /// Sample i (0-based) into u[0..dim). Sobol' point i is the i-th point of the Gray-code
  /// ordered sequence (point 0 is the origin), returned at the centre of its 2^-32 cell, i.e.
  /// x + 2^-33, so that all u ∈ (0,1).
  void sample(std::uint64_t i, double* u) const;
  Eigen::VectorXd sample(std::uint64_t i) const;
  /// Rows first .. first+count−1.
  Eigen::MatrixXd samples(std::uint64_t first, std::uint64_t count) const;

  /// Raw 32-bit Sobol' integers of point i (tests: exact binary fractions / 2^32).
  std::uint32_t sobol_integer(std::uint64_t i, int j) const;

private:
  SamplingMethod method_;
  int dim_;
  std::uint64_t seed_, n_;
  std::vector<std::array<std::uint32_t, 32>> v_; // Sobol' direction numbers v_{j,k} · 2^32
  std::vector<std::uint32_t> shift_;
};

} // namespace flexuq::uq
