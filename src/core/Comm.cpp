// SPDX-License-Identifier: MIT
#include "flexuq/core/Comm.hpp"

#include "flexuq/core/Error.hpp"

namespace flexuq {

Comm::Comm(MPI_Comm comm) { FLEXUQ_MPI(MPI_Comm_dup(comm, &comm_)); }

Comm::Comm(const Comm& other) {
  if (other.comm_ != MPI_COMM_NULL) FLEXUQ_MPI(MPI_Comm_dup(other.comm_, &comm_));
}

Comm& Comm::operator=(const Comm& other) {
  if (this != &other) {
    Comm tmp(other);
    std::swap(comm_, tmp.comm_);
  }
  return *this;
}

Comm::~Comm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

int Comm::rank() const {
  int r = 0;
  FLEXUQ_MPI(MPI_Comm_rank(comm_, &r));
  return r;
}

int Comm::size() const {
  int s = 0;
  FLEXUQ_MPI(MPI_Comm_size(comm_, &s));
  return s;
}

Comm Comm::split_groups(int group_size, int* group_index) const {
  FLEXUQ_REQUIRE(group_size >= 1, "ranks per group must be at least 1, got " << group_size);
  const int colour = rank() / group_size;
  MPI_Comm sub = MPI_COMM_NULL;
  FLEXUQ_MPI(MPI_Comm_split(comm_, colour, rank(), &sub));
  if (group_index) *group_index = colour;
  Comm out(sub);
  FLEXUQ_MPI(MPI_Comm_free(&sub));
  return out;
}

double allreduce_max(MPI_Comm comm, double v) {
  double r = v;
  FLEXUQ_MPI(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, comm));
  return r;
}
double allreduce_min(MPI_Comm comm, double v) {
  double r = v;
  FLEXUQ_MPI(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MIN, comm));
  return r;
}
double allreduce_sum(MPI_Comm comm, double v) {
  double r = v;
  FLEXUQ_MPI(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, comm));
  return r;
}
long long allreduce_sum(MPI_Comm comm, long long v) {
  long long r = v;
  FLEXUQ_MPI(MPI_Allreduce(&v, &r, 1, MPI_LONG_LONG, MPI_SUM, comm));
  return r;
}
bool allreduce_or(MPI_Comm comm, bool v) {
  int in = v ? 1 : 0, out = 0;
  FLEXUQ_MPI(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm));
  return out != 0;
}
void broadcast(MPI_Comm comm, std::string& s, int root) {
  long long n = static_cast<long long>(s.size());
  FLEXUQ_MPI(MPI_Bcast(&n, 1, MPI_LONG_LONG, root, comm));
  s.resize(static_cast<std::size_t>(n));
  if (n > 0) FLEXUQ_MPI(MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, root, comm));
}

} // namespace flexuq
