// SPDX-License-Identifier: MIT
#pragma once
// Helpers for tests that write files from an MPI run: the world rank, file names that differ per
// rank count (ctest runs the NP 1 and NP 2 variants of a test side by side) and the removal of a
// campaign result with its journal.
#include <mpi.h>

#include <filesystem>
#include <string>

namespace flexuq::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// @p stem + "_np<size of MPI_COMM_WORLD>" + @p suffix.
inline std::string unique_name(const std::string& stem, const std::string& suffix = "") {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return stem + "_np" + std::to_string(size) + suffix;
}

/// Remove the campaign result @p out and its journal directory (rank 0), then a barrier.
/// @note Collective on MPI_COMM_WORLD.
inline void remove_campaign_output(const std::string& out) {
  if (world_rank() == 0) {
    std::filesystem::remove(out);
    std::filesystem::remove_all(out + ".journal");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

} // namespace flexuq::test
