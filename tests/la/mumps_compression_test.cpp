// SPDX-License-Identifier: MIT
// linear_solver.compress (issue #38 item 3): MUMPS's analysis on the node graph (ICNTL(15) = −3) where
// the factored matrix carries the block size 3, and not where it does not or where `off` is asked for.
// The matrix is the 3-component operator L ⊗ B, numbered node by node (row 3 n + c): L the 7-point
// Laplacian of an 11 × 9 × 7 grid with Dirichlet ends, B = H diag(1, 2, 3.5) H with H the Householder
// reflection of (1, 2, 2) / 3 (a full 3 × 3 coupling per node pair), so its eigenvalues are the products
// of L's (closed form, 4 Σ sin²(kπ / (2(n+1))) per direction) and B's: every case is checked against them
// to 1e-10, compressed against uncompressed to 1e-9, on 1 and 2 ranks. ICNTL(15) is read back from the
// factor (MatMumpsGetIcntl). la::inherit_block_size gives a submatrix of whole nodes the block size 3
// (the grid without its x = 0 plane: the closed form on 10 × 9 × 7) and refuses one that cuts a node.
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/MumpsCompression.hpp"
#include "flexuq/la/Solvers.hpp"
#include "sinvert_eps.hpp"

#include <slepceps.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace flexuq;

namespace {

constexpr PetscInt kNx = 11, kNy = 9, kNz = 7;
constexpr int kNev = 8;

/// B = H diag(1, 2, 3.5) H, H = I − 2 v vᵀ, v = (1, 2, 2) / 3.
double coupling(int a, int b) {
  const double v[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, d[3] = {1.0, 2.0, 3.5};
  double s = 0;
  for (int k = 0; k < 3; ++k) s += ((a == k) - 2 * v[a] * v[k]) * d[k] * ((b == k) - 2 * v[b] * v[k]);
  return s;
}

/// L ⊗ B on the nx × kNy × kNz grid, block size @p bs (3: node blocks; 1: none).
MatH vector_laplacian(MPI_Comm comm, PetscInt nx, PetscInt bs) {
  const PetscInt nodes = nx * kNy * kNz;
  MatH A;
  FLEXUQ_PETSC(MatCreate(comm, A.out()));
  FLEXUQ_PETSC(MatSetSizes(A.get(), PETSC_DECIDE, PETSC_DECIDE, 3 * nodes, 3 * nodes));
  FLEXUQ_PETSC(MatSetType(A.get(), MATAIJ));
  FLEXUQ_PETSC(MatSetBlockSize(A.get(), bs));
  FLEXUQ_PETSC(MatSeqAIJSetPreallocation(A.get(), 21, nullptr));
  FLEXUQ_PETSC(MatMPIAIJSetPreallocation(A.get(), 21, nullptr, 21, nullptr));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  for (PetscInt row = lo; row < hi; ++row) {
    const PetscInt n = row / 3, a = row % 3;
    const PetscInt i = n % nx, j = (n / nx) % kNy, k = n / (nx * kNy);
    std::vector<std::pair<PetscInt, double>> nb{{n, 6.0}};
    if (i > 0) nb.emplace_back(n - 1, -1.0);
    if (i + 1 < nx) nb.emplace_back(n + 1, -1.0);
    if (j > 0) nb.emplace_back(n - nx, -1.0);
    if (j + 1 < kNy) nb.emplace_back(n + nx, -1.0);
    if (k > 0) nb.emplace_back(n - nx * kNy, -1.0);
    if (k + 1 < kNz) nb.emplace_back(n + nx * kNy, -1.0);
    for (const auto& [m, l] : nb)
      for (int b = 0; b < 3; ++b) FLEXUQ_PETSC(MatSetValue(A.get(), row, 3 * m + b, l * coupling(static_cast<int>(a), b), INSERT_VALUES));
  }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRIC, PETSC_TRUE));
  return A;
}

/// The kNev smallest eigenvalues of L ⊗ B on the nx × kNy × kNz grid, in closed form.
std::vector<double> exact_eigenvalues(PetscInt nx) {
  const auto s2 = test_la::laplacian_1d_eigenvalue;
  std::vector<double> all;
  for (PetscInt a = 1; a <= 4; ++a)
    for (PetscInt b = 1; b <= 4; ++b)
      for (PetscInt c = 1; c <= 4; ++c)
        for (double mu : {1.0, 2.0, 3.5}) all.push_back(mu * (s2(a, nx) + s2(b, kNy) + s2(c, kNz)));
  std::sort(all.begin(), all.end());
  all.resize(kNev);
  return all;
}

struct Solve {
  std::vector<double> values;
  PetscInt icntl15 = 99;
};

Solve solve(Mat A) {
  EpsH eps;
  Solve out;
  out.values = test_la::sinvert_smallest(A, "cmptest_", kNev, eps);
  out.values.resize(std::min<std::size_t>(out.values.size(), kNev));
  FLEXUQ_PETSC(MatMumpsGetIcntl(test_la::sinvert_factor(eps.get()), 15, &out.icntl15));
  return out;
}

void expect_values(const std::vector<double>& got, const std::vector<double>& want, double rtol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], rtol * want[i]) << what << " eigenvalue " << i;
}

struct CompressionGuard {
  la::MumpsCompression saved = la::mumps_compression();
  ~CompressionGuard() { la::set_mumps_compression(saved); }
};

} // namespace

TEST(MumpsCompression, NodeBlocksAreCompressedUnlessOff) {
  CompressionGuard guard;
  const std::vector<double> exact = exact_eigenvalues(kNx);
  MatH A = vector_laplacian(MPI_COMM_WORLD, kNx, 3);
  la::set_mumps_compression(la::MumpsCompression::automatic);
  const Solve on = solve(A.get());
  EXPECT_EQ(on.icntl15, -3);
  expect_values(on.values, exact, 1e-10, "compressed");
  la::set_mumps_compression(la::MumpsCompression::off);
  const Solve off = solve(A.get());
  EXPECT_EQ(off.icntl15, 0);
  expect_values(off.values, exact, 1e-10, "off");
  expect_values(off.values, on.values, 1e-9, "off against compressed");
  // No block size (what fe::Component gives K when a node has only some of its DOFs fixed): not compressed.
  la::set_mumps_compression(la::MumpsCompression::automatic);
  MatH A1 = vector_laplacian(MPI_COMM_WORLD, kNx, 1);
  const Solve plain = solve(A1.get());
  EXPECT_EQ(plain.icntl15, 0);
  expect_values(plain.values, on.values, 1e-9, "block size 1 against compressed");
}

TEST(MumpsCompression, SubmatrixOfWholeNodesKeepsTheBlocks) {
  CompressionGuard guard;
  la::set_mumps_compression(la::MumpsCompression::automatic);
  MatH A = vector_laplacian(MPI_COMM_WORLD, kNx, 3);
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A.get(), &lo, &hi));
  // Whole nodes: every node but those of the x = 0 plane; cut: besides, component 2 of the last node.
  std::vector<PetscInt> whole, cut;
  for (PetscInt row = lo; row < hi; ++row) {
    if ((row / 3) % kNx == 0) continue;
    whole.push_back(row);
    if (row != 3 * kNx * kNy * kNz - 1) cut.push_back(row);
  }
  for (const bool cut_one : {false, true}) {
    const auto& rows = cut_one ? cut : whole;
    IsH is;
    FLEXUQ_PETSC(ISCreateGeneral(MPI_COMM_WORLD, static_cast<PetscInt>(rows.size()), rows.data(), PETSC_COPY_VALUES,
                                 is.out()));
    MatH S;
    FLEXUQ_PETSC(MatCreateSubMatrix(A.get(), is.get(), is.get(), MAT_INITIAL_MATRIX, S.out()));
    FLEXUQ_PETSC(MatSetOption(S.get(), MAT_SYMMETRIC, PETSC_TRUE));
    EXPECT_EQ(la::inherit_block_size(A.get(), is.get(), S.get()), cut_one ? 1 : 3);
    const Solve s = solve(S.get());
    EXPECT_EQ(s.icntl15, cut_one ? 0 : -3);
    // Without its x = 0 plane the grid is the 10 × 9 × 7 one with Dirichlet ends.
    if (!cut_one) expect_values(s.values, exact_eigenvalues(kNx - 1), 1e-10, "whole-node submatrix");
  }
}
