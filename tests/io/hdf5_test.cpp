// SPDX-License-Identifier: MIT
// Parallel HDF5 file: row blocks split unevenly over the ranks (one rank with no rows), replicated
// datasets, strings, attributes of every type, zero-size datasets, read-back equal to what was
// written, exists(), reopening for append, and errors that name the path.
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

using flexuq::io::H5File;
namespace fs = std::filesystem;

namespace {

int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
int size_of(MPI_Comm c) {
  int s = 1;
  MPI_Comm_size(c, &s);
  return s;
}

/// A file name unique to this run: comm size and rank 0's pid, in the working directory.
std::string unique_file(MPI_Comm comm, const std::string& stem) {
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, comm);
  return (fs::current_path() / (stem + "_np" + std::to_string(size_of(comm)) + "_" + std::to_string(pid) + ".h5"))
      .string();
}

/// Uneven contiguous row split: with more than one rank, ranks 1..size-2 get 2 rows each, the last
/// rank none and rank 0 the rest; one rank gets all. Returns {start, count} of @p rank.
std::pair<std::uint64_t, std::uint64_t> uneven_split(std::uint64_t rows, int rank, int size) {
  if (size == 1) return {0, rows};
  const std::uint64_t middle = 2 * static_cast<std::uint64_t>(size - 2);
  const std::uint64_t first = rows - middle;
  if (rank == 0) return {0, first};
  if (rank == size - 1) return {rows, 0};
  return {first + 2 * static_cast<std::uint64_t>(rank - 1), 2};
}

double value_at(std::uint64_t row, std::uint64_t col) { return 1000.0 * static_cast<double>(row) + col + 0.25; }

/// Removes the file on rank 0 when the test ends (after every rank closed it).
struct FileGuard {
  MPI_Comm comm;
  std::string path;
  ~FileGuard() {
    MPI_Barrier(comm);
    if (rank_of(comm) == 0) fs::remove(path);
  }
};

} // namespace

TEST(H5File, UnevenRowBlocksRoundTrip) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  FileGuard guard{comm, unique_file(comm, "hdf5_test_rows")};
  constexpr std::uint64_t kRows = 11, kCols = 3, kDepth = 2;
  const auto [start, count] = uneven_split(kRows, rank, size);
  if (size > 1 && rank == size - 1) {
    ASSERT_EQ(count, 0u); // the case under test: a rank without rows
  }
  {
    // Sanity of the split itself: the blocks tile [0, kRows).
    std::uint64_t total = count;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
    ASSERT_EQ(total, kRows);
  }
  std::vector<double> mine;
  std::vector<std::int64_t> ints;
  std::vector<double> cube; // rank-3 dataset {rows, cols, depth}
  for (std::uint64_t r = start; r < start + count; ++r)
    for (std::uint64_t c = 0; c < kCols; ++c) {
      mine.push_back(value_at(r, c));
      ints.push_back(static_cast<std::int64_t>(r * 10 + c) - 7);
      for (std::uint64_t k = 0; k < kDepth; ++k) cube.push_back(value_at(r, c) + 0.5 * k);
    }
  {
    H5File f(comm, guard.path, H5File::Mode::create);
    f.write_rows("/data/coords", {kRows, kCols}, start, count, mine.data());
    f.write_rows("/data/ids", {kRows, kCols}, start, count, ints.data());
    f.write_rows("/data/deep/cube", {kRows, kCols, kDepth}, start, count, cube.data());
  }
  H5File f(comm, guard.path, H5File::Mode::read);
  EXPECT_EQ(f.shape("/data/coords"), (std::vector<std::uint64_t>{kRows, kCols}));
  EXPECT_EQ(f.shape("/data/deep/cube"), (std::vector<std::uint64_t>{kRows, kCols, kDepth}));
  const auto all = f.read_all("/data/coords");
  ASSERT_EQ(all.size(), kRows * kCols);
  for (std::uint64_t r = 0; r < kRows; ++r)
    for (std::uint64_t c = 0; c < kCols; ++c) EXPECT_EQ(all[r * kCols + c], value_at(r, c)) << r << "," << c;
  const auto all_ints = f.read_all_int("/data/ids");
  ASSERT_EQ(all_ints.size(), kRows * kCols);
  for (std::uint64_t r = 0; r < kRows; ++r)
    for (std::uint64_t c = 0; c < kCols; ++c)
      EXPECT_EQ(all_ints[r * kCols + c], static_cast<std::int64_t>(r * 10 + c) - 7);
  // Each rank reads back its own block (including the empty one), then a different split.
  EXPECT_EQ(f.read_rows("/data/coords", start, count), mine);
  EXPECT_EQ(f.read_rows("/data/deep/cube", start, count), cube);
  const std::uint64_t r0 = static_cast<std::uint64_t>(rank) % kRows;
  const auto one = f.read_rows("/data/coords", r0, 1);
  EXPECT_EQ(one, (std::vector<double>{value_at(r0, 0), value_at(r0, 1), value_at(r0, 2)}));
}

TEST(H5File, ReplicatedStringsAndAttributes) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm);
  FileGuard guard{comm, unique_file(comm, "hdf5_test_attrs")};
  const std::vector<double> eig = {1.5, 2.25, 1e-300, -3.0, 6.02e23};
  const std::vector<std::int64_t> mult = {1, 2, 2, -9223372036854775807LL, 9223372036854775807LL};
  const std::vector<std::string> names = {"read mesh", "", "partition+assemble", "x"};
  {
    H5File f(comm, guard.path, H5File::Mode::create);
    // Only rank 0's copy is written: the other ranks pass different data on purpose.
    std::vector<double> eig_here = eig;
    if (rank != 0) eig_here.assign(eig.size(), -1.0);
    f.write_replicated("/modes/eigenvalues", {eig.size()}, eig_here.data());
    f.write_replicated("/modes/multiplicity", {mult.size()}, mult.data());
    f.write_strings("/run/phase_names", names);
    f.ensure_group("/meta/info");
    f.write_attribute("/modes", "count", std::int64_t{5});
    f.write_attribute("/modes", "negative", std::int64_t{-42});
    f.write_attribute("/modes", "shift", -1.25e7);
    f.write_attribute("/modes", "normalization", std::string("mass (phi^T M phi = 1)"));
    f.write_attribute("/modes", "empty_text", std::string());
    f.write_attribute("/modes/eigenvalues", "units", std::string("rad^2/s^2"));
    f.write_attribute("/meta/info", "weights", std::vector<double>{0.5, 0.25, 0.125});
    f.write_attribute("/", "root_attr", 3.0);
    // Rewriting an attribute replaces it (also with another type).
    f.write_attribute("/modes", "count", std::int64_t{6});
    f.write_attribute("/modes", "shift", std::string("auto"));
  }
  H5File f(comm, guard.path, H5File::Mode::read);
  EXPECT_EQ(f.read_all("/modes/eigenvalues"), eig);
  EXPECT_EQ(f.read_all_int("/modes/multiplicity"), mult);
  EXPECT_EQ(f.read_strings("/run/phase_names"), names);
  EXPECT_EQ(f.read_attribute_int("/modes", "count"), 6);
  EXPECT_EQ(f.read_attribute_int("/modes", "negative"), -42);
  EXPECT_EQ(f.read_attribute_string("/modes", "shift"), "auto");
  EXPECT_EQ(f.read_attribute_string("/modes", "normalization"), "mass (phi^T M phi = 1)");
  EXPECT_EQ(f.read_attribute_string("/modes", "empty_text"), "");
  EXPECT_EQ(f.read_attribute_string("/modes/eigenvalues", "units"), "rad^2/s^2");
  EXPECT_EQ(f.read_attribute_double("/", "root_attr"), 3.0);
  EXPECT_EQ(f.read_attribute_double("/modes", "count"), 6.0); // HDF5 converts int -> double on read
  // There is no vector-attribute reader in H5File: read it with the HDF5 API.
  {
    const hid_t a = H5Aopen_by_name(f.id(), "/meta/info", "weights", H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(a, 0);
    const hid_t space = H5Aget_space(a);
    EXPECT_EQ(H5Sget_simple_extent_npoints(space), 3);
    std::vector<double> w(3);
    EXPECT_GE(H5Aread(a, H5T_NATIVE_DOUBLE, w.data()), 0);
    EXPECT_EQ(w, (std::vector<double>{0.5, 0.25, 0.125}));
    H5Sclose(space);
    H5Aclose(a);
  }
  EXPECT_THROW(f.read_attribute_int("/modes", "no_such_attribute"), flexuq::Error);
  EXPECT_THROW(f.read_attribute_double("/no/such/object", "count"), flexuq::Error);
}

TEST(H5File, AttributeOnMissingObjectThrows) {
  MPI_Comm comm = MPI_COMM_WORLD;
  FileGuard guard{comm, unique_file(comm, "hdf5_test_attr_missing")};
  H5File f(comm, guard.path, H5File::Mode::create);
  try {
    f.write_attribute("/not_there", "x", 1.0);
    ADD_FAILURE() << "no exception";
  } catch (const flexuq::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("/not_there"), std::string::npos) << msg;
    EXPECT_NE(msg.find(guard.path), std::string::npos) << msg;
  }
}

TEST(H5File, ZeroSizeDatasets) {
  MPI_Comm comm = MPI_COMM_WORLD;
  FileGuard guard{comm, unique_file(comm, "hdf5_test_empty")};
  {
    H5File f(comm, guard.path, H5File::Mode::create);
    // A modes file of a run that found no rigid-body modes: {nodes, 3, 0} and {0}.
    std::vector<double> none;
    f.write_rows("/modes/rigid_body_vectors", {4, 3, 0}, 0, rank_of(comm) == 0 ? 4 : 0, none.data());
    f.write_replicated("/modes/rigid_body_eigenvalues", {0}, none.data());
    std::vector<std::int64_t> no_ints;
    f.write_rows("/ids", {0, 2}, 0, 0, no_ints.data());
    f.write_strings("/no_strings", {});
  }
  H5File f(comm, guard.path, H5File::Mode::read);
  EXPECT_TRUE(f.exists("/modes/rigid_body_vectors"));
  EXPECT_EQ(f.shape("/modes/rigid_body_vectors"), (std::vector<std::uint64_t>{4, 3, 0}));
  EXPECT_EQ(f.shape("/modes/rigid_body_eigenvalues"), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(f.shape("/ids"), (std::vector<std::uint64_t>{0, 2}));
  // Reading an empty dataset gives an empty vector, not an error.
  EXPECT_NO_THROW({ EXPECT_TRUE(f.read_all("/modes/rigid_body_eigenvalues").empty()); });
  EXPECT_NO_THROW({ EXPECT_TRUE(f.read_all("/modes/rigid_body_vectors").empty()); });
  EXPECT_NO_THROW({ EXPECT_TRUE(f.read_all_int("/ids").empty()); });
  EXPECT_NO_THROW({ EXPECT_TRUE(f.read_strings("/no_strings").empty()); });
}

TEST(H5File, ReadRowsOfAZeroSizeDataset) {
  // The rigid-body vectors of a clamped run are {nodes, 3, 0}: reading a block of their rows (as a
  // reader that distributes nodes over ranks does) must give an empty block, like read_all does.
  MPI_Comm comm = MPI_COMM_WORLD;
  FileGuard guard{comm, unique_file(comm, "hdf5_test_empty_rows")};
  {
    H5File f(comm, guard.path, H5File::Mode::create);
    std::vector<double> none;
    f.write_rows("/modes/rigid_body_vectors", {4, 3, 0}, 0, rank_of(comm) == 0 ? 4 : 0, none.data());
  }
  H5File f(comm, guard.path, H5File::Mode::read);
  const auto [start, count] = uneven_split(4, rank_of(comm), size_of(comm));
  EXPECT_NO_THROW({ EXPECT_TRUE(f.read_rows("/modes/rigid_body_vectors", start, count).empty()); });
}

TEST(H5File, ExistsChecksEveryPathComponent) {
  MPI_Comm comm = MPI_COMM_WORLD;
  FileGuard guard{comm, unique_file(comm, "hdf5_test_exists")};
  H5File f(comm, guard.path, H5File::Mode::create);
  const double x = 1.0;
  f.write_replicated("/a/b/value", {1}, &x);
  f.ensure_group("/g1/g2");
  f.ensure_group("/g1/g2"); // idempotent
  EXPECT_TRUE(f.exists("/a"));
  EXPECT_TRUE(f.exists("/a/b"));
  EXPECT_TRUE(f.exists("/a/b/value"));
  EXPECT_TRUE(f.exists("/g1/g2"));
  EXPECT_TRUE(f.exists("/"));
  EXPECT_FALSE(f.exists("/a/c"));
  EXPECT_FALSE(f.exists("/missing/deeper/still")); // a missing parent is "false", not an error
  EXPECT_FALSE(f.exists("/a/b/value/below_a_dataset"));
}

TEST(H5File, AppendKeepsWhatWasWritten) {
  MPI_Comm comm = MPI_COMM_WORLD;
  FileGuard guard{comm, unique_file(comm, "hdf5_test_append")};
  const std::vector<double> first = {1, 2, 3}, second = {4, 5};
  {
    H5File f(comm, guard.path, H5File::Mode::create);
    f.write_replicated("/first", {3}, first.data());
  }
  {
    H5File f(comm, guard.path, H5File::Mode::append);
    f.write_replicated("/second", {2}, second.data());
    f.write_attribute("/first", "note", std::string("kept"));
  }
  H5File f(comm, guard.path, H5File::Mode::read);
  EXPECT_EQ(f.read_all("/first"), first);
  EXPECT_EQ(f.read_all("/second"), second);
  EXPECT_EQ(f.read_attribute_string("/first", "note"), "kept");
}

TEST(H5File, OpeningInAMissingFolderNamesThePath) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string path = fs::path(unique_file(comm, "hdf5_test_missing_dir")).replace_extension("").string() +
                           "_no_such_folder/out.h5";
  for (auto mode : {H5File::Mode::create, H5File::Mode::read, H5File::Mode::append}) {
    try {
      H5File f(comm, path, mode);
      ADD_FAILURE() << "opening " << path << " did not throw";
    } catch (const flexuq::Error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + path + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(fs::path(path).parent_path()));
  MPI_Barrier(comm); // every rank got here: the failed open left nobody waiting
}

TEST(H5File, ReadingAMissingDatasetNamesIt) {
  MPI_Comm comm = MPI_COMM_WORLD;
  FileGuard guard{comm, unique_file(comm, "hdf5_test_missing_dset")};
  {
    H5File f(comm, guard.path, H5File::Mode::create);
    f.ensure_group("/modes");
  }
  H5File f(comm, guard.path, H5File::Mode::read);
  try {
    (void)f.read_all("/modes/eigenvalues");
    ADD_FAILURE() << "no exception";
  } catch (const flexuq::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("/modes/eigenvalues"), std::string::npos) << msg;
    EXPECT_NE(msg.find(guard.path), std::string::npos) << msg;
  }
}
