// SPDX-License-Identifier: MIT
#pragma once
/// @file Comm.hpp
/// @brief An owning duplicate of an MPI communicator, and small collective helpers.

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace flexuq {

/// @brief Owns a duplicate of an MPI communicator (MPI_Comm_dup on construction, MPI_Comm_free on
/// destruction). Every distributed object keeps one, so objects can live on sub-communicators.
class Comm {
public:
  /// @note Collective on @p comm.
  explicit Comm(MPI_Comm comm);
  Comm(const Comm& other);            ///< duplicates again (collective)
  Comm& operator=(const Comm& other); ///< duplicates again (collective)
  Comm(Comm&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
  Comm& operator=(Comm&& other) noexcept {
    std::swap(comm_, other.comm_);
    return *this;
  }
  ~Comm();

  MPI_Comm get() const noexcept { return comm_; }
  int rank() const;
  int size() const;
  bool is_root() const { return rank() == 0; }

  /// Split into groups of @p group_size consecutive ranks (the last group may be smaller).
  /// @note Collective.
  Comm split_groups(int group_size, int* group_index = nullptr) const;

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// @name Collective reductions on a raw communicator.
/// @{
double allreduce_max(MPI_Comm comm, double v);
double allreduce_min(MPI_Comm comm, double v);
double allreduce_sum(MPI_Comm comm, double v);
long long allreduce_sum(MPI_Comm comm, long long v);
bool allreduce_or(MPI_Comm comm, bool v);
/// Broadcast a string from @p root.
void broadcast(MPI_Comm comm, std::string& s, int root = 0);
/// @}

} // namespace flexuq
