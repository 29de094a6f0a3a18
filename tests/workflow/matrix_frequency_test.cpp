// SPDX-License-Identifier: MIT
// workflow::matrix_frequency_factory without the CLI: a fixed-free chain of point masses given as
// MatrixMarket files (springs k, 4k, 9k along x, y, z), the parameters scaling its stiffness and
// mass terms, against the chain's closed-form frequencies.
#include "../io/ScratchFile.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/workflow/MatrixFrequencyCampaign.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <vector>

using namespace flexuq;

namespace {

constexpr int kMasses = 4;          // free nodes 2…5; node 1 is held
constexpr double kK = 1000, kM = 2; // spring along x, nodal mass

/// K (springs between consecutive nodes, stiffness kK·(c+1)² in component c) or M (kM per DOF) of the
/// 5-node chain, lower triangle, and the label file. Rank 0 writes; every rank returns the folder.
std::string write_chain() {
  const std::string dir = test::shared_scratch_dir("workflow-chain");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const int nodes = kMasses + 1, n = 3 * nodes;
    std::vector<std::vector<double>> K(n, std::vector<double>(n, 0.0));
    for (int e = 0; e + 1 < nodes; ++e)
      for (int c = 0; c < 3; ++c) {
        const int a = 3 * e + c, b = 3 * (e + 1) + c;
        const double k = kK * (c + 1) * (c + 1);
        K[a][a] += k;
        K[b][b] += k;
        K[a][b] -= k;
        K[b][a] -= k;
      }
    std::ofstream fk(dir + "/K.mtx"), fm(dir + "/M.mtx"), fl(dir + "/dofs.txt");
    int nnz = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) nnz += K[i][j] != 0;
    fk << "%%MatrixMarket matrix coordinate real symmetric\n" << n << " " << n << " " << nnz << "\n";
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j)
        if (K[i][j] != 0) fk << i + 1 << " " << j + 1 << " " << K[i][j] << "\n";
    fm << "%%MatrixMarket matrix coordinate real symmetric\n" << n << " " << n << " " << n << "\n";
    for (int i = 0; i < n; ++i) fm << i + 1 << " " << i + 1 << " " << kM << "\n";
    for (int v = 0; v < nodes; ++v)
      for (int c = 1; c <= 3; ++c) fl << v + 1 << " " << c << " " << 0.1 * v << " 0 0\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

/// The chain's lowest @p count frequencies (Hz) with stiffness and mass coefficients @p ck, @p cm:
/// a fixed-free chain of N masses has ω_j = 2 √(k/m) sin((2j − 1)π / (2(2N + 1))).
std::vector<double> chain_hz(double ck, double cm, std::size_t count) {
  std::vector<double> f;
  for (int c = 0; c < 3; ++c)
    for (int j = 1; j <= kMasses; ++j)
      f.push_back(2 * std::sqrt(ck * kK * (c + 1) * (c + 1) / (cm * kM)) *
                  std::sin((2 * j - 1) * M_PI / (2 * (2 * kMasses + 1))) / (2 * M_PI));
  std::sort(f.begin(), f.end());
  f.resize(count);
  return f;
}

} // namespace

TEST(MatrixFrequencyCampaign, ParametersScaleTheTermsOfTheChain) {
  const std::string dir = write_chain();
  workflow::MatrixFrequencySpec spec;
  spec.model.labels = dir + "/dofs.txt";
  spec.model.stiffness = {{"K", {dir + "/K.mtx", io::MatrixFormat::matrix_market, ""}, 1.0}};
  spec.model.mass = {{"M", {dir + "/M.mtx", io::MatrixFormat::matrix_market, ""}, 1.0}};
  spec.model.node_sets["FIX"] = {1};
  spec.component.fixed_sets = {"FIX"};
  spec.targets = {{true, 0}, {false, 0}}; // θ0 → K's coefficient, θ1 → M's
  spec.options.frequencies = 6;
  auto model = workflow::matrix_frequency_factory(spec)(MPI_COMM_WORLD);
  model->prepare({1.0, 1.0});
  for (const std::vector<double>& theta : {std::vector<double>{1.0, 1.0}, {4.0, 1.0}, {2.0, 0.5}}) {
    const auto f = model->evaluate(theta).at("frequencies");
    const auto want = chain_hz(theta[0], theta[1], 6);
    ASSERT_EQ(f.size(), want.size());
    for (std::size_t k = 0; k < f.size(); ++k)
      EXPECT_NEAR(f[k], want[k], 1e-8 * want[k]) << "θ = (" << theta[0] << ", " << theta[1] << "), mode " << k;
  }
  EXPECT_THROW(model->evaluate({-1.0, 1.0}), InputError); // a coefficient must be positive
}
