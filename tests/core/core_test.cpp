// SPDX-License-Identifier: MIT
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/Session.hpp"

#include <gtest/gtest.h>

using namespace flexuq;

TEST(Handle, MoveTransfersOwnershipAndDestroysOnce) {
  VecH a;
  FLEXUQ_PETSC(VecCreateSeq(PETSC_COMM_SELF, 4, a.out()));
  Vec raw = a.get();
  VecH b(std::move(a));
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_EQ(b.get(), raw);
  VecH c;
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  PetscInt n = 0;
  FLEXUQ_PETSC(VecGetSize(c.get(), &n));
  EXPECT_EQ(n, 4);
}

TEST(Handle, BorrowAddsReference) {
  Vec raw = nullptr;
  FLEXUQ_PETSC(VecCreateSeq(PETSC_COMM_SELF, 3, &raw));
  {
    VecH borrowed(raw, /*add_reference=*/true);
  } // drops its reference only
  PetscInt n = 0;
  FLEXUQ_PETSC(VecGetSize(raw, &n)); // still alive
  EXPECT_EQ(n, 3);
  FLEXUQ_PETSC(VecDestroy(&raw));
}

TEST(Error, PetscFailureThrowsWithMessage) {
  VecH v;
  FLEXUQ_PETSC(VecCreateSeq(PETSC_COMM_SELF, 2, v.out()));
  VecH w;
  FLEXUQ_PETSC(VecCreateSeq(PETSC_COMM_SELF, 3, w.out()));
  try {
    PetscScalar d = 0;
    FLEXUQ_PETSC(VecDot(v.get(), w.get(), &d)); // sizes differ: checked even in optimised PETSc
    ADD_FAILURE() << "expected a throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("VecDot"), std::string::npos) << e.what();
  }
}

TEST(Error, AssertThrowsAnInternalErrorNotAnInputError) {
  // main maps InternalError to exit code 3, InputError to 2: the two must stay apart.
  EXPECT_NO_THROW(FLEXUQ_ASSERT(1 + 1 == 2, "arithmetic"));
  try {
    FLEXUQ_ASSERT(2 < 1, "two is " << 2);
    ADD_FAILURE() << "no throw";
  } catch (const InputError&) {
    ADD_FAILURE() << "an internal invariant reported as bad input";
  } catch (const InternalError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("(2 < 1): two is 2"), std::string::npos) << w;
    EXPECT_NE(w.find("core_test.cpp:"), std::string::npos) << w;
  }
}

TEST(Comm, DuplicateAndSplitGroups) {
  Comm world(MPI_COMM_WORLD);
  EXPECT_NE(world.get(), MPI_COMM_WORLD); // a duplicate, not an alias
  int group = -1;
  Comm g = world.split_groups(1, &group);
  EXPECT_EQ(g.size(), 1);
  EXPECT_EQ(group, world.rank());
  Comm all = world.split_groups(world.size(), &group);
  EXPECT_EQ(all.size(), world.size());
  EXPECT_EQ(group, 0);
  EXPECT_THROW(world.split_groups(0), InputError);
  EXPECT_DOUBLE_EQ(allreduce_sum(world.get(), 1.0), world.size());
}

TEST(Log, PhaseTimesAccumulate) {
  log::PhaseTimes t;
  t.add("a", 1.0);
  t.add("b", 2.0);
  t.add("a", 0.5);
  ASSERT_EQ(t.entries().size(), 2u);
  EXPECT_DOUBLE_EQ(t.entries()[0].second, 1.5);
  EXPECT_NE(t.summary(MPI_COMM_WORLD).find("b"), std::string::npos);
  EXPECT_GT(log::peak_rss_bytes(), 1e5);
  EXPECT_FALSE(parse_enum(log::kLevelNames, "loud")); // the CLI refuses it (tests/app/enum_options_test)
  EXPECT_EQ(parse_enum(log::kLevelNames, "warning"), log::Level::warn);
  EXPECT_STREQ(enum_name(log::kLevelNames, log::Level::warn), "warn");
}

TEST(Session, WorldRankSizeAndUnusedOptions) {
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(world_rank(), rank);
  EXPECT_EQ(world_size(), size);
  int before = 0;
  const std::string none = unused_options(before);
  EXPECT_EQ(none.find("-flexuq_never_read"), std::string::npos) << none;
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-flexuq_never_read", "7"), 0);
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-flexuq_never_read_flag", nullptr), 0);
  int n = 0;
  const std::string list = unused_options(n);
  EXPECT_EQ(n, before + 2);
  EXPECT_NE(list.find(" -flexuq_never_read 7"), std::string::npos) << list;
  EXPECT_NE(list.find(" -flexuq_never_read_flag"), std::string::npos) << list;
  PetscOptionsClearValue(nullptr, "-flexuq_never_read");
  PetscOptionsClearValue(nullptr, "-flexuq_never_read_flag");
  int after = 0;
  unused_options(after);
  EXPECT_EQ(after, before);
}
