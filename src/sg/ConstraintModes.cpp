// SPDX-License-Identifier: MIT
#include "flexuq/sg/ConstraintModes.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"

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
  const MeanPreconditioner pre(space, mean ? mean : Kii[0], "K_ii^(0) (interior stiffness at the mean)", opt.prefix + "mean_");
  KspH ksp;
  FLEXUQ_PETSC(KSPCreate(world, ksp.out()));
  FLEXUQ_PETSC(KSPSetOptionsPrefix(ksp.get(), opt.prefix.c_str()));
  FLEXUQ_PETSC(KSPSetOperators(ksp.get(), K.shell(), K.shell()));
  FLEXUQ_PETSC(KSPSetType(ksp.get(), KSPCG));
  PC pc = nullptr;
  FLEXUQ_PETSC(KSPGetPC(ksp.get(), &pc));
  pre.install(pc);
  FLEXUQ_PETSC(KSPSetNormType(ksp.get(), KSP_NORM_UNPRECONDITIONED));
  FLEXUQ_PETSC(KSPSetTolerances(ksp.get(), opt.rtol, 0.0, PETSC_DEFAULT, opt.max_it));
  FLEXUQ_PETSC(KSPSetFromOptions(ksp.get()));

  PetscInt nb = 0, ni = 0;
  FLEXUQ_PETSC(MatGetSize(Kib[0], &ni, &nb));
  const auto nl = static_cast<std::size_t>(space.n_local());
  const int P = space.n_blocks(), first = space.first_block(), owned = space.n_owned();
  VecH ej, col, rhs, res;
  FLEXUQ_PETSC(MatCreateVecs(Kib[0], ej.out(), col.out()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(VecGetOwnershipRange(ej.get(), &lo, &hi));
  rhs = space.create_vec();
  res = space.create_vec();
  std::vector<double> all(static_cast<std::size_t>(P) * nl, 0.0);
  ConstraintModeResult out;
  log::Progress progress(world, "sg constraint modes", nb);
  for (PetscInt j = 0; j < nb; ++j) {
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
    space.set_owned(all, rhs.get());
    out.modes.push_back(space.create_vec());
    Vec x = out.modes.back().get();
    FLEXUQ_PETSC(KSPSolve(ksp.get(), rhs.get(), x));
    KSPConvergedReason reason;
    FLEXUQ_PETSC(KSPGetConvergedReason(ksp.get(), &reason));
    PetscInt its = 0;
    FLEXUQ_PETSC(KSPGetIterationNumber(ksp.get(), &its));
    out.pcg_iterations += its;
    if (reason <= 0)
      throw Error(FLEXUQ_MSG("sg: the Galerkin PCG for constraint mode " << j << " did not converge (reason "
                                                                         << static_cast<int>(reason) << ", " << its
                                                                         << " iterations)"));
    K.apply(x, res.get());
    FLEXUQ_PETSC(VecAYPX(res.get(), -1.0, rhs.get()));
    PetscReal rn = 0, bn = 0;
    FLEXUQ_PETSC(VecNorm(res.get(), NORM_2, &rn));
    FLEXUQ_PETSC(VecNorm(rhs.get(), NORM_2, &bn));
    if (bn > 0) out.max_relative_residual = std::max(out.max_relative_residual, static_cast<double>(rn / bn));
    progress.update(j + 1);
  }
  log::info(world, FLEXUQ_MSG("sg: " << nb << " constraint modes, " << P << " blocks, " << out.pcg_iterations
                                     << " PCG iterations, max relative residual " << out.max_relative_residual));
  return out;
}

} // namespace flexuq::sg
