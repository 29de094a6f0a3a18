// SPDX-License-Identifier: MIT
#include "flexuq/fe/RecycledModes.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/BlockOps.hpp"
#include "flexuq/la/Clusters.hpp"
#include "flexuq/la/Guards.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

namespace flexuq::fe {

using block::Block;

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
  block::Operator Kop(K), Mop(M);
  Block MV = Mop.apply(V);
  block::svqb(comm, V, MV); // Φ_ref is M_ref-orthonormal, not M-orthonormal: twice, as for every block
  block::svqb(comm, V, MV);
  Block KV = Kop.apply(V);
  const auto width = static_cast<std::size_t>(V.cols()); // Ritz pairs carried: the reference's size
  Eigen::MatrixXd Kr = block::inner(comm, V, KV);
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
    Block E = block::solve(factor, K, R);
    out.steps = step;
    Block ME = Mop.apply(E);
    const Eigen::VectorXd em = block::inner_diagonal(comm, E, ME), nr = block::column_norms2(comm, R), nk = block::column_norms2(comm, KX);
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
        out.values.push_back(ritz[j]);
        out.vectors.push_back(block::column_vec(K, X, static_cast<Eigen::Index>(j)));
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
    block::project_out(comm, V, MV, Y);
    Block MY = Mop.apply(Y);
    block::svqb(comm, Y, MY);
    block::project_out(comm, V, MV, Y); // the second pass of the block against the basis after SVQB
    MY = Mop.apply(Y);
    block::svqb(comm, Y, MY);
    if (Y.cols() == 0) {
      out.reason = "the recycled subspace stopped growing";
      return out;
    }
    const Block KY = Kop.apply(Y);
    const Eigen::Index q = V.cols(), y = Y.cols();
    // Kr grows by its new rows and columns only.
    Eigen::MatrixXd Kn(q + y, q + y);
    Kn.topLeftCorner(q, q) = Kr;
    const Eigen::MatrixXd C = block::inner(comm, V, KY), D = block::inner(comm, Y, KY);
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
