// SPDX-License-Identifier: MIT
// `flexuq reduce` end to end on a generated box: job parsing (keys, errors), the /reduced file
// (shapes, labels, check-out), MatrixMarket export.
#include "flexuq/app/ReduceCommand.hpp"
#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <array>
#include <cmath>
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

TEST(ReduceJob, ReducedBodyReadsTheFileBack) {
  // The file written by the previous test, read as a cms::ReducedBody: the same numbers as the
  // datasets, the check-out's mode columns rebuilt from the column kinds, and floating-frame
  // coordinates whose invariants satisfy the mean-axis conditions S = Sr = 0.
  const auto b = cms::ReducedBody::read(MPI_COMM_WORLD, "/tmp/flexuq-cb-job-test.h5");
  io::H5File f(MPI_COMM_WORLD, "/tmp/flexuq-cb-job-test.h5", io::H5File::Mode::read);
  const auto n = static_cast<Eigen::Index>(f.shape("/reduced/K")[0]);
  ASSERT_EQ(b.n_columns(), n);
  const auto K = f.read_all("/reduced/K");
  for (Eigen::Index i = 0; i < n; i += 7)
    for (Eigen::Index j = 0; j < n; j += 5) EXPECT_EQ(b.K(i, j), K[static_cast<std::size_t>(i * n + j)]);
  EXPECT_EQ(b.method, "craig-bampton");
  EXPECT_EQ(b.dof_labels[33], "fixed-interface mode 1");
  EXPECT_EQ(b.checkout.mode_columns.size(), 5u);
  EXPECT_EQ(b.checkout.effective_mass.rows(), 5);
  EXPECT_EQ(b.checkout.full_hz.size(), 4);
  ASSERT_TRUE(b.has_floating_frame());
  const cms::Invariants fi = b.frame_invariants();
  const double scale = std::sqrt(b.invariants.mass * b.invariants.inertia_origin.trace());
  EXPECT_LT(fi.S.norm(), 1e-8 * b.invariants.mass);
  EXPECT_LT(fi.Sr.norm(), 1e-8 * scale);
  EXPECT_LT((fi.Mff - Eigen::MatrixXd::Identity(fi.Mff.rows(), fi.Mff.cols())).norm(), 1e-8);
}

TEST(ReduceJob, InterfaceReferencePointsReachTheMultibodyBody) {
  // An RBE2 interface with an explicit reference point: the point is stored with the body
  // (/reduced/interface_points) and the multibody body attaches its joints there, not at the set's
  // centroid. A body without the dataset (older files) falls back to the centroid.
  std::string job = kJob;
  const std::string rbe2 = "{set: XMAX, kind: rbe2}";
  job.replace(job.find(rbe2), rbe2.size(), "{set: XMAX, kind: rbe2, ref: [0.35, 0.06, -0.01]}");
  const std::string out = "/tmp/flexuq-cb-job-ref-test.h5";
  job.replace(job.find("/tmp/flexuq-cb-job-test.h5"), std::string("/tmp/flexuq-cb-job-test.h5").size(), out);
  app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(job));
  const std::array<double, 3> ref{0.35, 0.06, -0.01};
  const auto body = cms::ReducedBody::read(MPI_COMM_WORLD, out);
  ASSERT_EQ(body.interface_points.size(), 1u); // the all-DOF interface XMIN has no reference point
  EXPECT_EQ(body.interface_points.at("XMAX"), ref);
  const auto source = mbs::read_flexible_source(out);
  const auto data = source->data({});
  const auto& at = data->interface("XMAX", "test");
  for (int k = 0; k < 3; ++k) EXPECT_EQ(at.ref(k), ref[static_cast<std::size_t>(k)]) << k;
  cms::ReducedBody old = source->nominal;
  old.interface_points.clear();
  const auto legacy = mbs::make_flexible_data(old, out, source->coords, source->ids, source->sets, {});
  const auto& c = legacy->interface("XMAX", "test").ref;
  EXPECT_NEAR(c(0), 0.3, 1e-12);
  EXPECT_NEAR(c(1), 0.05, 1e-12);
  EXPECT_NEAR(c(2), 0.025, 1e-12);
}

TEST(ReduceJob, ErrorsNameTheKey) {
  auto bad = [](const std::string& edit) {
    std::string job = kJob;
    const auto p = job.find("  method: craig-bampton");
    job.replace(p, std::string("  method: craig-bampton").size(), edit);
    return io::Config::from_string(job);
  };
  EXPECT_THROW(app::parse_reduce_job(bad("  method: craig-bamton")), InputError);
  // GCMS works on the component's own DOFs: an rbe2 interface is refused (on every rank).
  EXPECT_THROW(app::run_reduce(MPI_COMM_WORLD, bad("  method: gcms")), InputError);
  // A whole-node support is refused once the mesh is read (a set the mesh gave components is not whole).
  EXPECT_THROW(app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(kJob, "<t>", {"model.fixed=[XMIN]"})), InputError);
  EXPECT_THROW(app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(kJob, "<t>", {"reduce.modes.interface=free"})),
               InputError);
}

TEST(ReduceJob, GcmsReducedBodyContainsRigidAndKeptFreeModes) {
  // GCMS spans the rigid motions (Φ_t, rotations in Φ_r) and each kept mode ψ^m (Φ_f with
  // q_f = vec(I), Zwölfer & Gerstmayr Eq. 15), so the reduced free-free pencil has exactly 6 zero eigenvalues and
  // reproduces the kept free-free frequencies (Rayleigh–Ritz with the eigenvectors in the span).
  const std::string out = "/tmp/flexuq-gcms-job-test-np" + std::to_string([] {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
  }()) + ".h5";
  app::run_reduce(MPI_COMM_WORLD, io::Config::from_string(R"(
model:
  generator: {type: box, size: [0.4, 0.1, 0.06], cells: [8, 2, 2], order: 2}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
reduce:
  method: gcms
  interfaces:
    - {set: XMIN, kind: all-dofs}
  modes: {count: 6}
  gcms: {strategy: gram-schmidt}
  checkout: {free_free: 4}
output: )" + out + "\n"));
  io::H5File f(MPI_COMM_WORLD, out, io::H5File::Mode::read);
  const auto n = static_cast<Eigen::Index>(f.shape("/reduced/K")[0]);
  const auto Kv = f.read_all("/reduced/K"), Mv = f.read_all("/reduced/M");
  const Eigen::MatrixXd K = Eigen::Map<const Eigen::MatrixXd>(Kv.data(), n, n);
  const Eigen::MatrixXd M = Eigen::Map<const Eigen::MatrixXd>(Mv.data(), n, n);
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(K, M);
  ASSERT_EQ(es.info(), Eigen::Success) << "reduced mass matrix not positive definite (dependent GCMS columns left)";
  const Eigen::VectorXd lam = es.eigenvalues();
  const double top = lam.cwiseAbs().maxCoeff();
  int zeros = 0;
  for (Eigen::Index i = 0; i < n; ++i) zeros += std::abs(lam[i]) < 1e-8 * top;
  EXPECT_EQ(zeros, 6);
  const auto full = f.read_all("/reduced/checkout/free_free_full_hz");
  for (std::size_t k = 0; k < full.size(); ++k) {
    const double f_red = std::sqrt(std::max(lam[6 + static_cast<Eigen::Index>(k)], 0.0)) / (2 * M_PI);
    EXPECT_NEAR(f_red, full[k], 1e-6 * full[k]) << "free-free mode " << k + 1;
  }
  const auto labels = f.read_strings("/reduced/dof_labels");
  EXPECT_EQ(labels[0], "t_x");
  EXPECT_EQ(f.read_attribute_string("/reduced", "method"), "gcms");
  // Diagnostics: 4 stages × 8 columns; the final stage has no rank deficiency left.
  const auto st = f.read_all("/reduced/diagnostics/gcms_stages");
  ASSERT_EQ(st.size() % 8, 0u);
  ASSERT_GE(st.size(), 8u);
  EXPECT_EQ(st[st.size() - 8], static_cast<double>(n)) << "final stage column count = reduced size";
  EXPECT_EQ(st[st.size() - 2], 0.0) << "final stage still rank deficient";
  EXPECT_GT(f.read_all("/reduced/diagnostics/gcms_cond_psi")[0], 0.99);
}

TEST(ReduceJob, SolveBlockKey) {
  // reduce.solve_block: right-hand sides per solve of the statics (absent: 0 = automatic, 1 = one at a time).
  EXPECT_EQ(app::parse_reduce_job(io::Config::from_string(kJob)).reducer.solve_block, 0);
  EXPECT_EQ(app::parse_reduce_job(io::Config::from_string(kJob, "<t>", {"reduce.solve_block=1"})).reducer.solve_block, 1);
  EXPECT_EQ(app::parse_reduce_job(io::Config::from_string(kJob, "<t>", {"reduce.solve_block=96"})).reducer.solve_block, 96);
  for (const char* v : {"0", "-3"}) {
    try {
      app::parse_reduce_job(io::Config::from_string(kJob, "<t>", {std::string("reduce.solve_block=") + v}));
      ADD_FAILURE() << "reduce.solve_block=" << v << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("reduce.solve_block must be a positive integer"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(app::parse_reduce_job(io::Config::from_string(kJob, "<t>", {"reduce.solve_block=many"})), InputError);
}
