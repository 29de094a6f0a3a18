// SPDX-License-Identifier: MIT
#include "flexuq/fe/RecycledModes.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/la/BlockProduct.hpp"
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/Guards.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

namespace flexuq::fe {

namespace {

/// Local rows × columns of a block of distributed vectors (column-major, K's row layout).
using Block = Eigen::MatrixXd;
using RowBlock = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Directions of a block whose share of its own (scaled) Gram matrix's largest eigenvalue is below
/// this are dropped by svqb: they are round-off, not part of the space.
constexpr double kDropRelative = 1e-14;
/// A column left with less than this fraction of its Euclidean norm after the projection on the
/// basis is in the basis's span to round-off (CGS2 leaves ~1e-16 of it): dropped.
constexpr double kRemainderRelative = 1e-13;

/// Y = A X for local blocks, the sparse matrix streamed once per block (la::BlockProduct) where its
/// type allows, else one MatMult per column.
class BlockOperator {
public:
  explicit BlockOperator(Mat A) : A_(A) {
    if (la::BlockProduct::supports(A)) bp_ = std::make_unique<la::BlockProduct>(A);
  }
  Block apply(const Block& X) {
    PetscInt nloc = 0, N = 0;
    FLEXUQ_PETSC(MatGetLocalSize(A_, &nloc, nullptr));
    FLEXUQ_PETSC(MatGetSize(A_, &N, nullptr));
    Block Y(X.rows(), X.cols());
    if (X.cols() == 0) return Y;
    if (bp_) {
      const RowBlock Xr = X;
      RowBlock Yr(X.rows(), X.cols());
      bp_->apply(Xr.data(), static_cast<PetscInt>(X.cols()), Yr.data());
      Y = Yr;
      return Y;
    }
    MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(A_));
    for (Eigen::Index j = 0; j < X.cols(); ++j) {
      VecH x, y;
      FLEXUQ_PETSC(VecCreateMPIWithArray(comm, 1, nloc, N, X.col(j).data(), x.out()));
      FLEXUQ_PETSC(VecCreateMPIWithArray(comm, 1, nloc, N, Y.col(j).data(), y.out()));
      FLEXUQ_PETSC(MatMult(A_, x.get(), y.get()));
    }
    return Y;
  }

private:
  Mat A_;
  std::unique_ptr<la::BlockProduct> bp_;
};

/// Xᵀ Y summed over the ranks (replicated).
Eigen::MatrixXd inner(MPI_Comm comm, const Block& X, const Block& Y) {
  Eigen::MatrixXd G = X.transpose() * Y;
  if (G.size() > 0) FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, G.data(), static_cast<int>(G.size()), MPI_DOUBLE, MPI_SUM, comm));
  return G;
}

/// Squared Euclidean column norms summed over the ranks.
Eigen::VectorXd column_norms2(MPI_Comm comm, const Block& X) {
  Eigen::VectorXd n = X.colwise().squaredNorm().transpose();
  if (n.size() > 0) FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, n.data(), static_cast<int>(n.size()), MPI_DOUBLE, MPI_SUM, comm));
  return n;
}

/// diag(Xᵀ Y) summed over the ranks.
Eigen::VectorXd inner_diagonal(MPI_Comm comm, const Block& X, const Block& Y) {
  Eigen::VectorXd d = X.cwiseProduct(Y).colwise().sum().transpose();
  if (d.size() > 0) FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, d.data(), static_cast<int>(d.size()), MPI_DOUBLE, MPI_SUM, comm));
  return d;
}

/// SVQB: X ← X T with (X T)ᵀ M (X T) = I, MX updated alike; directions whose eigenvalue of the
/// diagonally scaled Gram matrix is below kDropRelative of the largest are dropped.
void svqb(MPI_Comm comm, Block& X, Block& MX) {
  if (X.cols() == 0) return;
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
  X = (X * T).eval();
  MX = (MX * T).eval();
}

/// Y ← (I − V Vᵀ M) Y twice (V M-orthonormal, MV = M V); columns left with less than
/// kRemainderRelative of their norm are dropped.
void project_out(MPI_Comm comm, const Block& V, const Block& MV, Block& Y) {
  const Eigen::VectorXd before = column_norms2(comm, Y);
  for (int pass = 0; pass < 2; ++pass) Y -= V * inner(comm, MV, Y);
  const Eigen::VectorXd after = column_norms2(comm, Y);
  std::vector<Eigen::Index> keep;
  for (Eigen::Index j = 0; j < Y.cols(); ++j)
    if (after(j) > kRemainderRelative * kRemainderRelative * before(j)) keep.push_back(j);
  if (static_cast<Eigen::Index>(keep.size()) == Y.cols()) return;
  Block Z(Y.rows(), static_cast<Eigen::Index>(keep.size()));
  for (std::size_t c = 0; c < keep.size(); ++c) Z.col(static_cast<Eigen::Index>(c)) = Y.col(keep[c]);
  Y = std::move(Z);
}

/// X = K⁻¹ B with the factorization @p ksp (MUMPS multi-RHS solve).
Block solve(KSP ksp, Mat K, const Block& B) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  PetscInt nloc = 0, N = 0;
  FLEXUQ_PETSC(MatGetLocalSize(K, &nloc, nullptr));
  FLEXUQ_PETSC(MatGetSize(K, &N, nullptr));
  const auto m = static_cast<PetscInt>(B.cols());
  Block Bc = B, X(B.rows(), B.cols());
  MatH Bm, Xm;
  FLEXUQ_PETSC(MatCreateDense(comm, nloc, PETSC_DECIDE, N, m, Bc.data(), Bm.out()));
  FLEXUQ_PETSC(MatCreateDense(comm, nloc, PETSC_DECIDE, N, m, X.data(), Xm.out()));
  FLEXUQ_PETSC(KSPMatSolve(ksp, Bm.get(), Xm.get()));
  return X;
}

} // namespace

RecycledPairs recycled_eigenpairs(Mat K, Mat M, KSP factor, const std::vector<VecH>& reference, const RecycleSettings& s) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  RecycledPairs out;
  PetscInt nloc = 0;
  FLEXUQ_PETSC(MatGetLocalSize(K, &nloc, nullptr));
  Block V(nloc, static_cast<Eigen::Index>(reference.size()));
  for (std::size_t j = 0; j < reference.size(); ++j) {
    const la::VecReadArray a(reference[j].get());
    FLEXUQ_ASSERT(a.size() == nloc, "recycled_eigenpairs: a reference vector has another layout than K");
    V.col(static_cast<Eigen::Index>(j)) = Eigen::Map<const Eigen::VectorXd>(a.data(), nloc);
  }
  BlockOperator Kop(K), Mop(M);
  Block MV = Mop.apply(V);
  svqb(comm, V, MV); // Φ_ref is M_ref-orthonormal, not M-orthonormal: twice, as for every block
  svqb(comm, V, MV);
  Block KV = Kop.apply(V);
  const auto width = static_cast<std::size_t>(V.cols()); // Ritz pairs carried: the reference's size
  Eigen::MatrixXd Kr = inner(comm, V, KV);
  for (int step = 1;; ++step) {
    out.subspace = static_cast<int>(V.cols());
    // Rayleigh–Ritz: Vᵀ K V z = λ z (V is M-orthonormal to round-off: SVQB twice per block).
    Kr = 0.5 * (Kr + Kr.transpose()).eval();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Kr);
    if (es.info() != Eigen::Success) {
      out.reason = "the Rayleigh-Ritz problem failed";
      return out;
    }
    const std::vector<double> ritz(es.eigenvalues().data(), es.eigenvalues().data() + es.eigenvalues().size());
    if (static_cast<int>(ritz.size()) <= s.count) {
      std::ostringstream os;
      os << "the recycled subspace has " << ritz.size() << " directions for " << s.count << " wanted pairs";
      out.reason = os.str();
      return out;
    }
    if (ritz[0] <= 0) {
      out.reason = "a Ritz value is not positive";
      return out;
    }
    const std::size_t nw = la::complete_multiplets(ritz, static_cast<std::size_t>(s.count), s.cluster_tol);
    if (nw == ritz.size()) {
      out.reason = "the multiplet at the cut reaches the top of the recycled subspace";
      return out;
    }
    // The wanted pairs and the guard pairs up to the reference's width: their residuals
    // R = KX − MXΛ, and E = K⁻¹R (one block solve), which is both the test and the next block.
    const auto ne = static_cast<Eigen::Index>(std::min(ritz.size(), std::max(width, nw)));
    const Eigen::MatrixXd Z = es.eigenvectors().leftCols(ne);
    const Block X = V * Z, KX = KV * Z, MX = MV * Z;
    Block R = KX;
    for (Eigen::Index j = 0; j < ne; ++j) R.col(j) -= ritz[static_cast<std::size_t>(j)] * MX.col(j);
    Block E = solve(factor, K, R);
    out.steps = step;
    Block ME = Mop.apply(E);
    const Eigen::VectorXd em = inner_diagonal(comm, E, ME), nr = column_norms2(comm, R), nk = column_norms2(comm, KX);
    // SLEPc's test of a shift-and-invert pair (σ = 0, A = K⁻¹M, θ = 1/λ, ‖x‖_M = 1):
    // ‖Ax − θx‖_M/|θ| = ‖K⁻¹(Kx − λMx)‖_M.
    out.errors.assign(nw, 0.0);
    out.residuals.assign(nw, 0.0);
    out.max_error = 0;
    out.max_residual = 0;
    int worst = 0;
    std::vector<Eigen::Index> grow;
    for (Eigen::Index j = 0; j < ne; ++j) {
      const double err = std::sqrt(std::max(0.0, em(j)));
      const bool wanted = j < static_cast<Eigen::Index>(nw);
      if (wanted) {
        const auto ju = static_cast<std::size_t>(j);
        out.errors[ju] = err;
        out.residuals[ju] = nk(j) > 0 ? std::sqrt(nr(j) / nk(j)) : std::sqrt(nr(j));
        out.max_residual = std::max(out.max_residual, out.residuals[ju]);
        if (err > out.max_error) {
          out.max_error = err;
          worst = static_cast<int>(j);
        }
      }
      if (!wanted || err > s.tol) grow.push_back(j);
    }
    if (out.max_error <= s.tol) {
      for (std::size_t j = 0; j < nw; ++j) {
        VecH v;
        FLEXUQ_PETSC(MatCreateVecs(K, v.out(), nullptr));
        {
          la::VecWriteArray a(v.get(), true);
          Eigen::Map<Eigen::VectorXd>(a.data(), nloc) = X.col(static_cast<Eigen::Index>(j));
        }
        out.values.push_back(ritz[j]);
        out.vectors.push_back(std::move(v));
      }
      return out;
    }
    if (step >= s.max_steps) {
      std::ostringstream os;
      os << "pair " << worst + 1 << " of " << nw << " has the error " << out.max_error << " > " << s.tol << " after "
         << step << " block solve" << (step == 1 ? "" : "s");
      out.reason = os.str();
      return out;
    }
    // The next block: E of the guard pairs and of the wanted pairs not converged yet.
    Block Y(nloc, static_cast<Eigen::Index>(grow.size()));
    for (std::size_t c = 0; c < grow.size(); ++c) Y.col(static_cast<Eigen::Index>(c)) = E.col(grow[c]);
    project_out(comm, V, MV, Y);
    Block MY = Mop.apply(Y);
    svqb(comm, Y, MY);
    project_out(comm, V, MV, Y); // the second pass of the block against the basis after SVQB
    MY = Mop.apply(Y);
    svqb(comm, Y, MY);
    if (Y.cols() == 0) {
      out.reason = "the recycled subspace stopped growing";
      return out;
    }
    const Block KY = Kop.apply(Y);
    const Eigen::Index q = V.cols(), y = Y.cols();
    // Kr grows by its new rows and columns only.
    Eigen::MatrixXd Kn(q + y, q + y);
    Kn.topLeftCorner(q, q) = Kr;
    const Eigen::MatrixXd C = inner(comm, V, KY), D = inner(comm, Y, KY);
    Kn.topRightCorner(q, y) = C;
    Kn.bottomLeftCorner(y, q) = C.transpose();
    Kn.bottomRightCorner(y, y) = D;
    Kr = std::move(Kn);
    V.conservativeResize(Eigen::NoChange, q + y);
    V.rightCols(y) = Y;
    MV.conservativeResize(Eigen::NoChange, q + y);
    MV.rightCols(y) = MY;
    KV.conservativeResize(Eigen::NoChange, q + y);
    KV.rightCols(y) = KY;
  }
}

} // namespace flexuq::fe
