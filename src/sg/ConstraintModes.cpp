// SPDX-License-Identifier: MIT
#include "flexuq/sg/ConstraintModes.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/la/MumpsCompression.hpp"

#include <algorithm>

namespace flexuq::sg {

void split_terms(const std::vector<Mat>& terms, IS interior, IS boundary, std::vector<MatH>& Kii,
                 std::vector<MatH>& Kib) {
  Kii.clear();
  Kib.clear();
  for (Mat A : terms) {
    Kii.emplace_back();
    Kib.emplace_back();
    FLEXUQ_PETSC(MatCreateSubMatrix(A, interior, interior, MAT_INITIAL_MATRIX, Kii.back().out()));
    la::inherit_block_size(A, interior, Kii.back().get()); // whole nodes: MUMPS orders the node graph
    FLEXUQ_PETSC(MatCreateSubMatrix(A, interior, boundary, MAT_INITIAL_MATRIX, Kib.back().out()));
  }
}

ConstraintModeResult solve_constraint_modes(const BlockSpace& space, std::shared_ptr<const TripleTensor> tensor,
                                            const std::vector<Mat>& Kii, const std::vector<Mat>& Kib,
                                            const ConstraintModeOptions& opt, Mat mean) {
  FLEXUQ_REQUIRE(!Kii.empty() && Kii.size() == Kib.size() &&
                     static_cast<int>(Kii.size()) == tensor->n_operator && tensor->n_solution == space.n_blocks(),
                 "sg: constraint modes need P_alpha = " << tensor->n_operator << " K_ii and K_ib terms and P_beta = "
                                                        << tensor->n_solution << " blocks (got " << Kii.size() << ", "
                                                        << Kib.size() << ", " << space.n_blocks() << ")");
  const MPI_Comm world = space.layout().world();
  const GalerkinOperator K(space, tensor, Kii);
  MeanPreconditioner pre(space, mean ? mean : Kii[0], "K_ii^(0) (interior stiffness at the mean)", opt.prefix + "mean_");
  if (opt.preconditioner == Preconditioner::Kronecker)
    pre.set_block_factor(kronecker_block_factor(K, mean ? mean : Kii[0]), "the interior operator's Kronecker factor");
  PetscInt nb = 0, ni = 0;
  FLEXUQ_PETSC(MatGetSize(Kib[0], &ni, &nb));
  const auto nl = static_cast<std::size_t>(space.n_local());
  const int P = space.n_blocks(), first = space.first_block(), owned = space.n_owned();
  VecH ej, col;
  FLEXUQ_PETSC(MatCreateVecs(Kib[0], ej.out(), col.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(VecGetOwnershipRange(ej.get(), &lo, &hi));
  std::vector<double> all(static_cast<std::size_t>(P) * nl, 0.0);
  ConstraintModeResult out;
  log::Progress progress(world, "sg constraint modes", nb);
  // The boundary DOFs' PCGs in lockstep batches (sg::batched_pcg: one multi-right-hand-side mean
  // solve and one Galerkin product per term for the whole batch per iteration, zero initial guesses).
  constexpr PetscInt kBatch = 16;
  for (PetscInt j0 = 0; j0 < nb; j0 += kBatch) {
    const PetscInt j1 = std::min(nb, j0 + kBatch);
    std::vector<VecH> rhs, res;
    std::vector<Vec> bv, xv, rv;
    for (PetscInt j = j0; j < j1; ++j) {
      // Block k of the right-hand side: −Σ_a c_a0k K_ib^(a) e_j (only the owned blocks are needed).
      FLEXUQ_PETSC(VecSet(ej.get(), 0.0));
      if (j >= lo && j < hi) FLEXUQ_PETSC(VecSetValue(ej.get(), j, 1.0, INSERT_VALUES));
      FLEXUQ_PETSC(VecAssemblyBegin(ej.get()));
      FLEXUQ_PETSC(VecAssemblyEnd(ej.get()));
      std::fill(all.begin(), all.end(), 0.0);
      for (std::size_t a = 0; a < Kib.size(); ++a) {
        FLEXUQ_PETSC(MatMult(Kib[a], ej.get(), col.get()));
        const PetscScalar* c = nullptr;
        FLEXUQ_PETSC(VecGetArrayRead(col.get(), &c));
        for (int k = first; k < first + owned; ++k)
          for (const auto& [b, v] : tensor->rows[static_cast<std::size_t>(k)][a])
            if (b == 0)
              for (std::size_t i = 0; i < nl; ++i) all[static_cast<std::size_t>(k) * nl + i] -= v * c[i];
        FLEXUQ_PETSC(VecRestoreArrayRead(col.get(), &c));
      }
      rhs.push_back(space.create_vec());
      res.push_back(space.create_vec());
      space.set_owned(all, rhs.back().get());
      out.modes.push_back(space.create_vec());
      bv.push_back(rhs.back().get());
      xv.push_back(out.modes.back().get());
      rv.push_back(res.back().get());
    }
    const auto pcg = batched_pcg(K, pre, bv, xv, opt.rtol, opt.max_it);
    for (const int its : pcg.iterations) out.pcg_iterations += its;
    if (pcg.failed >= 0)
      throw Error(FLEXUQ_MSG("sg: the Galerkin PCG for constraint mode " << j0 + pcg.failed << " did not converge ("
                                                                         << pcg.reason << ")"));
    K.apply_many(xv, rv);
    for (std::size_t q = 0; q < rv.size(); ++q) {
      FLEXUQ_PETSC(VecAYPX(rv[q], -1.0, bv[q]));
      PetscReal rn = 0, bn = 0;
      FLEXUQ_PETSC(VecNorm(rv[q], NORM_2, &rn));
      FLEXUQ_PETSC(VecNorm(bv[q], NORM_2, &bn));
      if (bn > 0) out.max_relative_residual = std::max(out.max_relative_residual, static_cast<double>(rn / bn));
    }
    progress.update(j1);
  }
  log::info(world, FLEXUQ_MSG("sg: " << nb << " constraint modes, " << P << " blocks, " << out.pcg_iterations
                                     << " PCG iterations, max relative residual " << out.max_relative_residual));
  return out;
}

} // namespace flexuq::sg
