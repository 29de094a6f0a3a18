// SPDX-License-Identifier: MIT
#include "flexuq/nl/Static.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <petscsnes.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>

namespace flexuq::nl {

namespace {

using SnesH = Handle<SNES, SNESDestroy>;

/// One nodal load at λ = 1: f0 on @p node, turned by the rotation at (ref_elem, xi) for a follower.
struct PointLoad {
  int node = 0;
  Eigen::VectorXd f0;
  bool follower = false;
  int ref_elem = 0;
  Eigen::VectorXd xi;
};

/// A follower couple (2-D) on the nodes of a set: at the current positions x_i, with c_i = x_i - their
/// centroid and S = sum |c_i|^2, the nodal forces f_i = λ M perp(c_i) / S: no net force and a moment
/// of exactly λ M about the current centroid, however the loaded face deforms; they turn with it.
struct CoupleLoad {
  std::vector<int> nodes;
  double moment = 0;
};

Eigen::Vector2d perp(const Eigen::Vector2d& v) { return Eigen::Vector2d(-v[1], v[0]); }

Eigen::Matrix2d rot2(double th) {
  Eigen::Matrix2d R;
  R << std::cos(th), -std::sin(th), std::sin(th), std::cos(th);
  return R;
}

/// The set's node nearest its centroid (ties: the first).
int central_node(const StaticMesh& mesh, const std::vector<int>& set) {
  Eigen::RowVectorXd c = Eigen::RowVectorXd::Zero(mesh.dim());
  for (int n : set) c += mesh.X.row(n);
  c /= static_cast<double>(set.size());
  int best = set.front();
  for (int n : set)
    if ((mesh.X.row(n) - c).squaredNorm() < (mesh.X.row(best) - c).squaredNorm() - 1e-30) best = n;
  return best;
}

class Problem {
public:
  Problem(MPI_Comm comm, const StaticMesh& mesh, const std::vector<StaticSupport>& supports,
          const std::vector<StaticLoad>& loads, const StaticOptions& opt)
      : comm_(comm), mesh_(mesh), opt_(opt), d_(mesh.dim()), ndof_(mesh.num_nodes() * mesh.dim()) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    const int ne = static_cast<int>(mesh.elements.size());
    e0_ = static_cast<int>(static_cast<long>(ne) * rank_ / size_);
    e1_ = static_cast<int>(static_cast<long>(ne) * (rank_ + 1) / size_);
    el_.reserve(ne);
    home_.assign(mesh.num_nodes(), {-1, -1});
    for (int e = 0; e < ne; ++e) {
      const auto& en = mesh.elements[e];
      Eigen::MatrixXd Xe(en.size(), d_);
      for (std::size_t i = 0; i < en.size(); ++i) {
        Xe.row(static_cast<Eigen::Index>(i)) = mesh.X.row(en[i]);
        if (home_[en[i]].first < 0) home_[en[i]] = {e, static_cast<int>(i)};
      }
      try {
        el_.emplace_back(mesh.kind, Xe, opt.material);
      } catch (const InputError& err) {
        throw InputError("element " + std::to_string(e + 1) + " (nodes counter-clockwise?): " + err.what());
      }
    }
    fixed_.assign(ndof_, 0);
    g_ = Eigen::VectorXd::Zero(ndof_);
    rot_angle_ = Eigen::VectorXd::Zero(ndof_);
    rot_arm_ = Eigen::MatrixXd::Zero(ndof_, 2);
    for (const auto& s : supports) {
      Eigen::RowVectorXd c = Eigen::RowVectorXd::Zero(d_); // the rotation's centre: given, or the set's centroid
      for (int n : mesh.sets.at(s.set)) c += mesh.X.row(n);
      c /= static_cast<double>(mesh.sets.at(s.set).size());
      if (s.centre.size() == d_) c = s.centre.transpose();
      for (int n : mesh.sets.at(s.set))
        for (int m = 0; m < d_; ++m)
          if (s.components[m]) {
            fixed_[n * d_ + m] = 1;
            g_[n * d_ + m] = s.value[m];
            if (s.rotation != 0) {
              rot_angle_[n * d_ + m] = s.rotation;
              rot_arm_.row(n * d_ + m) = mesh.X.row(n) - c;
            }
          }
      if (s.rotation != 0 && !rotating_) {
        rotating_ = s;
        rot_centre_ = c.transpose();
      }
    }
    for (const auto& l : loads) {
      const auto& set = mesh.sets.at(l.set);
      const int ref = central_node(mesh, set);
      auto add = [&](int node, const Eigen::VectorXd& f, bool follower) {
        PointLoad p;
        p.node = node;
        p.f0 = f;
        p.follower = follower;
        p.ref_elem = home_[ref].first;
        p.xi = node_natural(mesh.kind, home_[ref].second);
        point_loads_.push_back(p);
      };
      if (l.kind == LoadKind::follower_couple) {
        couples_.push_back(CoupleLoad{set, l.moment});
      } else {
        for (int n : set) add(n, l.force / static_cast<double>(set.size()), l.kind == LoadKind::follower_force);
      }
    }
    if (body_frame(opt.formulation)) {
      frame_node_ = opt.frame_node;
      if (frame_node_ < 0) {
        std::vector<int> all(mesh.num_nodes());
        std::iota(all.begin(), all.end(), 0);
        frame_node_ = central_node(mesh, all);
      }
      frame_elem_ = home_[frame_node_].first;
      frame_xi_ = node_natural(mesh.kind, home_[frame_node_].second);
    }
    // Layout, the gather of x to every rank, and the Jacobian's pattern.
    FLEXUQ_PETSC(VecCreateMPI(comm, PETSC_DECIDE, ndof_, x_.out()));
    PetscInt r0 = 0, r1 = 0;
    FLEXUQ_PETSC(VecGetOwnershipRange(x_.get(), &r0, &r1));
    FLEXUQ_PETSC(VecScatterCreateToAll(x_.get(), scatter_.out(), xall_.out()));
    std::vector<std::vector<PetscInt>> cols(static_cast<std::size_t>(r1 - r0));
    auto couple = [&](const std::vector<PetscInt>& rows, const std::vector<PetscInt>& cs) {
      for (PetscInt r : rows)
        if (r >= r0 && r < r1) cols[r - r0].insert(cols[r - r0].end(), cs.begin(), cs.end());
    };
    for (int e = 0; e < ne; ++e) {
      const auto dofs = dofs_of(support_nodes(e));
      couple(dofs, dofs);
    }
    for (const auto& p : point_loads_)
      if (p.follower) couple(dofs_of({p.node}), dofs_of(mesh.elements[p.ref_elem]));
    for (const auto& c : couples_) couple(dofs_of(c.nodes), dofs_of(c.nodes));
    std::vector<PetscInt> dnz(cols.size()), onz(cols.size());
    for (std::size_t i = 0; i < cols.size(); ++i) {
      auto& c = cols[i];
      c.push_back(r0 + static_cast<PetscInt>(i));
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      for (PetscInt j : c) (j >= r0 && j < r1 ? dnz[i] : onz[i])++;
    }
    FLEXUQ_PETSC(MatCreateAIJ(comm, r1 - r0, r1 - r0, ndof_, ndof_, 0, dnz.data(), 0, onz.data(), J_.out()));
    FLEXUQ_PETSC(MatSetOption(J_.get(), MAT_ROW_ORIENTED, PETSC_FALSE)); // Eigen is column-major
    FLEXUQ_PETSC(VecDuplicate(x_.get(), r_.out()));
  }

  /// x = the prescribed displacements at the current λ, zero elsewhere.
  void prescribed(Vec x) const {
    FLEXUQ_PETSC(VecZeroEntries(x));
    if (rank_ == 0)
      for (PetscInt i = 0; i < ndof_; ++i)
        if (fixed_[i]) FLEXUQ_PETSC(VecSetValue(x, i, target(i), INSERT_VALUES));
    FLEXUQ_PETSC(VecAssemblyBegin(x));
    FLEXUQ_PETSC(VecAssemblyEnd(x));
  }
  Vec x() const { return x_.get(); }
  Vec r() const { return r_.get(); }
  Mat J() const { return J_.get(); }
  int frame_node() const { return frame_node_; }
  void set_lambda(double l) { lambda_ = l; }

  Eigen::VectorXd gather(Vec x) const {
    FLEXUQ_PETSC(VecScatterBegin(scatter_.get(), x, xall_.get(), INSERT_VALUES, SCATTER_FORWARD));
    FLEXUQ_PETSC(VecScatterEnd(scatter_.get(), x, xall_.get(), INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(xall_.get(), &a));
    Eigen::VectorXd u = Eigen::Map<const Eigen::VectorXd>(a, ndof_);
    FLEXUQ_PETSC(VecRestoreArrayRead(xall_.get(), &a));
    return u;
  }

  void residual(Vec x, Vec F) const {
    const Eigen::VectorXd u = gather(x);
    FLEXUQ_PETSC(VecZeroEntries(F));
    const auto frame = body(u);
    for (int e = e0_; e < e1_; ++e) {
      const Contribution c = contribution(e, u, frame.get(), false);
      add_free(F, dofs_of(c.nodes), c.Q);
    }
    if (rank_ == 0) {
      for (const auto& p : point_loads_) {
        const Eigen::VectorXd f = -lambda_ * (p.follower ? rotation_at(p, u, nullptr) * p.f0 : p.f0);
        add_free(F, dofs_of({p.node}), f);
      }
      for (const auto& c : couples_) {
        const Eigen::MatrixXd off = couple_offsets(c, u);
        const double S = off.squaredNorm();
        Eigen::VectorXd f(off.size());
        for (Eigen::Index i = 0; i < off.cols(); ++i) f.segment<2>(2 * i) = -lambda_ * c.moment / S * perp(off.col(i));
        add_free(F, dofs_of(c.nodes), f);
      }
      for (PetscInt i = 0; i < ndof_; ++i)
        if (fixed_[i]) FLEXUQ_PETSC(VecSetValue(F, i, u[i] - target(i), ADD_VALUES));
    }
    FLEXUQ_PETSC(VecAssemblyBegin(F));
    FLEXUQ_PETSC(VecAssemblyEnd(F));
  }

  void jacobian(Vec x, Mat J) const {
    const Eigen::VectorXd u = gather(x);
    FLEXUQ_PETSC(MatZeroEntries(J));
    const auto frame = body(u);
    for (int e = e0_; e < e1_; ++e) {
      const Contribution c = contribution(e, u, frame.get(), false);
      const auto cs = dofs_of(c.nodes);
      const auto rows = free_rows(cs);
      const PetscInt n = static_cast<PetscInt>(cs.size());
      FLEXUQ_PETSC(MatSetValues(J, n, rows.data(), n, cs.data(), c.K.data(), ADD_VALUES));
    }
    if (rank_ == 0) {
      for (const auto& p : point_loads_) {
        if (!p.follower) continue;
        // f = λ R(θ) f0 with θ at the reference point: d f / d u = λ R J f0 (x) dθ/du; residual -f.
        Eigen::VectorXd dtheta;
        const Eigen::MatrixXd R = rotation_at(p, u, &dtheta);
        const Eigen::Vector2d Jf(-p.f0[1], p.f0[0]);
        const Eigen::MatrixXd KL = -lambda_ * (R * Jf) * dtheta.transpose();
        const auto rows = free_rows(dofs_of({p.node}));
        const auto cs = dofs_of(mesh_.elements[p.ref_elem]);
        FLEXUQ_PETSC(MatSetValues(J, static_cast<PetscInt>(rows.size()), rows.data(), static_cast<PetscInt>(cs.size()),
                                  cs.data(), KL.data(), ADD_VALUES));
      }
      for (const auto& c : couples_) {
        // f_i = λ M perp(c_i) / S, dc_i/dx_j = (δ_ij - 1/n) 1, dS/dx_j = 2 c_j:
        // df_i/dx_j = λ M / S [(δ_ij - 1/n) P - 2 perp(c_i) c_j^T / S], P = [0 -1; 1 0]; residual -f.
        const Eigen::MatrixXd off = couple_offsets(c, u);
        const Eigen::Index n = off.cols();
        const double S = off.squaredNorm(), a = lambda_ * c.moment / S;
        Eigen::Matrix2d P;
        P << 0, -1, 1, 0;
        Eigen::MatrixXd KL(2 * n, 2 * n);
        for (Eigen::Index i = 0; i < n; ++i)
          for (Eigen::Index j = 0; j < n; ++j)
            KL.block<2, 2>(2 * i, 2 * j) =
                -a * (((i == j ? 1.0 : 0.0) - 1.0 / static_cast<double>(n)) * P - 2.0 / S * perp(off.col(i)) * off.col(j).transpose());
        const auto cs = dofs_of(c.nodes);
        const auto rows = free_rows(cs);
        FLEXUQ_PETSC(MatSetValues(J, static_cast<PetscInt>(rows.size()), rows.data(), static_cast<PetscInt>(cs.size()),
                                  cs.data(), KL.data(), ADD_VALUES));
      }
      for (PetscInt i = 0; i < ndof_; ++i)
        if (fixed_[i]) FLEXUQ_PETSC(MatSetValue(J, i, i, 1.0, ADD_VALUES));
    }
    FLEXUQ_PETSC(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }

  /// Average term magnitudes over the elements (collective).
  TermMagnitudes terms(const Eigen::VectorXd& u) const {
    const auto frame = body(u);
    double s[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int e = e0_; e < e1_; ++e) {
      const SvkResult& t = contribution(e, u, frame.get(), true).local;
      const Eigen::VectorXd* q[4] = {&t.Q_I, &t.Q_II, &t.Q_III, &t.Q_IV};
      const Eigen::MatrixXd* k[5] = {&t.K_I, &t.K_II, &t.K_III, &t.K_IV, &t.K_V};
      for (int i = 0; i < 4; ++i) s[i] += q[i]->size() ? q[i]->norm() : 0.0;
      for (int i = 0; i < 5; ++i) s[4 + i] += k[i]->size() ? k[i]->norm() : 0.0;
    }
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, s, 9, MPI_DOUBLE, MPI_SUM, comm_));
    TermMagnitudes tm;
    const double ne = static_cast<double>(mesh_.elements.size());
    for (int i = 0; i < 4; ++i) tm.Q[i] = s[i] / ne;
    for (int i = 0; i < 5; ++i) tm.K[i] = s[4 + i] / ne;
    return tm;
  }

private:
  std::vector<PetscInt> dofs_of(const std::vector<int>& nodes) const {
    std::vector<PetscInt> v;
    v.reserve(nodes.size() * d_);
    for (int n : nodes)
      for (int m = 0; m < d_; ++m) v.push_back(static_cast<PetscInt>(n) * d_ + m);
    return v;
  }
public:
  /// The norm of the external loads at λ = 1 (followers as given).
  double load_norm() const {
    Eigen::VectorXd f = Eigen::VectorXd::Zero(ndof_);
    for (const auto& p : point_loads_) f.segment(p.node * d_, d_) += p.f0;
    for (const auto& c : couples_) {
      const Eigen::MatrixXd off = couple_offsets(c, Eigen::VectorXd::Zero(ndof_));
      for (Eigen::Index i = 0; i < off.cols(); ++i)
        f.segment<2>(2 * c.nodes[i]) += c.moment / off.squaredNorm() * perp(off.col(i));
    }
    return f.norm();
  }
  /// A prescribed rotation's increment applied to the whole body as a rigid motion (the predictor of an
  /// increment from λ @p from to @p to): without it the first Newton iterate turns only the supported
  /// nodes and Newton diverges. No-op without a rotating support (the first one is used).
  void rigid_predictor(Vec x, double from, double to) const {
    if (!rotating_) return;
    const Eigen::VectorXd u = gather(x);
    const Eigen::Matrix2d dR = rot2((to - from) * rotating_->rotation);
    PetscInt r0 = 0, r1 = 0;
    FLEXUQ_PETSC(VecGetOwnershipRange(x, &r0, &r1));
    for (int n = 0; n < mesh_.num_nodes(); ++n) {
      const Eigen::Vector2d X = mesh_.X.row(n).transpose();
      const Eigen::Vector2d p = dR * (X + u.segment<2>(2 * n) - rot_centre_ - from * rotating_->value) + rot_centre_ +
                                to * rotating_->value - X;
      for (int m = 0; m < 2; ++m)
        if (2 * n + m >= r0 && 2 * n + m < r1) FLEXUQ_PETSC(VecSetValue(x, 2 * n + m, p[m], INSERT_VALUES));
    }
    FLEXUQ_PETSC(VecAssemblyBegin(x));
    FLEXUQ_PETSC(VecAssemblyEnd(x));
  }
private:
  /// The prescribed displacement of DOF @p i at λ: λ value + (R(λ angle) - 1) (X - centre) (2-D rotation).
  double target(PetscInt i) const {
    double t = lambda_ * g_[i];
    if (rot_angle_[i] != 0) {
      const Eigen::Vector2d arm = rot_arm_.row(i).transpose();
      t += ((rot2(lambda_ * rot_angle_[i]) - Eigen::Matrix2d::Identity()) * arm)[i % 2];
    }
    return t;
  }
  /// Add @p v to the unconstrained entries among @p dofs of @p F.
  void add_free(Vec F, const std::vector<PetscInt>& dofs, const Eigen::VectorXd& v) const {
    std::vector<PetscInt> rows;
    std::vector<PetscScalar> vals;
    for (std::size_t i = 0; i < dofs.size(); ++i)
      if (!fixed_[dofs[i]]) {
        rows.push_back(dofs[i]);
        vals.push_back(v[static_cast<Eigen::Index>(i)]);
      }
    FLEXUQ_PETSC(VecSetValues(F, static_cast<PetscInt>(rows.size()), rows.data(), vals.data(), ADD_VALUES));
  }
  /// Constrained rows become -1 (MatSetValues skips negative indices).
  std::vector<PetscInt> free_rows(std::vector<PetscInt> dofs) const {
    for (auto& r : dofs)
      if (fixed_[r]) r = -1;
    return dofs;
  }
  std::vector<int> support_nodes(int e) const {
    std::vector<int> nodes = mesh_.elements[e];
    if (frame_elem_ >= 0)
      for (int n : mesh_.elements[frame_elem_])
        if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
    return nodes;
  }
  Eigen::VectorXd element_u(int e, const Eigen::VectorXd& u) const {
    const auto& en = mesh_.elements[e];
    Eigen::VectorXd ue(en.size() * d_);
    for (std::size_t i = 0; i < en.size(); ++i) ue.segment(static_cast<Eigen::Index>(i) * d_, d_) = u.segment(en[i] * d_, d_);
    return ue;
  }
  std::unique_ptr<Frame> body(const Eigen::VectorXd& u) const {
    if (frame_elem_ < 0) return nullptr;
    return std::make_unique<Frame>(make_frame(el_[frame_elem_], mesh_.elements[frame_elem_], frame_xi_, element_u(frame_elem_, u)));
  }
  Contribution contribution(int e, const Eigen::VectorXd& u, const Frame* body_frame_ptr, bool terms) const {
    const Formulation f = opt_.formulation;
    const bool lin = linear_local(f);
    const auto& en = mesh_.elements[e];
    const Eigen::VectorXd ue = element_u(e, u);
    if (body_frame_ptr) return element_in_frame(el_[e], en, ue, *body_frame_ptr, lin, terms);
    if (element_frame(f)) {
      const Frame fe = make_frame(el_[e], en, Eigen::VectorXd::Zero(d_), ue);
      return element_in_frame(el_[e], en, ue, fe, lin, terms);
    }
    return element_global(el_[e], en, ue, lin, terms);
  }
  /// The current offsets c_i = x_i - centroid of a couple's nodes (2 x n).
  Eigen::MatrixXd couple_offsets(const CoupleLoad& c, const Eigen::VectorXd& u) const {
    const Eigen::Index n = static_cast<Eigen::Index>(c.nodes.size());
    Eigen::MatrixXd off(2, n);
    for (Eigen::Index i = 0; i < n; ++i)
      off.col(i) = mesh_.X.row(c.nodes[i]).transpose() + u.segment<2>(2 * c.nodes[i]);
    off.colwise() -= off.rowwise().mean();
    return off;
  }
  /// R(θ) at a follower's reference point; with @p dtheta also dθ/du on the reference element's DOFs.
  Eigen::MatrixXd rotation_at(const PointLoad& p, const Eigen::VectorXd& u, Eigen::VectorXd* dtheta) const {
    const PointGradients pg = el_[p.ref_elem].gradients_at(p.xi);
    const Eigen::VectorXd ue = element_u(p.ref_elem, u);
    const int n = static_cast<int>(pg.N.size());
    Eigen::Matrix2d F = Eigen::Matrix2d::Identity();
    for (int i = 0; i < n; ++i) F += ue.segment<2>(i * 2) * pg.G.row(i);
    const double a = F(1, 0) - F(0, 1), b = F(0, 0) + F(1, 1), den = a * a + b * b;
    if (dtheta) {
      dtheta->resize(2 * n);
      for (int i = 0; i < n; ++i) {
        (*dtheta)[2 * i] = (-b * pg.G(i, 1) - a * pg.G(i, 0)) / den;
        (*dtheta)[2 * i + 1] = (b * pg.G(i, 0) - a * pg.G(i, 1)) / den;
      }
    }
    return rot2(std::atan2(a, b));
  }

  MPI_Comm comm_;
  const StaticMesh& mesh_;
  StaticOptions opt_;
  int d_, ndof_, rank_ = 0, size_ = 1, e0_ = 0, e1_ = 0;
  std::vector<SvkElement> el_;
  std::vector<std::pair<int, int>> home_; ///< per node: an element holding it and its index there
  std::vector<char> fixed_;
  Eigen::VectorXd g_;
  Eigen::VectorXd rot_angle_; ///< per DOF: a support's prescribed rotation at λ = 1 (2-D)
  Eigen::MatrixXd rot_arm_;   ///< per DOF: the node's position from the rotation centre
  std::optional<StaticSupport> rotating_; ///< the first support with a rotation (the predictor's)
  Eigen::Vector2d rot_centre_ = Eigen::Vector2d::Zero();
  std::vector<PointLoad> point_loads_;
  std::vector<CoupleLoad> couples_;
  int frame_node_ = -1, frame_elem_ = -1;
  Eigen::VectorXd frame_xi_;
  double lambda_ = 0;
  VecH x_, r_, xall_;
  ScatterH scatter_;
  MatH J_;
};

PetscErrorCode form_residual(SNES, Vec x, Vec F, void* ctx) {
  try {
    static_cast<Problem*>(ctx)->residual(x, F);
  } catch (const std::exception& e) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", e.what());
  }
  return 0;
}

PetscErrorCode form_jacobian(SNES, Vec x, Mat J, Mat, void* ctx) {
  try {
    static_cast<Problem*>(ctx)->jacobian(x, J);
  } catch (const std::exception& e) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", e.what());
  }
  return 0;
}

} // namespace

StaticMesh cantilever_mesh(ElementKind kind, double length, double height, double depth, const std::vector<int>& cells) {
  const int dim = element_dim(kind);
  FLEXUQ_REQUIRE_OPTION(static_cast<int>(cells.size()) == dim, "cells",
                        "{} needs " << dim << " number(s) for a " << element_kind_name(kind) << " mesh, got " << cells.size());
  for (int c : cells) FLEXUQ_REQUIRE_OPTION(c >= 1 && c <= 100000, "cells", "{} must be between 1 and 100000, got " << c);
  FLEXUQ_REQUIRE_OPTION(length > 0, "length", "{} must be positive");
  FLEXUQ_REQUIRE_OPTION(dim < 2 || height > 0, "height", "{} must be positive");
  FLEXUQ_REQUIRE_OPTION(dim < 3 || depth > 0, "depth", "{} must be positive");
  StaticMesh m;
  m.kind = kind;
  const int nx = cells[0], ny = dim > 1 ? cells[1] : 1, nz = dim > 2 ? cells[2] : 1;
  const bool serendipity = kind == ElementKind::quad8;
  const int gx = serendipity ? 2 * nx + 1 : nx + 1, gy = dim > 1 ? (serendipity ? 2 * ny + 1 : ny + 1) : 1;
  const int gz = dim > 2 ? nz + 1 : 1;
  std::vector<int> id(static_cast<std::size_t>(gx) * gy * gz, -1);
  std::vector<Eigen::Vector3d> pts;
  for (int k = 0; k < gz; ++k)
    for (int j = 0; j < gy; ++j)
      for (int i = 0; i < gx; ++i) {
        if (serendipity && i % 2 == 1 && j % 2 == 1) continue; // no centre node
        id[(static_cast<std::size_t>(k) * gy + j) * gx + i] = static_cast<int>(pts.size());
        pts.emplace_back(length * i / (gx - 1), gy > 1 ? height * (static_cast<double>(j) / (gy - 1) - 0.5) : 0.0,
                         gz > 1 ? depth * (static_cast<double>(k) / (gz - 1) - 0.5) : 0.0);
      }
  m.X.resize(static_cast<Eigen::Index>(pts.size()), dim);
  for (std::size_t n = 0; n < pts.size(); ++n) m.X.row(static_cast<Eigen::Index>(n)) = pts[n].head(dim).transpose();
  auto at = [&](int i, int j, int k) { return id[(static_cast<std::size_t>(k) * gy + j) * gx + i]; };
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        if (kind == ElementKind::bar2) {
          m.elements.push_back({at(i, 0, 0), at(i + 1, 0, 0)});
        } else if (kind == ElementKind::quad4) {
          m.elements.push_back({at(i, j, 0), at(i + 1, j, 0), at(i + 1, j + 1, 0), at(i, j + 1, 0)});
        } else if (kind == ElementKind::quad8) {
          const int a = 2 * i, b = 2 * j;
          m.elements.push_back({at(a, b, 0), at(a + 2, b, 0), at(a + 2, b + 2, 0), at(a, b + 2, 0), at(a + 1, b, 0),
                                at(a + 2, b + 1, 0), at(a + 1, b + 2, 0), at(a, b + 1, 0)});
        } else {
          m.elements.push_back({at(i, j, k), at(i + 1, j, k), at(i + 1, j + 1, k), at(i, j + 1, k), at(i, j, k + 1),
                                at(i + 1, j, k + 1), at(i + 1, j + 1, k + 1), at(i, j + 1, k + 1)});
        }
      }
  auto& root = m.sets["root"];
  auto& tip = m.sets["tip"];
  for (int n = 0; n < m.num_nodes(); ++n) {
    if (m.X(n, 0) < 1e-12 * length) root.push_back(n);
    if (m.X(n, 0) > length * (1 - 1e-12)) tip.push_back(n);
  }
  int mid = tip.front();
  for (int n : tip)
    if (m.X.row(n).tail(dim - 1).squaredNorm() < m.X.row(mid).tail(dim - 1).squaredNorm() - 1e-30) mid = n;
  m.sets["tip_mid"] = {mid};
  return m;
}

StaticMesh mesh_from_file(const std::string& path) {
  const io::Mesh in = io::read_mesh(path, true);
  FLEXUQ_REQUIRE(in.num_elements() > 0, path << ": no elements");
  StaticMesh m;
  const io::ElementType t = in.elem_type.front();
  if (t == io::ElementType::quad4) m.kind = ElementKind::quad4;
  else if (t == io::ElementType::quad8) m.kind = ElementKind::quad8;
  else if (t == io::ElementType::hex8) m.kind = ElementKind::hex8;
  else
    throw InputError(path + ": flexuq static reads quad4, quad8 (CPS4, CPS8) or hex8 (C3D8) meshes, not " +
                     io::element_name(t));
  const int d = element_dim(m.kind);
  m.X.resize(static_cast<Eigen::Index>(in.num_nodes()), d);
  for (std::size_t n = 0; n < in.num_nodes(); ++n) {
    FLEXUQ_REQUIRE(d == 3 || std::abs(in.coords[n][2]) < 1e-12,
                   path << ": node " << in.node_ids[n] << " has z = " << in.coords[n][2] << " in a 2-D mesh");
    for (int p = 0; p < d; ++p) m.X(static_cast<Eigen::Index>(n), p) = in.coords[n][p];
  }
  for (std::size_t e = 0; e < in.num_elements(); ++e) {
    FLEXUQ_REQUIRE(in.elem_type[e] == t, path << ": element " << in.elem_ids[e] << " is a " << io::element_name(in.elem_type[e])
                                              << "; flexuq static needs one kind (the first is a " << io::element_name(t) << ")");
    m.elements.emplace_back(in.element(e), in.element(e) + in.element_size(e));
  }
  for (const auto& [name, nodes] : in.node_sets) {
    std::string lower = name;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    m.sets[name] = nodes;
    m.sets[lower] = nodes;
  }
  return m;
}

void validate(const StaticMesh& mesh, const std::vector<StaticSupport>& supports, const std::vector<StaticLoad>& loads,
              const StaticOptions& opt) {
  const int d = mesh.dim();
  FLEXUQ_REQUIRE_OPTION(opt.steps >= 1 && opt.steps <= 100000, "steps", "{} must be between 1 and 100000, got " << opt.steps);
  FLEXUQ_REQUIRE_OPTION(opt.max_cuts >= 0 && opt.max_cuts <= 40, "max_cuts", "{} must be between 0 and 40");
  FLEXUQ_REQUIRE_OPTION(opt.max_it >= 1, "max_it", "{} must be at least 1");
  FLEXUQ_REQUIRE_OPTION(opt.rtol > 0 && opt.rtol < 1, "rtol", "{} must lie in (0, 1)");
  FLEXUQ_REQUIRE_OPTION(opt.material.E > 0, "material.E", "{} must be positive");
  FLEXUQ_REQUIRE_OPTION(opt.material.nu > -1 && opt.material.nu < 0.5, "material.nu", "{} must lie in (-1, 0.5)");
  FLEXUQ_REQUIRE_OPTION(d != 2 || opt.material.thickness > 0, "material.thickness", "{} must be positive");
  FLEXUQ_REQUIRE_OPTION(d != 1 || opt.material.area > 0, "material.area", "{} must be positive");
  FLEXUQ_REQUIRE_OPTION(!body_frame(opt.formulation) || opt.frame_node < mesh.num_nodes(), "frame_node",
                        "{} " << opt.frame_node << " is not a node of the mesh (" << mesh.num_nodes() << " nodes)");
  auto set_known = [&](const std::string& s, const std::string& field) {
    FLEXUQ_REQUIRE_OPTION(mesh.sets.count(s) && !mesh.sets.at(s).empty(), field, "{}: no node set '" << s << "'");
  };
  for (std::size_t i = 0; i < supports.size(); ++i) {
    const std::string f = "supports[" + std::to_string(i) + "]";
    set_known(supports[i].set, f + ".set");
    FLEXUQ_REQUIRE_OPTION(static_cast<int>(supports[i].components.size()) == d && supports[i].value.size() == d,
                          f + ".value", "{} needs " << d << " components");
    FLEXUQ_REQUIRE_OPTION(supports[i].rotation == 0 || d == 2, f + ".rotation",
                          "{}: prescribed rotations are 2-D only (this mesh is " << d << "-D)");
    FLEXUQ_REQUIRE_OPTION(supports[i].centre.size() == 0 || supports[i].centre.size() == d, f + ".centre",
                          "{} needs " << d << " coordinates");
  }
  FLEXUQ_REQUIRE_OPTION(!supports.empty(), "supports", "{}: the body needs at least one support");
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const std::string f = "loads[" + std::to_string(i) + "]";
    set_known(loads[i].set, f + ".set");
    if (loads[i].kind == LoadKind::follower_couple) {
      FLEXUQ_REQUIRE_OPTION(d == 2, f + ".moment", "{}: couples are 2-D only (this mesh is " << d << "-D)");
      FLEXUQ_REQUIRE_OPTION(mesh.sets.at(loads[i].set).size() >= 2, f + ".set", "{}: a couple needs at least two nodes");
    } else {
      FLEXUQ_REQUIRE_OPTION(loads[i].force.size() == d, f + ".force", "{} needs " << d << " components");
      FLEXUQ_REQUIRE_OPTION(loads[i].kind != LoadKind::follower_force || d == 2, f + ".follower",
                            "{}: follower forces are 2-D only (this mesh is " << d << "-D)");
    }
  }
}

void static_residual(MPI_Comm comm, const StaticMesh& mesh, const std::vector<StaticSupport>& supports,
                     const std::vector<StaticLoad>& loads, const StaticOptions& opt, double lambda,
                     const Eigen::VectorXd& u, Eigen::VectorXd& F, Eigen::MatrixXd& J) {
  validate(mesh, supports, loads, opt);
  Problem pb(comm, mesh, supports, loads, opt);
  pb.set_lambda(lambda);
  PetscInt r0 = 0, r1 = 0;
  FLEXUQ_PETSC(VecGetOwnershipRange(pb.x(), &r0, &r1));
  for (PetscInt i = r0; i < r1; ++i) FLEXUQ_PETSC(VecSetValue(pb.x(), i, u[i], INSERT_VALUES));
  FLEXUQ_PETSC(VecAssemblyBegin(pb.x()));
  FLEXUQ_PETSC(VecAssemblyEnd(pb.x()));
  pb.residual(pb.x(), pb.r());
  pb.jacobian(pb.x(), pb.J());
  F = pb.gather(pb.r());
  const auto n = static_cast<Eigen::Index>(u.size());
  Eigen::MatrixXd Jr = Eigen::MatrixXd::Zero(n, n); // row-sum over ranks (each owns its rows)
  for (PetscInt i = r0; i < r1; ++i) {
    PetscInt nc = 0;
    const PetscInt* cols = nullptr;
    const PetscScalar* vals = nullptr;
    FLEXUQ_PETSC(MatGetRow(pb.J(), i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; ++k) Jr(i, cols[k]) = vals[k];
    FLEXUQ_PETSC(MatRestoreRow(pb.J(), i, &nc, &cols, &vals));
  }
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, Jr.data(), static_cast<int>(n * n), MPI_DOUBLE, MPI_SUM, comm));
  J = Jr;
}

Eigen::VectorXd node_displacement(const StaticMesh& mesh, const StaticStep& step, int node) {
  return step.u.segment(static_cast<Eigen::Index>(node) * mesh.dim(), mesh.dim());
}

StaticResult solve_static(MPI_Comm comm, const StaticMesh& mesh, const std::vector<StaticSupport>& supports,
                          const std::vector<StaticLoad>& loads, const StaticOptions& opt) {
  validate(mesh, supports, loads, opt);
  const auto t0 = std::chrono::steady_clock::now();
  int size = 1;
  MPI_Comm_size(comm, &size);
  Problem pb(comm, mesh, supports, loads, opt);
  StaticResult res;
  SnesH snes;
  FLEXUQ_PETSC(SNESCreate(comm, snes.out()));
  FLEXUQ_PETSC(SNESSetFunction(snes.get(), pb.r(), form_residual, &pb));
  FLEXUQ_PETSC(SNESSetJacobian(snes.get(), pb.J(), pb.J(), form_jacobian, &pb));
  FLEXUQ_PETSC(SNESSetType(snes.get(), SNESNEWTONLS));
  SNESLineSearch ls = nullptr;
  FLEXUQ_PETSC(SNESGetLineSearch(snes.get(), &ls));
  // Full Newton steps by default (the thesis' Newton-Raphson): on the cantilevers the backtracking
  // search stalls in the first increment (docs/nff.md); -static_snes_linesearch_type bt selects it.
  FLEXUQ_PETSC(SNESLineSearchSetType(ls, SNESLINESEARCHBASIC));
  KSP ksp = nullptr;
  PC pc = nullptr;
  FLEXUQ_PETSC(SNESGetKSP(snes.get(), &ksp));
  FLEXUQ_PETSC(KSPSetType(ksp, KSPPREONLY));
  FLEXUQ_PETSC(KSPGetPC(ksp, &pc));
  FLEXUQ_PETSC(PCSetType(pc, PCLU));
  if (size > 1) FLEXUQ_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  // The absolute tolerance: opt.atol, or (negative) 1e-9 of the external load's norm (of the reaction to
  // the prescribed displacements when there is no load): NFF's local DOFs are differences of positions,
  // so its residual has a round-off floor near 1e-10 of the load (5e-11 on the N8 cantilever).
  double atol = opt.atol;
  if (atol < 0) {
    double ref = pb.load_norm();
    if (ref == 0) { // displacement-driven: the reaction to the prescribed displacements with nothing else moved
      pb.set_lambda(1.0);
      pb.prescribed(pb.x());
      FLEXUQ_PETSC(form_residual(nullptr, pb.x(), pb.r(), &pb));
      FLEXUQ_PETSC(VecNorm(pb.r(), NORM_2, &ref));
    }
    atol = 1e-9 * ref;
  }
  res.atol = atol;
  // A Newton step below 1e-12 of |u| also ends the increment: where the load is small against the
  // stiffness (a prescribed rigid motion plus a small force) the round-off floor can exceed atol.
  FLEXUQ_PETSC(SNESSetTolerances(snes.get(), atol, opt.rtol, 1e-12, opt.max_it, 100 * opt.max_it));
  FLEXUQ_PETSC(SNESSetOptionsPrefix(snes.get(), opt.prefix.c_str()));
  FLEXUQ_PETSC(SNESSetFromOptions(snes.get()));

  res.frame_node = pb.frame_node();
  VecH saved;
  FLEXUQ_PETSC(VecDuplicate(pb.x(), saved.out()));
  FLEXUQ_PETSC(VecZeroEntries(pb.x()));
  double done = 0;
  bool failed = false;
  for (int k = 1; k <= opt.steps && !failed; ++k) {
    const double target = static_cast<double>(k) / opt.steps;
    double dl = target - done;
    StaticStep st;
    while (done < target - 1e-14) {
      const double next = std::min(done + dl, target);
      FLEXUQ_PETSC(VecCopy(pb.x(), saved.get()));
      pb.rigid_predictor(pb.x(), done, next);
      pb.set_lambda(next);
      FLEXUQ_PETSC(SNESSolve(snes.get(), nullptr, pb.x()));
      SNESConvergedReason reason;
      PetscInt its = 0;
      FLEXUQ_PETSC(SNESGetConvergedReason(snes.get(), &reason));
      FLEXUQ_PETSC(SNESGetIterationNumber(snes.get(), &its));
      st.newton_iterations += static_cast<int>(its);
      if (reason > 0) {
        done = next;
        continue;
      }
      FLEXUQ_PETSC(VecCopy(saved.get(), pb.x()));
      dl /= 2;
      if (++st.cuts > opt.max_cuts) {
        res.failure = "the increment to lambda = " + std::to_string(next) + " did not converge (SNES reason " +
                      SNESConvergedReasons[reason] + ") after " + std::to_string(opt.max_cuts) + " halvings";
        failed = true;
        break;
      }
    }
    if (failed) break;
    PetscReal fn = 0;
    FLEXUQ_PETSC(SNESGetFunctionNorm(snes.get(), &fn));
    st.lambda = target;
    st.residual = fn;
    st.u = pb.gather(pb.x());
    if (opt.terms) st.terms = pb.terms(st.u);
    res.steps.push_back(std::move(st));
  }
  res.completed = !failed;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

void write_static_file(MPI_Comm comm, const std::string& path, const StaticMesh& mesh, const StaticOptions& opt,
                       const StaticResult& result) {
  io::H5File f(comm, path, io::H5File::Mode::create);
  f.ensure_group("/static");
  const auto nn = static_cast<std::uint64_t>(mesh.num_nodes()), d = static_cast<std::uint64_t>(mesh.dim());
  const auto ns = static_cast<std::uint64_t>(result.steps.size());
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> X = mesh.X;
  f.write_replicated("/static/coordinates", {nn, d}, X.data());
  std::vector<std::int64_t> conn;
  for (const auto& e : mesh.elements) conn.insert(conn.end(), e.begin(), e.end());
  f.write_replicated("/static/connectivity",
                     {static_cast<std::uint64_t>(mesh.elements.size()), static_cast<std::uint64_t>(element_nodes(mesh.kind))},
                     conn.data());
  std::vector<double> lambda, residual, disp, tq, tk;
  std::vector<std::int64_t> its, cuts;
  for (const auto& s : result.steps) {
    lambda.push_back(s.lambda);
    residual.push_back(s.residual);
    its.push_back(s.newton_iterations);
    cuts.push_back(s.cuts);
    disp.insert(disp.end(), s.u.data(), s.u.data() + s.u.size());
    tq.insert(tq.end(), s.terms.Q, s.terms.Q + 4);
    tk.insert(tk.end(), s.terms.K, s.terms.K + 5);
  }
  f.write_replicated("/static/lambda", {ns}, lambda.data());
  f.write_replicated("/static/residual", {ns}, residual.data());
  f.write_replicated("/static/newton_iterations", {ns}, its.data());
  f.write_replicated("/static/cuts", {ns}, cuts.data());
  f.write_replicated("/static/displacement", {ns, nn, d}, disp.data());
  if (opt.terms) {
    f.write_replicated("/static/terms/Q", {ns, 4}, tq.data());
    f.write_replicated("/static/terms/K", {ns, 5}, tk.data());
  }
  for (const auto& [name, nodes] : mesh.sets) {
    std::vector<std::int64_t> v(nodes.begin(), nodes.end());
    f.write_replicated("/static/sets/" + name, {static_cast<std::uint64_t>(v.size())}, v.data());
  }
  f.write_attribute("/static", "formulation", std::string(formulation_name(opt.formulation)));
  f.write_attribute("/static", "element", std::string(element_kind_name(mesh.kind)));
  f.write_attribute("/static", "E", opt.material.E);
  f.write_attribute("/static", "nu", opt.material.nu);
  f.write_attribute("/static", "thickness", opt.material.thickness);
  f.write_attribute("/static", "completed", static_cast<std::int64_t>(result.completed ? 1 : 0));
  f.write_attribute("/static", "frame_node", static_cast<std::int64_t>(result.frame_node));
  f.write_attribute("/static", "seconds", result.seconds);
}

} // namespace flexuq::nl
