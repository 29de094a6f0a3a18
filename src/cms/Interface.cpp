// SPDX-License-Identifier: MIT
#include "flexuq/cms/Interface.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace flexuq::cms {

const char* component_name(int k) {
  static const char* names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
  return names[k];
}

Eigen::Matrix<double, 1, 6> rigid_row(const std::array<double, 3>& x, int k, const std::array<double, 3>& c) {
  Eigen::Matrix<double, 1, 6> row = Eigen::Matrix<double, 1, 6>::Zero();
  if (k >= 3) {
    row(k) = 1.0; // nodal rotation = θ
    return row;
  }
  row(k) = 1.0;
  const Eigen::Vector3d r(x[0] - c[0], x[1] - c[1], x[2] - c[2]);
  for (int a = 0; a < 3; ++a) row(3 + a) = Eigen::Vector3d::Unit(a).cross(r)(k); // (e_a × r)_k
  return row;
}

WorkSpace::WorkSpace(const fe::Component& c, const std::vector<InterfaceSpec>& interfaces)
    : comp_(&c), specs_(interfaces), dpn_(c.dofs().dofs_per_node()) {
  const auto& mesh = c.mesh();
  const auto& d = c.dofs();
  MPI_Comm comm = c.comm();
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  FLEXUQ_REQUIRE(!interfaces.empty(), "reduce.interfaces: at least one interface is needed");

  // Interface nodes, sorted by input order; no node in two interfaces.
  std::vector<std::vector<int>> nodes(interfaces.size());
  std::map<int, int> taken;
  int n_rbe2 = 0;
  std::vector<int> rbe2_index(interfaces.size(), -1);
  std::vector<std::array<double, 3>> refpt(interfaces.size());
  for (std::size_t s = 0; s < interfaces.size(); ++s) {
    const auto& spec = interfaces[s];
    FLEXUQ_REQUIRE(spec.kind != InterfaceKind::rbe3,
                   "reduce.interfaces: set " << spec.set
                                             << " has kind rbe3 (averaging constraint), which is not implemented yet; "
                                                "use rbe2 (rigid) or all-dofs");
    nodes[s] = mesh.node_set(spec.set);
    auto& ns = nodes[s];
    std::sort(ns.begin(), ns.end());
    ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
    FLEXUQ_REQUIRE(!ns.empty(), "reduce.interfaces: node set " << spec.set << " is empty");
    for (int n : ns) {
      FLEXUQ_REQUIRE(!d.is_fixed(n), "reduce.interfaces: node " << mesh.node_ids[n] << " of set " << spec.set
                                                                 << " is fixed; interfaces replace supports");
      auto [it, fresh] = taken.emplace(n, static_cast<int>(s));
      FLEXUQ_REQUIRE(fresh, "reduce.interfaces: node " << mesh.node_ids[n] << " belongs to both " << interfaces[it->second].set
                                                        << " and " << spec.set << "; interfaces must not overlap");
    }
    if (spec.kind == InterfaceKind::rbe2) {
      rbe2_index[s] = n_rbe2++;
      std::array<double, 3> p{0, 0, 0};
      if (spec.ref) {
        p = *spec.ref;
      } else {
        for (int n : ns)
          for (int k = 0; k < 3; ++k) p[k] += mesh.coords[n][k] / static_cast<double>(ns.size());
      }
      refpt[s] = p;
    }
  }

  // Working numbering: original free DOFs minus the RBE2 nodes' DOFs, then 6 DOFs per RBE2
  // reference node at the end of the last rank's block. w(g) = g − (removed DOFs before g).
  const PetscInt n_orig = d.global_size();
  removed_node_.assign(mesh.num_nodes(), 0);
  for (std::size_t s = 0; s < interfaces.size(); ++s)
    if (rbe2_index[s] >= 0)
      for (int n : nodes[s]) removed_node_[n] = 1;
  const auto& removed_node = removed_node_;
  // Removed DOF starts in global order, for the prefix count.
  for (std::size_t n = 0; n < mesh.num_nodes(); ++n)
    if (removed_node[n]) removed_starts_.push_back(d.node_dof(static_cast<int>(n)));
  std::sort(removed_starts_.begin(), removed_starts_.end());
  const PetscInt n_removed = static_cast<PetscInt>(removed_starts_.size()) * dpn_;
  wglobal_ = n_orig - n_removed + 6 * n_rbe2;
  const PetscInt ref_base = n_orig - n_removed;
  // Local range: kept DOFs of [begin, end), plus the reference DOFs on the last rank.
  wbegin_ = work_of(d.begin());
  wend_ = (rank == size - 1) ? wglobal_ : work_of(d.end());

  for (int n : d.owned_nodes()) {
    if (removed_node[n]) continue;
    for (int k = 0; k < dpn_; ++k) {
      pos_.push_back(mesh.coords[n]);
      comp_of_.push_back(k);
    }
  }
  // owned_nodes are in global numbering order, so pos_ follows the working numbering.
  if (rank == size - 1)
    for (std::size_t s = 0; s < interfaces.size(); ++s)
      if (rbe2_index[s] >= 0)
        for (int k = 0; k < 6; ++k) {
          pos_.push_back(refpt[s]);
          comp_of_.push_back(k);
        }
  FLEXUQ_REQUIRE(static_cast<PetscInt>(pos_.size()) == wend_ - wbegin_, "internal: working space size mismatch");

  // Boundary coordinates in canonical order.
  const auto& ids = mesh.node_ids;
  for (std::size_t s = 0; s < interfaces.size(); ++s) {
    if (rbe2_index[s] >= 0) {
      for (int k = 0; k < 6; ++k) {
        bdofs_.push_back({static_cast<int>(s), -1, k, ref_base + 6 * rbe2_index[s] + k,
                          "REF " + io::upper(interfaces[s].set) + " " + component_name(k)});
        bpos_.push_back(refpt[s]);
      }
    } else {
      for (int n : nodes[s])
        for (int k = 0; k < dpn_; ++k) {
          bdofs_.push_back({static_cast<int>(s), n, k, work_of(d.node_dof(n) + k),
                            io::upper(interfaces[s].set) + " node " + std::to_string(ids[n]) + " " + component_name(k)});
          bpos_.push_back(mesh.coords[n]);
        }
    }
  }
  // Ownership of working indices → position of each boundary coordinate in the rank-concatenated
  // is_b order (each rank lists its own in canonical order).
  std::vector<PetscInt> wbegins(size);
  MPI_Allgather(&wbegin_, 1, MPIU_INT, wbegins.data(), 1, MPIU_INT, comm);
  auto owner_of = [&](PetscInt w) {
    return static_cast<int>(std::upper_bound(wbegins.begin(), wbegins.end(), w) - wbegins.begin()) - 1;
  };
  std::vector<PetscInt> count(size, 0);
  std::vector<int> owner(bdofs_.size());
  for (std::size_t k = 0; k < bdofs_.size(); ++k) {
    // The last rank's range extends to wglobal_; empty ranks share a begin, upper_bound picks the last.
    owner[k] = owner_of(bdofs_[k].work);
    ++count[owner[k]];
  }
  std::vector<PetscInt> offset(size, 0);
  for (int r = 1; r < size; ++r) offset[r] = offset[r - 1] + count[r - 1];
  std::vector<PetscInt> seen(size, 0), local_b;
  b_pos_.resize(bdofs_.size());
  for (std::size_t k = 0; k < bdofs_.size(); ++k) {
    b_pos_[k] = offset[owner[k]] + seen[owner[k]]++;
    if (owner[k] == rank) local_b.push_back(bdofs_[k].work);
  }
  std::vector<char> is_bnd(static_cast<std::size_t>(wend_ - wbegin_), 0);
  for (PetscInt w : local_b) is_bnd[static_cast<std::size_t>(w - wbegin_)] = 1;
  std::vector<PetscInt> local_i;
  for (PetscInt w = wbegin_; w < wend_; ++w)
    if (!is_bnd[static_cast<std::size_t>(w - wbegin_)]) local_i.push_back(w);
  FLEXUQ_PETSC(ISCreateGeneral(comm, static_cast<PetscInt>(local_b.size()), local_b.data(), PETSC_COPY_VALUES, is_b_.out()));
  FLEXUQ_PETSC(ISCreateGeneral(comm, static_cast<PetscInt>(local_i.size()), local_i.data(), PETSC_COPY_VALUES, is_i_.out()));

  if (n_rbe2 == 0) return;
  // T̂ (N × N_w): identity on kept DOFs, rigid map of the reference node on RBE2 nodes.
  FLEXUQ_PETSC(MatCreateAIJ(comm, d.local_size(), wend_ - wbegin_, n_orig, wglobal_, 6, nullptr, 6, nullptr, T_.out()));
  for (int n : d.owned_nodes()) {
    const PetscInt g0 = d.node_dof(n);
    if (!removed_node[n]) {
      for (int k = 0; k < dpn_; ++k) FLEXUQ_PETSC(MatSetValue(T_.get(), g0 + k, work_of(g0 + k), 1.0, INSERT_VALUES));
      continue;
    }
    const int s = taken.at(n);
    const PetscInt col0 = ref_base + 6 * rbe2_index[s];
    PetscInt cols[6];
    for (int j = 0; j < 6; ++j) cols[j] = col0 + j;
    for (int k = 0; k < dpn_; ++k) {
      const auto row = rigid_row(mesh.coords[n], k, refpt[s]);
      const PetscInt g = g0 + k;
      FLEXUQ_PETSC(MatSetValues(T_.get(), 1, &g, 6, cols, row.data(), INSERT_VALUES));
    }
  }
  FLEXUQ_PETSC(MatAssemblyBegin(T_.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(T_.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatPtAP(c.K(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, Kw_.out()));
  FLEXUQ_PETSC(MatPtAP(c.M(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, Mw_.out()));
  for (Mat A : {Kw_.get(), Mw_.get()}) {
    FLEXUQ_PETSC(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    FLEXUQ_PETSC(MatSetOption(A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
}

PetscInt WorkSpace::work_of(PetscInt g) const {
  const auto before = std::lower_bound(removed_starts_.begin(), removed_starts_.end(), g) - removed_starts_.begin();
  return g - static_cast<PetscInt>(before) * dpn_;
}

std::vector<BoundaryDof> WorkSpace::determinate_set(bool boundary_only, double* rcond) const {
  std::vector<BoundaryDof> cand = bdofs_;
  std::vector<std::array<double, 3>> where = bpos_;
  if (!boundary_only) {
    const auto& mesh = comp_->mesh();
    const std::size_t n = mesh.num_nodes(), stride = std::max<std::size_t>(1, n / 400);
    for (std::size_t v = 0; v < n; v += stride) {
      if (removed_node_[v]) continue;
      for (int k = 0; k < dpn_; ++k) {
        cand.push_back({-1, static_cast<int>(v), k, work_of(comp_->dofs().node_dof(static_cast<int>(v)) + k), ""});
        where.push_back(mesh.coords[v]);
      }
    }
  }
  // Rigid rows about the candidates' centroid (translation-invariant choice, better conditioned).
  std::array<double, 3> c{0, 0, 0};
  for (const auto& p : where)
    for (int k = 0; k < 3; ++k) c[k] += p[k] / static_cast<double>(where.size());
  double len = 0;
  for (const auto& p : where)
    for (int k = 0; k < 3; ++k) len = std::max(len, std::abs(p[k] - c[k]));
  if (len == 0) len = 1;
  Eigen::MatrixXd Rt(6, static_cast<Eigen::Index>(cand.size()));
  for (std::size_t k = 0; k < cand.size(); ++k) {
    auto row = rigid_row(where[k], cand[k].component, c);
    if (cand[k].component < 3) row.tail<3>() /= len; // rotations scaled to unit lever arm
    Rt.col(static_cast<Eigen::Index>(k)) = row.transpose();
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Rt);
  qr.setThreshold(1e-10);
  const int rank = static_cast<int>(qr.rank());
  std::vector<BoundaryDof> out;
  for (int j = 0; j < rank; ++j) out.push_back(cand[static_cast<std::size_t>(qr.colsPermutation().indices()(j))]);
  if (rcond) {
    const Eigen::VectorXd d = qr.matrixR().diagonal().head(std::min<Eigen::Index>(6, qr.matrixR().cols())).cwiseAbs();
    *rcond = d.size() ? d.minCoeff() / d.maxCoeff() : 0.0;
  }
  return out;
}

VecH WorkSpace::new_vector() const {
  VecH v;
  FLEXUQ_PETSC(MatCreateVecs(K(), v.out(), nullptr));
  FLEXUQ_PETSC(VecZeroEntries(v.get()));
  return v;
}

VecH WorkSpace::to_physical(Vec w) const {
  VecH x;
  if (!T_) {
    FLEXUQ_PETSC(VecDuplicate(w, x.out()));
    FLEXUQ_PETSC(VecCopy(w, x.get()));
    return x;
  }
  FLEXUQ_PETSC(MatCreateVecs(T_.get(), nullptr, x.out()));
  FLEXUQ_PETSC(MatMult(T_.get(), w, x.get()));
  return x;
}

std::vector<VecH> WorkSpace::rigid_modes(const std::array<double, 3>& center) const {
  std::vector<VecH> out;
  for (int j = 0; j < 6; ++j) {
    VecH v = new_vector();
    PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArray(v.get(), &a));
    for (std::size_t r = 0; r < pos_.size(); ++r) a[r] = rigid_row(pos_[r], comp_of_[r], center)(j);
    FLEXUQ_PETSC(VecRestoreArray(v.get(), &a));
    out.push_back(std::move(v));
  }
  return out;
}

Eigen::MatrixXd WorkSpace::rigid_boundary_rows(const std::array<double, 3>& center) const {
  Eigen::MatrixXd R(static_cast<Eigen::Index>(bdofs_.size()), 6);
  for (std::size_t k = 0; k < bdofs_.size(); ++k) R.row(static_cast<Eigen::Index>(k)) = rigid_row(bpos_[k], bdofs_[k].component, center);
  return R;
}

} // namespace flexuq::cms
