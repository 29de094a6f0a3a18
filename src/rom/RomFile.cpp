// SPDX-License-Identifier: MIT
// The `flexuq rom` result and the training snapshots of `flexuq simulate` (docs/hdf5-schema.md).
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/rom/Basis.hpp"

#include <cstdint>

namespace flexuq::rom {

namespace {

/// A row-major n × k dataset as written by write_matrix (and by `flexuq simulate`'s tables).
void write_matrix(io::H5File& f, const std::string& name, const Mat& a) {
  const Mat t = a.transpose(); // column-major k × n = row-major n × k
  f.write_replicated(name, {static_cast<std::uint64_t>(a.rows()), static_cast<std::uint64_t>(a.cols())}, t.data());
}

Mat read_matrix(const io::H5File& f, const std::string& name) {
  if (!f.exists(name)) throw InputError(f.path() + ": dataset " + name + " is missing");
  const auto dims = f.shape(name);
  const auto data = f.read_all(name);
  const auto rows = static_cast<Eigen::Index>(dims.at(0)), cols = dims.size() > 1 ? static_cast<Eigen::Index>(dims[1]) : 1;
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(data.data(), rows, cols);
}

void write_vector(io::H5File& f, const std::string& name, const Vec& v) {
  if (v.size() > 0) f.write_replicated(name, {static_cast<std::uint64_t>(v.size())}, v.data());
}

} // namespace

void write_basis(const std::string& path, const ReducedBasis& b, const std::vector<std::string>& sources,
                 double offline_seconds) {
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::create);
  f.ensure_group("/rom");
  write_matrix(f, "/rom/V", b.V);
  write_vector(f, "/rom/q0", b.q0);
  write_vector(f, "/rom/R0", b.R0);
  if (b.l() > 0) write_matrix(f, "/rom/gamma", b.gamma);
  write_vector(f, "/rom/constraint_sigma", b.constraint_sigma);
  if (!b.needed.empty()) {
    std::vector<std::int64_t> nd(b.needed.begin(), b.needed.end());
    f.write_replicated("/rom/is_needed", {static_cast<std::uint64_t>(nd.size())}, nd.data());
  }
  f.write_strings("/rom/rows", b.rows.empty() ? std::vector<std::string>{""} : b.rows);
  f.write_strings("/rom/training", sources.empty() ? std::vector<std::string>{""} : sources);
  f.write_attribute("/rom", "n", static_cast<std::int64_t>(b.n()));
  f.write_attribute("/rom", "m", static_cast<std::int64_t>(b.rows.size()));
  f.write_attribute("/rom", "r", static_cast<std::int64_t>(b.r()));
  f.write_attribute("/rom", "l", static_cast<std::int64_t>(b.l()));
  for (int ty = 0; ty < 3; ++ty)
    f.write_attribute("/rom", std::string("r_") + type_name(ty), static_cast<std::int64_t>(b.rank_of(ty)));
  f.write_attribute("/rom", "pod", std::string(enum_name(kPodKindNames, b.options.pod)));
  f.write_attribute("/rom", "snapshots", std::string(enum_name(kSnapshotKindNames, b.options.snapshots)));
  f.write_attribute("/rom", "per_body", static_cast<std::int64_t>(b.options.per_body));
  f.write_attribute("/rom", "centre", static_cast<std::int64_t>(b.options.centre));
  f.write_attribute("/rom", "truncation", b.options.truncation.describe());
  f.write_attribute("/rom", "constraints", std::string(enum_name(kConstraintMethodNames, b.options.constraints)));
  f.write_attribute("/rom", "constraint_truncation", b.options.constraint_truncation.describe());
  f.write_attribute("/rom", "snapshot_count", static_cast<std::int64_t>(b.snapshots));
  f.write_attribute("/rom", "orthonormality", b.orthonormality);
  f.write_attribute("/rom", "offline_seconds", offline_seconds);
  // The truncation report: one group per POD block.
  f.ensure_group("/rom/blocks");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < b.blocks.size(); ++i) {
    const auto& blk = b.blocks[i];
    const std::string g = "/rom/blocks/" + std::to_string(i);
    names.push_back(blk.name);
    f.ensure_group(g);
    f.write_attribute(g, "name", blk.name);
    f.write_attribute(g, "rank", static_cast<std::int64_t>(blk.rank));
    f.write_attribute(g, "first_column", static_cast<std::int64_t>(blk.first_column));
    f.write_attribute(g, "energy_lost", blk.energy_lost);
    std::vector<std::int64_t> rows(blk.rows.begin(), blk.rows.end());
    f.write_replicated(g + "/rows", {static_cast<std::uint64_t>(rows.size())}, rows.data());
    write_vector(f, g + "/sigma", blk.sigma);
    write_vector(f, g + "/sigma_normalised", pod::normalised(blk.sigma));
  }
  f.write_strings("/rom/block_names", names.empty() ? std::vector<std::string>{""} : names);
}

ReducedBasis read_basis(const std::string& path) {
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::read);
  if (!f.exists("/rom/V")) throw InputError(path + ": not a `flexuq rom` result (no /rom/V)");
  ReducedBasis b;
  b.V = read_matrix(f, "/rom/V");
  b.q0 = read_matrix(f, "/rom/q0");
  b.R0 = read_matrix(f, "/rom/R0");
  const auto l = f.read_attribute_int("/rom", "l");
  const auto m = f.read_attribute_int("/rom", "m");
  b.gamma = l > 0 ? read_matrix(f, "/rom/gamma") : Mat(m, 0);
  b.rows = m > 0 ? f.read_strings("/rom/rows") : std::vector<std::string>{};
  if (f.exists("/rom/constraint_sigma")) b.constraint_sigma = read_matrix(f, "/rom/constraint_sigma");
  b.orthonormality = f.read_attribute_double("/rom", "orthonormality");
  b.snapshots = static_cast<int>(f.read_attribute_int("/rom", "snapshot_count"));
  const auto names = f.read_strings("/rom/block_names");
  for (std::size_t i = 0; i < names.size() && !names[i].empty(); ++i) {
    const std::string g = "/rom/blocks/" + std::to_string(i);
    PodBlock blk;
    blk.name = names[i];
    blk.rank = static_cast<int>(f.read_attribute_int(g, "rank"));
    blk.first_column = static_cast<int>(f.read_attribute_int(g, "first_column"));
    blk.energy_lost = f.read_attribute_double(g, "energy_lost");
    for (const auto k : f.read_all_int(g + "/rows")) blk.rows.push_back(static_cast<int>(k));
    if (f.exists(g + "/sigma")) blk.sigma = read_matrix(f, g + "/sigma");
    b.blocks.push_back(std::move(blk));
  }
  if (b.V.rows() != b.q0.size() || b.R0.size() != b.q0.size() || b.gamma.rows() != m ||
      static_cast<std::int64_t>(b.rows.size()) != m || b.l() > b.r())
    throw InputError(path + ": inconsistent ROM (V " + std::to_string(b.V.rows()) + " x " + std::to_string(b.V.cols()) +
                     ", q0 " + std::to_string(b.q0.size()) + ", gamma " + std::to_string(b.gamma.rows()) + " x " +
                     std::to_string(b.gamma.cols()) + ", " + std::to_string(b.rows.size()) + " rows)");
  return b;
}

Training read_training(const std::string& path, std::vector<std::string>* active_rows) {
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::read);
  if (!f.exists("/snapshots/v"))
    throw InputError(path + ": no /snapshots (run `flexuq simulate` with `snapshots: true` to make training data)");
  Training tr;
  tr.q = read_matrix(f, "/snapshots/q").transpose();
  tr.v = read_matrix(f, "/snapshots/v").transpose();
  tr.t = f.read_all("/time");
  if (active_rows) {
    *active_rows = f.read_strings("/snapshots/rows");
    if (active_rows->size() == 1 && active_rows->front().empty()) active_rows->clear();
  }
  if (static_cast<Eigen::Index>(tr.t.size()) != tr.q.cols())
    throw InputError(path + ": /time and /snapshots/q disagree on the number of snapshots");
  return tr;
}

} // namespace flexuq::rom
