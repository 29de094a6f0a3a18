// SPDX-License-Identifier: MIT
// Benchmark (not a test): evaluation of a polynomial chaos expansion at 10^6 points (issue #4 asks
// for "well under a second"). Usage: build/bench/bench_pce_eval [points=1000000]
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/Pce.hpp"
#include "flexuq/uq/PolynomialFamily.hpp"
#include "flexuq/uq/Sampler.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace flexuq::uq;

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
  std::printf("| inputs | order | terms | outputs | points | evaluate [s] | points/s |\n|---|---|---|---|---|---|---|\n");
  for (auto [d, p, outs] : {std::tuple{3, 5, 1}, std::tuple{3, 7, 1}, std::tuple{2, 5, 10}, std::tuple{6, 3, 1}}) {
    std::vector<PolynomialFamily> fam;
    for (int i = 0; i < d; ++i) fam.push_back(i % 2 ? PolynomialFamily::legendre() : PolynomialFamily::hermite());
    const auto basis = MultiIndexSet::total_degree(d, p);
    Eigen::MatrixXd c = Eigen::MatrixXd::Random(basis.size(), outs);
    Pce pce(fam, basis, c);
    Sampler s(SamplingMethod::MonteCarlo, d, 1, 0);
    Eigen::MatrixXd X = s.samples(0, static_cast<std::uint64_t>(n));
    for (Eigen::Index j = 0; j < X.cols(); ++j)
      for (Eigen::Index i = 0; i < X.rows(); ++i) X(i, j) = 2 * X(i, j) - 1; // germ points in (−1, 1)
    const auto t0 = std::chrono::steady_clock::now();
    const Eigen::MatrixXd Y = pce.evaluate(X);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("| %d | %d | %d | %d | %ld | %.3f | %.2e |   (checksum %.3e)\n", d, p, basis.size(), outs, n, t, n / t,
                Y.sum());
  }
  return 0;
}
