// SPDX-License-Identifier: MIT
#include "flexuq/app/PodReduce.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/pod/Pod.hpp"
#include "flexuq/pod/Snapshots.hpp"
#include "flexuq/pod/StreamingPod.hpp"

#include <algorithm>

namespace flexuq::app {

pod::Truncation pod_truncation(const io::Config& cfg) {
  const std::string P = "reduce.stochastic.pod";
  if (!cfg.has(P)) return pod::Truncation::energy(1e-10);
  const YAML::Node n = cfg.node(P);
  FLEXUQ_REQUIRE(n.IsMap(), cfg.source() << ": " << P << " must be a map with one of energy, sigma_ratio, rank "
                                                         "(e.g. {energy: 1.0e-10})");
  std::vector<std::string> keys;
  for (const auto& kv : n) keys.push_back(kv.first.as<std::string>());
  for (const auto& k : keys)
    FLEXUQ_REQUIRE(k == "energy" || k == "sigma_ratio" || k == "rank",
                   cfg.source() << ": " << P << "." << k << " is not a truncation (known: energy, sigma_ratio, rank)");
  FLEXUQ_REQUIRE(keys.size() == 1, cfg.source() << ": " << P << " takes exactly one of energy, sigma_ratio, rank, got "
                                                << keys.size());
  double v = 0;
  try {
    v = n[keys[0]].as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(cfg.source() + ": " + P + "." + keys[0] + " must be a number");
  }
  return pod::Truncation::from_key(keys[0], v, cfg.source() + ": " + P + "." + keys[0]);
}

namespace {

bool is_mode_column(const std::string& kind) {
  return kind == "fixed_interface_mode" || kind == "free_interface_mode" || kind == "mixed_interface_mode";
}

/// Rows [begin, begin + local) of every rank, on rank 0 scaled by @p per_row entries per row.
void layout(MPI_Comm c, PetscInt local, std::size_t per_row, std::vector<int>& counts, std::vector<int>& displs) {
  const int size = [&] {
    int s = 0;
    MPI_Comm_size(c, &s);
    return s;
  }();
  long long mine = static_cast<long long>(local) * static_cast<long long>(per_row);
  FLEXUQ_REQUIRE(mine < (1LL << 31), "pod: " << mine << " basis entries on one rank exceed an MPI count");
  int m = static_cast<int>(mine);
  counts.assign(static_cast<std::size_t>(size), 0);
  displs.assign(static_cast<std::size_t>(size), 0);
  FLEXUQ_MPI(MPI_Allgather(&m, 1, MPI_INT, counts.data(), 1, MPI_INT, c));
  for (int r = 1; r < size; ++r)
    displs[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
}

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

} // namespace

PodBasisSummary pod_basis(MPI_Comm comm, const std::vector<campaign::SampleRecord>& records,
                          const cms::ReducedBody& nominal, std::uint64_t nodes, int dofs_per_node,
                          const pod::Truncation& truncation, const std::string& output) {
  Comm world(comm);
  MPI_Comm c = world.get();
  const bool root = world.rank() == 0;
  // Rank 0: the successful points in sample order (the journal's order is the scheduling's) and the
  // column families of the aligned basis (every point has the reference's columns).
  std::vector<const campaign::SampleRecord*> ok;
  std::vector<int> family; // per column: 0 boundary/constraint, 1 normal mode
  if (root) {
    for (const auto& r : records)
      if (r.status == 0) ok.push_back(&r);
    std::sort(ok.begin(), ok.end(), [](auto* a, auto* b) { return a->index < b->index; });
    for (const auto& k : nominal.column_kinds) family.push_back(is_mode_column(k) ? 1 : 0);
  }
  long long head[2] = {static_cast<long long>(ok.size()), static_cast<long long>(family.size())};
  FLEXUQ_MPI(MPI_Bcast(head, 2, MPI_LONG_LONG, 0, c));
  const long long N = head[0];
  const auto n = static_cast<std::size_t>(head[1]);
  family.resize(n);
  FLEXUQ_MPI(MPI_Bcast(family.data(), static_cast<int>(n), MPI_INT, 0, c));
  FLEXUQ_REQUIRE(N > 0, "reduce.stochastic.method: pod: no point succeeded, there are no snapshots");
  std::vector<Eigen::Index> cols_b, cols_i;
  for (std::size_t j = 0; j < n; ++j) (family[j] ? cols_i : cols_b).push_back(static_cast<Eigen::Index>(j));

  const auto rows = static_cast<PetscInt>(nodes * static_cast<std::uint64_t>(dofs_per_node));
  const auto [begin, local] = pod::split_rows(c, rows);
  (void)begin;
  std::vector<int> counts, displs;
  layout(c, local, n, counts, displs);
  // Seed 000 Algorithm 4 takes one POD per column index over the samples (its bar has one boundary
  // mode and a handful of internal ones). With many aligned modes per family a POD per family of all
  // their snapshots spans the same space at a rank no larger than the sum of the per-column ranks, and
  // needs no choice of r per column: we follow that (docs/stochastic-cb.md).
  pod::StreamingPod pb(c, local), pi(c, local);
  RowMat block(local, static_cast<Eigen::Index>(n));
  for (long long p = 0; p < N; ++p) {
    const double* src = nullptr;
    if (root) {
      const auto& b = ok[static_cast<std::size_t>(p)]->outputs.at("basis");
      FLEXUQ_REQUIRE(b.size() == static_cast<std::size_t>(rows) * n,
                     "journal: point " << ok[static_cast<std::size_t>(p)]->index << " has " << b.size()
                                       << " basis values, expected " << static_cast<std::size_t>(rows) * n);
      src = b.data();
    }
    FLEXUQ_MPI(MPI_Scatterv(src, counts.data(), displs.data(), MPI_DOUBLE, block.data(),
                            static_cast<int>(block.size()), MPI_DOUBLE, 0, c));
    if (!cols_b.empty()) pb.append_local(block(Eigen::all, cols_b));
    if (!cols_i.empty()) pi.append_local(block(Eigen::all, cols_i));
  }
  PodBasisSummary s;
  Eigen::MatrixXd U(local, 0);
  Eigen::VectorXd sig_b, sig_i;
  if (!cols_b.empty()) {
    const auto r = pb.result(truncation);
    s.snapshots_boundary = pb.snapshots();
    s.rank_boundary = r.rank;
    s.energy_lost_boundary = r.energy_lost;
    sig_b = r.sigma_normalised();
    U = r.U_local;
  }
  if (!cols_i.empty()) {
    const auto r = pi.result(truncation);
    s.snapshots_internal = pi.snapshots();
    s.rank_internal = r.rank;
    s.energy_lost_internal = r.energy_lost;
    sig_i = r.sigma_normalised();
    Eigen::MatrixXd W(local, U.cols() + r.rank);
    W << U, r.U_local;
    U = std::move(W);
  }
  // The union of the two orthonormal families → one orthonormal V (TSQR; a direction the two share
  // is kept once: σ of [U_b U_i] below 1e-10 of √2 would be a dependent combination).
  const auto svd = pod::svd_tsqr(c, U);
  int r = 0;
  while (r < svd.sigma.size() && svd.sigma(r) > 1e-10 * svd.sigma(0)) ++r;
  s.rank = r;
  const RowMat V = svd.U_local.leftCols(r);
  std::vector<int> vc, vd;
  layout(c, local, static_cast<std::size_t>(r), vc, vd);
  std::vector<double> full(root ? static_cast<std::size_t>(rows) * static_cast<std::size_t>(r) : 0);
  FLEXUQ_MPI(MPI_Gatherv(V.data(), static_cast<int>(V.size()), MPI_DOUBLE, full.data(), vc.data(), vd.data(),
                         MPI_DOUBLE, 0, c));
  if (root) {
    io::H5File f(MPI_COMM_SELF, output, io::H5File::Mode::append);
    const std::string P = "/stochastic_body/pod/";
    f.write_replicated(P + "basis", {nodes, static_cast<std::uint64_t>(dofs_per_node), static_cast<std::uint64_t>(r)},
                       full.data());
    std::vector<std::int64_t> idx;
    for (auto* q : ok) idx.push_back(static_cast<std::int64_t>(q->index));
    f.write_replicated(P + "points", {static_cast<std::uint64_t>(idx.size())}, idx.data());
    const auto fam = [&](const std::string& name, const Eigen::VectorXd& sig, long long snaps, int rank, double lost) {
      if (snaps == 0) return;
      f.write_replicated(P + name + "/sigma", {static_cast<std::uint64_t>(sig.size())}, sig.data());
      const std::int64_t meta[2] = {snaps, rank};
      f.write_replicated(P + name + "/snapshots_rank", {2}, meta);
      f.write_attribute(P + name, "energy_lost", lost);
    };
    fam("boundary", sig_b, s.snapshots_boundary, s.rank_boundary, s.energy_lost_boundary);
    fam("internal", sig_i, s.snapshots_internal, s.rank_internal, s.energy_lost_internal);
    f.write_attribute("/stochastic_body/pod", "truncation", truncation.describe());
    f.write_attribute("/stochastic_body/pod", "rank", static_cast<std::int64_t>(r));
  }
  return s;
}

} // namespace flexuq::app
