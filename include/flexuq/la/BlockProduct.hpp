// SPDX-License-Identifier: MIT
#pragma once
/// @file BlockProduct.hpp
/// @brief Y = A X for a distributed AIJ matrix and a block of b vectors stored row-major (local rows
/// × b). The ghost rows of X arrive through one PetscSF broadcast of b doubles per row; then every
/// local row of A is applied once to the whole block, so A is streamed once per block. PETSc's
/// MatMatMult(AIJ, dense) streams A once per 4 columns, which makes the O(N n²) products of wide
/// reduced bases memory-bound (docs/performance.md).

#include "flexuq/core/Handle.hpp"

#include <vector>

namespace flexuq::la {

class BlockProduct {
public:
  /// @note Collective on A's communicator. A must be MATSEQAIJ or MATMPIAIJ (check supports());
  /// A's values must not change while the BlockProduct lives (it holds A's arrays).
  explicit BlockProduct(Mat A);
  ~BlockProduct();
  BlockProduct(const BlockProduct&) = delete;
  BlockProduct& operator=(const BlockProduct&) = delete;
  /// Whether @p A has a type this class handles.
  static bool supports(Mat A);
  PetscInt local_rows() const { return nloc_; }
  /// Y = A X; X and Y row-major (local_rows() × b). @note Collective.
  void apply(const double* X, PetscInt b, double* Y);

private:
  void release() noexcept;
  Mat A_ = nullptr, Ad_ = nullptr, Ao_ = nullptr;
  const PetscInt *ia_ = nullptr, *ja_ = nullptr, *iao_ = nullptr, *jao_ = nullptr;
  const PetscScalar *va_ = nullptr, *vao_ = nullptr;
  PetscInt nloc_ = 0, nghost_ = 0;
  SfH sf_;
  std::vector<double> ghost_;
};

} // namespace flexuq::la
