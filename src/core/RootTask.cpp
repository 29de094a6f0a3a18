// SPDX-License-Identifier: MIT
#include "flexuq/core/RootTask.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"

#include <string>

namespace flexuq {

void on_root(MPI_Comm comm, const std::function<void()>& fn, int root) {
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  std::string error;
  long long input_error = 0;
  if (rank == root) {
    try {
      fn();
    } catch (const InputError& e) {
      error = e.what();
      input_error = 1;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  broadcast(comm, error, root);
  FLEXUQ_MPI(MPI_Bcast(&input_error, 1, MPI_LONG_LONG, root, comm));
  if (!error.empty()) {
    if (input_error) throw InputError(error);
    throw Error(error);
  }
}

} // namespace flexuq
