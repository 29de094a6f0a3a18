// SPDX-License-Identifier: MIT
#include "flexuq/cms/Op4Export.hpp"

#include "flexuq/core/Error.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

namespace flexuq::cms {

std::vector<int> op4_order(const WorkSpace& ws, const ReducedBasis& rb, const std::map<int, long>& reference_grids,
                           std::vector<std::array<long, 2>>* bdof) {
  const auto& b = ws.boundary();
  const auto& ids = ws.component().mesh().node_ids;
  std::vector<std::tuple<long, int, int, int>> key; // grid, interface (reference DOFs), component, column
  for (std::size_t k = 0; k < b.size(); ++k) {
    long grid = 0;
    if (b[k].node >= 0) {
      grid = ids[static_cast<std::size_t>(b[k].node)];
    } else if (const auto it = reference_grids.find(b[k].interface); it != reference_grids.end()) {
      grid = it->second;
    }
    key.emplace_back(grid, b[k].node >= 0 ? -1 : b[k].interface, b[k].component, static_cast<int>(k));
  }
  // Nastran orders the a-set by grid id and component; a basis without physical boundary
  // coordinates keeps flexuq's column order.
  if (rb.physical_boundary) std::stable_sort(key.begin(), key.end());
  std::vector<int> order(rb.n_columns());
  std::iota(order.begin(), order.end(), 0);
  if (bdof) bdof->clear();
  for (std::size_t r = 0; r < key.size(); ++r) {
    if (rb.physical_boundary) order[r] = std::get<3>(key[r]);
    if (bdof) bdof->push_back({std::get<0>(key[r]), std::get<2>(key[r]) + 1});
  }
  return order;
}

void write_reduced_op4(const std::string& path, const WorkSpace& ws, const ReducedBasis& rb,
                       const Op4ExportOptions& o) {
  MPI_Comm comm = ws.comm();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::array<long, 2>> bdof;
  const std::vector<int> order = op4_order(ws, rb, o.reference_grids, &bdof);
  const int n = static_cast<int>(order.size());
  const io::Mesh& mesh = ws.component().mesh();
  // Boundary coordinates in the grids' displacement (CD) systems, as Nastran reports them:
  // q_basic = Rᵀ q_cd per translation and rotation triple (R rows = CD axes in basic), so the file's
  // coordinates are q_file = Tᵀ-congruent: K_file = Tᵀ K T with T = blockdiag(Rᵀ, …, I on modes).
  Eigen::MatrixXd T = Eigen::MatrixXd::Identity(n, n); // in file order
  bool rotated = false;
  if (rb.physical_boundary && !mesh.node_frames.empty()) {
    const auto& b = ws.boundary();
    std::vector<int> pos_of(b.size()); // boundary index → file row
    for (int r = 0; r < static_cast<int>(b.size()); ++r) pos_of[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] = r;
    for (std::size_t k = 0; k < b.size(); ++k) {
      if (b[k].node < 0 || b[k].component % 3 != 0) continue;
      const auto& f = mesh.node_frames[static_cast<std::size_t>(b[k].node)];
      if (f.system == 0 || k + 2 >= b.size()) continue;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          T(pos_of[k + static_cast<std::size_t>(j)], pos_of[k + static_cast<std::size_t>(i)]) = f.axes[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      rotated = true;
    }
  }
  std::vector<io::Op4Matrix> mats;
  for (const auto& [name, A] : {std::make_pair("KAA", &rb.K), std::make_pair("MAA", &rb.M)}) {
    Eigen::MatrixXd P(n, n);
    for (int c = 0; c < n; ++c)
      for (int r = 0; r < n; ++r) P(r, c) = (*A)(order[static_cast<std::size_t>(r)], order[static_cast<std::size_t>(c)]);
    if (rotated) P = (T.transpose() * P * T).eval();
    io::Op4Matrix m(name, n, n);
    m.form = 6;
    for (int c = 0; c < n; ++c)
      for (int r = 0; r < n; ++r) m(r, c) = rotated ? 0.5 * (P(r, c) + P(c, r)) : P(r, c);
    mats.push_back(std::move(m));
  }
  io::Op4Matrix bm("BDOF", static_cast<int>(bdof.size()), 2);
  for (std::size_t r = 0; r < bdof.size(); ++r)
    for (int c = 0; c < 2; ++c) bm(static_cast<int>(r), c) = static_cast<double>(bdof[r][static_cast<std::size_t>(c)]);
  mats.push_back(std::move(bm));

  if (!o.phi_sets.empty()) {
    const fe::Component& comp = ws.component();
    std::set<std::pair<long, int>> nodes; // (label, internal index)
    for (const auto& s : o.phi_sets)
      for (int v : mesh.node_set(s)) nodes.emplace(mesh.node_ids[static_cast<std::size_t>(v)], v);
    const int dpn = ws.dofs_per_node();
    const int rows = static_cast<int>(nodes.size()) * dpn;
    std::vector<PetscInt> gdof;
    io::Op4Matrix map("PHIDOF", rows, 2);
    int r = 0;
    for (const auto& [label, v] : nodes)
      for (int k = 0; k < dpn; ++k, ++r) {
        gdof.push_back(comp.dofs().dof(v, k));
        map(r, 0) = static_cast<double>(label);
        map(r, 1) = k + 1;
      }
    io::Op4Matrix phi("PHI", rows, n);
    for (int c = 0; c < n; ++c) {
      VecH x = ws.to_physical(rb.columns[static_cast<std::size_t>(order[static_cast<std::size_t>(c)])].get());
      PetscInt lo = 0, hi = 0;
      FLEXUQ_PETSC(VecGetOwnershipRange(x.get(), &lo, &hi));
      const PetscScalar* a = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(x.get(), &a));
      for (int i = 0; i < rows; ++i) {
        const PetscInt g = gdof[static_cast<std::size_t>(i)];
        if (g >= lo && g < hi) phi(i, c) = a[g - lo];
      }
      FLEXUQ_PETSC(VecRestoreArrayRead(x.get(), &a));
    }
    // Each value is owned by exactly one rank: the sum assembles the replicated matrix.
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, phi.data.data(), static_cast<int>(phi.data.size()), MPI_DOUBLE, MPI_SUM, comm));
    // Rows in each node's CD system, columns as KAA: PHI_file = R · PHI · T.
    if (rotated || !mesh.node_frames.empty()) {
      Eigen::Map<Eigen::MatrixXd> P(phi.data.data(), rows, n);
      if (rotated) P = (P * T).eval();
      int row = 0;
      for (const auto& [label, v] : nodes) {
        const auto& f = mesh.node_frames.empty() ? io::NodeFrame{} : mesh.node_frames[static_cast<std::size_t>(v)];
        if (f.system != 0) {
          Eigen::Matrix3d R;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) R(i, j) = f.axes[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
          for (int t = 0; t + 2 < dpn; t += 3) P.middleRows(row + t, 3) = (R * P.middleRows(row + t, 3)).eval();
        }
        row += dpn;
      }
    }
    mats.push_back(std::move(phi));
    mats.push_back(std::move(map));
  }
  if (rank == 0) io::write_op4(path, mats, o.format);
  FLEXUQ_MPI(MPI_Barrier(comm));
}

} // namespace flexuq::cms
