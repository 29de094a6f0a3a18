// SPDX-License-Identifier: MIT
#pragma once
// A fixed-free chain of point masses given as MatrixMarket files (springs k, 4k, 9k along x, y, z;
// node 1 is the one to hold) with its closed-form frequencies: the workflow tests' external-matrix
// model.
#include "../io/ScratchFile.hpp"

#include "flexuq/fe/MatrixComponent.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace flexuq::test {

constexpr int kMasses = 4;          // free nodes 2…5; node 1 is held
constexpr double kK = 1000, kM = 2; // spring along x, nodal mass

/// K (springs between consecutive nodes, stiffness kK·(c+1)² in component c) or M (kM per DOF) of the
/// 5-node chain, lower triangle, and the label file. Rank 0 writes; every rank returns the folder.
inline std::string write_chain() {
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
      for (int c = 1; c <= 3; ++c) fl << v + 1 << " " << c << " " << 0.1 * v << " " << 0.01 * v * v << " 0\n"; // not collinear: 3 nodes hold a body
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

/// The chain's lowest @p count frequencies (Hz) with stiffness and mass coefficients @p ck, @p cm:
/// a fixed-free chain of N masses (@p masses of them free) has ω_j = 2 √(k/m) sin((2j − 1)π / (2(2N + 1))).
inline std::vector<double> chain_hz(double ck, double cm, std::size_t count, int masses = kMasses) {
  std::vector<double> f;
  for (int c = 0; c < 3; ++c)
    for (int j = 1; j <= masses; ++j)
      f.push_back(2 * std::sqrt(ck * kK * (c + 1) * (c + 1) / (cm * kM)) *
                  std::sin((2 * j - 1) * M_PI / (2 * (2 * masses + 1))) / (2 * M_PI));
  std::sort(f.begin(), f.end());
  f.resize(count);
  return f;
}

/// The chain of write_chain(@p dir) as a model.matrices spec, with node 1 as set FIX.
inline fe::MatrixModelSpec chain_model(const std::string& dir) {
  fe::MatrixModelSpec m;
  m.labels = dir + "/dofs.txt";
  m.stiffness = {{"K", {dir + "/K.mtx", io::MatrixFormat::matrix_market, ""}, 1.0}};
  m.mass = {{"M", {dir + "/M.mtx", io::MatrixFormat::matrix_market, ""}, 1.0}};
  m.node_sets["FIX"] = {1};
  return m;
}

} // namespace flexuq::test
