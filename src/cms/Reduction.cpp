// SPDX-License-Identifier: MIT
#include "flexuq/cms/Reduction.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/la/Blas.hpp"
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/MumpsBlockSolve.hpp"
#include "flexuq/la/MumpsCompression.hpp"
#include "flexuq/la/Projection.hpp"
#include "flexuq/la/Solvers.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace flexuq::cms {

namespace {

const char* kRigidNames[] = {"tx", "ty", "tz", "rx", "ry", "rz"};

std::vector<Vec> raw(const std::vector<VecH>& v) {
  std::vector<Vec> r;
  for (const auto& h : v) r.push_back(h.get());
  return r;
}

VecH copy(Vec v) {
  VecH c;
  FLEXUQ_PETSC(VecDuplicate(v, c.out()));
  FLEXUQ_PETSC(VecCopy(v, c.get()));
  return c;
}

/// Σ_j a_j v_j added to @p y.
void axpy_all(Vec y, const Eigen::VectorXd& a, const std::vector<VecH>& v) {
  if (v.empty()) return;
  auto r = raw(v);
  FLEXUQ_PETSC(VecMAXPY(y, static_cast<PetscInt>(r.size()), a.data(), r.data()));
}

/// vᵀ A x for every v in @p vs (one reduction).
Eigen::VectorXd mdot(Mat A, Vec x, const std::vector<VecH>& vs, Vec tmp) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(vs.size()));
  if (vs.empty()) return out;
  FLEXUQ_PETSC(MatMult(A, x, tmp));
  auto r = raw(vs);
  FLEXUQ_PETSC(VecMDot(tmp, static_cast<PetscInt>(r.size()), r.data(), out.data()));
  return out;
}

/// Sparse Cholesky (MUMPS) on a KSP: preonly, prefix, options database.

MatH submatrix(Mat A, IS rows, IS cols) {
  MatH S;
  FLEXUQ_PETSC(MatCreateSubMatrix(A, rows, cols, MAT_INITIAL_MATRIX, S.out()));
  if (rows == cols) {
    la::inherit_block_size(A, rows, S.get()); // whole nodes: MUMPS orders the node graph (ICNTL(15))
    FLEXUQ_PETSC(MatSetOption(S.get(), MAT_SYMMETRIC, PETSC_TRUE));
    FLEXUQ_PETSC(MatSetOption(S.get(), MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
  return S;
}

/// @p S (made by submatrix() from a matrix with @p A's pattern) refilled with @p A's current
/// values: the same object and nonzero state, so a factorization of it is redone numerically only.
void refill_submatrix(Mat A, IS rows, IS cols, MatH& S) {
  Mat s = S.get();
  FLEXUQ_PETSC(MatCreateSubMatrix(A, rows, cols, MAT_REUSE_MATRIX, &s));
  FLEXUQ_ASSERT(s == S.get(), "MatCreateSubMatrix with MAT_REUSE_MATRIX returned a new matrix");
}

/// A stiffness submatrix that is positive definite by construction (the rigid motions restrained)
/// is flagged SPD before its first factorization: MUMPS then factors it as SPD (SYM = 1: Cholesky
/// without pivoting), whose analysis (ordering, symbolic factorization) depends on the nonzero
/// pattern alone. So an analysis kept across a sweep of values (Reducer::update_operators) gives
/// the same factor as a fresh one at the current values, whatever values it was first made with.
void flag_spd(Mat S) {
  FLEXUQ_PETSC(MatSetOption(S, MAT_SPD, PETSC_TRUE));
}

/// Dense right-hand sides with the row layout of @p A.
MatH dense_like(Mat A, PetscInt ncols) {
  PetscInt m = 0, M = 0;
  FLEXUQ_PETSC(MatGetLocalSize(A, &m, nullptr));
  FLEXUQ_PETSC(MatGetSize(A, &M, nullptr));
  MatH B;
  FLEXUQ_PETSC(MatCreateDense(PetscObjectComm(reinterpret_cast<PetscObject>(A)), m, PETSC_DECIDE, M, ncols, nullptr,
                              B.out()));
  FLEXUQ_PETSC(MatZeroEntries(B.get()));
  return B;
}

/// Column j of dense @p B ← the rows @p is of the working vector @p v, times @p alpha.
void set_column(Mat B, PetscInt j, Vec v, IS is, double alpha) {
  Vec sub = nullptr, col = nullptr;
  FLEXUQ_PETSC(VecGetSubVector(v, is, &sub));
  FLEXUQ_PETSC(MatDenseGetColumnVecWrite(B, j, &col));
  FLEXUQ_PETSC(VecAXPBY(col, alpha, 0.0, sub));
  FLEXUQ_PETSC(MatDenseRestoreColumnVecWrite(B, j, &col));
  FLEXUQ_PETSC(VecRestoreSubVector(v, is, &sub));
}

/// A working vector holding column j of dense @p X on the rows @p is (zero elsewhere).
VecH get_column(const WorkSpace& ws, Mat X, PetscInt j, IS is) {
  VecH full = ws.new_vector();
  Vec col = nullptr;
  FLEXUQ_PETSC(MatDenseGetColumnVecRead(X, j, &col));
  FLEXUQ_PETSC(VecISCopy(full.get(), is, SCATTER_FORWARD, col));
  FLEXUQ_PETSC(MatDenseRestoreColumnVecRead(X, j, &col));
  return full;
}

/// Global row count of @p A.
PetscInt n_rows(Mat A) {
  PetscInt n = 0;
  FLEXUQ_PETSC(MatGetSize(A, &n, nullptr));
  return n;
}

/// X ← A⁻¹B with the factorization kept in @p ksp (preonly + MUMPS Cholesky): one multi-RHS solve
/// (la::ksp_mat_solve: MUMPS's distributed solve on the factor) for a block of several columns, one
/// KSPSolve per column when @p block is 1 (the one-at-a-time reference of reduce.solve_block).
void solve_columns(KSP ksp, Mat B, Mat X, int block) {
  PetscInt n = 0;
  FLEXUQ_PETSC(MatGetSize(B, nullptr, &n));
  if (block > 1) {
    la::ksp_mat_solve(ksp, B, X); // KSPMatSolve without PETSc's per-call scatter set-up on > 1 rank
    return;
  }
  for (PetscInt j = 0; j < n; ++j) {
    Vec b = nullptr, x = nullptr;
    FLEXUQ_PETSC(MatDenseGetColumnVecRead(B, j, &b));
    FLEXUQ_PETSC(MatDenseGetColumnVecWrite(X, j, &x));
    FLEXUQ_PETSC(KSPSolve(ksp, b, x));
    FLEXUQ_PETSC(MatDenseRestoreColumnVecWrite(X, j, &x));
    FLEXUQ_PETSC(MatDenseRestoreColumnVecRead(B, j, &b));
  }
}

/// The owned working DOFs except @p removed (global working indices, any rank's).
IsH complement(const WorkSpace& ws, std::vector<PetscInt> removed) {
  std::sort(removed.begin(), removed.end());
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(ws.K(), &lo, &hi));
  std::vector<PetscInt> keep;
  for (PetscInt w = lo; w < hi; ++w)
    if (!std::binary_search(removed.begin(), removed.end(), w)) keep.push_back(w);
  IsH is;
  FLEXUQ_PETSC(ISCreateGeneral(ws.comm(), static_cast<PetscInt>(keep.size()), keep.data(), PETSC_COPY_VALUES, is.out()));
  return is;
}

/// Vectors on the rows @p is replaced by full-length working vectors (zero on the other rows).
void pad(const WorkSpace& ws, std::vector<VecH>& vs, IS is) {
  for (auto& v : vs) {
    VecH full = ws.new_vector();
    FLEXUQ_PETSC(VecISCopy(full.get(), is, SCATTER_FORWARD, v.get()));
    v = std::move(full);
  }
}

void set_entry(Vec v, PetscInt w, double value) {
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(VecGetOwnershipRange(v, &lo, &hi));
  if (w >= lo && w < hi) FLEXUQ_PETSC(VecSetValue(v, w, value, INSERT_VALUES));
  FLEXUQ_PETSC(VecAssemblyBegin(v));
  FLEXUQ_PETSC(VecAssemblyEnd(v));
}

} // namespace

/// The one factorization of K_ii: the constraint modes, the inertia-relief modes and the residual
/// loads are solved with it, and the fixed-interface eigensolver (a count of modes: shift-and-invert
/// at σ = 0, i.e. K − σM = K_ii) uses it as its own (fe::Factorization). A band of modes is sliced
/// with factorizations at the interval ends instead.
struct Reducer::Interior {
  MatH Kii, Mii, Kib;
  bool virtual_mass = false;   ///< Mii is a virtual submatrix of M_w (follows its values by itself)
  KspH ksp;
  la::SolverDefaults defaults; ///< this factorization's options (open a scope around set-up and solves)
  bool stale = false;          ///< update_operators since the last factorization
};

struct Reducer::Attach {
  MatH Kff;
  KspH ksp;
  la::SolverDefaults defaults;
  IsH is_f;
  bool stale = false;
};

/// Mixed-interface modes of one selection of held interfaces: the free-DOF submatrices and their
/// eigensolver, kept across update_operators.
struct Reducer::MixedProblem {
  IsH is_f;
  MatH Kff, Mff;
  std::unique_ptr<fe::ModeSolver> solver;
  bool stale = false;
};

namespace {
/// Refill the stiffness submatrix @p S of a kept factorization @p ksp and refactor it numerically
/// (the MUMPS analysis of the first set-up stays: same object, same nonzero state).
void refactor(const WorkSpace& ws, IS rows, MatH& S, KSP ksp, const la::SolverDefaults& defaults) {
  refill_submatrix(ws.K(), rows, rows, S);
  const auto scope = defaults.apply();
  FLEXUQ_PETSC(KSPSetOperators(ksp, S.get(), S.get()));
  FLEXUQ_PETSC(KSPSetUp(ksp));
}
} // namespace

Reducer::Reducer(const WorkSpace& ws, ReducerOptions options) : ws_(ws), opt_(std::move(options)) {
  { // A b-set holding every DOF leaves nothing to reduce (K_ii is empty: PETSc's "No method setinf
    // for Mat of type seqdense" from the first solve).
    PetscInt n_interior = 0, n_boundary = 0;
    FLEXUQ_PETSC(ISGetSize(ws.is_i(), &n_interior));
    FLEXUQ_PETSC(ISGetSize(ws.is_b(), &n_boundary));
    if (n_interior == 0) {
      std::string sets;
      for (const auto& s : ws.interfaces()) sets += (sets.empty() ? "" : ", ") + s.set;
      throw InputError("nothing to reduce: the interfaces [" + io::shorten(sets, 200) + "] hold all " +
                       std::to_string(n_boundary) +
                       " DOFs of the component, so no interior DOFs are left (leave some grids out of the "
                       "interfaces or the Nastran b-set, or compute the modes with flexuq modes)");
    }
  }
  // Residual-load DOFs: interior working DOFs of the given sets (boundary and RBE2 nodes skipped:
  // their loads are already represented by the boundary coordinates).
  const auto& c = ws.component();
  const auto& mesh = c.mesh();
  std::vector<char> boundary_node(mesh.num_nodes(), 0);
  for (const auto& s : ws.interfaces())
    for (int n : mesh.node_set(s.set)) boundary_node[n] = 1;
  for (const auto& set : opt_.residual_loads) {
    auto nodes = mesh.node_set(set);
    std::sort(nodes.begin(), nodes.end());
    for (int n : nodes) {
      if (boundary_node[n]) continue;
      for (int k = 0; k < ws.dofs_per_node(); ++k) {
        if (ws.work_index(n, k) < 0) continue;
        res_work_.push_back(ws.work_index(n, k));
        res_labels_.push_back("residual vector " + io::upper(set) + " node " + std::to_string(mesh.node_ids[n]) + " " +
                              component_name(k));
      }
    }
  }
}

Reducer::~Reducer() = default;

void Reducer::update_operators() {
  rigid_mass_.resize(0, 0);
  constraint_.clear();
  relief_.clear();
  res_loads_.clear();
  attachment_.clear();
  residual_attachment_.clear();
  fixed_.reset();
  free_.reset();
  mixed_.clear();
  statics_done_ = false;
  if (interior_) interior_->stale = true;
  if (attach_) attach_->stale = true;
  for (auto& mp : mixed_problems_) mp.second->stale = true;
}

const std::vector<VecH>& Reducer::rigid() {
  if (rigid_.empty()) rigid_ = ws_.rigid_modes();
  return rigid_;
}

const Eigen::MatrixXd& Reducer::rigid_mass() {
  if (rigid_mass_.size() == 0) rigid_mass_ = la::project(ws_.M(), rigid());
  return rigid_mass_;
}

Eigen::MatrixXd Reducer::boundary_rows(const std::vector<VecH>& vs) const {
  const auto& b = ws_.boundary();
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(b.size()), static_cast<Eigen::Index>(vs.size()));
  for (std::size_t j = 0; j < vs.size(); ++j) {
    PetscInt lo = 0, hi = 0;
    FLEXUQ_PETSC(VecGetOwnershipRange(vs[j].get(), &lo, &hi));
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(vs[j].get(), &a));
    for (std::size_t k = 0; k < b.size(); ++k)
      if (b[k].work >= lo && b[k].work < hi) R(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j)) = a[b[k].work - lo];
    FLEXUQ_PETSC(VecRestoreArrayRead(vs[j].get(), &a));
  }
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, R.data(), static_cast<int>(R.size()), MPI_DOUBLE, MPI_SUM, ws_.comm()));
  return R;
}

void Reducer::statics() {
  if (statics_done_) return;
  MPI_Comm comm = ws_.comm();
  if (interior_ && interior_->stale) {
    auto& in = *interior_;
    log::Phase p(comm, "cms: refactor K_ii", &times_);
    refactor(ws_, ws_.is_i(), in.Kii, in.ksp.get(), in.defaults);
    refill_submatrix(ws_.K(), ws_.is_i(), ws_.is_b(), in.Kib);
    if (!in.virtual_mass) refill_submatrix(ws_.M(), ws_.is_i(), ws_.is_i(), in.Mii);
    in.stale = false;
  }
  if (!interior_) {
    // K_ii is invertible iff the boundary restrains every rigid motion (connected component).
    double rc = 0;
    const auto det = ws_.determinate_set(true, &rc);
    std::string sets;
    for (const auto& s : ws_.interfaces()) sets += (sets.empty() ? "" : ", ") + s.set;
    FLEXUQ_REQUIRE(static_cast<int>(det.size()) == ws_.motion_count(),
                   "K_ii is singular: the interfaces [" << sets << "] restrain only " << det.size() << " of the "
                                                        << ws_.motion_count()
                                                        << (ws_.supported() ? " rigid-body motions the supports leave" : " rigid-body motions")
                                                        << " (rank of the boundary rigid-mode rows "
                                                           "Phi_Rb); add interface nodes (3 non-collinear nodes for "
                                                           "solids, 2 for a 2-D component) or use kind rbe2");
    interior_ = std::make_unique<Interior>();
    auto& in = *interior_;
    log::Phase p(comm, "cms: factor K_ii", &times_);
    in.Kii = submatrix(ws_.K(), ws_.is_i(), ws_.is_i());
    flag_spd(in.Kii.get()); // positive definite: the boundary restrains the rigid motions (above)
    in.Kib = submatrix(ws_.K(), ws_.is_i(), ws_.is_b());
    // Count: the prefix of the eigensolver's ST (-cms_fixed_st_…), whose factorization this is.
    const bool count = !opt_.modes.band_hz && opt_.modes.count > 0;
    const std::string prefix = opt_.prefix + (count ? "fixed_st_" : "statics_");
    // Krylov–Schur's shift-and-invert at σ = 0 only multiplies by M_ii, one vector at a time: a
    // virtual submatrix of M_w (no copy of the mass matrix, ~1/5 of the phase's memory). Spectrum
    // slicing (band) needs it assembled; so do the block methods' M products (solver: block and the
    // recycled solves: la::BlockProduct streams an assembled M_ii once per block, where a virtual
    // one costs a full-size MatMult and two scatters per column: 5.1 -> 1.4 s of a 16.4 s block
    // eigensolve, 85 899 DOFs, 2 ranks, docs/performance.md).
    const bool block_products = opt_.modes.solver == fe::ModeOptions::Method::block || opt_.modes.recycle;
    if (count && !block_products) {
      FLEXUQ_PETSC(MatCreateSubMatrixVirtual(ws_.M(), ws_.is_i(), ws_.is_i(), in.Mii.out()));
      in.virtual_mass = true;
    } else {
      in.Mii = submatrix(ws_.M(), ws_.is_i(), ws_.is_i());
    }
    FLEXUQ_PETSC(KSPCreate(comm, in.ksp.out()));
    FLEXUQ_PETSC(KSPSetOperators(in.ksp.get(), in.Kii.get(), in.Kii.get()));
    FLEXUQ_PETSC(KSPSetOptionsPrefix(in.ksp.get(), prefix.c_str()));
    la::setup_mumps_cholesky(in.ksp.get(), prefix, in.defaults);
    const auto scope = in.defaults.apply();
    FLEXUQ_PETSC(KSPSetFromOptions(in.ksp.get()));
    FLEXUQ_PETSC(KSPSetUp(in.ksp.get()));
  }
  auto& in = *interior_;
  log::Phase p(comm, "cms: constraint modes", &times_);
  // Multi-RHS solves with the one factorization: [−K_ib | −(MΦ_R)_i | unit loads], in blocks of
  // reduce.solve_block columns so that the dense right-hand sides, the solutions and MUMPS's
  // multi-RHS workspace stay bounded (an all-DOF interface has thousands of columns; one solve with
  // all of them held ~10x the factor's memory). Timings per block size: docs/performance.md.
  const auto& bd = ws_.boundary();
  const PetscInt nb = static_cast<PetscInt>(bd.size()), nr = 6, nl = static_cast<PetscInt>(res_work_.size());
  const PetscInt ntot = nb + nr + nl;
  const int block = opt_.solve_block > 0 ? opt_.solve_block : default_solve_block(n_rows(in.Kii.get()));
  const PetscInt kChunk = block;
  std::vector<VecH> MR;
  for (PetscInt j = 0; j < nr; ++j) {
    VecH t = ws_.new_vector();
    FLEXUQ_PETSC(MatMult(ws_.M(), rigid()[static_cast<std::size_t>(j)].get(), t.get()));
    MR.push_back(std::move(t));
  }
  PetscInt rs = 0, re = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(in.Kib.get(), &rs, &re));
  const PetscInt* idx = nullptr;
  PetscInt nloc_i = 0;
  FLEXUQ_PETSC(ISGetLocalSize(ws_.is_i(), &nloc_i));
  std::vector<VecH> sol(static_cast<std::size_t>(ntot));
  log::Progress progress(comm, "constraint modes", ntot);
  for (PetscInt c0 = 0; c0 < ntot; c0 += kChunk) {
    const PetscInt c1 = std::min(ntot, c0 + kChunk);
    MatH B = dense_like(in.Kii.get(), c1 - c0);
    {
      PetscInt lda = 0;
      PetscScalar* a = nullptr;
      FLEXUQ_PETSC(MatDenseGetLDA(B.get(), &lda));
      FLEXUQ_PETSC(MatDenseGetArray(B.get(), &a));
      if (c0 < nb)
        for (PetscInt r = rs; r < re; ++r) {
          PetscInt nc = 0;
          const PetscInt* cols = nullptr;
          const PetscScalar* vals = nullptr;
          FLEXUQ_PETSC(MatGetRow(in.Kib.get(), r, &nc, &cols, &vals));
          for (PetscInt j = 0; j < nc; ++j)
            if (cols[j] >= c0 && cols[j] < c1) a[(r - rs) + lda * (cols[j] - c0)] = -vals[j];
          FLEXUQ_PETSC(MatRestoreRow(in.Kib.get(), r, &nc, &cols, &vals));
        }
      // Unit loads at interior DOFs: row = position in the owned part of is_i.
      FLEXUQ_PETSC(ISGetIndices(ws_.is_i(), &idx));
      for (PetscInt j = std::max(c0, nb + nr); j < c1; ++j) {
        const PetscInt w = res_work_[static_cast<std::size_t>(j - nb - nr)];
        const PetscInt* it = std::lower_bound(idx, idx + nloc_i, w);
        if (it != idx + nloc_i && *it == w) a[(it - idx) + lda * (j - c0)] = 1.0;
      }
      FLEXUQ_PETSC(ISRestoreIndices(ws_.is_i(), &idx));
      FLEXUQ_PETSC(MatDenseRestoreArray(B.get(), &a));
    }
    for (PetscInt j = std::max(c0, nb); j < std::min(c1, nb + nr); ++j)
      set_column(B.get(), j - c0, MR[static_cast<std::size_t>(j - nb)].get(), ws_.is_i(), -1.0);
    MatH X;
    FLEXUQ_PETSC(MatDuplicate(B.get(), MAT_DO_NOT_COPY_VALUES, X.out()));
    try {
      const auto scope = in.defaults.apply();
      solve_columns(in.ksp.get(), B.get(), X.get(), block);
    } catch (const Error& e) {
      throw Error(std::string("solving with the factorization of K_ii failed (is the boundary restraining every "
                              "part of the component?): ") + e.what());
    }
    for (PetscInt j = c0; j < c1; ++j) sol[static_cast<std::size_t>(j)] = get_column(ws_, X.get(), j - c0, ws_.is_i());
    progress.update(c1);
  }
  for (std::size_t k = 0; k < bd.size(); ++k) {
    VecH v = std::move(sol[static_cast<std::size_t>(ws_.b_pos(k))]);
    set_entry(v.get(), bd[k].work, 1.0);
    constraint_.push_back(std::move(v));
  }
  for (PetscInt j = 0; j < nr; ++j) relief_.push_back(std::move(sol[static_cast<std::size_t>(nb + j)]));
  for (PetscInt j = 0; j < nl; ++j) res_loads_.push_back(std::move(sol[static_cast<std::size_t>(nb + nr + j)]));
  statics_done_ = true;
}

const std::vector<VecH>& Reducer::constraint_modes() {
  statics();
  return constraint_;
}

const std::vector<VecH>& Reducer::inertia_relief() {
  statics();
  return relief_;
}

const std::vector<VecH>& Reducer::residual_loads() {
  statics();
  return res_loads_;
}

const fe::ModeSet& Reducer::fixed_modes() {
  if (fixed_) return *fixed_;
  statics(); // factorization first: it is shared
  auto& in = *interior_;
  MPI_Comm comm = ws_.comm();
  log::Phase p(comm, "cms: fixed-interface modes", &times_);
  fe::ModeSet ms;
  if (opt_.modes.band_hz || opt_.modes.count > 0) {
    // K_ii has lost the node blocks of K: the scale and zero-mode tolerance are the component's
    // (fe::ModeOptions::rigid_tol), taken at each solve.
    fe::ModeOptions o = opt_.modes;
    o.constrained = true;
    o.constraint_description = "the interfaces held fixed";
    o.prefix = opt_.prefix + "fixed_";
    if (opt_.modes.band_hz) {
      ms = fe::solve_modes(in.Kii.get(), in.Mii.get(), fe::with_component_scale(o, ws_.component().K(), ws_.component().M()));
    } else {
      // K_ii is positive definite (statics() checked the boundary restrains the rigid motions):
      // shift 0, with the factorization the constraint modes were solved with. The solver (its
      // EPS and ST) is kept for update_operators; it borrows the factorization, refactored by statics().
      if (!fixed_solver_)
        fixed_solver_ = std::make_unique<fe::ModeSolver>(o, fe::Factorization{in.ksp.get(), in.defaults});
      if (std::exchange(record_reference_, false)) fixed_solver_->keep_reference();
      ms = fixed_solver_->solve(in.Kii.get(), in.Mii.get(), ws_.component().K(), ws_.component().M());
    }
  }
  ms.multiplicity = la::cluster_multiplicity(ms.eigenvalues, opt_.modes.cluster_tol);
  pad(ws_, ms.vectors, ws_.is_i()); // full length, boundary rows zero
  ws_.canonical_sign(ms.vectors);   // a sign of the geometry, not of the round-off
  ws_.canonical_multiplets(ms.vectors, ms.eigenvalues);
  fixed_ = std::move(ms);
  return *fixed_;
}

void Reducer::release_free_modes() {
  free_.reset();
  free_solver_.reset();
}

const fe::ModeSet& Reducer::free_modes() {
  if (in_build_) build_used_free_ = true;
  if (free_) return *free_;
  if (!opt_.modes.band_hz && opt_.modes.count == 0) {
    free_ = fe::ModeSet{};
    return *free_;
  }
  log::Phase p(ws_.comm(), "cms: free-interface modes", &times_);
  fe::ModeOptions o = opt_.modes;
  o.constrained = false;
  o.prefix = opt_.prefix + "free_";
  if (!free_solver_) free_solver_ = std::make_unique<fe::ModeSolver>(o); // kept: numeric refactor only
  free_ = free_solver_->solve(ws_.K(), ws_.M(), ws_.component().K(), ws_.component().M());
  ws_.canonical_sign(free_->vectors); // a sign of the geometry, not of the round-off
  ws_.canonical_multiplets(free_->vectors, free_->eigenvalues);
  // A free component has rigid_count() rigid motions; one on single-component supports the
  // motion_count() they leave (a symmetry plane: 3, a simply supported strip: 0 to 3).
  FLEXUQ_REQUIRE(free_->rigid_eigenvalues.size() == static_cast<std::size_t>(ws_.motion_count()),
                 "free-interface modes: the component has " << free_->rigid_eigenvalues.size()
                                                            << " zero-energy modes instead of " << ws_.motion_count()
                                                            << (ws_.supported() ? " (the rigid motions its supports leave): "
                                                                                : " (")
                                                            << "disconnected parts or "
                                                               "a mechanism); free-interface methods need one rigid body");
  return *free_;
}

std::vector<int> Reducer::held_interfaces(const std::vector<std::string>& held) const {
  const auto& specs = ws_.interfaces();
  std::string names;
  for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.set;
  std::vector<int> sel;
  for (const auto& h : held) {
    const auto it = std::find_if(specs.begin(), specs.end(), [&](const InterfaceSpec& s) { return s.set == h; });
    FLEXUQ_REQUIRE_OPTION(it != specs.end(), "modes.fixed_interfaces",
                          "{}: '" << h << "' is not an interface (one of " << names << ")");
    const int i = static_cast<int>(it - specs.begin());
    FLEXUQ_REQUIRE_OPTION(std::find(sel.begin(), sel.end(), i) == sel.end(), "modes.fixed_interfaces",
                          "{}: '" << h << "' is listed twice");
    sel.push_back(i);
  }
  std::sort(sel.begin(), sel.end());
  return sel;
}

Reducer::FreeRigid Reducer::free_rigid(const std::vector<std::string>& held) const {
  const auto sel = held_interfaces(held);
  const auto& bd = ws_.boundary();
  const Eigen::MatrixXd R0 = ws_.rigid_boundary_rows();
  std::vector<Eigen::Index> rows;
  for (std::size_t k = 0; k < bd.size(); ++k)
    if (std::binary_search(sel.begin(), sel.end(), bd[k].interface)) rows.push_back(static_cast<Eigen::Index>(k));
  // Null space of the held rows of Φ_Rb among the component's rigid motions (all 6, tx, ty, rz of a
  // 2-D one, or those its supports leave).
  Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), 6);
  for (std::size_t r = 0; r < rows.size(); ++r) A.row(static_cast<Eigen::Index>(r)) = R0.row(rows[r]);
  auto n = rigid_null_space(A, ws_.motions());
  FreeRigid fr;
  fr.Z = std::move(n.Z);
  fr.picks = std::move(n.picks);
  return fr;
}

const fe::ModeSet& Reducer::mixed_modes(const std::vector<std::string>& held) {
  const auto sel = held_interfaces(held);
  if (const auto it = mixed_.find(sel); it != mixed_.end()) return it->second;
  if (!opt_.modes.band_hz && opt_.modes.count == 0) return mixed_[sel] = fe::ModeSet{};
  MPI_Comm comm = ws_.comm();
  log::Phase p(comm, "cms: mixed-interface modes", &times_);
  const auto n_rigid = static_cast<std::size_t>(free_rigid(held).Z.cols());
  std::string sets;
  for (int i : sel) sets += (sets.empty() ? "" : ", ") + ws_.interfaces()[static_cast<std::size_t>(i)].set;
  // The working DOFs except the boundary coordinates of the held interfaces.
  std::vector<PetscInt> held_work;
  for (const auto& b : ws_.boundary())
    if (std::binary_search(sel.begin(), sel.end(), b.interface)) held_work.push_back(b.work);
  fe::ModeOptions o = opt_.modes;
  o.constrained = n_rigid == 0; // then solve_modes refuses any zero-energy mode as a mechanism
  o.constraint_description = "the interfaces [" + sets + "] held fixed (mixed-interface modes)";
  o.prefix = opt_.prefix + "mixed_";
  // The free-DOF submatrices and their solver, kept across update_operators (refilled, not rebuilt).
  auto& mp = mixed_problems_[sel];
  if (!mp) {
    mp = std::make_unique<MixedProblem>();
    mp->is_f = complement(ws_, std::move(held_work));
    mp->Kff = submatrix(ws_.K(), mp->is_f.get(), mp->is_f.get());
    mp->Mff = submatrix(ws_.M(), mp->is_f.get(), mp->is_f.get());
    mp->solver = std::make_unique<fe::ModeSolver>(o);
  } else if (mp->stale) {
    refill_submatrix(ws_.K(), mp->is_f.get(), mp->is_f.get(), mp->Kff);
    refill_submatrix(ws_.M(), mp->is_f.get(), mp->is_f.get(), mp->Mff);
    mp->stale = false;
  }
  const IS is_f = mp->is_f.get();
  fe::ModeSet ms = mp->solver->solve(mp->Kff.get(), mp->Mff.get(), ws_.component().K(), ws_.component().M());
  // The zero eigenvalues are skipped by solve_modes (rigid_eigenvalues); there must be exactly as
  // many as rigid motions the held coordinates leave free. A band above 0 Hz does not see them.
  const bool sees_zero = !opt_.modes.band_hz || opt_.modes.band_hz->first == 0;
  const std::size_t found = ms.rigid_eigenvalues.size();
  FLEXUQ_REQUIRE(!sees_zero || found <= n_rigid,
                 "mechanism: " << found << " zero-energy modes with " << o.constraint_description
                               << ", but holding them leaves only " << n_rigid
                               << " rigid-body motion(s) (rank of their rigid-mode rows: " << ws_.motion_count() - static_cast<int>(n_rigid)
                               << "); the component has a mechanism or disconnected parts");
  if (sees_zero && found < n_rigid)
    throw Error(FLEXUQ_MSG("mixed-interface modes: the eigensolver found " << found << " zero-energy modes with "
                                                                          << o.constraint_description << ", expected "
                                                                          << n_rigid << "; raise -" << o.prefix
                                                                          << "eps_ncv or check " << o.key << ".tol"));
  ms.rigid_vectors.clear(); // not padded, not needed: the rigid motions are Φ_R free_rigid().Z
  pad(ws_, ms.vectors, is_f);
  ws_.canonical_sign(ms.vectors); // a sign of the geometry, not of the round-off
  ws_.canonical_multiplets(ms.vectors, ms.eigenvalues);
  return mixed_[sel] = std::move(ms);
}

const std::vector<VecH>& Reducer::attachment() {
  if (!attachment_.empty() || ws_.n_boundary() == 0) return attachment_;
  MPI_Comm comm = ws_.comm();
  const auto& R = rigid();
  // Inverse on the component's rigid motions (all 6; tx, ty, rz of a 2-D component, whose tz, rx, ry
  // vanish; those its supports leave, none on supports that ground it).
  const Eigen::MatrixXd Ps = ws_.motions();
  const Eigen::MatrixXd Mrr_inv = Ps.cols() == 0 ? Eigen::MatrixXd::Zero(6, 6)
                                                 : Eigen::MatrixXd(Ps * (Ps.transpose() * rigid_mass() * Ps).inverse() * Ps.transpose());
  if (attach_ && attach_->stale) {
    log::Phase p(comm, "cms: refactor K (determinate set clamped)", &times_);
    refactor(ws_, attach_->is_f.get(), attach_->Kff, attach_->ksp.get(), attach_->defaults);
    attach_->stale = false;
  }
  if (!attach_) {
    log::Phase p(comm, "cms: factor K (determinate set clamped)", &times_);
    double rc = 0;
    const auto det = ws_.determinate_set(false, &rc);
    FLEXUQ_REQUIRE(static_cast<int>(det.size()) == ws_.motion_count(),
                   "no statically determinate support set found (the component's rigid-body modes have rank "
                       << det.size() << " < " << ws_.motion_count() << ")");
    attach_ = std::make_unique<Attach>();
    std::vector<PetscInt> clamped;
    for (const auto& b : det) clamped.push_back(b.work);
    attach_->is_f = complement(ws_, std::move(clamped));
    attach_->Kff = submatrix(ws_.K(), attach_->is_f.get(), attach_->is_f.get());
    flag_spd(attach_->Kff.get()); // a statically determinate set clamped: positive definite
    FLEXUQ_PETSC(KSPCreate(comm, attach_->ksp.out()));
    FLEXUQ_PETSC(KSPSetOperators(attach_->ksp.get(), attach_->Kff.get(), attach_->Kff.get()));
    const std::string prefix = opt_.prefix + "attach_";
    FLEXUQ_PETSC(KSPSetOptionsPrefix(attach_->ksp.get(), prefix.c_str()));
    la::setup_mumps_cholesky(attach_->ksp.get(), prefix, attach_->defaults);
    const auto scope = attach_->defaults.apply();
    FLEXUQ_PETSC(KSPSetFromOptions(attach_->ksp.get()));
    FLEXUQ_PETSC(KSPSetUp(attach_->ksp.get()));
  }
  log::Phase p(comm, "cms: attachment modes", &times_);
  // y_c = P e_c = e_c − MΦ_R M̄_RR⁻¹ Φ_Rᵀ e_c; solve K_ff x_f = y_f; G_b e_c = Pᵀx.
  std::vector<VecH> MR;
  for (const auto& r : R) {
    VecH t = ws_.new_vector();
    FLEXUQ_PETSC(MatMult(ws_.M(), r.get(), t.get()));
    MR.push_back(std::move(t));
  }
  const auto& bd = ws_.boundary();
  const Eigen::MatrixXd Rb = boundary_rows(R);
  const int block = opt_.solve_block > 0 ? opt_.solve_block : default_solve_block(n_rows(attach_->Kff.get()));
  const std::size_t nb = bd.size(), chunk = static_cast<std::size_t>(block);
  VecH y = ws_.new_vector();
  log::Progress progress(comm, "attachment modes", static_cast<PetscInt>(nb));
  for (std::size_t c0 = 0; c0 < nb; c0 += chunk) { // blocks of reduce.solve_block right-hand sides
    const std::size_t c1 = std::min(nb, c0 + chunk);
    MatH B = dense_like(attach_->Kff.get(), static_cast<PetscInt>(c1 - c0));
    for (std::size_t k = c0; k < c1; ++k) {
      FLEXUQ_PETSC(VecZeroEntries(y.get()));
      const Eigen::VectorXd a = -(Mrr_inv * Rb.row(static_cast<Eigen::Index>(k)).transpose());
      axpy_all(y.get(), a, MR);
      PetscInt lo = 0, hi = 0;
      FLEXUQ_PETSC(VecGetOwnershipRange(y.get(), &lo, &hi));
      if (bd[k].work >= lo && bd[k].work < hi) FLEXUQ_PETSC(VecSetValue(y.get(), bd[k].work, 1.0, ADD_VALUES));
      FLEXUQ_PETSC(VecAssemblyBegin(y.get()));
      FLEXUQ_PETSC(VecAssemblyEnd(y.get()));
      set_column(B.get(), static_cast<PetscInt>(k - c0), y.get(), attach_->is_f.get(), 1.0);
    }
    MatH X;
    FLEXUQ_PETSC(MatDuplicate(B.get(), MAT_DO_NOT_COPY_VALUES, X.out()));
    {
      const auto scope = attach_->defaults.apply();
      solve_columns(attach_->ksp.get(), B.get(), X.get(), block);
    }
    for (std::size_t k = c0; k < c1; ++k) {
      VecH x = get_column(ws_, X.get(), static_cast<PetscInt>(k - c0), attach_->is_f.get());
      const Eigen::VectorXd c = -(Mrr_inv * mdot(ws_.M(), x.get(), R, y.get()));
      axpy_all(x.get(), c, R);
      attachment_.push_back(std::move(x));
    }
    progress.update(static_cast<PetscInt>(c1));
  }
  return attachment_;
}

const std::vector<VecH>& Reducer::residual_attachment() {
  if (!residual_attachment_.empty()) return residual_attachment_;
  const auto& G = attachment();
  const auto& fm = free_modes();
  const Eigen::MatrixXd Nb = boundary_rows(fm.vectors);
  for (std::size_t k = 0; k < G.size(); ++k) {
    VecH v = copy(G[k].get());
    Eigen::VectorXd a(static_cast<Eigen::Index>(fm.vectors.size()));
    for (std::size_t n = 0; n < fm.vectors.size(); ++n)
      a(static_cast<Eigen::Index>(n)) = -Nb(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(n)) / fm.eigenvalues[n];
    axpy_all(v.get(), a, fm.vectors);
    residual_attachment_.push_back(std::move(v));
  }
  return residual_attachment_;
}

namespace {

/// The basis of one build under construction: columns with their labels and kinds, and the normal
/// modes (if any) the method expands.
struct Columns {
  ReducedBasis& rb;
  const WorkSpace& ws;
  const fe::ModeSet* modes = nullptr; ///< nullptr for Guyan
  bool mixed = false;

  void add(VecH v, std::string label, ColumnKind kind) {
    rb.columns.push_back(std::move(v));
    rb.labels.push_back(std::move(label));
    rb.kinds.push_back(kind);
  }
  /// One column per boundary coordinate, labelled @p prefix + its label.
  void add_boundary(const std::vector<VecH>& cols, ColumnKind kind, const std::string& prefix) {
    const auto& bd = ws.boundary();
    for (std::size_t k = 0; k < cols.size(); ++k) add(copy(cols[k].get()), prefix + bd[k].label, kind);
  }
  /// One column per rigid-body mode (tx … rz), labelled @p prefix + its name. @p cols are linear in
  /// the 6 rigid modes (Φ_R, H, Φ_R − WΦ_Rb): on single-component supports the columns are the
  /// combinations WorkSpace::motions() the supports leave, each named after its pick.
  void add_rigid(const std::vector<VecH>& cols, ColumnKind kind, const std::string& prefix) {
    if (ws.supported()) {
      const Eigen::MatrixXd& Z = ws.motions();
      for (Eigen::Index j = 0; j < Z.cols(); ++j) {
        VecH v = ws.new_vector();
        axpy_all(v.get(), Z.col(j), cols);
        add(std::move(v), prefix + kRigidNames[ws.motion_picks()[static_cast<std::size_t>(j)]], kind);
      }
      return;
    }
    for (std::size_t j = 0; j < cols.size(); ++j) {
      PetscReal norm = 0; // tz, rx, ry vanish on a 2-D component: not motions of it
      FLEXUQ_PETSC(VecNorm(cols[j].get(), NORM_INFINITY, &norm));
      if (norm > 0) add(copy(cols[j].get()), prefix + kRigidNames[j], kind);
    }
  }
  /// The normal modes (or @p replaced, one vector per mode) with their eigenvalues.
  void add_modes(const std::vector<VecH>* replaced = nullptr) {
    const ModeInterface mi = rb.mode_interface;
    const auto kind = mi == ModeInterface::fixed ? ColumnKind::fixed_interface_mode
                      : mixed                    ? ColumnKind::mixed_interface_mode
                                                 : ColumnKind::free_interface_mode;
    const std::string name = enum_name(kModeInterfaceNames, mi) + std::string("-interface mode ");
    for (std::size_t n = 0; n < modes->vectors.size(); ++n)
      add(replaced ? copy((*replaced)[n].get()) : copy(modes->vectors[n].get()), name + std::to_string(n + 1), kind);
    rb.mode_eigenvalues = modes->eigenvalues;
  }
  /// v_n − Σ_k W_k (rows b of v_n)_k for every v_n of @p vs: the vectors with their boundary rows
  /// taken out along the boundary-unit columns @p W (one per boundary coordinate).
  std::vector<VecH> minus_boundary_part(const Reducer& r, const std::vector<VecH>& vs, const std::vector<VecH>& W) const {
    const Eigen::MatrixXd Vb = r.boundary_rows(vs);
    std::vector<VecH> out;
    for (std::size_t n = 0; n < vs.size(); ++n) {
      VecH v = copy(vs[n].get());
      axpy_all(v.get(), -Vb.col(static_cast<Eigen::Index>(n)), W);
      out.push_back(std::move(v));
    }
    return out;
  }
};

/// Guyan [Φ_C] and Craig–Bampton [Φ_C Φ_N] (fixed-interface modes): physical boundary coordinates.
void constraint_mode_basis(Reducer& r, Columns& c, Method m) {
  c.add_boundary(r.constraint_modes(), ColumnKind::boundary_dof, "");
  if (m == Method::craig_bampton) c.add_modes();
  c.rb.physical_boundary = true;
}

/// Hurty: [Φ_R, the constraint modes of the boundary coordinates outside a statically determinate
/// set r, Φ_N].
void hurty_basis(Reducer& r, Columns& c) {
  const auto& ws = r.space();
  const auto& bd = ws.boundary();
  const auto det = ws.determinate_set(true);
  FLEXUQ_REQUIRE(static_cast<int>(det.size()) == ws.motion_count(),
                 "hurty needs Phi_Rr invertible: the boundary coordinates determine only "
                     << det.size() << " of the " << ws.motion_count() << " rigid-body motions");
  c.add_rigid(r.rigid(), ColumnKind::rigid_body, "rigid-body mode ");
  const auto& C = r.constraint_modes();
  for (std::size_t k = 0; k < bd.size(); ++k)
    if (std::none_of(det.begin(), det.end(), [&](const BoundaryDof& x) { return x.work == bd[k].work; }))
      c.add(copy(C[k].get()), "constraint mode " + bd[k].label, ColumnKind::constraint_mode);
  c.add_modes();
}

/// Herting [Φ_C, H, Φ_N − Φ_C Φ_Nb] (physical boundary) and Hintz's constraint-mode method
/// [Φ_C, H, Φ_N], with free, fixed or mixed normal modes.
void herting_hintz_basis(Reducer& r, Columns& c, Method m, const BuildOptions& opt) {
  const bool her = m == Method::herting;
  const auto& ws = r.space();
  c.add_boundary(r.constraint_modes(), her ? ColumnKind::boundary_dof : ColumnKind::constraint_mode,
                 her ? "" : "constraint mode ");
  // H for the rigid modes consistent with the modes' constraints (Wevers 2024, §2.2 on Hintz's
  // method: "only the rigid-body modes that are not suppressed by the constraints are included"):
  // all 6 for free modes, none for fixed ones, and for mixed ones H Z = −K_ii⁻¹(MΦ_R Z)_i, Φ_R Z the
  // rigid modes that vanish at the held coordinates (the Φ_R of the mixed eigenproblem's
  // inertia-relief projector).
  const ModeInterface mi = c.rb.mode_interface;
  if (mi == ModeInterface::free) c.add_rigid(r.inertia_relief(), ColumnKind::inertia_relief, "inertia-relief mode ");
  if (c.mixed) {
    const auto fr = r.free_rigid(opt.fixed_interfaces);
    for (Eigen::Index j = 0; j < fr.Z.cols(); ++j) {
      VecH v = ws.new_vector();
      axpy_all(v.get(), fr.Z.col(j), r.inertia_relief());
      c.add(std::move(v), std::string("inertia-relief mode ") + kRigidNames[fr.picks[static_cast<std::size_t>(j)]],
            ColumnKind::inertia_relief);
    }
  }
  if (her && mi != ModeInterface::fixed) {
    const auto shifted = c.minus_boundary_part(r, c.modes->vectors, r.constraint_modes()); // Φ_N − Φ_C Φ_Nb
    c.add_modes(&shifted);
  } else {
    c.add_modes();
  }
  c.rb.physical_boundary = her;
}

/// Hintz's attachment-mode method [Φ_R, Φ_N, G_b] and Craig–Chang [Φ_R, Φ_N, Gʳ_b] (free modes).
void attachment_basis(Reducer& r, Columns& c, Method m) {
  c.add_rigid(r.rigid(), ColumnKind::rigid_body, "rigid-body mode ");
  c.add_modes();
  if (m == Method::hintz_attachment)
    c.add_boundary(r.attachment(), ColumnKind::attachment, "attachment mode ");
  else
    c.add_boundary(r.residual_attachment(), ColumnKind::residual_attachment, "residual attachment mode ");
}

/// Rubin–Martinez and MacNeal: the Craig–Chang basis transformed to physical boundary coordinates,
/// W = Gʳ_b Gʳ_bb⁻¹, [W, Φ_R − WΦ_Rb, Φ_N − WΦ_Nb]; MacNeal drops the residual inertia from M̄.
void residual_flexibility_basis(Reducer& r, Columns& c, Method m) {
  const auto& ws = r.space();
  const auto& Gr = r.residual_attachment();
  const auto* modes = c.modes;
  const std::size_t nb = ws.n_boundary();
  PetscInt N = 0;
  FLEXUQ_PETSC(MatGetSize(ws.K(), &N, nullptr));
  const auto nr = static_cast<PetscInt>(ws.motion_count());
  FLEXUQ_REQUIRE(static_cast<PetscInt>(nb + modes->vectors.size()) + nr <= N,
                 method_name(m) << " needs Gr_bb invertible: rank(Gr) = N - n_R - n_N = "
                                << N - nr - static_cast<PetscInt>(modes->vectors.size()) << " < n_b = " << nb);
  const Eigen::MatrixXd Grbb = r.boundary_rows(Gr);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (Grbb + Grbb.transpose()));
  const double lmax = es.eigenvalues().cwiseAbs().maxCoeff(), lmin = es.eigenvalues().minCoeff();
  FLEXUQ_REQUIRE(lmax > 0 && lmin > 1e-12 * lmax,
                 method_name(m) << " needs Gr_bb invertible, but its eigenvalues range over [" << lmin << ", " << lmax
                                << "] (a boundary load equal to a rigid-body inertia load, or too many modes for the "
                                   "boundary size); use fewer modes or another method");
  const Eigen::MatrixXd Ginv = es.eigenvectors() * es.eigenvalues().cwiseInverse().asDiagonal() * es.eigenvectors().transpose();
  std::vector<VecH> W;
  for (std::size_t k = 0; k < nb; ++k) {
    VecH v = ws.new_vector();
    axpy_all(v.get(), Ginv.col(static_cast<Eigen::Index>(k)), Gr);
    W.push_back(std::move(v));
  }
  c.add_boundary(W, ColumnKind::boundary_dof, "");
  c.add_rigid(c.minus_boundary_part(r, r.rigid(), W), ColumnKind::rigid_body, "rigid-body mode ");
  const auto Ns = c.minus_boundary_part(r, modes->vectors, W);
  c.add_modes(&Ns);
  c.rb.physical_boundary = true;
  if (m == Method::macneal) {
    // Residual inertia neglected: M̄ = M̄_RM − X_fᵀ (Gʳ_bᵀ M Gʳ_b) X_f, X_f = Gʳ_bb⁻¹[1, −Φ_Rb, −Φ_Nb].
    // The rigid columns as add_rigid made them (the supports' motions on single-component supports).
    const Eigen::MatrixXd Rb = ws.supported() ? Eigen::MatrixXd(r.boundary_rows(r.rigid()) * ws.motions())
                                              : r.boundary_rows(r.rigid());
    const Eigen::MatrixXd Nb = r.boundary_rows(modes->vectors);
    Eigen::MatrixXd Xf(static_cast<Eigen::Index>(nb), static_cast<Eigen::Index>(nb + Rb.cols() + Nb.cols()));
    Xf << Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(nb), static_cast<Eigen::Index>(nb)), -Rb, -Nb;
    Xf = Ginv * Xf;
    c.rb.M = -(Xf.transpose() * la::project(ws.M(), Gr) * Xf);
  }
}

/// Generalized CMS (seed 001, Wijker et al.): Φ = [Φ_t Φ_r Φ_f] built from the node coordinates and
/// the kept free-free modes, preconditioned by cms::build_gcms; its diagnostics go with the basis.
void gcms_basis(Reducer& r, Columns& c, const GcmsOptions& opt) {
  const auto& ws = r.space();
  FLEXUQ_REQUIRE_OPTION(!ws.transformed(), "method",
                        "{} gcms works on the component's own DOFs: use interfaces of kind "
                        "all-dofs (they only label DOFs for the check-out), not rbe2/rbe3");
  FLEXUQ_REQUIRE_OPTION(!ws.supported(), "method",
                        "{} gcms is not implemented on single-component supports (its translation and rotation "
                        "fields are those of a free body): use another method, or model the whole component");
  auto g = build_gcms(ws.comm(), ws.component(), c.modes->vectors, opt, c.modes->eigenvalues);
  for (std::size_t k = 0; k < g.columns.size(); ++k) c.add(std::move(g.columns[k]), g.labels[k], ColumnKind::gcms_field);
  c.rb.mode_eigenvalues = c.modes->eigenvalues;
  c.rb.physical_boundary = false;
  c.rb.diagnostics = diagnostic_tables(g);
}

/// Residual vectors: the static responses to unit loads at the residual-load DOFs, M-orthogonalised
/// against the kept normal modes and each other (twice), dependent ones dropped.
void add_residual_vectors(Reducer& r, Columns& c) {
  const auto& ws = r.space();
  log::Phase p(ws.comm(), "cms: residual vectors", &r.times());
  const auto& loads = r.residual_loads();
  const auto& labels = r.residual_load_labels();
  std::vector<VecH> kept;
  VecH t = ws.new_vector();
  for (std::size_t j = 0; j < loads.size(); ++j) {
    VecH v = copy(loads[j].get());
    PetscScalar n0 = 0;
    FLEXUQ_PETSC(VecNorm(v.get(), NORM_2, &n0));
    for (int pass = 0; pass < 2; ++pass) {
      if (c.modes) axpy_all(v.get(), -mdot(ws.M(), v.get(), c.modes->vectors, t.get()), c.modes->vectors);
      axpy_all(v.get(), -mdot(ws.M(), v.get(), kept, t.get()), kept);
    }
    PetscScalar n1 = 0;
    FLEXUQ_PETSC(VecNorm(v.get(), NORM_2, &n1));
    if (n1 <= 1e-8 * n0) continue; // dependent on what the basis holds already
    FLEXUQ_PETSC(MatMult(ws.M(), v.get(), t.get()));
    PetscScalar mm = 0;
    FLEXUQ_PETSC(VecDot(t.get(), v.get(), &mm));
    FLEXUQ_PETSC(VecScale(v.get(), 1.0 / std::sqrt(PetscRealPart(mm))));
    c.add(copy(v.get()), labels[j], ColumnKind::residual_vector);
    kept.push_back(std::move(v));
  }
}

/// K̄ = ΦᵀKΦ, M̄ = ΦᵀMΦ (+ a method's own M̄ term), the column scaling of the generalised coordinates
/// and the rank diagnostic.
void finish_basis(Reducer& r, ReducedBasis& rb, Scaling scaling) {
  const auto& ws = r.space();
  {
    log::Phase p(ws.comm(), "cms: reduced matrices", &r.times());
    auto km = la::project_pair(ws.K(), ws.M(), rb.columns);
    rb.K = std::move(km.first);
    const Eigen::MatrixXd Mfull = std::move(km.second);
    rb.M = rb.M.size() ? Eigen::MatrixXd(Mfull + rb.M) : Mfull;
  }
  // Column scaling of the generalised coordinates: Φ ← Φ S, K̄ ← S K̄ S, M̄ ← S M̄ S.
  rb.scale.assign(rb.columns.size(), 1.0);
  if (scaling != Scaling::none) {
    for (std::size_t j = 0; j < rb.columns.size(); ++j) {
      if (rb.kinds[j] == ColumnKind::boundary_dof) continue;
      PetscReal s = 0;
      FLEXUQ_PETSC(VecNorm(rb.columns[j].get(), scaling == Scaling::max ? NORM_INFINITY : NORM_2, &s));
      if (s > 0) rb.scale[j] = 1.0 / s;
      FLEXUQ_PETSC(VecScale(rb.columns[j].get(), rb.scale[j]));
    }
    const Eigen::VectorXd S = Eigen::Map<const Eigen::VectorXd>(rb.scale.data(), static_cast<Eigen::Index>(rb.scale.size()));
    rb.K = S.asDiagonal() * rb.K * S.asDiagonal();
    rb.M = S.asDiagonal() * rb.M * S.asDiagonal();
  }
  // Rank diagnostic on the diagonally scaled reduced mass (MacNeal's M̄ is singular by design).
  if (rb.method != Method::macneal && rb.M.rows() > 0) {
    const Eigen::VectorXd d = rb.M.diagonal().cwiseMax(1e-300).cwiseSqrt().cwiseInverse();
    const Eigen::VectorXd ev = blas::syev_values(d.asDiagonal() * rb.M * d.asDiagonal());
    rb.basis_rcond = ev.minCoeff() / ev.maxCoeff();
    if (!(rb.basis_rcond > 1e-13)) {
      // A singular M̄ is not always a rank-deficient basis: a boundary coordinate may move massless
      // DOFs only — the rigid twist of a straight bar of Nastran CBARs, whose mass has no torsional
      // inertia (coupled or lumped), like Nastran's own MAA. The Gram matrix ΦᵀΦ of the columns
      // (diagonally scaled) tells the two apart: only a basis whose columns are dependent fails.
      const Eigen::MatrixXd X = la::local_block(rb.columns);
      Eigen::MatrixXd G = X.transpose() * X;
      FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, G.data(), static_cast<int>(G.size()), MPI_DOUBLE, MPI_SUM, ws.comm()));
      const Eigen::VectorXd g = G.diagonal().cwiseMax(1e-300).cwiseSqrt().cwiseInverse();
      const Eigen::VectorXd gev = blas::syev_values(g.asDiagonal() * G * g.asDiagonal());
      const double gram_rcond = gev.minCoeff() / gev.maxCoeff();
      FLEXUQ_REQUIRE(gram_rcond > 1e-13, method_name(rb.method) << " basis is rank-deficient (reciprocal condition of "
                                                                    "the scaled reduced mass " << rb.basis_rcond
                                                                 << "): remove duplicate residual loads or modes");
      const auto massless = (ev.array() <= 1e-13 * ev.maxCoeff()).count();
      log::warn(ws.comm(), std::string(method_name(rb.method)) + " basis: the reduced mass is singular (" + std::to_string(massless) +
                               " direction(s) with no mass, e.g. the twist of straight CBARs, which Nastran gives no "
                               "torsional inertia); the basis itself has full rank");
    }
  }
  // Seed 001 Eq. 70 / B14: the matrix Newmark (β = 1/4) factors, M̂ + τ²/4 K̂, is far worse conditioned
  // than Φ. τ is not given in the seed, so a few steps are reported: rows (τ, cond₂), τ = 0 is M̂.
  if (rb.method == Method::gcms && rb.M.rows() > 0) {
    const double taus[] = {0.0, 1e-5, 1e-4, 1e-3};
    Eigen::MatrixXd t(4, 2);
    for (int k = 0; k < 4; ++k) {
      const Eigen::MatrixXd j = rb.M + 0.25 * taus[k] * taus[k] * rb.K;
      const Eigen::VectorXd ev = blas::syev_values(0.5 * (j + j.transpose()));
      t(k, 0) = taus[k];
      t(k, 1) = ev.minCoeff() > 0 ? ev.maxCoeff() / ev.minCoeff() : std::numeric_limits<double>::infinity();
    }
    rb.diagnostics["gcms_cond_newmark"] = t;
  }
}

bool is_attachment_method(Method m) {
  return m == Method::hintz_attachment || m == Method::craig_chang || m == Method::rubin_martinez || m == Method::macneal;
}

/// The interface condition of the normal modes of @p opt.method (fixed for the Craig–Bampton family,
/// free otherwise, as @p opt asks where the method allows a choice; GCMS expands free-free modes).
ModeInterface mode_interface_of(const BuildOptions& opt) {
  const Method m = opt.method;
  const bool fixed_only = m == Method::craig_bampton || m == Method::hurty || m == Method::guyan;
  const bool mixed = opt.mode_interface == ModeInterface::mixed;
  FLEXUQ_REQUIRE_OPTION(!mixed || m == Method::herting || m == Method::hintz_constraint, "modes.interface",
                        "{}: mixed-interface modes are accepted by herting and hintz-constraint only "
                        "(Wevers 2024, ch. 2), not by "
                            << method_name(m));
  FLEXUQ_REQUIRE_OPTION(mixed || opt.fixed_interfaces.empty(), "modes.fixed_interfaces",
                        "{}: needs {modes.interface}: mixed");
  ModeInterface mi = fixed_only ? ModeInterface::fixed : ModeInterface::free;
  if (opt.mode_interface) {
    FLEXUQ_REQUIRE_OPTION(!(is_attachment_method(m) && *opt.mode_interface == ModeInterface::fixed), "modes.interface",
                          "{}: " << method_name(m)
                                 << " is an attachment-mode method, valid only with free-interface modes");
    FLEXUQ_REQUIRE_OPTION(!(fixed_only && m != Method::guyan && *opt.mode_interface == ModeInterface::free),
                          "modes.interface", "{}: " << method_name(m) << " uses fixed-interface modes only");
    mi = *opt.mode_interface;
  }
  if (m == Method::gcms) mi = ModeInterface::free;
  return mi;
}

} // namespace

ReducedBasis Reducer::build(const BuildOptions& opt) {
  struct InBuild { // marks the free_modes() calls made by a build
    bool& flag;
    explicit InBuild(bool& f) : flag(f) { flag = true; }
    ~InBuild() { flag = false; }
  } in_build(in_build_);
  const Method m = opt.method;
  ReducedBasis rb;
  rb.method = m;
  rb.mode_interface = mode_interface_of(opt);
  Columns c{rb, ws_};
  c.mixed = rb.mode_interface == ModeInterface::mixed;
  if (c.mixed) rb.fixed_interfaces = opt.fixed_interfaces;
  if (m != Method::guyan)
    c.modes = rb.mode_interface == ModeInterface::fixed ? &fixed_modes()
              : c.mixed                                 ? &mixed_modes(opt.fixed_interfaces)
                                                        : &free_modes();
  switch (m) {
  case Method::guyan:
  case Method::craig_bampton: constraint_mode_basis(*this, c, m); break;
  case Method::hurty: hurty_basis(*this, c); break;
  case Method::herting:
  case Method::hintz_constraint: herting_hintz_basis(*this, c, m, opt); break;
  case Method::hintz_attachment:
  case Method::craig_chang: attachment_basis(*this, c, m); break;
  case Method::rubin_martinez:
  case Method::macneal: residual_flexibility_basis(*this, c, m); break;
  case Method::gcms: gcms_basis(*this, c, opt.gcms); break;
  }
  if (opt.residual_vectors) {
    FLEXUQ_REQUIRE_OPTION(!is_attachment_method(m), "residual_vectors",
                          "{}: not available with " << method_name(m)
                                                    << " (an attachment-mode method; its residual flexibility already "
                                                       "covers interface loads)");
    FLEXUQ_REQUIRE_OPTION(!res_work_.empty(), "residual_vectors",
                          "{}: true needs {residual_loads} (node sets not on an "
                          "interface) to place the loads");
    add_residual_vectors(*this, c);
  }
  finish_basis(*this, rb, opt.scaling);
  return rb;
}

} // namespace flexuq::cms
