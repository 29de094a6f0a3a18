// SPDX-License-Identifier: MIT
#include "flexuq/core/Session.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"

#include <slepcsys.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace flexuq {

Session::Session(int* argc, char*** argv, const char* help) {
  // Scotch 7 runs parts of a partition on threads, and their timing changed the result from run
  // to run (fe/DofMap.cpp partitions the node graph with it). One thread makes it reproducible;
  // a graph partition takes well under a second. Reproducibility is promised, so this overrides
  // the environment.
  setenv("SCOTCH_PTHREAD_NUMBER", "1", 1);
  PetscErrorCode ierr = SlepcInitialize(argc, argv, nullptr, help);
  if (ierr) {
    throw Error("SlepcInitialize failed with code " + std::to_string(static_cast<int>(ierr)));
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
  // A fatal path: MPI return codes are not checked (there is nothing left to do on failure).
  int initialized = 0;
  MPI_Initialized(&initialized);
  std::fflush(stdout);
  if (msg && *msg) log::direct(log::Stream::err, std::string("flexuq: error: ") + msg + "\n");
  if (initialized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

std::string unused_options(int& count) {
  count = 0;
  PetscInt n = 0;
  char **names = nullptr, **values = nullptr;
  if (PetscOptionsLeftGet(nullptr, &n, &names, &values)) return {};
  std::string list;
  for (PetscInt i = 0; i < n; ++i) {
    list += std::string(" -") + names[i];
    if (values[i]) list += std::string(" ") + values[i];
  }
  count = static_cast<int>(n); // PetscOptionsLeftRestore resets n
  PetscOptionsLeftRestore(nullptr, &n, &names, &values);
  return list;
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

void exit_all(int code) {
  if (world_size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
  SlepcFinalize(); // also finalizes MPI, which PETSc initialised
  std::exit(code);
}

void warn_unused_options() {
  int unused = 0;
  const std::string list = unused_options(unused);
  if (unused > 0)
    log::warn(MPI_COMM_WORLD, std::to_string(unused) + " PETSc/SLEPc option(s) were given but never used:" + list +
                                  " (check the spelling and the solver prefix, e.g. -modes_eps_ncv)");
}

void fail_all(const std::string& what, int code) {
  const int rank = world_rank();
  if (rank != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    log::direct(log::Stream::err, "flexuq: error on rank " + std::to_string(rank) + ": " + what + "\n");
  } else {
    log::direct(log::Stream::err, std::string("flexuq: ") +
                                      (code == 3 ? "internal error (a bug in flexuq; please report it): " : "error: ") +
                                      what + "\n");
  }
  exit_all(code);
}

} // namespace flexuq
