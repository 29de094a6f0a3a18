// SPDX-License-Identifier: MIT
// GoogleTest main for MPI: SLEPc session as a gtest Environment, printing on rank 0 only, other
// ranks print their failures tagged [rank r], and the exit code is the MAX over ranks.
#include "flexuq/core/Session.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                   r.summary());
  }

private:
  int rank_;
};

} // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::GTEST_FLAG(shuffle) = false; // every rank runs the tests in the declared order
  int code = 0;
  {
    flexuq::Session session(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    if (rank != 0) {
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new RankFailurePrinter(rank));
    }
    int local = RUN_ALL_TESTS();
    MPI_Allreduce(&local, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  return code;
}
