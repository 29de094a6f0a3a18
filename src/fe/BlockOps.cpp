// SPDX-License-Identifier: MIT
#include "flexuq/fe/BlockOps.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Handle.hpp"
#include "flexuq/la/Blas.hpp"
#include "flexuq/la/BlockProduct.hpp"
#include "flexuq/la/Guards.hpp"
#include "flexuq/la/MumpsBlockSolve.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace flexuq::fe::block {

namespace {
using RowBlock = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Directions of a block whose share of its own (scaled) Gram matrix's largest eigenvalue is below
/// this are dropped by svqb: they are round-off, not part of the space.
constexpr double kDropRelative = 1e-14;
/// A column left with less than this fraction of its Euclidean norm after the projection on the
/// basis is in the basis's span to round-off (CGS2 leaves ~1e-16 of it): dropped.
constexpr double kRemainderRelative = 1e-13;

} // namespace

PetscLogEvent event(Event e) {
  static const std::vector<PetscLogEvent> ids = [] {
    PetscClassId cid = 0;
    FLEXUQ_PETSC(PetscClassIdRegister("flexuq block", &cid));
    std::vector<PetscLogEvent> v(static_cast<std::size_t>(Event::Count));
    const char* names[] = {"BlkMProduct", "BlkInner", "BlkSVQB", "BlkProject", "BlkSolveCopy",
                           "BlkRayleighRitz", "BlkCheck", "BlkRestart", "BlkGrow"};
    for (std::size_t i = 0; i < v.size(); ++i) FLEXUQ_PETSC(PetscLogEventRegister(names[i], cid, &v[i]));
    return v;
  }();
  return ids[static_cast<std::size_t>(e)];
}

ScopedEvent::ScopedEvent(Event e) : e_(event(e)) { PetscLogEventBegin(e_, 0, 0, 0, 0); }
ScopedEvent::~ScopedEvent() { PetscLogEventEnd(e_, 0, 0, 0, 0); }

Operator::Operator(Mat A) : A_(A) {
  if (la::BlockProduct::supports(A)) bp_ = std::make_unique<la::BlockProduct>(A);
}

Operator::~Operator() = default;

Block Operator::apply(const Block& X) {
  PetscInt nloc = 0, N = 0;
  FLEXUQ_PETSC(MatGetLocalSize(A_, &nloc, nullptr));
  FLEXUQ_PETSC(MatGetSize(A_, &N, nullptr));
  Block Y(X.rows(), X.cols());
  if (X.cols() == 0) return Y;
  const ScopedEvent timed(Event::MProduct);
  if (bp_) {
    const RowBlock Xr = X;
    RowBlock Yr(X.rows(), X.cols());
    bp_->apply(Xr.data(), static_cast<PetscInt>(X.cols()), Yr.data());
    Y = Yr;
    return Y;
  }
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(A_));
  Block Xc = X;
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    VecH x, y;
    FLEXUQ_PETSC(VecCreateMPIWithArray(comm, 1, nloc, N, Xc.col(j).data(), x.out()));
    FLEXUQ_PETSC(VecCreateMPIWithArray(comm, 1, nloc, N, Y.col(j).data(), y.out()));
    FLEXUQ_PETSC(MatMult(A_, x.get(), y.get()));
  }
  return Y;
}

Eigen::MatrixXd inner(MPI_Comm comm, const Block& X, const Block& Y) {
  const ScopedEvent timed(Event::Inner);
  Eigen::MatrixXd G = blas::gemm_tn(X, Y); // BLAS-3 (DGEMM)
  if (G.size() > 0) FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, G.data(), static_cast<int>(G.size()), MPI_DOUBLE, MPI_SUM, comm));
  return G;
}

Eigen::VectorXd column_norms2(MPI_Comm comm, const Block& X) {
  Eigen::VectorXd n = X.colwise().squaredNorm().transpose();
  if (n.size() > 0) FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, n.data(), static_cast<int>(n.size()), MPI_DOUBLE, MPI_SUM, comm));
  return n;
}

Eigen::VectorXd inner_diagonal(MPI_Comm comm, const Block& X, const Block& Y) {
  Eigen::VectorXd d = X.cwiseProduct(Y).colwise().sum().transpose();
  if (d.size() > 0) FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, d.data(), static_cast<int>(d.size()), MPI_DOUBLE, MPI_SUM, comm));
  return d;
}

void svqb(MPI_Comm comm, Block& X, Block& MX) {
  if (X.cols() == 0) return;
  const ScopedEvent timed(Event::SVQB);
  Eigen::MatrixXd G = inner(comm, X, MX);
  G = 0.5 * (G + G.transpose()).eval();
  Eigen::VectorXd d(G.rows());
  for (Eigen::Index j = 0; j < G.rows(); ++j) d(j) = G(j, j) > 0 ? 1.0 / std::sqrt(G(j, j)) : 0.0;
  const Eigen::MatrixXd Gs = d.asDiagonal() * G * d.asDiagonal();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Gs);
  const Eigen::VectorXd& w = es.eigenvalues();
  const double top = w.size() ? w.maxCoeff() : 0.0;
  std::vector<Eigen::Index> keep;
  for (Eigen::Index k = 0; k < w.size(); ++k)
    if (w(k) > kDropRelative * top && w(k) > 0) keep.push_back(k);
  Eigen::MatrixXd T(G.rows(), static_cast<Eigen::Index>(keep.size()));
  for (std::size_t c = 0; c < keep.size(); ++c)
    T.col(static_cast<Eigen::Index>(c)) = d.asDiagonal() * es.eigenvectors().col(keep[c]) / std::sqrt(w(keep[c]));
  X = blas::gemm(X, false, T, false);
  MX = blas::gemm(MX, false, T, false);
}

void project_out(MPI_Comm comm, const Block& V, const Block& MV, Block& Y, const Eigen::MatrixXd* first) {
  const ScopedEvent timed(Event::Project);
  const Eigen::VectorXd before = column_norms2(comm, Y);
  FLEXUQ_ASSERT(!first || (first->rows() == V.cols() && first->cols() == Y.cols()), "project_out: the given coefficients do not fit");
  for (int pass = 0; pass < 2; ++pass) Y -= blas::gemm(V, false, pass == 0 && first ? *first : inner(comm, MV, Y), false);
  const Eigen::VectorXd after = column_norms2(comm, Y);
  std::vector<Eigen::Index> keep;
  for (Eigen::Index j = 0; j < Y.cols(); ++j)
    if (after(j) > kRemainderRelative * kRemainderRelative * before(j)) keep.push_back(j);
  if (static_cast<Eigen::Index>(keep.size()) == Y.cols()) return;
  Block Z(Y.rows(), static_cast<Eigen::Index>(keep.size()));
  for (std::size_t c = 0; c < keep.size(); ++c) Z.col(static_cast<Eigen::Index>(c)) = Y.col(keep[c]);
  Y = std::move(Z);
}

void rotate(Block& X, const Eigen::MatrixXd& Z) {
  FLEXUQ_ASSERT(Z.rows() == X.cols() && Z.cols() <= X.cols(), "rotate: Z does not fit X");
  const Eigen::Index n = X.rows(), d = X.cols(), k = Z.cols();
  // Row panels of a few hundred kB: the panel and Z stay in cache, and no second basis is allocated.
  const Eigen::Index panel = std::max<Eigen::Index>(64, 32768 / std::max<Eigen::Index>(1, d));
  Eigen::MatrixXd T(std::min(panel, n), k);
  for (Eigen::Index r0 = 0; r0 < n; r0 += panel) {
    const Eigen::Index m = std::min(panel, n - r0);
    blas::gemm("N", "N", m, k, d, X.data() + r0, std::max<Eigen::Index>(1, n), Z.data(), std::max<Eigen::Index>(1, d),
               T.data(), std::max<Eigen::Index>(1, T.rows()));
    X.block(r0, 0, m, k) = T.topRows(m);
  }
  X.conservativeResize(Eigen::NoChange, k);
}

Block solve(KSP ksp, Mat layout, const Block& B) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(layout));
  PetscInt nloc = 0, N = 0;
  FLEXUQ_PETSC(MatGetLocalSize(layout, &nloc, nullptr));
  FLEXUQ_PETSC(MatGetSize(layout, &N, nullptr));
  const auto m = static_cast<PetscInt>(B.cols());
  Block X(B.rows(), B.cols());
  if (m == 0) return X;
  Block Bc = B;
  MatH Bm, Xm;
  FLEXUQ_PETSC(MatCreateDense(comm, nloc, PETSC_DECIDE, N, m, Bc.data(), Bm.out()));
  FLEXUQ_PETSC(MatCreateDense(comm, nloc, PETSC_DECIDE, N, m, X.data(), Xm.out()));
  la::ksp_mat_solve(ksp, Bm.get(), Xm.get()); // KSPMatSolve, without PETSc's per-call scatter set-up on > 1 rank
  return X;
}

VecH column_vec(Mat layout, const Block& X, Eigen::Index j) {
  VecH v;
  FLEXUQ_PETSC(MatCreateVecs(layout, v.out(), nullptr));
  la::VecWriteArray a(v.get(), true);
  Eigen::Map<Eigen::VectorXd>(a.data(), X.rows()) = X.col(j);
  return v;
}

} // namespace flexuq::fe::block
