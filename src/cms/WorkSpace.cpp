// SPDX-License-Identifier: MIT
#include "flexuq/core/Assert.hpp"
#include "flexuq/cms/WorkSpace.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"

#include "flexuq/core/Error.hpp"

#include <algorithm>
#include <cmath>
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

namespace {

/// True when every column of @p P is a unit vector e_j (a selection of rigid modes).
bool is_selection(const Eigen::MatrixXd& P) {
  for (Eigen::Index j = 0; j < P.cols(); ++j)
    if ((P.col(j).array() != 0).count() != 1 || P.col(j).sum() != 1.0) return false;
  return true;
}

} // namespace

RigidNull rigid_null_space(const Eigen::MatrixXd& rows, const Eigen::MatrixXd& base) {
  // Rotations scaled to a unit lever arm: a dimensionless rank test.
  Eigen::MatrixXd A = rows;
  double len = A.rows() == 0 ? 0.0 : A.rightCols(3).cwiseAbs().maxCoeff();
  if (len == 0) len = 1;
  A.rightCols(3) /= len;
  // The base in the same scaled coordinates: a selection of rigid modes as it is, other combinations
  // (a supported component's motions) scaled and with unit columns.
  Eigen::MatrixXd P = base;
  if (!is_selection(P)) {
    P.bottomRows(3) *= len;
    for (Eigen::Index j = 0; j < P.cols(); ++j) P.col(j) /= P.col(j).norm();
  }
  const Eigen::Index nr = P.cols();
  Eigen::MatrixXd V = Eigen::MatrixXd::Identity(nr, nr);
  Eigen::Index rank = 0;
  if (A.rows() > 0 && nr > 0) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(A * P, Eigen::ComputeFullV);
    const Eigen::VectorXd sv = svd.singularValues();
    rank = sv(0) > 0 ? (sv.array() > 1e-10 * sv(0)).count() : 0;
    V = svd.matrixV();
  }
  RigidNull out;
  if (rank == nr) {
    out.Z = Eigen::MatrixXd::Zero(6, 0);
    return out;
  }
  const Eigen::MatrixXd Vn = P * V.rightCols(nr - rank);
  // Normalise on rigid-mode coordinates, rotations first (a line or a single node leaves rotations
  // about it); fall back to column-pivoted QR if the greedy pick is not well conditioned.
  std::vector<int> picks;
  for (int p : {3, 4, 5, 0, 1, 2}) {
    if (static_cast<Eigen::Index>(picks.size()) == Vn.cols()) break;
    std::vector<int> trial = picks;
    trial.push_back(p);
    Eigen::MatrixXd S(static_cast<Eigen::Index>(trial.size()), Vn.cols());
    for (std::size_t j = 0; j < trial.size(); ++j) S.row(static_cast<Eigen::Index>(j)) = Vn.row(trial[j]);
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(S);
    if (svd.singularValues().minCoeff() > 1e-2) picks = std::move(trial);
  }
  if (static_cast<Eigen::Index>(picks.size()) < Vn.cols()) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Eigen::MatrixXd(Vn.transpose()));
    picks.assign(qr.colsPermutation().indices().data(), qr.colsPermutation().indices().data() + Vn.cols());
  }
  std::sort(picks.begin(), picks.end());
  Eigen::MatrixXd Z = Vn;
  Z.bottomRows(3) /= len; // back to unscaled rotations
  Eigen::MatrixXd Zp(static_cast<Eigen::Index>(picks.size()), Z.cols());
  for (std::size_t j = 0; j < picks.size(); ++j) Zp.row(static_cast<Eigen::Index>(j)) = Z.row(picks[j]);
  out.Z = Z * Zp.inverse();
  out.picks = std::move(picks);
  return out;
}

namespace {

/// RBE3 averaging matrix W (6 × 3n) of nodes @p xs with weights @p w about @p ref: the weighted
/// least-squares fit of a rigid motion [t; θ] to the translations, W = (Σ w_i S_iᵀS_i)⁻¹[w_i S_iᵀ].
/// Throws when the nodes cannot determine all 6 reference motions (fewer than 3 nodes, collinear).
Eigen::MatrixXd averaging_matrix(const std::vector<std::array<double, 3>>& xs, const std::vector<double>& w,
                            const std::array<double, 3>& ref, const std::string& set) {
  const auto n = static_cast<Eigen::Index>(xs.size());
  // Characteristic length: rotations are scaled by it so that the condition number is dimensionless.
  double len = 0;
  for (const auto& x : xs) len += std::hypot(x[0] - ref[0], x[1] - ref[1], x[2] - ref[2]) / static_cast<double>(n);
  if (len == 0) len = 1;
  Eigen::MatrixXd St(6, 3 * n); // columns: S_iᵀ rows, rotation rows scaled by len
  Eigen::Matrix<double, 6, 6> A = Eigen::Matrix<double, 6, 6>::Zero();
  for (Eigen::Index i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      Eigen::Matrix<double, 6, 1> row = rigid_row(xs[static_cast<std::size_t>(i)], k, ref).transpose();
      row.tail<3>() *= len;
      St.col(3 * i + k) = row;
      A += w[static_cast<std::size_t>(i)] * row * row.transpose();
    }
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>> eig(A);
  const double rc = eig.eigenvalues()(0) / eig.eigenvalues()(5);
  FLEXUQ_REQUIRE_OPTION(rc > 1e-10, "interfaces",
                        "{}: the " << n << " node(s) of RBE3 set " << set
                                   << " cannot determine the 6 reference-node motions (their "
                                      "weighted moment matrix has rcond "
                                   << rc
                                   << "): an RBE3 needs at least 3 non-collinear nodes; use "
                                      "kind rbe2 or all-dofs for a single node or a line");
  Eigen::MatrixXd WS = St;
  for (Eigen::Index i = 0; i < n; ++i) WS.middleCols(3 * i, 3) *= w[static_cast<std::size_t>(i)];
  Eigen::MatrixXd W = A.ldlt().solve(WS);
  W.bottomRows(3) *= len; // undo the scaling: θ = len · θ_scaled
  return W;
}

} // namespace

WorkSpace::WorkSpace(const fe::Component& c, const std::vector<InterfaceSpec>& interfaces)
    : comp_(&c), specs_(interfaces), dpn_(c.dofs().dofs_per_node()) {
  const auto& mesh = c.mesh();
  const auto& d = c.dofs();
  MPI_Comm comm = c.comm();
  int rank = 0, size = 1;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  FLEXUQ_MPI(MPI_Comm_size(comm, &size));
  FLEXUQ_REQUIRE_OPTION(!interfaces.empty(), "interfaces", "{}: at least one interface is needed");

  // Interface nodes, sorted by input order; no node in two interfaces.
  nodes_.assign(interfaces.size(), {});
  refpt_.assign(interfaces.size(), {0, 0, 0});
  rbe3_W_.assign(interfaces.size(), Eigen::MatrixXd());
  auto& nodes = nodes_;
  std::map<int, int> taken;
  int n_ref = 0; // RBE2 and RBE3 interfaces: one 6-DOF reference node each
  // A mixed mesh (solids beside beams or shells, fe::Component): the rotations of the nodes that only
  // solids touch are eliminated there. They are no supports: an RBE2/RBE3 takes such a node's
  // translations (as on a solid mesh).
  std::vector<char> no_rotations(mesh.num_nodes(), 0);
  if (dpn_ == 6 && std::any_of(mesh.elem_type.begin(), mesh.elem_type.end(), io::is_solid)) {
    no_rotations.assign(mesh.num_nodes(), 1);
    for (std::size_t e = 0; e < mesh.num_elements(); ++e)
      if (!io::is_solid(mesh.elem_type[e]) && mesh.elem_type[e] != io::ElementType::bar2)
        for (int k = 0; k < mesh.element_size(e); ++k) no_rotations[static_cast<std::size_t>(mesh.element(e)[k])] = 0;
  }
  // The rigid motions the supports leave: those of rigid_selection() that vanish at every fixed DOF
  // (whole nodes and single components; a solid-only node's rotations of a mixed mesh are no
  // support). The mesh and the fixed masks are replicated: the same rows, in the same order, on
  // every rank and for any partition.
  motions_ = rigid_selection();
  picks_ = dpn_ == 2 ? std::vector<int>{0, 1, 5} : std::vector<int>{0, 1, 2, 3, 4, 5};
  if (d.has_partly_fixed()) {
    std::vector<Eigen::Matrix<double, 1, 6>> rows;
    for (std::size_t v = 0; v < mesh.num_nodes(); ++v) {
      const unsigned m = d.fixed_mask(static_cast<int>(v)) & ~(no_rotations[v] ? 0x38u : 0u);
      for (int k = 0; k < dpn_; ++k)
        if ((m >> k) & 1u) rows.push_back(rigid_row(mesh.coords[v], k, {0, 0, 0}));
    }
    Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), 6);
    for (std::size_t r = 0; r < rows.size(); ++r) A.row(static_cast<Eigen::Index>(r)) = rows[r];
    auto left = rigid_null_space(A, motions_);
    if (left.Z.cols() < motions_.cols()) {
      supported_ = true;
      motions_ = std::move(left.Z);
      picks_ = std::move(left.picks);
    }
  }
  std::vector<int> ref_index(interfaces.size(), -1);
  std::vector<std::vector<double>> weights(interfaces.size());
  for (std::size_t s = 0; s < interfaces.size(); ++s) {
    const auto& spec = interfaces[s];
    const bool rbe3 = spec.kind == InterfaceKind::rbe3;
    const auto& listed = mesh.node_set(spec.set);
    FLEXUQ_REQUIRE_OPTION(spec.weights.empty() || rbe3, "interfaces",
                          "{}: set " << spec.set << " has weights, which only an rbe3 interface takes");
    FLEXUQ_REQUIRE_OPTION(spec.weights.size() <= 1 || spec.weights.size() == listed.size(), "interfaces",
                          "{}: RBE3 set " << spec.set << " has " << spec.weights.size() << " weights for "
                                          << listed.size()
                                          << " listed nodes; give one weight, or one per node in the set's order");
    std::map<int, double> weight_of;
    for (std::size_t k = 0; k < listed.size(); ++k) {
      const double wk = spec.weights.empty() ? 1.0 : spec.weights[spec.weights.size() == 1 ? 0 : k];
      FLEXUQ_REQUIRE_OPTION(std::isfinite(wk) && wk > 0, "interfaces",
                            "{}: RBE3 set " << spec.set << ": weight " << wk << " of node " << mesh.node_ids[listed[k]]
                                            << " must be positive");
      auto [it, fresh] = weight_of.emplace(listed[k], wk);
      FLEXUQ_REQUIRE_OPTION(fresh || spec.weights.size() <= 1 || it->second == wk, "interfaces",
                            "{}: RBE3 set " << spec.set << " lists node " << mesh.node_ids[listed[k]]
                                            << " twice with different weights");
    }
    nodes[s] = listed;
    auto& ns = nodes[s];
    std::sort(ns.begin(), ns.end());
    ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
    FLEXUQ_REQUIRE_OPTION(!ns.empty(), "interfaces", "{}: node set " << spec.set << " is empty");
    for (int n : ns) {
      FLEXUQ_REQUIRE_OPTION(!d.is_fixed(n), "interfaces",
                            "{}: node " << mesh.node_ids[n] << " of set " << spec.set
                                        << " is fixed; interfaces replace supports");
      // A node with single fixed components (a symmetry plane) joins an all-dofs interface with
      // its free DOFs; an RBE2/RBE3 interface constrains all its DOFs, fixed ones included.
      FLEXUQ_REQUIRE_OPTION(spec.kind == InterfaceKind::all_dofs ||
                                (d.fixed_mask(n) & ~(no_rotations[static_cast<std::size_t>(n)] ? 0x38u : 0u)) == 0,
                            "interfaces",
                            "{}: node " << mesh.node_ids[n] << " of " << (rbe3 ? "rbe3" : "rbe2") << " interface "
                                        << spec.set
                                        << " has fixed components: a DOF both fixed and interface (an "
                                           "all-dofs interface takes a partly fixed node's free DOFs)");
      auto [it, fresh] = taken.emplace(n, static_cast<int>(s));
      const int owner = it->second; // a plain copy: clang cannot capture a structured binding in FLEXUQ_MSG's lambda
      FLEXUQ_REQUIRE_OPTION(fresh, "interfaces",
                            "{}: node " << mesh.node_ids[n] << " belongs to both " << interfaces[owner].set
                                        << " and " << spec.set << "; interfaces must not overlap");
      weights[s].push_back(weight_of.at(n));
    }
    if (spec.kind == InterfaceKind::all_dofs) continue;
    FLEXUQ_REQUIRE_OPTION(dpn_ != 2, "interfaces",
                          "{}: set " << spec.set << " is an " << (rbe3 ? "rbe3" : "rbe2")
                                     << " interface, whose reference node has 6 DOFs; a 2-D component (2 DOFs per "
                                        "node) takes all-dofs interfaces only");
    ref_index[s] = n_ref++;
    std::array<double, 3> p{0, 0, 0};
    if (spec.ref) {
      p = *spec.ref;
    } else { // centroid (RBE3: weighted)
      double wsum = 0;
      for (std::size_t k = 0; k < ns.size(); ++k) wsum += weights[s][k];
      for (std::size_t k = 0; k < ns.size(); ++k)
        for (int a = 0; a < 3; ++a) p[a] += weights[s][k] * mesh.coords[ns[k]][a] / wsum;
    }
    refpt_[s] = p;
    if (rbe3) {
      std::vector<std::array<double, 3>> xs;
      for (int n : ns) xs.push_back(mesh.coords[n]);
      rbe3_W_[s] = averaging_matrix(xs, weights[s], p, spec.set);
    }
  }

  // Eliminated DOFs: all DOFs of RBE2 nodes; for each RBE3, the 6 set DOFs (translations) that
  // column-pivoted QR of W picks as the best-conditioned W_m. Every rank computes the same choice.
  removed_node_.assign(mesh.num_nodes(), 0);
  std::vector<std::vector<PetscInt>> rbe3_m(interfaces.size()); // eliminated DOF (global), QR order
  std::vector<Eigen::MatrixXd> rbe3_T(interfaces.size());       // rows of T̂ for them: [W_m⁻¹ | −W_m⁻¹W_r]
  std::vector<std::vector<int>> rbe3_rest(interfaces.size());   // positions (in W's columns) of the others
  for (std::size_t s = 0; s < interfaces.size(); ++s) {
    if (interfaces[s].kind == InterfaceKind::rbe2) {
      for (int n : nodes[s]) {
        removed_node_[n] = 1;
        for (int k = 0; k < dpn_; ++k)
          if (d.dof(n, k) >= 0) removed_dofs_.push_back(d.dof(n, k)); // not a solid-only node's rotations
      }
    } else if (interfaces[s].kind == InterfaceKind::rbe3) {
      const Eigen::MatrixXd& W = rbe3_W_[s];
      // Scale rotation rows to the translation rows before pivoting (dimensionless choice).
      Eigen::MatrixXd Ws = W;
      const double rn = W.topRows(3).norm(), qn = W.bottomRows(3).norm();
      if (qn > 0) Ws.bottomRows(3) *= rn / qn;
      Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Ws);
      const auto& perm = qr.colsPermutation().indices();
      Eigen::Matrix<double, 6, 6> Wm;
      std::vector<char> is_m(static_cast<std::size_t>(W.cols()), 0);
      for (int j = 0; j < 6; ++j) {
        const int col = perm(j);
        is_m[static_cast<std::size_t>(col)] = 1;
        Wm.col(j) = W.col(col);
        const PetscInt g = d.dof(nodes[s][static_cast<std::size_t>(col / 3)], col % 3);
        rbe3_m[s].push_back(g);
        removed_dofs_.push_back(g);
      }
      for (Eigen::Index col = 0; col < W.cols(); ++col)
        if (!is_m[static_cast<std::size_t>(col)]) rbe3_rest[s].push_back(static_cast<int>(col));
      Eigen::MatrixXd Wr(6, static_cast<Eigen::Index>(rbe3_rest[s].size()));
      for (std::size_t k = 0; k < rbe3_rest[s].size(); ++k) Wr.col(static_cast<Eigen::Index>(k)) = W.col(rbe3_rest[s][k]);
      const Eigen::PartialPivLU<Eigen::Matrix<double, 6, 6>> lu(Wm);
      rbe3_T[s].resize(6, 6 + Wr.cols());
      rbe3_T[s] << lu.inverse(), -lu.solve(Wr);
    }
  }
  std::sort(removed_dofs_.begin(), removed_dofs_.end());

  // Working numbering: original free DOFs minus the eliminated ones, then 6 DOFs per reference
  // node at the end of the last rank's block. w(g) = g − (eliminated DOFs before g).
  const PetscInt n_orig = d.global_size();
  const auto n_removed = static_cast<PetscInt>(removed_dofs_.size());
  wglobal_ = n_orig - n_removed + 6 * n_ref;
  const PetscInt ref_base = n_orig - n_removed;
  // Local range: kept DOFs of [begin, end), plus the reference DOFs on the last rank.
  wbegin_ = work_of(d.begin());
  wend_ = (rank == size - 1) ? wglobal_ : work_of(d.end());

  for (int n : d.owned_nodes())
    for (int k = 0; k < dpn_; ++k) {
      if (d.dof(n, k) < 0 || removed(d.dof(n, k))) continue;
      pos_.push_back(mesh.coords[n]);
      comp_of_.push_back(k);
    }
  // owned_nodes are in global numbering order, so pos_ follows the working numbering.
  if (rank == size - 1)
    for (std::size_t s = 0; s < interfaces.size(); ++s)
      if (ref_index[s] >= 0)
        for (int k = 0; k < 6; ++k) {
          pos_.push_back(refpt_[s]);
          comp_of_.push_back(k);
        }
  FLEXUQ_ASSERT(static_cast<PetscInt>(pos_.size()) == wend_ - wbegin_, "working space size mismatch");

  // Boundary coordinates in canonical order.
  const auto& ids = mesh.node_ids;
  for (std::size_t s = 0; s < interfaces.size(); ++s) {
    if (ref_index[s] >= 0) {
      for (int k = 0; k < 6; ++k) {
        bdofs_.push_back({static_cast<int>(s), -1, k, ref_base + 6 * ref_index[s] + k,
                          "REF " + io::upper(interfaces[s].set) + " " + component_name(k)});
        bpos_.push_back(refpt_[s]);
      }
    } else {
      for (int n : nodes[s])
        for (int k = 0; k < dpn_; ++k) {
          if (d.dof(n, k) < 0) continue; // a fixed component of a partly fixed node
          bdofs_.push_back({static_cast<int>(s), n, k, work_of(d.dof(n, k)),
                            io::upper(interfaces[s].set) + " node " + std::to_string(ids[n]) + " " + component_name(k)});
          bpos_.push_back(mesh.coords[n]);
        }
    }
  }
  // Ownership of working indices → position of each boundary coordinate in the rank-concatenated
  // is_b order (each rank lists its own in canonical order).
  std::vector<PetscInt> wbegins(size);
  FLEXUQ_MPI(MPI_Allgather(&wbegin_, 1, MPIU_INT, wbegins.data(), 1, MPIU_INT, comm));
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

  if (n_ref == 0) return;
  // T̂ (N × N_w): identity on kept DOFs, the rigid map of the reference node on RBE2 nodes, and
  // u_m = W_m⁻¹u_ref − W_m⁻¹W_r u_r on the RBE3-eliminated DOFs. Rows with their columns first, for
  // exact preallocation.
  std::map<PetscInt, std::pair<std::vector<PetscInt>, std::vector<double>>> rbe3_rows; // owned ones
  for (std::size_t s = 0; s < interfaces.size(); ++s)
    for (std::size_t j = 0; j < rbe3_m[s].size(); ++j) {
      const PetscInt g = rbe3_m[s][j];
      if (g < d.begin() || g >= d.end()) continue;
      auto& [cols, vals] = rbe3_rows[g];
      for (int k = 0; k < 6; ++k) {
        cols.push_back(ref_base + 6 * ref_index[s] + k);
        vals.push_back(rbe3_T[s](static_cast<Eigen::Index>(j), k));
      }
      for (std::size_t r = 0; r < rbe3_rest[s].size(); ++r) {
        const int col = rbe3_rest[s][r];
        cols.push_back(work_of(d.dof(nodes[s][static_cast<std::size_t>(col / 3)], col % 3)));
        vals.push_back(rbe3_T[s](static_cast<Eigen::Index>(j), 6 + static_cast<Eigen::Index>(r)));
      }
    }
  const PetscInt nloc = d.local_size();
  std::vector<PetscInt> dnz(static_cast<std::size_t>(nloc), 1), onz(static_cast<std::size_t>(nloc), 0);
  const bool last = rank == size - 1;
  for (int n : d.owned_nodes()) {
    if (!removed_node_[n]) continue;
    for (int k = 0; k < dpn_; ++k) {
      if (d.dof(n, k) < 0) continue;
      const auto r = static_cast<std::size_t>(d.dof(n, k) - d.begin());
      dnz[r] = last ? 6 : 0;
      onz[r] = last ? 0 : 6;
    }
  }
  for (const auto& [g, cv] : rbe3_rows) {
    const auto r = static_cast<std::size_t>(g - d.begin());
    dnz[r] = onz[r] = 0;
    for (PetscInt col : cv.first) ++((col >= wbegin_ && col < wend_) ? dnz[r] : onz[r]);
  }
  FLEXUQ_PETSC(MatCreateAIJ(comm, nloc, wend_ - wbegin_, n_orig, wglobal_, 0, dnz.data(), 0, onz.data(), T_.out()));
  for (int n : d.owned_nodes()) {
    if (d.is_fixed(n)) continue;
    if (!removed_node_[n]) {
      for (int k = 0; k < dpn_; ++k) {
        const PetscInt g = d.dof(n, k);
        if (g < 0) continue;
        if (auto it = rbe3_rows.find(g); it != rbe3_rows.end()) {
          const auto& [cols, vals] = it->second;
          FLEXUQ_PETSC(MatSetValues(T_.get(), 1, &g, static_cast<PetscInt>(cols.size()), cols.data(), vals.data(), INSERT_VALUES));
        } else {
          FLEXUQ_PETSC(MatSetValue(T_.get(), g, work_of(g), 1.0, INSERT_VALUES));
        }
      }
      continue;
    }
    const int s = taken.at(n);
    const PetscInt col0 = ref_base + 6 * ref_index[s];
    PetscInt cols[6];
    for (int j = 0; j < 6; ++j) cols[j] = col0 + j;
    for (int k = 0; k < dpn_; ++k) {
      const PetscInt g = d.dof(n, k); // −1: a solid-only node's rotation (mixed mesh)
      if (g < 0) continue;
      const auto row = rigid_row(mesh.coords[n], k, refpt_[s]);
      FLEXUQ_PETSC(MatSetValues(T_.get(), 1, &g, 6, cols, row.data(), INSERT_VALUES));
    }
  }
  FLEXUQ_PETSC(MatAssemblyBegin(T_.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(T_.get(), MAT_FINAL_ASSEMBLY));
  congruence();
}

void WorkSpace::refresh_operators() {
  if (!T_) return;
  const fe::Component& c = *comp_;
  // Numeric products into the kept Kw_, Mw_ (MatCopy with the same pattern keeps the objects and
  // their nonzero state: a factorization set up on them, or on submatrices of them, is then redone
  // numerically only). The numeric phase is the same code as in congruence(), so the values do not
  // depend on whether the symbolic product was made now or at an earlier refresh.
  if (!C_) {
    MatInfo ik{}, im{};
    FLEXUQ_PETSC(MatGetInfo(c.K(), MAT_GLOBAL_SUM, &ik));
    FLEXUQ_PETSC(MatGetInfo(c.M(), MAT_GLOBAL_SUM, &im));
    if (ik.nz_used == im.nz_used) {
      FLEXUQ_PETSC(MatDuplicate(c.K(), MAT_COPY_VALUES, A_.out()));
      FLEXUQ_PETSC(MatPtAP(A_.get(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, C_.out()));
    } else {
      FLEXUQ_PETSC(MatPtAP(c.K(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, C_.out()));
      FLEXUQ_PETSC(MatPtAP(c.M(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, CM_.out()));
    }
  }
  Mat C = C_.get();
  if (A_) {
    FLEXUQ_PETSC(MatCopy(c.K(), A_.get(), SAME_NONZERO_PATTERN));
    FLEXUQ_PETSC(MatPtAP(A_.get(), T_.get(), MAT_REUSE_MATRIX, PETSC_DEFAULT, &C));
    FLEXUQ_PETSC(MatCopy(C, Kw_.get(), SAME_NONZERO_PATTERN));
    FLEXUQ_PETSC(MatCopy(c.M(), A_.get(), SAME_NONZERO_PATTERN));
    FLEXUQ_PETSC(MatPtAP(A_.get(), T_.get(), MAT_REUSE_MATRIX, PETSC_DEFAULT, &C));
    FLEXUQ_PETSC(MatCopy(C, Mw_.get(), SAME_NONZERO_PATTERN));
  } else {
    Mat CM = CM_.get();
    FLEXUQ_PETSC(MatPtAP(c.K(), T_.get(), MAT_REUSE_MATRIX, PETSC_DEFAULT, &C));
    FLEXUQ_PETSC(MatCopy(C, Kw_.get(), SAME_NONZERO_PATTERN));
    FLEXUQ_PETSC(MatPtAP(c.M(), T_.get(), MAT_REUSE_MATRIX, PETSC_DEFAULT, &CM));
    FLEXUQ_PETSC(MatCopy(CM, Mw_.get(), SAME_NONZERO_PATTERN));
  }
}

MatH WorkSpace::to_working(Mat A) const {
  MatH C;
  if (!T_) {
    FLEXUQ_PETSC(MatDuplicate(A, MAT_COPY_VALUES, C.out()));
  } else {
    FLEXUQ_PETSC(MatPtAP(A, T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, C.out()));
    FLEXUQ_PETSC(MatProductClear(C.get()));
  }
  FLEXUQ_PETSC(MatSetOption(C.get(), MAT_SYMMETRIC, PETSC_TRUE));
  return C;
}

void WorkSpace::congruence() {
  const fe::Component& c = *comp_;
  Kw_.reset();
  Mw_.reset();
  // K and M share one nonzero pattern (fe::Component assembles both into it), so one symbolic
  // PtAP serves both: the product is set up on a copy of K, then M's values are copied into that
  // copy and the numeric phase is repeated (MAT_REUSE_MATRIX). The symbolic phase is ~5x the
  // numeric one, so this nearly halves the congruence time.
  MatInfo ik{}, im{};
  FLEXUQ_PETSC(MatGetInfo(c.K(), MAT_GLOBAL_SUM, &ik));
  FLEXUQ_PETSC(MatGetInfo(c.M(), MAT_GLOBAL_SUM, &im));
  if (ik.nz_used == im.nz_used) {
    MatH A;
    FLEXUQ_PETSC(MatDuplicate(c.K(), MAT_COPY_VALUES, A.out()));
    MatH C;
    FLEXUQ_PETSC(MatPtAP(A.get(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, C.out()));
    FLEXUQ_PETSC(MatDuplicate(C.get(), MAT_COPY_VALUES, Kw_.out()));
    FLEXUQ_PETSC(MatCopy(c.M(), A.get(), SAME_NONZERO_PATTERN));
    Mat reuse = C.get(); // MAT_REUSE_MATRIX fills the existing product in place
    FLEXUQ_PETSC(MatPtAP(A.get(), T_.get(), MAT_REUSE_MATRIX, PETSC_DEFAULT, &reuse));
    FLEXUQ_PETSC(MatProductClear(C.get())); // drop the product's intermediate data (no more reuse)
    Mw_ = std::move(C);
  } else {
    FLEXUQ_PETSC(MatPtAP(c.K(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, Kw_.out()));
    FLEXUQ_PETSC(MatPtAP(c.M(), T_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, Mw_.out()));
    FLEXUQ_PETSC(MatProductClear(Kw_.get()));
    FLEXUQ_PETSC(MatProductClear(Mw_.get()));
  }
  for (Mat A : {Kw_.get(), Mw_.get()}) {
    FLEXUQ_PETSC(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    FLEXUQ_PETSC(MatSetOption(A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
}

PetscInt WorkSpace::work_of(PetscInt g) const {
  const auto before = std::lower_bound(removed_dofs_.begin(), removed_dofs_.end(), g) - removed_dofs_.begin();
  return g - static_cast<PetscInt>(before);
}

std::vector<BoundaryDof> WorkSpace::determinate_set(bool boundary_only, double* rcond) const {
  std::vector<BoundaryDof> cand = bdofs_;
  std::vector<std::array<double, 3>> where = bpos_;
  if (!boundary_only) {
    const auto& mesh = comp_->mesh();
    const std::size_t n = mesh.num_nodes(), stride = std::max<std::size_t>(1, n / 400);
    for (std::size_t v = 0; v < n; v += stride) {
      if (removed_node_[v] || comp_->dofs().is_fixed(static_cast<int>(v))) continue;
      for (int k = 0; k < dpn_; ++k) {
        const PetscInt g = comp_->dofs().dof(static_cast<int>(v), k);
        if (g < 0 || removed(g)) continue;
        cand.push_back({-1, static_cast<int>(v), k, work_of(g), ""});
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
  if (supported_) {
    // Only the motions the supports leave are to be determined: the candidates' values of an
    // orthonormal basis of them (about c, rotations scaled like the rows: t_c = t − c × θ).
    if (motions_.cols() == 0 || cand.empty()) {
      if (rcond) *rcond = motions_.cols() == 0 ? 1.0 : 0.0;
      return {};
    }
    Eigen::Matrix3d cx;
    cx << 0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0;
    Eigen::MatrixXd Zc = motions_;
    Zc.topRows(3) -= cx * motions_.bottomRows(3);
    Zc.bottomRows(3) *= len;
    const Eigen::HouseholderQR<Eigen::MatrixXd> hq(Zc);
    const Eigen::MatrixXd Q = hq.householderQ() * Eigen::MatrixXd::Identity(6, motions_.cols());
    Rt = (Q.transpose() * Rt).eval();
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Rt);
  qr.setThreshold(1e-10);
  const int rank = static_cast<int>(qr.rank());
  std::vector<BoundaryDof> out;
  for (int j = 0; j < rank; ++j) out.push_back(cand[static_cast<std::size_t>(qr.colsPermutation().indices()(j))]);
  if (rcond) {
    const Eigen::VectorXd d = qr.matrixR().diagonal().head(std::min<Eigen::Index>(motion_count(), qr.matrixR().cols())).cwiseAbs();
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

Eigen::MatrixXd WorkSpace::rigid_selection() const {
  if (rigid_count() == 6) return Eigen::MatrixXd::Identity(6, 6);
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(6, 3);
  P(0, 0) = P(1, 1) = P(5, 2) = 1.0;
  return P;
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

void WorkSpace::canonical_sign(const std::vector<VecH>& vs) const {
  // Per vector, this rank's candidate: {valid, x, y, z, component, sign} of its tied entry at the
  // smallest position; the ranks' candidates are gathered and the smallest wins on every rank.
  constexpr int kw = 6;
  const std::size_t nv = vs.size();
  if (nv == 0) return;
  std::vector<double> mine(kw * nv, 0.0);
  for (std::size_t j = 0; j < nv; ++j) {
    PetscReal m = 0;
    FLEXUQ_PETSC(VecNorm(vs[j].get(), NORM_INFINITY, &m));
    if (m == 0) continue;
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(vs[j].get(), &a));
    double* best = &mine[kw * j];
    for (std::size_t r = 0; r < pos_.size(); ++r) {
      if (std::abs(a[r]) < (1 - kSignTie) * m) continue;
      const std::array<double, 4> key{pos_[r][0], pos_[r][1], pos_[r][2], static_cast<double>(comp_of_[r])};
      if (best[0] == 0 || std::lexicographical_compare(key.begin(), key.end(), best + 1, best + 5)) {
        best[0] = 1;
        std::copy(key.begin(), key.end(), best + 1);
        best[5] = a[r] < 0 ? -1.0 : 1.0;
      }
    }
    FLEXUQ_PETSC(VecRestoreArrayRead(vs[j].get(), &a));
  }
  int size = 1;
  FLEXUQ_MPI(MPI_Comm_size(comm(), &size));
  std::vector<double> all(mine.size() * static_cast<std::size_t>(size));
  FLEXUQ_MPI(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                           static_cast<int>(mine.size()), MPI_DOUBLE, comm()));
  for (std::size_t j = 0; j < nv; ++j) {
    const double* win = nullptr;
    for (int p = 0; p < size; ++p) {
      const double* c = &all[mine.size() * static_cast<std::size_t>(p) + kw * j];
      if (c[0] != 0 && (!win || std::lexicographical_compare(c + 1, c + 5, win + 1, win + 5))) win = c;
    }
    if (win && win[5] < 0) FLEXUQ_PETSC(VecScale(vs[j].get(), -1.0));
  }
}

void WorkSpace::canonical_multiplets(const std::vector<VecH>& vs, const std::vector<double>& lambda) const {
  FLEXUQ_ASSERT(lambda.size() == vs.size(), "one eigenvalue per mode");
  std::vector<VecH> probes;
  VecH Mw = new_vector();
  std::size_t j = 0;
  while (j < vs.size()) {
    std::size_t k = j + 1;
    while (k < vs.size() && std::abs(lambda[k] - lambda[j]) <= kMultipletTol * std::abs(lambda[j])) ++k;
    const auto m = static_cast<Eigen::Index>(k - j);
    if (m > 1) {
      while (static_cast<Eigen::Index>(probes.size()) < m) probes.push_back(cms::probe_field(*this, static_cast<int>(probes.size())));
      Eigen::MatrixXd G(m, m);
      for (Eigen::Index b = 0; b < m; ++b) {
        FLEXUQ_PETSC(MatMult(M(), probes[static_cast<std::size_t>(b)].get(), Mw.get()));
        for (Eigen::Index a = 0; a < m; ++a) {
          PetscScalar v = 0;
          FLEXUQ_PETSC(VecDot(Mw.get(), vs[j + static_cast<std::size_t>(a)].get(), &v));
          G(a, b) = PetscRealPart(v);
        }
      }
      Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
      Eigen::MatrixXd Q = qr.householderQ();
      const Eigen::MatrixXd R = Q.transpose() * G;
      for (Eigen::Index i = 0; i < m; ++i)
        if (R(i, i) < 0) Q.col(i) *= -1.0;
      std::vector<VecH> rotated;
      for (Eigen::Index i = 0; i < m; ++i) {
        VecH v = new_vector();
        for (Eigen::Index a = 0; a < m; ++a)
          FLEXUQ_PETSC(VecAXPY(v.get(), Q(a, i), vs[j + static_cast<std::size_t>(a)].get()));
        rotated.push_back(std::move(v));
      }
      for (Eigen::Index i = 0; i < m; ++i)
        FLEXUQ_PETSC(VecCopy(rotated[static_cast<std::size_t>(i)].get(), vs[j + static_cast<std::size_t>(i)].get()));
    }
    j = k;
  }
}

} // namespace flexuq::cms
