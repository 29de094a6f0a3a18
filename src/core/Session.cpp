// SPDX-License-Identifier: MIT
#include "flexuq/core/Session.hpp"

#include "flexuq/core/Error.hpp"

#include <slepcsys.h>

#include <cstdio>

namespace flexuq {

Session::Session(int* argc, char*** argv, const char* help) {
  PetscErrorCode ierr = SlepcInitialize(argc, argv, nullptr, help);
  if (ierr) {
    std::fprintf(stderr, "flexuq: SlepcInitialize failed with code %d\n", static_cast<int>(ierr));
    throw Error("SlepcInitialize failed");
  }
  // PETSc's own error handler prints a traceback on every rank; flexuq turns errors into one
  // message on rank 0 instead.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
}

Session::~Session() {
  PetscPopErrorHandler();
  SlepcFinalize();
}

void abort_all(const char* msg, int code) {
  int rank = 0, initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (msg && *msg) std::fprintf(stderr, "flexuq: error: %s\n", msg);
  std::fflush(stderr);
  std::fflush(stdout);
  if (initialized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

} // namespace flexuq
