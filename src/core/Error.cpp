// SPDX-License-Identifier: MIT
#include "flexuq/core/Error.hpp"

#include <mpi.h>

namespace flexuq::detail {

void throw_petsc_error(PetscErrorCode ierr, const char* call, const char* file, int line) {
  const char* text = nullptr;
  char* specific = nullptr;
  PetscErrorMessage(ierr, &text, &specific);
  std::ostringstream os;
  os << "PETSc/SLEPc error " << ierr << " (" << (text ? text : "unknown") << ")";
  if (specific && *specific) os << ": " << specific;
  os << "\n  in call " << call << "\n  at " << file << ":" << line;
  throw Error(os.str());
}

void throw_mpi_error(int ierr, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(ierr, text, &len);
  std::ostringstream os;
  os << "MPI error " << ierr << " (" << std::string(text, static_cast<std::size_t>(len)) << ")\n  in call "
     << call << "\n  at " << file << ":" << line;
  throw Error(os.str());
}

} // namespace flexuq::detail
