// SPDX-License-Identifier: MIT
// `flexuq reduce` end to end on a generated box: job parsing (keys, errors), the /reduced file
// (shapes, labels, check-out), MatrixMarket export.
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace flexuq;

namespace {
const std::string kJob = R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 2, 2], order: 1}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
reduce:
  method: craig-bampton
  interfaces:
    - {set: XMIN, kind: all-dofs}
    - {set: XMAX, kind: rbe2}
  modes: {count: 5}
  residual_vectors: true
  residual_loads: [ZMAX]
  scaling: max
  matrix_market: true
  checkout: {free_free: 4}
output: /tmp/flexuq-cb-job-test.h5
)";
} // namespace

TEST(ReduceJob, WritesTheReducedBody) {
  app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(kJob));
  io::H5File f(MPI_COMM_WORLD, "/tmp/flexuq-cb-job-test.h5", io::H5File::Mode::read);
  const auto shape = f.shape("/reduced/K");
  ASSERT_EQ(shape.size(), 2u);
  const std::uint64_t n = shape[0];
  const auto labels = f.read_strings("/reduced/dof_labels");
  ASSERT_EQ(labels.size(), n);
  EXPECT_EQ(labels[0], "XMIN node 1 ux");
  EXPECT_EQ(labels[27], "REF XMAX ux");
  EXPECT_EQ(labels[33], "fixed-interface mode 1");
  EXPECT_EQ(f.shape("/reduced/basis"), (std::vector<std::uint64_t>{f.shape("/mesh/geometry")[0], 3, n}));
  EXPECT_EQ(f.read_attribute_string("/reduced", "method"), "craig-bampton");
  const auto res = f.read_all("/reduced/checkout/rigid_residual");
  for (double r : res) EXPECT_LT(r, 1e-9);
  const auto m = f.read_all("/reduced/invariants/mass");
  EXPECT_NEAR(m[0], 7800 * 0.3 * 0.1 * 0.05, 1e-9);
  EXPECT_EQ(f.shape("/reduced/checkout/free_free_full_hz")[0], 4u);
  std::ifstream mtx("/tmp/flexuq-cb-job-test_K.mtx");
  std::string head;
  std::getline(mtx, head);
  EXPECT_EQ(head, "%%MatrixMarket matrix array real symmetric");
}

TEST(ReduceJob, ErrorsNameTheKey) {
  auto bad = [](const std::string& edit) {
    std::string job = kJob;
    const auto p = job.find("  method: craig-bampton");
    job.replace(p, std::string("  method: craig-bampton").size(), edit);
    return io::Config::from_string(job);
  };
  EXPECT_THROW(app::parse_reduce_job(bad("  method: craig-bamton")), InputError);
  EXPECT_THROW(app::parse_reduce_job(bad("  method: gcms")), InputError);
  EXPECT_THROW(app::parse_reduce_job(io::Config::from_string(kJob, "<t>", {"model.fixed=[XMIN]"})), InputError);
  EXPECT_THROW(app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(kJob, "<t>", {"reduce.modes.interface=free"})),
               InputError);
}
