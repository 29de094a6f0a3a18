// SPDX-License-Identifier: MIT
#include "flexuq/la/MumpsCompression.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/la/Solvers.hpp"

namespace flexuq::la {

namespace {
MumpsCompression g_compression = MumpsCompression::automatic;
} // namespace

void set_mumps_compression(MumpsCompression choice) { g_compression = choice; }

MumpsCompression mumps_compression() { return g_compression; }

void mumps_compression_defaults(const std::string& ksp_prefix, SolverDefaults& defaults) {
  if (g_compression == MumpsCompression::off) defaults.set(ksp_prefix + "mat_mumps_icntl_15", "0");
}

PetscInt inherit_block_size(Mat parent, IS is, Mat sub) {
  PetscInt rbs = 1, cbs = 1;
  FLEXUQ_PETSC(MatGetBlockSizes(parent, &rbs, &cbs));
  const PetscInt k = rbs == cbs ? rbs : 1;
  int whole = k > 1 ? 1 : 0;
  if (whole) {
    PetscInt n = 0;
    const PetscInt* idx = nullptr;
    FLEXUQ_PETSC(ISGetLocalSize(is, &n));
    FLEXUQ_PETSC(ISGetIndices(is, &idx));
    whole = n % k == 0 ? 1 : 0;
    for (PetscInt j = 0; whole && j < n; j += k) {
      if (idx[j] % k != 0) whole = 0;
      for (PetscInt c = 1; whole && c < k; ++c)
        if (idx[j + c] != idx[j] + c) whole = 0;
    }
    FLEXUQ_PETSC(ISRestoreIndices(is, &idx));
  }
  int all = 0;
  FLEXUQ_MPI(MPI_Allreduce(&whole, &all, 1, MPI_INT, MPI_MIN, PetscObjectComm(reinterpret_cast<PetscObject>(sub))));
  if (all) FLEXUQ_PETSC(MatSetBlockSizes(sub, k, k));
  PetscInt out = 1;
  FLEXUQ_PETSC(MatGetBlockSizes(sub, &out, &cbs));
  return out == cbs ? out : 1;
}

} // namespace flexuq::la
