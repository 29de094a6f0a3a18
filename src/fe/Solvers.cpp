// SPDX-License-Identifier: MIT
#include "flexuq/fe/Solvers.hpp"

#include "flexuq/core/Error.hpp"

namespace flexuq::fe {

void set_default_option(const std::string& prefix, const std::string& name, const std::string& value) {
  const std::string full = "-" + prefix + name;
  PetscBool set = PETSC_FALSE;
  FLEXUQ_PETSC(PetscOptionsHasName(nullptr, nullptr, full.c_str(), &set));
  if (!set) FLEXUQ_PETSC(PetscOptionsSetValue(nullptr, full.c_str(), value.c_str()));
}

void setup_mumps_cholesky(KSP ksp, const std::string& prefix) {
  FLEXUQ_PETSC(KSPSetType(ksp, KSPPREONLY));
  PC pc = nullptr;
  FLEXUQ_PETSC(KSPGetPC(ksp, &pc));
  FLEXUQ_PETSC(PCSetType(pc, PCCHOLESKY));
  FLEXUQ_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  int size = 1;
  MPI_Comm_size(PetscObjectComm(reinterpret_cast<PetscObject>(ksp)), &size);
  if (size > 1) set_default_option(prefix, "mat_mumps_icntl_20", "10");
}

} // namespace flexuq::fe
