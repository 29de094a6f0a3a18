// SPDX-License-Identifier: MIT
#pragma once
// Rank helpers of the sg tests.
#include <mpi.h>

namespace flexuq::sgtest {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

} // namespace flexuq::sgtest
