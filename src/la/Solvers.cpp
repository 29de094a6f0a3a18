// SPDX-License-Identifier: MIT
#include "flexuq/la/Solvers.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/la/MumpsCompression.hpp"
#include "flexuq/la/MumpsOrdering.hpp"
#include "flexuq/la/MumpsOutOfCore.hpp"

#include <algorithm>

namespace flexuq::la {

bool option_given(const std::string& name) {
  PetscBool set = PETSC_FALSE;
  FLEXUQ_PETSC(PetscOptionsHasName(nullptr, nullptr, ("-" + name).c_str(), &set));
  return set == PETSC_TRUE;
}

void SolverDefaults::set(const std::string& name, const std::string& value) {
  auto it = std::find_if(values_.begin(), values_.end(), [&](const auto& p) { return p.first == name; });
  if (it != values_.end())
    it->second = value;
  else
    values_.emplace_back(name, value);
}

SolverDefaults::Scope::Scope(const SolverDefaults& d) {
  try {
    for (const auto& [name, value] : d.values()) {
      if (option_given(name)) continue; // the user's (or an enclosing scope's) value stays
      FLEXUQ_PETSC(PetscOptionsSetValue(nullptr, ("-" + name).c_str(), value.c_str()));
      inserted_.push_back(name);
    }
  } catch (...) {
    for (const auto& name : inserted_) (void)PetscOptionsClearValue(nullptr, ("-" + name).c_str());
    throw;
  }
}

SolverDefaults::Scope::~Scope() {
  PetscBool finalized = PETSC_FALSE;
  (void)PetscFinalized(&finalized);
  if (finalized) return;
  for (const auto& name : inserted_) (void)PetscOptionsClearValue(nullptr, ("-" + name).c_str());
}

void setup_mumps_cholesky(KSP ksp, const std::string& ksp_prefix, SolverDefaults& defaults) {
  FLEXUQ_PETSC(KSPSetType(ksp, KSPPREONLY));
  PC pc = nullptr;
  FLEXUQ_PETSC(KSPGetPC(ksp, &pc));
  FLEXUQ_PETSC(PCSetType(pc, PCCHOLESKY));
  FLEXUQ_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  int size = 1;
  FLEXUQ_MPI(MPI_Comm_size(PetscObjectComm(reinterpret_cast<PetscObject>(ksp)), &size));
  if (size > 1) defaults.set(ksp_prefix + "mat_mumps_icntl_20", "10");
  PetscBool has_operator = PETSC_FALSE;
  FLEXUQ_PETSC(KSPGetOperatorsSet(ksp, &has_operator, nullptr));
  PetscInt rows = -1;
  if (has_operator) {
    Mat A = nullptr;
    FLEXUQ_PETSC(KSPGetOperators(ksp, &A, nullptr));
    FLEXUQ_PETSC(MatGetSize(A, &rows, nullptr));
  }
  mumps_ordering_defaults(ksp_prefix, size, defaults, rows); // linear_solver.ordering
  mumps_out_of_core_defaults(ksp_prefix, defaults);          // linear_solver.out_of_core
  mumps_compression_defaults(ksp_prefix, defaults);          // linear_solver.compress
}

void mumps_inertia_defaults(const std::string& ksp_prefix, SolverDefaults& defaults) {
  defaults.set(ksp_prefix + "mat_mumps_icntl_13", "1");
  defaults.set(ksp_prefix + "mat_mumps_icntl_24", "1");
  defaults.set(ksp_prefix + "mat_mumps_cntl_3", "1e-12");
}

} // namespace flexuq::la
