// SPDX-License-Identifier: MIT
#include "flexuq/sg/Galerkin.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/la/MumpsBlockSolve.hpp"
#include "flexuq/la/Solvers.hpp"
#include "flexuq/uq/TripleProduct.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace flexuq::sg {

// ---------------------------------------------------------------- layout
StochasticLayout::StochasticLayout(MPI_Comm world, int ranks_per_group)
    : world_(world), group_(MPI_COMM_SELF), across_(MPI_COMM_SELF), rpg_(ranks_per_group) {
  const int size = world_.size(), rank = world_.rank();
  FLEXUQ_REQUIRE_OPTION(ranks_per_group >= 1 && ranks_per_group <= size && size % ranks_per_group == 0,
                        "ranks_per_group",
                        "{} = " << ranks_per_group << " must divide the " << size
                                << " ranks (the Galerkin blocks are spread over equal rank groups)");
  n_groups_ = size / rpg_;
  group_ = world_.split_groups(rpg_, &group_index_);
  MPI_Comm a = MPI_COMM_NULL;
  FLEXUQ_MPI(MPI_Comm_split(world_.get(), rank % rpg_, rank, &a));
  across_ = Comm(a);
  MPI_Comm_free(&a);
}

// ---------------------------------------------------------------- triple tensor
double TripleTensor::value(int a, int b, int k) const {
  for (const auto& [bb, c] : rows.at(k).at(a))
    if (bb == b) return c;
  return 0.0;
}

TripleTensor triple_tensor(const std::vector<uq::PolynomialFamily>& families, const uq::MultiIndexSet& op,
                           const uq::MultiIndexSet& sol, double drop_tol) {
  FLEXUQ_REQUIRE(op.dim() == sol.dim() && static_cast<int>(families.size()) == op.dim(),
                 "sg: triple tensor: bases and families have different dimensions");
  TripleTensor t;
  t.n_operator = op.size();
  t.n_solution = sol.size();
  t.rows.assign(sol.size(), std::vector<std::vector<std::pair<int, double>>>(op.size()));
  const int M = op.dim();
  for (int k = 0; k < sol.size(); ++k)
    for (int a = 0; a < op.size(); ++a) {
      // Selection rule per dimension: |a_i − k_i| ≤ b_i ≤ a_i + k_i (cheap skip of most pairs).
      for (int b = 0; b < sol.size(); ++b) {
        bool possible = true;
        for (int i = 0; i < M && possible; ++i) {
          const int ai = op(a, i), bi = sol(b, i), ki = sol(k, i);
          possible = bi >= std::abs(ai - ki) && bi <= ai + ki;
        }
        if (!possible) continue;
        const double c = uq::triple_product(families, op.data(a), sol.data(b), sol.data(k));
        if (std::abs(c) > drop_tol) {
          t.rows[k][a].emplace_back(b, c);
          ++t.nonzeros;
        }
      }
    }
  return t;
}

TripleTensor regroup_by_terms(const TripleTensor& t, const Eigen::MatrixXd& C) {
  FLEXUQ_REQUIRE(C.rows() == t.n_operator && C.cols() > 0,
                 "sg: regroup: " << C.rows() << " x " << C.cols() << " coefficients for " << t.n_operator
                                 << " expansion terms");
  const int n = t.n_solution, T = static_cast<int>(C.cols());
  TripleTensor r;
  r.n_operator = T;
  r.n_solution = n;
  r.rows.assign(n, std::vector<std::vector<std::pair<int, double>>>(T));
  Eigen::MatrixXd D(n, n); // D_t(k, b)
  for (int term = 0; term < T; ++term) {
    D.setZero();
    for (int k = 0; k < n; ++k)
      for (int a = 0; a < t.n_operator; ++a) {
        const double ca = C(a, term);
        if (ca == 0.0) continue;
        for (const auto& [b, c] : t.rows[k][a]) D(k, b) += ca * c;
      }
    const double drop = 1e-15 * D.cwiseAbs().maxCoeff();
    for (int k = 0; k < n; ++k)
      for (int b = 0; b < n; ++b)
        if (std::abs(D(k, b)) > drop) {
          r.rows[k][term].emplace_back(b, D(k, b));
          ++r.nonzeros;
        }
  }
  return r;
}

MergedTerms merge_proportional_terms(const std::vector<Mat>& terms, const Eigen::MatrixXd& C, double tol) {
  FLEXUQ_REQUIRE(static_cast<Eigen::Index>(terms.size()) == C.cols(),
                 "sg: merge: " << terms.size() << " terms for " << C.cols() << " coefficient columns");
  MergedTerms out;
  const int T = static_cast<int>(terms.size());
  std::vector<int> into(T, -1); // the kept term a term is merged into
  std::vector<double> ratio(T, 0.0);
  bool same_pattern = true;
  if (T > 1) {
    MatInfo i0, it;
    FLEXUQ_PETSC(MatGetInfo(terms[0], MAT_GLOBAL_SUM, &i0));
    for (int t = 1; t < T && same_pattern; ++t) {
      FLEXUQ_PETSC(MatGetInfo(terms[t], MAT_GLOBAL_SUM, &it));
      same_pattern = it.nz_used == i0.nz_used;
    }
  }
  for (int j = 0; j < T && same_pattern; ++j)
    for (int i = 0; i < j && into[j] < 0; ++i) {
      if (into[i] >= 0) continue;
      const double ci = C.col(i).squaredNorm();
      if (ci == 0.0) continue;
      const double r = C.col(i).dot(C.col(j)) / ci;
      if ((C.col(j) - r * C.col(i)).norm() <= tol * C.col(j).norm()) {
        into[j] = i;
        ratio[j] = r;
      }
    }
  std::vector<int> kept;
  for (int t = 0; t < T; ++t)
    if (into[t] < 0) kept.push_back(t);
  out.coefficients.resize(C.rows(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t q = 0; q < kept.size(); ++q) {
    const int i = kept[q];
    out.coefficients.col(static_cast<Eigen::Index>(q)) = C.col(i);
    bool merged = false;
    for (int j = 0; j < T; ++j)
      if (into[j] == i) {
        if (!merged) {
          out.owned.emplace_back();
          FLEXUQ_PETSC(MatDuplicate(terms[i], MAT_COPY_VALUES, out.owned.back().out()));
          merged = true;
        }
        FLEXUQ_PETSC(MatAXPY(out.owned.back().get(), ratio[j], terms[j], SAME_NONZERO_PATTERN));
      }
    out.terms.push_back(merged ? out.owned.back().get() : terms[i]);
  }
  return out;
}

// ---------------------------------------------------------------- block space
BlockSpace::BlockSpace(const StochasticLayout& layout, int n_blocks, Mat fingerprint_mat, const std::string& partitioner_key)
    : layout_(&layout), n_blocks_(n_blocks) {
  FLEXUQ_REQUIRE(n_blocks >= 1, "sg: no stochastic blocks");
  PetscInt m = 0, n = 0, M = 0, N = 0;
  FLEXUQ_PETSC(MatGetLocalSize(fingerprint_mat, &m, &n));
  FLEXUQ_PETSC(MatGetSize(fingerprint_mat, &M, &N));
  n_local_ = m;
  N_ = M;
  // Every group must have the same spatial layout: same local sizes per group rank and the same
  // numbering (fingerprint Σ_i (i+1) diag_i over the group).
  const MPI_Comm across = layout.across();
  const long long nl = m;
  long long nmin = 0, nmax = 0;
  FLEXUQ_MPI(MPI_Allreduce(&nl, &nmin, 1, MPI_LONG_LONG, MPI_MIN, across));
  FLEXUQ_MPI(MPI_Allreduce(&nl, &nmax, 1, MPI_LONG_LONG, MPI_MAX, across));
  VecH d;
  FLEXUQ_PETSC(MatCreateVecs(fingerprint_mat, nullptr, d.out()));
  FLEXUQ_PETSC(MatGetDiagonal(fingerprint_mat, d.get()));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(VecGetOwnershipRange(d.get(), &lo, &hi));
  const PetscScalar* dv = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(d.get(), &dv));
  double fp = 0, scale = 0;
  for (PetscInt i = lo; i < hi; ++i) {
    fp += static_cast<double>(i + 1) * dv[i - lo];
    scale += static_cast<double>(i + 1) * std::abs(dv[i - lo]);
  }
  FLEXUQ_PETSC(VecRestoreArrayRead(d.get(), &dv));
  fp = allreduce_sum(layout.group(), fp);
  scale = allreduce_sum(layout.group(), scale);
  const double fmin = allreduce_min(layout.world(), fp), fmax = allreduce_max(layout.world(), fp);
  const bool same = nmin == nmax && std::abs(fmax - fmin) <= 1e-10 * std::max(scale, 1e-300);
  if (allreduce_or(layout.world(), !same))
    throw Error("sg: the rank groups hold the spatial operators in different numberings (their partitions "
                "differ: was SCOTCH_PTHREAD_NUMBER or -mat_partitioning_type changed?); use " + partitioner_key +
                ": average or one rank per group");

  const int G = layout.n_groups();
  first_of_group_.assign(G + 1, 0);
  for (int g = 0; g < G; ++g) first_of_group_[g + 1] = first_of_group_[g] + n_blocks / G + (g < n_blocks % G ? 1 : 0);
  first_ = first_of_group_[layout.group_index()];
  n_owned_ = first_of_group_[layout.group_index() + 1] - first_;

  // Gather scatter: every block's slice at this rank's spatial rows.
  VecH x = create_vec();
  const PetscInt* ranges = nullptr;
  FLEXUQ_PETSC(VecGetOwnershipRanges(x.get(), &ranges));
  int grank = 0;
  MPI_Comm_rank(layout.group(), &grank);
  std::vector<PetscInt> idx(static_cast<std::size_t>(n_blocks) * n_local_);
  for (int b = 0; b < n_blocks; ++b) {
    const int g = owner_group(b);
    const int src = g * layout.ranks_per_group() + grank;
    const PetscInt off = ranges[src] + static_cast<PetscInt>(b - first_of_group_[g]) * n_local_;
    for (PetscInt i = 0; i < n_local_; ++i) idx[static_cast<std::size_t>(b) * n_local_ + i] = off + i;
  }
  IsH from;
  FLEXUQ_PETSC(ISCreateGeneral(PETSC_COMM_SELF, static_cast<PetscInt>(idx.size()), idx.data(), PETSC_COPY_VALUES, from.out()));
  FLEXUQ_PETSC(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, static_cast<PetscInt>(idx.size()), nullptr, all_.out()));
  FLEXUQ_PETSC(VecScatterCreate(x.get(), from.get(), all_.get(), nullptr, gather_.out()));
}

int BlockSpace::owner_group(int block) const {
  const auto it = std::upper_bound(first_of_group_.begin(), first_of_group_.end(), block);
  return static_cast<int>(it - first_of_group_.begin()) - 1;
}

VecH BlockSpace::create_vec() const {
  VecH v;
  FLEXUQ_PETSC(VecCreateMPI(layout_->world(), static_cast<PetscInt>(n_owned_) * n_local_, PETSC_DETERMINE, v.out()));
  FLEXUQ_PETSC(VecZeroEntries(v.get()));
  return v;
}

VecH BlockSpace::create_spatial() const {
  VecH v;
  FLEXUQ_PETSC(VecCreateMPI(layout_->group(), n_local_, N_, v.out()));
  return v;
}

VecH BlockSpace::create_spatial_header() const {
  VecH v;
  FLEXUQ_PETSC(VecCreateMPIWithArray(layout_->group(), 1, n_local_, N_, nullptr, v.out()));
  return v;
}

void BlockSpace::gather_all(Vec x, std::vector<double>& out) const {
  out.resize(static_cast<std::size_t>(n_blocks_) * n_local_);
  FLEXUQ_PETSC(VecPlaceArray(all_.get(), out.data()));
  FLEXUQ_PETSC(VecScatterBegin(gather_.get(), x, all_.get(), INSERT_VALUES, SCATTER_FORWARD));
  FLEXUQ_PETSC(VecScatterEnd(gather_.get(), x, all_.get(), INSERT_VALUES, SCATTER_FORWARD));
  FLEXUQ_PETSC(VecResetArray(all_.get()));
}

void BlockSpace::gather_all_many(const std::vector<Vec>& xs, std::vector<std::vector<double>>& out) const {
  const std::size_t m = xs.size(), nl = static_cast<std::size_t>(n_local_);
  if (m == 0) return; // a batch size every rank shares
  if (out.size() < m) out.resize(m);
  const int G = layout_->n_groups(), g0 = layout_->group_index();
  // Counts in doubles per group (the `across` rank of group g is g); past int, one scatter each.
  std::vector<int> counts(static_cast<std::size_t>(G)), displs(static_cast<std::size_t>(G) + 1, 0);
  bool fits = true;
  for (int g = 0; g < G; ++g) {
    const double c = static_cast<double>(m) * (first_of_group_[g + 1] - first_of_group_[g]) * static_cast<double>(nl);
    fits = fits && c + displs[g] < 2147483647.0;
    counts[g] = fits ? static_cast<int>(c) : 0;
    displs[g + 1] = fits ? displs[g] + counts[g] : 0;
  }
  if (!fits) { // the same decision on every rank: the sizes are global
    for (std::size_t s = 0; s < m; ++s) gather_all(xs[s], out[s]);
    return;
  }
  const std::size_t own = static_cast<std::size_t>(n_owned_) * nl;
  send_.resize(m * own);
  for (std::size_t s = 0; s < m; ++s) {
    const PetscScalar* xa = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(xs[s], &xa));
    std::copy(xa, xa + own, send_.begin() + static_cast<std::ptrdiff_t>(s * own));
    FLEXUQ_PETSC(VecRestoreArrayRead(xs[s], &xa));
  }
  recv_.resize(static_cast<std::size_t>(displs[G]));
  FLEXUQ_MPI(MPI_Allgatherv(send_.data(), counts[static_cast<std::size_t>(g0)], MPI_DOUBLE, recv_.data(), counts.data(),
                            displs.data(), MPI_DOUBLE, layout_->across()));
  for (std::size_t s = 0; s < m; ++s) out[s].resize(static_cast<std::size_t>(n_blocks_) * nl);
  for (int g = 0; g < G; ++g) {
    const std::size_t ng = static_cast<std::size_t>(first_of_group_[g + 1] - first_of_group_[g]);
    for (std::size_t s = 0; s < m; ++s) {
      const double* from = recv_.data() + displs[static_cast<std::size_t>(g)] + s * ng * nl;
      std::copy(from, from + ng * nl, out[s].begin() + static_cast<std::ptrdiff_t>(first_of_group_[g] * nl));
    }
  }
}

void BlockSpace::set_owned(const std::vector<double>& all, Vec x) const {
  PetscScalar* xa = nullptr;
  FLEXUQ_PETSC(VecGetArray(x, &xa));
  std::copy(all.begin() + static_cast<std::ptrdiff_t>(first_) * n_local_,
            all.begin() + static_cast<std::ptrdiff_t>(first_ + n_owned_) * n_local_, xa);
  FLEXUQ_PETSC(VecRestoreArray(x, &xa));
}

// ---------------------------------------------------------------- operator
GalerkinOperator::GalerkinOperator(const BlockSpace& space, std::shared_ptr<const TripleTensor> tensor,
                                   std::vector<Mat> terms)
    : space_(&space), tensor_(std::move(tensor)), terms_(std::move(terms)) {
  FLEXUQ_REQUIRE(static_cast<int>(terms_.size()) == tensor_->n_operator && tensor_->n_solution == space.n_blocks(),
                 "sg: " << terms_.size() << " operator terms for a tensor of " << tensor_->n_operator << " x "
                        << tensor_->n_solution);
  z_.assign(static_cast<std::size_t>(std::max(space.n_owned(), 1)) * space.n_local(), 0.0);
  if (space.n_owned() > 0)
    FLEXUQ_PETSC(MatCreateDense(space.layout().group(), space.n_local(), PETSC_DECIDE, space.n_global(),
                                space.n_owned(), z_.data(), Z_.out()));
}

void GalerkinOperator::apply(Vec x, Vec y) const {
  // One gather of every block's slice, then per operator term a: Z_a = [Σ_b c_abk x_b]_k over the
  // owned k as one dense multi-vector and Y = K^(a) Z_a as one sparse × dense product (one ghost
  // exchange per term instead of one per term and block: the products are latency-bound).
  const auto& sp = *space_;
  const PetscInt nl = sp.n_local();
  const int no = sp.n_owned();
  sp.gather_all(x, all_);
  // Write y through VecGetArray on every rank, also on ranks without blocks: PETSc caches norms
  // per rank, and a cache left valid on some ranks only (VecZeroEntries sets it) would make
  // VecNorm skip its reduction there and deadlock the others.
  PetscScalar* ya = nullptr;
  FLEXUQ_PETSC(VecGetArray(y, &ya));
  std::fill(ya, ya + static_cast<std::ptrdiff_t>(no) * nl, 0.0);
  if (no == 0) { // a group without blocks (more groups than blocks)
    FLEXUQ_PETSC(VecRestoreArray(y, &ya));
    return;
  }
  for (int a = 0; a < tensor_->n_operator; ++a) {
    bool any = false;
    std::fill(z_.begin(), z_.end(), 0.0);
    for (int j = 0; j < no; ++j) {
      double* zj = z_.data() + static_cast<std::ptrdiff_t>(j) * nl;
      for (const auto& [b, c] : tensor_->rows[sp.first_block() + j][a]) {
        any = true;
        const double* xb = all_.data() + static_cast<std::ptrdiff_t>(b) * nl;
        for (PetscInt i = 0; i < nl; ++i) zj[i] += c * xb[i];
      }
    }
    if (!any) continue; // same decision on every rank of the group (same blocks)
    if (!product_) {
      FLEXUQ_PETSC(MatMatMult(terms_[a], Z_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, product_.out()));
    } else {
      // All terms share one nonzero pattern (fe::AffineOperator), so the symbolic product is reused.
      FLEXUQ_PETSC(MatProductReplaceMats(terms_[a], nullptr, nullptr, product_.get()));
      FLEXUQ_PETSC(MatProductNumeric(product_.get()));
    }
    const PetscScalar* pa = nullptr;
    FLEXUQ_PETSC(MatDenseGetArrayRead(product_.get(), &pa));
    const std::size_t len = static_cast<std::size_t>(no) * nl;
    for (std::size_t i = 0; i < len; ++i) ya[i] += pa[i];
    FLEXUQ_PETSC(MatDenseRestoreArrayRead(product_.get(), &pa));
  }
  FLEXUQ_PETSC(VecRestoreArray(y, &ya));
}

void GalerkinOperator::apply_many(const std::vector<Vec>& x, const std::vector<Vec>& y) const {
  // As apply, with the owned blocks of all m vectors side by side in one dense multi-vector: one
  // sparse × dense product (and one ghost exchange) per term for the whole batch.
  FLEXUQ_REQUIRE(x.size() == y.size(), "sg: apply_many: " << x.size() << " inputs for " << y.size() << " outputs");
  const auto& sp = *space_;
  const PetscInt nl = sp.n_local();
  const int no = sp.n_owned(), m = static_cast<int>(x.size());
  if (m == 0) return;
  if (static_cast<int>(all_many_.size()) < m) all_many_.resize(m);
  sp.gather_all_many(x, all_many_); // one exchange for the batch
  const std::size_t blk = static_cast<std::size_t>(no) * nl;
  std::vector<PetscScalar*> ya(m, nullptr);
  for (int s = 0; s < m; ++s) { // on every rank (norm caches, see apply)
    FLEXUQ_PETSC(VecGetArray(y[s], &ya[s]));
    std::fill(ya[s], ya[s] + blk, 0.0);
  }
  if (no > 0) {
    if (batch_ != m) { // the batch shrinks as systems converge: a new multi-vector per size
      productm_.reset();
      Zm_.reset();
      zm_.assign(static_cast<std::size_t>(m) * blk, 0.0);
      FLEXUQ_PETSC(MatCreateDense(sp.layout().group(), nl, PETSC_DECIDE, sp.n_global(),
                                  static_cast<PetscInt>(m) * no, zm_.data(), Zm_.out()));
      batch_ = m;
    }
    for (int a = 0; a < tensor_->n_operator; ++a) {
      bool any = false;
      std::fill(zm_.begin(), zm_.end(), 0.0);
      for (int s = 0; s < m; ++s)
        for (int j = 0; j < no; ++j) {
          double* zj = zm_.data() + static_cast<std::ptrdiff_t>(s) * blk + static_cast<std::ptrdiff_t>(j) * nl;
          for (const auto& [b, c] : tensor_->rows[sp.first_block() + j][a]) {
            any = true;
            const double* xb = all_many_[s].data() + static_cast<std::ptrdiff_t>(b) * nl;
            for (PetscInt i = 0; i < nl; ++i) zj[i] += c * xb[i];
          }
        }
      if (!any) continue;
      if (!productm_) {
        FLEXUQ_PETSC(MatMatMult(terms_[a], Zm_.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, productm_.out()));
      } else {
        FLEXUQ_PETSC(MatProductReplaceMats(terms_[a], nullptr, nullptr, productm_.get()));
        FLEXUQ_PETSC(MatProductNumeric(productm_.get()));
      }
      const PetscScalar* pa = nullptr;
      FLEXUQ_PETSC(MatDenseGetArrayRead(productm_.get(), &pa));
      for (int s = 0; s < m; ++s) {
        const PetscScalar* ps = pa + static_cast<std::ptrdiff_t>(s) * blk;
        for (std::size_t i = 0; i < blk; ++i) ya[s][i] += ps[i];
      }
      FLEXUQ_PETSC(MatDenseRestoreArrayRead(productm_.get(), &pa));
    }
  }
  for (int s = 0; s < m; ++s) FLEXUQ_PETSC(VecRestoreArray(y[s], &ya[s]));
}

PetscErrorCode GalerkinOperator::mult(Mat A, Vec x, Vec y) {
  void* ctx = nullptr;
  PetscCall(MatShellGetContext(A, &ctx));
  try {
    static_cast<const GalerkinOperator*>(ctx)->apply(x, y);
  } catch (const std::exception& e) {
    return PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_LIB, PETSC_ERROR_INITIAL,
                      "%s", e.what());
  }
  return 0;
}

Mat GalerkinOperator::shell() const {
  if (!shell_) {
    const PetscInt n = static_cast<PetscInt>(space_->n_owned()) * space_->n_local();
    FLEXUQ_PETSC(MatCreateShell(space_->layout().world(), n, n, PETSC_DETERMINE, PETSC_DETERMINE,
                                const_cast<GalerkinOperator*>(this), shell_.out()));
    FLEXUQ_PETSC(MatShellSetOperation(shell_.get(), MATOP_MULT, reinterpret_cast<void (*)(void)>(&mult)));
    FLEXUQ_PETSC(MatSetOption(shell_.get(), MAT_SYMMETRIC, PETSC_TRUE));
  }
  return shell_.get();
}

MatH GalerkinOperator::assemble() const {
  const auto& sp = *space_;
  const auto& L = sp.layout();
  const PetscInt nl = sp.n_local(), n = static_cast<PetscInt>(sp.n_owned()) * nl;
  VecH x = sp.create_vec();
  const PetscInt* vranges = nullptr;
  FLEXUQ_PETSC(VecGetOwnershipRanges(x.get(), &vranges));
  const PetscInt* cranges = nullptr;
  FLEXUQ_PETSC(MatGetOwnershipRangesColumn(terms_[0], &cranges));
  int grank = 0, gsize = 1, wrank = 0;
  MPI_Comm_rank(L.group(), &grank);
  MPI_Comm_size(L.group(), &gsize);
  MPI_Comm_rank(L.world(), &wrank);
  PetscInt rstart = 0, rend = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(terms_[0], &rstart, &rend));
  // Preallocation bound: max row length of the terms × blocks coupled to the row block.
  PetscInt rowmax = 0;
  for (PetscInt r = rstart; r < rend; ++r) {
    PetscInt nc = 0;
    FLEXUQ_PETSC(MatGetRow(terms_[0], r, &nc, nullptr, nullptr));
    rowmax = std::max(rowmax, nc);
    FLEXUQ_PETSC(MatRestoreRow(terms_[0], r, &nc, nullptr, nullptr));
  }
  int coupled = 0;
  for (int j = 0; j < sp.n_owned(); ++j) {
    std::vector<char> seen(sp.n_blocks(), 0);
    for (const auto& list : tensor_->rows[sp.first_block() + j])
      for (const auto& bc : list) seen[bc.first] = 1;
    coupled = std::max(coupled, static_cast<int>(std::count(seen.begin(), seen.end(), 1)));
  }
  MatH A;
  FLEXUQ_PETSC(MatCreateAIJ(L.world(), n, n, PETSC_DETERMINE, PETSC_DETERMINE, rowmax * coupled, nullptr,
                            rowmax * coupled, nullptr, A.out()));
  FLEXUQ_PETSC(MatSetOption(A.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  auto column = [&](int b, PetscInt gcol) {
    const int g = sp.owner_group(b);
    const int r = static_cast<int>(std::upper_bound(cranges, cranges + gsize + 1, gcol) - cranges) - 1;
    const PetscInt nl_r = cranges[r + 1] - cranges[r];
    const int src = g * L.ranks_per_group() + r;
    return vranges[src] + static_cast<PetscInt>(b - sp.first_block_of_group(g)) * nl_r + (gcol - cranges[r]);
  };
  std::vector<PetscInt> cols;
  std::vector<PetscScalar> vals;
  for (int j = 0; j < sp.n_owned(); ++j) {
    const int k = sp.first_block() + j;
    for (PetscInt r = rstart; r < rend; ++r) {
      const PetscInt grow = vranges[wrank] + static_cast<PetscInt>(j) * nl + (r - rstart);
      for (int a = 0; a < tensor_->n_operator; ++a)
        for (const auto& [b, c] : tensor_->rows[k][a]) {
          PetscInt nc = 0;
          const PetscInt* cj = nullptr;
          const PetscScalar* cv = nullptr;
          FLEXUQ_PETSC(MatGetRow(terms_[a], r, &nc, &cj, &cv));
          cols.resize(nc);
          vals.resize(nc);
          for (PetscInt q = 0; q < nc; ++q) {
            cols[q] = column(b, cj[q]);
            vals[q] = c * cv[q];
          }
          FLEXUQ_PETSC(MatRestoreRow(terms_[a], r, &nc, &cj, &cv)); // sets nc = 0
          FLEXUQ_PETSC(MatSetValues(A.get(), 1, &grow, static_cast<PetscInt>(cols.size()), cols.data(), vals.data(),
                                    ADD_VALUES));
        }
    }
  }
  FLEXUQ_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatSetOption(A.get(), MAT_SYMMETRIC, PETSC_TRUE));
  return A;
}

// ---------------------------------------------------------------- preconditioner
MeanPreconditioner::MeanPreconditioner(const BlockSpace& space, Mat A0, const std::string& what,
                                       const std::string& prefix)
    : space_(&space) {
  const MPI_Comm gc = space.layout().group();
  int gsize = 1;
  MPI_Comm_size(gc, &gsize);
  FLEXUQ_PETSC(KSPCreate(gc, ksp_.out()));
  FLEXUQ_PETSC(KSPSetOptionsPrefix(ksp_.get(), prefix.c_str()));
  FLEXUQ_PETSC(KSPSetOperators(ksp_.get(), A0, A0));
  // flexuq's MUMPS defaults live in the options database only while this solver reads them (the
  // factorisation below; la/Solvers.hpp): no option leaks to other groups or later solvers.
  la::SolverDefaults defaults;
  la::setup_mumps_cholesky(ksp_.get(), prefix, defaults);
  if (gsize > 1) defaults.set(prefix + "mat_mumps_icntl_13", "1"); // global inertia
  defaults.set(prefix + "mat_mumps_icntl_24", "1");                // null pivots counted
  FLEXUQ_PETSC(KSPSetErrorIfNotConverged(ksp_.get(), PETSC_FALSE));
  PetscErrorCode ierr = 0;
  {
    const auto scope = defaults.apply();
    FLEXUQ_PETSC(KSPSetFromOptions(ksp_.get()));
    ierr = KSPSetUp(ksp_.get());
  }
  PC pc = nullptr;
  FLEXUQ_PETSC(KSPGetPC(ksp_.get(), &pc));
  PCFailedReason reason = PC_NOERROR;
  if (ierr == 0) FLEXUQ_PETSC(PCGetFailedReason(pc, &reason));
  PetscInt nneg = 0, nzero = 0, npos = 0;
  if (ierr == 0 && reason == PC_NOERROR) {
    Mat F = nullptr;
    FLEXUQ_PETSC(PCFactorGetMatrix(pc, &F));
    FLEXUQ_PETSC(MatGetInertia(F, &nneg, &nzero, &npos));
  }
  const bool failed = allreduce_or(space.layout().world(), ierr != 0 || reason != PC_NOERROR);
  FLEXUQ_REQUIRE(!failed, "sg: the mean operator " << what << " is singular (its sparse factorisation failed); "
                              "the mean-based preconditioner and the Galerkin system need a positive definite mean "
                              "(fix more DOFs, or check the parameter means)");
  const double bad_neg = allreduce_max(space.layout().world(), static_cast<double>(nneg));
  const double bad_zero = allreduce_max(space.layout().world(), static_cast<double>(nzero));
  FLEXUQ_REQUIRE(bad_neg == 0 && bad_zero == 0,
                 "sg: the mean operator " << what << " is not positive definite: " << bad_neg << " negative and "
                                          << bad_zero << " zero pivots in its factorisation (check the parameter "
                                          "means and the fixed sets)");
}

void MeanPreconditioner::apply(Vec r, Vec z) const {
  // All owned blocks in one multi-right-hand-side solve with the one factorisation.
  const PetscInt nl = space_->n_local();
  const int no = space_->n_owned();
  const PetscScalar* ra = nullptr;
  PetscScalar* za = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(r, &ra));
  FLEXUQ_PETSC(VecGetArray(z, &za)); // on every rank: keeps PETSc's norm caches consistent
  if (no == 0) {
    FLEXUQ_PETSC(VecRestoreArray(z, &za));
    FLEXUQ_PETSC(VecRestoreArrayRead(r, &ra));
    if (kronecker()) mix_blocks(z); // the gather is collective (world)
    return;
  }
  MatH R, Z;
  const MPI_Comm gc = space_->layout().group();
  FLEXUQ_PETSC(MatCreateDense(gc, nl, PETSC_DECIDE, space_->n_global(), no, const_cast<PetscScalar*>(ra), R.out()));
  FLEXUQ_PETSC(MatCreateDense(gc, nl, PETSC_DECIDE, space_->n_global(), no, za, Z.out()));
  la::ksp_mat_solve(ksp_.get(), R.get(), Z.get()); // MUMPS's own block solve on a multi-rank group
  R.reset();
  Z.reset();
  FLEXUQ_PETSC(VecRestoreArray(z, &za));
  FLEXUQ_PETSC(VecRestoreArrayRead(r, &ra));
  if (kronecker()) mix_blocks(z);
}

void MeanPreconditioner::apply_many(const std::vector<Vec>& r, const std::vector<Vec>& z) const {
  FLEXUQ_REQUIRE(r.size() == z.size(), "sg: apply_many: " << r.size() << " inputs for " << z.size() << " outputs");
  const PetscInt nl = space_->n_local();
  const int no = space_->n_owned(), m = static_cast<int>(r.size());
  const std::size_t blk = static_cast<std::size_t>(no) * nl;
  std::vector<PetscScalar*> za(m, nullptr);
  for (int s = 0; s < m; ++s) FLEXUQ_PETSC(VecGetArray(z[s], &za[s])); // every rank: norm caches
  if (no > 0 && m > 0) {
    rbuf_.resize(static_cast<std::size_t>(m) * blk);
    zbuf_.resize(rbuf_.size());
    for (int s = 0; s < m; ++s) {
      const PetscScalar* ra = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(r[s], &ra));
      std::copy(ra, ra + blk, rbuf_.begin() + static_cast<std::ptrdiff_t>(s * blk));
      FLEXUQ_PETSC(VecRestoreArrayRead(r[s], &ra));
    }
    MatH R, Z;
    const MPI_Comm gc = space_->layout().group();
    const PetscInt cols = static_cast<PetscInt>(m) * no;
    FLEXUQ_PETSC(MatCreateDense(gc, nl, PETSC_DECIDE, space_->n_global(), cols, rbuf_.data(), R.out()));
    FLEXUQ_PETSC(MatCreateDense(gc, nl, PETSC_DECIDE, space_->n_global(), cols, zbuf_.data(), Z.out()));
    la::ksp_mat_solve(ksp_.get(), R.get(), Z.get());
    R.reset();
    Z.reset();
    for (int s = 0; s < m; ++s)
      std::copy(zbuf_.begin() + static_cast<std::ptrdiff_t>(s * blk),
                zbuf_.begin() + static_cast<std::ptrdiff_t>((s + 1) * blk), za[s]);
  }
  for (int s = 0; s < m; ++s) FLEXUQ_PETSC(VecRestoreArray(z[s], &za[s]));
  if (kronecker()) mix_blocks_many(z);
}

double frobenius_inner(MPI_Comm comm, Mat A, Mat B) {
  PetscInt lo = 0, hi = 0, lo2 = 0, hi2 = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(A, &lo, &hi));
  FLEXUQ_PETSC(MatGetOwnershipRange(B, &lo2, &hi2));
  FLEXUQ_REQUIRE(lo == lo2 && hi == hi2, "sg: frobenius_inner: the two matrices have different row layouts");
  double acc = 0;
  std::vector<PetscInt> bc;
  std::vector<PetscScalar> bv;
  for (PetscInt r = lo; r < hi; ++r) {
    // B's row copied first: MatGetRow allows one row of a matrix at a time (A may be B).
    PetscInt nb = 0;
    const PetscInt* cj = nullptr;
    const PetscScalar* cv = nullptr;
    FLEXUQ_PETSC(MatGetRow(B, r, &nb, &cj, &cv));
    bc.assign(cj, cj + nb);
    bv.assign(cv, cv + nb);
    FLEXUQ_PETSC(MatRestoreRow(B, r, &nb, &cj, &cv));
    PetscInt na = 0;
    FLEXUQ_PETSC(MatGetRow(A, r, &na, &cj, &cv));
    for (PetscInt i = 0, j = 0; i < na && j < static_cast<PetscInt>(bc.size());) { // columns sorted
      if (cj[i] < bc[j]) {
        ++i;
      } else if (bc[j] < cj[i]) {
        ++j;
      } else {
        acc += cv[i] * bv[j];
        ++i;
        ++j;
      }
    }
    FLEXUQ_PETSC(MatRestoreRow(A, r, &na, &cj, &cv));
  }
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &acc, 1, MPI_DOUBLE, MPI_SUM, comm));
  return acc;
}

Eigen::MatrixXd kronecker_block_factor(const GalerkinOperator& A, Mat mean) {
  const TripleTensor& t = A.tensor();
  const auto& terms = A.terms();
  FLEXUQ_REQUIRE(static_cast<int>(terms.size()) == t.n_operator,
                 "sg: kronecker_block_factor: " << terms.size() << " terms for " << t.n_operator << " tensor terms");
  MPI_Comm comm = MPI_COMM_NULL;
  FLEXUQ_PETSC(PetscObjectGetComm(reinterpret_cast<PetscObject>(mean), &comm));
  const double mm = frobenius_inner(comm, mean, mean);
  FLEXUQ_REQUIRE(mm > 0, "sg: the mean operator is zero (Kronecker preconditioner)");
  std::vector<double> w(terms.size());
  for (std::size_t a = 0; a < terms.size(); ++a) w[a] = frobenius_inner(comm, terms[a], mean) / mm;
  const int P = t.n_solution;
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(P, P);
  for (int k = 0; k < P; ++k)
    for (int a = 0; a < t.n_operator; ++a)
      for (const auto& [b, c] : t.rows[k][a]) G(k, b) += w[a] * c;
  return G;
}

void MeanPreconditioner::set_block_factor(const Eigen::MatrixXd& G, const std::string& what) {
  const int P = space_->n_blocks();
  FLEXUQ_REQUIRE(G.rows() == P && G.cols() == P,
                 "sg: " << what << " is " << G.rows() << " x " << G.cols() << " for " << P << " blocks");
  const Eigen::LLT<Eigen::MatrixXd> llt(0.5 * (G + G.transpose()));
  FLEXUQ_REQUIRE(llt.info() == Eigen::Success,
                 "sg: " << what << " (the stochastic factor of the Kronecker preconditioner) is not positive definite");
  Ginv_ = llt.solve(Eigen::MatrixXd::Identity(P, P));
  Ginv_ = 0.5 * (Ginv_ + Ginv_.transpose()).eval();
}

void MeanPreconditioner::mix_blocks(Vec z) const { mix_blocks_many({z}); }

void MeanPreconditioner::mix_blocks_many(const std::vector<Vec>& z) const {
  space_->gather_all_many(z, all_many_); // collective (world)
  const int no = space_->n_owned(), P = space_->n_blocks();
  if (no == 0) return;
  const Eigen::Index nl = space_->n_local();
  for (std::size_t s = 0; s < z.size(); ++s) {
    PetscScalar* za = nullptr;
    FLEXUQ_PETSC(VecGetArray(z[s], &za));
    const Eigen::Map<const Eigen::MatrixXd> Zall(all_many_[s].data(), nl, P);
    Eigen::Map<Eigen::MatrixXd> Zown(za, nl, no);
    Zown.noalias() = Zall * Ginv_.middleRows(space_->first_block(), no).transpose();
    FLEXUQ_PETSC(VecRestoreArray(z[s], &za));
  }
}

PetscErrorCode MeanPreconditioner::pc_apply(PC pc, Vec r, Vec z) {
  void* ctx = nullptr;
  PetscCall(PCShellGetContext(pc, &ctx));
  try {
    static_cast<const MeanPreconditioner*>(ctx)->apply(r, z);
  } catch (const std::exception& e) {
    return PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_LIB, PETSC_ERROR_INITIAL,
                      "%s", e.what());
  }
  return 0;
}

void MeanPreconditioner::install(PC pc) const {
  FLEXUQ_PETSC(PCSetType(pc, PCSHELL));
  FLEXUQ_PETSC(PCShellSetContext(pc, const_cast<MeanPreconditioner*>(this)));
  FLEXUQ_PETSC(PCShellSetApply(pc, &pc_apply));
  FLEXUQ_PETSC(PCShellSetName(pc, "sg mean-based I (x) K0^-1"));
}

// ---------------------------------------------------------------- batched PCG
namespace {
// Σ_i u_i v_i over this rank's entries, for each pair; one allreduce on @p comm for all of them.
std::vector<double> batched_dots(MPI_Comm comm, const std::vector<Vec>& u, const std::vector<Vec>& v) {
  std::vector<double> d(u.size(), 0.0);
  for (std::size_t s = 0; s < u.size(); ++s) {
    PetscInt n = 0;
    FLEXUQ_PETSC(VecGetLocalSize(u[s], &n));
    const PetscScalar *ua = nullptr, *va = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(u[s], &ua));
    FLEXUQ_PETSC(VecGetArrayRead(v[s], &va));
    double acc = 0;
    for (PetscInt i = 0; i < n; ++i) acc += ua[i] * va[i];
    d[s] = acc;
    FLEXUQ_PETSC(VecRestoreArrayRead(v[s], &va));
    FLEXUQ_PETSC(VecRestoreArrayRead(u[s], &ua));
  }
  if (!d.empty())
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, d.data(), static_cast<int>(d.size()), MPI_DOUBLE, MPI_SUM, comm));
  return d;
}
} // namespace

BatchedPcgResult batched_pcg(const GalerkinOperator& A, const MeanPreconditioner& pre, const std::vector<Vec>& b,
                             const std::vector<Vec>& x, double rtol, int max_it,
                             const std::function<void(int)>& on_iteration) {
  FLEXUQ_REQUIRE(b.size() == x.size(), "sg: batched PCG: " << b.size() << " right-hand sides for " << x.size()
                                                           << " solutions");
  const int m = static_cast<int>(b.size());
  const MPI_Comm world = A.space().layout().world();
  BatchedPcgResult res;
  res.iterations.assign(m, 0);
  if (m == 0) return res;
  std::vector<VecH> R, Z, P, Q;
  for (int s = 0; s < m; ++s) {
    R.push_back(A.space().create_vec());
    Z.push_back(A.space().create_vec());
    P.push_back(A.space().create_vec());
    Q.push_back(A.space().create_vec());
  }
  auto pick = [](const std::vector<VecH>& v, const std::vector<int>& idx) {
    std::vector<Vec> out;
    for (const int s : idx) out.push_back(v[s].get());
    return out;
  };
  std::vector<int> active(m);
  for (int s = 0; s < m; ++s) active[s] = s;
  // r = b − 𝒦x; the test is ‖r‖ ≤ rtol ‖b‖ (PETSc's default test with the unpreconditioned norm).
  A.apply_many(x, pick(Q, active));
  for (int s = 0; s < m; ++s) FLEXUQ_PETSC(VecWAXPY(R[s].get(), -1.0, Q[s].get(), b[s]));
  std::vector<double> bb = batched_dots(world, b, b), rr = batched_dots(world, pick(R, active), pick(R, active));
  std::vector<double> ttol(m), rho(m, 0.0);
  std::vector<int> next;
  for (int s = 0; s < m; ++s) {
    ttol[s] = rtol * std::sqrt(bb[s]);
    if (bb[s] == 0.0) {
      FLEXUQ_PETSC(VecZeroEntries(x[s])); // a zero right-hand side has the zero solution
      continue;
    }
    if (std::sqrt(rr[s]) > ttol[s]) next.push_back(s);
  }
  active.swap(next);
  if (!active.empty()) {
    pre.apply_many(pick(R, active), pick(Z, active));
    const auto rz = batched_dots(world, pick(R, active), pick(Z, active));
    for (std::size_t i = 0; i < active.size(); ++i) {
      rho[active[i]] = rz[i];
      FLEXUQ_PETSC(VecCopy(Z[active[i]].get(), P[active[i]].get()));
    }
  }
  auto fail = [&](int s, const std::string& why) {
    res.failed = s;
    res.reason = why;
    return res;
  };
  for (int it = 1; !active.empty(); ++it) {
    if (it > max_it) return fail(active.front(), "no convergence in " + std::to_string(max_it) + " iterations");
    A.apply_many(pick(P, active), pick(Q, active));
    const auto pq = batched_dots(world, pick(P, active), pick(Q, active));
    for (std::size_t i = 0; i < active.size(); ++i) {
      const int s = active[i];
      if (!(pq[i] > 0.0)) return fail(s, "the operator is indefinite (p^T K p <= 0)");
      const double alpha = rho[s] / pq[i];
      FLEXUQ_PETSC(VecAXPY(x[s], alpha, P[s].get()));
      FLEXUQ_PETSC(VecAXPY(R[s].get(), -alpha, Q[s].get()));
      res.iterations[s] = it;
    }
    rr = batched_dots(world, pick(R, active), pick(R, active));
    next.clear();
    for (std::size_t i = 0; i < active.size(); ++i)
      if (std::sqrt(rr[i]) > ttol[active[i]]) next.push_back(active[i]);
    active.swap(next);
    if (on_iteration) on_iteration(m - static_cast<int>(active.size()));
    if (active.empty()) break;
    pre.apply_many(pick(R, active), pick(Z, active));
    const auto rz = batched_dots(world, pick(R, active), pick(Z, active));
    for (std::size_t i = 0; i < active.size(); ++i) {
      const int s = active[i];
      const double beta = rz[i] / rho[s];
      if (!(beta >= 0.0)) return fail(s, "the preconditioner is indefinite (r^T z < 0)");
      rho[s] = rz[i];
      FLEXUQ_PETSC(VecAYPX(P[s].get(), beta, Z[s].get()));
    }
  }
  return res;
}

// ---------------------------------------------------------------- memory
double estimate_memory_bytes(long long P_alpha, long long P_beta, long long n_local, long long nnz_local,
                             long long n_vectors) {
  const double Pa = static_cast<double>(P_alpha), Pb = static_cast<double>(P_beta);
  const double ops = Pa * static_cast<double>(nnz_local) * 12.0 + Pa * static_cast<double>(n_local) * 8.0;
  const double vecs = static_cast<double>(n_vectors) * Pb * static_cast<double>(n_local) * 8.0 * 2.0; // owned + gathered (bound)
  const double tensor = Pa * Pb * std::min(Pa, Pb) * 16.0;
  const double gram = std::pow(static_cast<double>(n_vectors) * Pb, 2) * 8.0 * 2.0;
  return ops + vecs + tensor + gram;
}

double available_memory_bytes(MPI_Comm comm) {
  double avail = 0;
  std::ifstream in("/proc/meminfo");
  std::string key;
  double value = 0;
  std::string unit;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") {
      avail = value * 1024.0;
      break;
    }
  }
  if (avail <= 0) return 1e300; // unknown: do not refuse
  MPI_Comm node = MPI_COMM_NULL;
  FLEXUQ_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  return allreduce_min(comm, avail / local);
}

} // namespace flexuq::sg
