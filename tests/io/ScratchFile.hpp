// SPDX-License-Identifier: MIT
#pragma once
// A scratch file per test and process: <tmp>/flexuq_<prefix>_<test>_r<rank>of<size>/<name>, apart
// from the other ranks and from a concurrent run of the same test at another rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace flexuq::test {

inline std::string scratch_file(const std::string& prefix, const std::string& name) {
  int r = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("flexuq_" + prefix + "_" + info->name() + "_r" + std::to_string(r) + "of" + std::to_string(n));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

/// scratch_file(prefix, name) holding @p text; its path.
inline std::string write_scratch(const std::string& prefix, const std::string& name, const std::string& text) {
  const std::string path = scratch_file(prefix, name);
  std::ofstream(path) << text;
  return path;
}

/// A folder with the same path on every rank, one per rank count (for files a collective writer
/// writes on rank 0 and every rank then reads): created by rank 0 before any rank returns.
inline std::string shared_scratch_dir(const std::string& prefix) {
  int r = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const auto dir = std::filesystem::temp_directory_path() / ("flexuq-" + prefix + "-np" + std::to_string(n));
  if (r == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

} // namespace flexuq::test
