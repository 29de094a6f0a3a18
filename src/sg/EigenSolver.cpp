// SPDX-License-Identifier: MIT
#include "flexuq/sg/EigenSolver.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/la/Solvers.hpp"
#include "flexuq/la/Subspace.hpp"
#include "flexuq/uq/Quadrature.hpp"

#include <petscviewerhdf5.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <cmath>
#include <memory>
#include <numeric>

namespace flexuq::sg {

uq::Pce EigenResult::eigenvalue_pce(const std::vector<uq::PolynomialFamily>& families) const {
  return uq::Pce(families, basis, eigenvalues);
}

uq::Pce frequency_pce(const uq::Pce& eigenvalues, const uq::StochasticSpace& space, int* negative_nodes) {
  const int d = space.dim();
  int p = 0;
  for (int t = 0; t < eigenvalues.basis().size(); ++t) p = std::max(p, eigenvalues.basis().degree(t));
  int n = p + 4;
  while (n > p + 1 && std::pow(static_cast<double>(n), d) > 1e6) --n;
  const uq::Quadrature rule = space.gauss_rule(n);
  Eigen::MatrixXd f = eigenvalues.evaluate(rule.points);
  int negative = 0;
  for (Eigen::Index i = 0; i < f.size(); ++i) {
    if (f(i) < 0) ++negative;
    f(i) = std::sqrt(std::max(f(i), 0.0)) / (2 * M_PI);
  }
  if (negative_nodes) *negative_nodes = negative;
  return uq::Pce::fit_projection(eigenvalues.families(), eigenvalues.basis(), rule, f);
}

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

std::shared_ptr<TripleTensor> identity_tensor(int P) {
  auto t = std::make_shared<TripleTensor>();
  t->n_operator = 1;
  t->n_solution = P;
  t->rows.assign(P, std::vector<std::vector<std::pair<int, double>>>(1));
  for (int k = 0; k < P; ++k) t->rows[k][0].emplace_back(k, 1.0);
  t->nonzeros = P;
  return t;
}

// Checkpoint of the inverse subspace iteration (EigenOptions::checkpoint): the iterated block
// vectors and the scalars the next sweep depends on (sweep, sine → PCG tolerance, the eigenvalue
// coefficients → initial guesses), so a resumed solve continues bit for bit. The file only fits the same job on the same
// layout: its fingerprint (sizes, layout, options that change the iteration, mean eigenvalues) is
// checked, and a mismatch means solving anew.
struct Checkpoint {
  int iteration = 0;
  double change = 1.0;
  long long pcg = 0;
  std::vector<double> lam; // P × n eigenvalue coefficients, column-major
  std::string preconditioner; // its name (attribute "preconditioner" of "/"); empty: not recorded
};

std::vector<double> checkpoint_fingerprint(const std::vector<VecH>& U, const StochasticLayout& L, int P,
                                           const EigenOptions& o, const std::vector<double>& mean) {
  PetscInt N = 0;
  FLEXUQ_PETSC(VecGetSize(U.at(0).get(), &N));
  int size = 0;
  MPI_Comm_size(L.world(), &size);
  std::vector<double> f{static_cast<double>(N), static_cast<double>(P), static_cast<double>(U.size()),
                        static_cast<double>(L.n_groups()), static_cast<double>(L.ranks_per_group()),
                        static_cast<double>(size), static_cast<double>(o.order), o.ritz ? 1.0 : 0.0};
  f.insert(f.end(), mean.begin(), mean.end());
  return f;
}

void write_checkpoint(const std::string& path, MPI_Comm world, const std::vector<VecH>& U, const Checkpoint& c,
                      const std::vector<double>& fingerprint) {
  const std::string tmp = path + ".tmp";
  {
    ViewerH v;
    FLEXUQ_PETSC(PetscViewerHDF5Open(world, tmp.c_str(), FILE_MODE_WRITE, v.out()));
    for (std::size_t s = 0; s < U.size(); ++s) {
      FLEXUQ_PETSC(PetscObjectSetName(reinterpret_cast<PetscObject>(U[s].get()), ("u" + std::to_string(s)).c_str()));
      FLEXUQ_PETSC(VecView(U[s].get(), v.get()));
    }
    std::vector<double> scalars{static_cast<double>(c.iteration), c.change, static_cast<double>(c.pcg)};
    scalars.insert(scalars.end(), c.lam.begin(), c.lam.end());
    // Small arrays as one distributed vector each (every rank writes its range of its identical copy).
    const std::pair<const char*, const std::vector<double>*> arrays[] = {{"state", &scalars},
                                                                          {"fingerprint", &fingerprint}};
    for (const auto& [name, data] : arrays) {
      VecH a;
      FLEXUQ_PETSC(VecCreateMPI(world, PETSC_DECIDE, static_cast<PetscInt>(data->size()), a.out()));
      PetscInt lo = 0, hi = 0;
      FLEXUQ_PETSC(VecGetOwnershipRange(a.get(), &lo, &hi));
      for (PetscInt i = lo; i < hi; ++i) FLEXUQ_PETSC(VecSetValue(a.get(), i, (*data)[i], INSERT_VALUES));
      FLEXUQ_PETSC(VecAssemblyBegin(a.get()));
      FLEXUQ_PETSC(VecAssemblyEnd(a.get()));
      FLEXUQ_PETSC(PetscObjectSetName(reinterpret_cast<PetscObject>(a.get()), name));
      FLEXUQ_PETSC(VecView(a.get(), v.get()));
    }
    // The preconditioner the sweeps ran with: a resume with the other one is named (solve()).
    FLEXUQ_PETSC(PetscViewerHDF5WriteAttribute(v.get(), "/", "preconditioner", PETSC_STRING,
                                               c.preconditioner.c_str()));
  }
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  int err = 0;
  if (rank == 0) err = std::rename(tmp.c_str(), path.c_str()) != 0;
  FLEXUQ_MPI(MPI_Bcast(&err, 1, MPI_INT, 0, world));
  FLEXUQ_REQUIRE(!err, "sg: cannot move the checkpoint " << tmp << " to " << path);
}

std::vector<double> read_small(PetscViewer v, MPI_Comm world, const char* name) {
  VecH a;
  FLEXUQ_PETSC(VecCreate(world, a.out()));
  FLEXUQ_PETSC(PetscObjectSetName(reinterpret_cast<PetscObject>(a.get()), name));
  FLEXUQ_PETSC(VecLoad(a.get(), v));
  PetscInt n = 0;
  FLEXUQ_PETSC(VecGetSize(a.get(), &n));
  ScatterH sc;
  VecH all;
  FLEXUQ_PETSC(VecScatterCreateToAll(a.get(), sc.out(), all.out()));
  FLEXUQ_PETSC(VecScatterBegin(sc.get(), a.get(), all.get(), INSERT_VALUES, SCATTER_FORWARD));
  FLEXUQ_PETSC(VecScatterEnd(sc.get(), a.get(), all.get(), INSERT_VALUES, SCATTER_FORWARD));
  const PetscScalar* p = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(all.get(), &p));
  std::vector<double> out(p, p + n);
  FLEXUQ_PETSC(VecRestoreArrayRead(all.get(), &p));
  return out;
}

// True when @p path held a matching checkpoint (then U and c are set).
bool read_checkpoint(const std::string& path, MPI_Comm world, std::vector<VecH>& U, Checkpoint& c,
                     const std::vector<double>& fingerprint) {
  int rank = 0, exists = 0;
  MPI_Comm_rank(world, &rank);
  if (rank == 0) exists = std::filesystem::exists(path) ? 1 : 0;
  FLEXUQ_MPI(MPI_Bcast(&exists, 1, MPI_INT, 0, world));
  if (!exists) {
    log::info(world, "sg: --resume: no checkpoint " + path + "; solving from the mean modes");
    return false;
  }
  ViewerH v;
  FLEXUQ_PETSC(PetscViewerHDF5Open(world, path.c_str(), FILE_MODE_READ, v.out()));
  const auto f = read_small(v.get(), world, "fingerprint");
  bool same = f.size() == fingerprint.size();
  for (std::size_t i = 0; same && i < f.size(); ++i)
    same = std::abs(f[i] - fingerprint[i]) <= 1e-12 * std::max(1.0, std::abs(fingerprint[i]));
  if (!same) {
    log::warn(world, "sg: --resume: the checkpoint " + path +
                         " is from another job or rank layout (sizes, ranks per group, order or mean "
                         "eigenvalues differ); solving anew");
    return false;
  }
  for (std::size_t s = 0; s < U.size(); ++s) {
    FLEXUQ_PETSC(PetscObjectSetName(reinterpret_cast<PetscObject>(U[s].get()), ("u" + std::to_string(s)).c_str()));
    FLEXUQ_PETSC(VecLoad(U[s].get(), v.get()));
  }
  const auto st = read_small(v.get(), world, "state");
  // [sweep, sine, PCG count, λ (P × n), best sine, its sweep]; checkpoints from before the
  // stagnation rule end with λ.
  FLEXUQ_REQUIRE(st.size() > 3 && ((st.size() - 3) % U.size() == 0 || (st.size() - 5) % U.size() == 0),
                 "sg: the checkpoint " << path << " is damaged (state of " << st.size() << " values)");
  c.iteration = static_cast<int>(st[0]);
  c.change = st[1];
  c.pcg = static_cast<long long>(st[2]);
  c.lam.assign(st.begin() + 3, st.end());
  PetscBool has = PETSC_FALSE; // checkpoints from before the record have none
  FLEXUQ_PETSC(PetscViewerHDF5HasAttribute(v.get(), "/", "preconditioner", &has));
  c.preconditioner.clear();
  if (has) {
    char* name = nullptr;
    FLEXUQ_PETSC(PetscViewerHDF5ReadAttribute(v.get(), "/", "preconditioner", PETSC_STRING, nullptr, &name));
    c.preconditioner = name ? name : "";
    FLEXUQ_PETSC(PetscFree(name));
  }
  return true;
}

} // namespace

// Working state of one solve.
struct EigenSolver::Impl {
  const StochasticLayout& L;
  const EigenOptions& opt;
  const std::vector<uq::PolynomialFamily>& fams;
  uq::MultiIndexSet basis;
  int P = 0;
  std::unique_ptr<BlockSpace> space;
  std::unique_ptr<GalerkinOperator> Kop, Mop;
  std::vector<MergedTerms> merged; // the terms of Kop and Mop (merge_proportional_terms)
  std::shared_ptr<TripleTensor> lambda_tensor; // c_ijk on the solution basis (6.47)
  uq::Quadrature rule;
  MatrixXd psi_q; // nodes × P
  std::vector<int> cluster; // mean multiplet of every iterated vector
  // K(ξ) and M(ξ) pointwise: A(ξ) = Σ_t c_t(ξ) A_t with c(ξ) = ψ^α(ξ)ᵀ coef (ψ^α on op_basis), for
  // the per-mode Ritz step of stochastic multiplets (track_multiplets).
  struct Pointwise {
    std::vector<Mat> terms;
    MatrixXd coef; // P_α × terms
  };
  Pointwise Kpw, Mpw;
  uq::MultiIndexSet op_basis;

  Impl(const StochasticLayout& l, const EigenOptions& o, const std::vector<uq::PolynomialFamily>& f) : L(l), opt(o), fams(f) {}

  PetscInt nl() const { return space->n_local(); }

  // All blocks of every vector in @p vs on this rank's spatial slice, column (s·P + b).
  MatrixXd gather(const std::vector<VecH>& vs) const {
    MatrixXd out(nl(), static_cast<Index>(vs.size()) * P);
    std::vector<Vec> raw;
    for (const auto& v : vs) raw.push_back(v.get());
    std::vector<std::vector<double>> buf;
    space->gather_all_many(raw, buf); // one exchange for all vectors
    for (std::size_t s = 0; s < vs.size(); ++s)
      out.middleCols(static_cast<Index>(s) * P, P) = Eigen::Map<const MatrixXd>(buf[s].data(), nl(), P);
    return out;
  }

  void scatter(const MatrixXd& cols, std::vector<VecH>& vs) const {
    std::vector<double> buf(static_cast<std::size_t>(nl()) * P);
    for (std::size_t s = 0; s < vs.size(); ++s) {
      Eigen::Map<MatrixXd>(buf.data(), nl(), P) = cols.middleCols(static_cast<Index>(s) * P, P);
      space->set_owned(buf, vs[s].get());
    }
  }

  std::vector<VecH> apply(const GalerkinOperator& op, const std::vector<VecH>& vs) const {
    std::vector<VecH> out;
    for (const auto& v : vs) {
      out.push_back(space->create_vec());
      op.apply(v.get(), out.back().get());
    }
    return out;
  }

  // Block Gram H = Wᵀ 𝓜-blocks: H((s,b),(t,c)) = W_s^(b)ᵀ (𝓜 W_t)^(c) summed over the group.
  MatrixXd gram(const MatrixXd& W, const MatrixXd& MW) const {
    MatrixXd H = W.transpose() * MW;
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, H.data(), static_cast<int>(H.size()), MPI_DOUBLE, MPI_SUM, L.group()));
    return 0.5 * (H + H.transpose());
  }

  // Pointwise (ξ_q) Cholesky-QR of the modes, projected back on the basis: coefficients X with
  // U = W X (columns (s,b)). Implements the Galerkin normalisation (6.36) and the stochastic
  // Gram–Schmidt across modes.
  //
  // With @p Hk (the block Gram of W with 𝒦W), a pointwise Rayleigh–Ritz step follows: the
  // orthonormal U(ξ_q) is rotated by the eigenvectors Z_q of U(ξ_q)ᵀ(𝒦W)(ξ_q) (symmetrised), so
  // each vector converges at the rate λ_s/λ_{n+1} of the whole iterated set instead of λ_s/λ_{s+1}
  // of Gram–Schmidt's nested subspaces (the guard vectors then pay off). The Ritz vectors keep the
  // identity of the current vectors: each mean multiplet takes the Ritz vectors with the largest
  // overlap, aligned by an orthogonal Procrustes rotation (a single mode: its sign), so a mode
  // stays the continuation of its mean mode at every node, and a multiplet is a subspace.
  //
  // With @p HcT (nP × nP, W_t^(c)ᵀ(𝓜 V_s)^(b) for reference vectors V: the previous sweep's), the
  // identity and the Procrustes alignment refer to V(ξ_q) instead of W(ξ_q). Within a stochastic
  // multiplet this freezes the rotation: W has already turned by λ_s(ξ)/λ_{s+1}(ξ) towards the
  // pointwise sorted eigenvectors, which are not smooth where the modes cross, and aligning with W
  // passed that turn on sweep after sweep (the sine fell by only λ̄_8/λ̄_9 = 0.992 per sweep on the
  // crank). Aligned with V, the multiplet's vectors are fixed once its subspace is.
  MatrixXd orthonormalise(const MatrixXd& H, int n, const MatrixXd* Hk = nullptr, const MatrixXd* HcT = nullptr) const {
    const Index nP = static_cast<Index>(n) * P;
    MatrixXd X = MatrixXd::Zero(nP, nP);
    MatrixXd A = MatrixXd::Zero(nP, n);
    for (int q = 0; q < rule.size(); ++q) {
      for (int s = 0; s < n; ++s) A.block(static_cast<Index>(s) * P, s, P, 1) = psi_q.row(q).transpose();
      MatrixXd G = A.transpose() * H * A;
      Eigen::LLT<MatrixXd> llt(G);
      if (llt.info() != Eigen::Success)
        throw Error("sg: the mode subspace collapsed at Gauss node " + std::to_string(q) +
                    " (the modes became linearly dependent); try fewer modes or a smaller order");
      // R = Lᵀ, U(q) = W(q) R⁻¹.
      MatrixXd Rinv = llt.matrixU().solve(MatrixXd::Identity(n, n));
      if (Hk) {
        MatrixXd B; // coordinates of V(ξ_q) in the orthonormal basis W(ξ_q)R⁻¹
        if (HcT) B = Rinv.transpose() * (A.transpose() * *HcT * A);
        Rinv *= ritz_rotation(Rinv.transpose() * (A.transpose() * *Hk * A) * Rinv, HcT ? &B : nullptr);
      }
      const double w = rule.weights[q];
      for (int t = 0; t < n; ++t)
        for (int s = 0; s < n; ++s) {
          const double r = Rinv(t, s);
          if (r == 0.0) continue;
          // X((t,c),(s,b)) += w ψ_c ψ_b Rinv(t,s)
          X.block(static_cast<Index>(t) * P, static_cast<Index>(s) * P, P, P).noalias() +=
              (w * r) * psi_q.row(q).transpose() * psi_q.row(q);
        }
    }
    return X;
  }

  // The rotation Z (n × n, orthogonal) of the Ritz step for the orthonormal-basis Rayleigh matrix
  // S (see orthonormalise): column s of Z is the Ritz vector standing for current vector s, or
  // for reference vector s when @p B (B(i, s) = ⟨basis i, reference s⟩) is given.
  MatrixXd ritz_rotation(const MatrixXd& S, const MatrixXd* B = nullptr) const {
    const int n = static_cast<int>(S.rows());
    const Eigen::SelfAdjointEigenSolver<MatrixXd> es(0.5 * (S + S.transpose()));
    if (es.info() != Eigen::Success) return MatrixXd::Identity(n, n);
    const MatrixXd& Y = es.eigenvectors(); // Y(i, j) = ⟨basis i, Ritz j⟩
    const MatrixXd T = B ? MatrixXd(B->transpose() * Y) : Y; // T(s, j) = ⟨current or reference s, Ritz j⟩
    MatrixXd Z = MatrixXd::Zero(n, n);
    std::vector<bool> taken(n, false);
    for (int s0 = 0; s0 < n;) {
      int s1 = s0;
      while (s1 < n && cluster[s1] == cluster[s0]) ++s1;
      const int m = s1 - s0;
      // The m free Ritz vectors with the largest overlap with the multiplet's current vectors.
      std::vector<int> J;
      for (int k = 0; k < m; ++k) {
        int best = -1;
        double bw = -1;
        for (int j = 0; j < n; ++j) {
          if (taken[j]) continue;
          const double wgt = T.block(s0, j, m, 1).squaredNorm();
          if (wgt > bw) {
            bw = wgt;
            best = j;
          }
        }
        taken[best] = true;
        J.push_back(best);
      }
      std::sort(J.begin(), J.end());
      MatrixXd YJ(n, m), C(m, m);
      for (int k = 0; k < m; ++k) {
        YJ.col(k) = Y.col(J[k]);
        C.col(k) = T.block(s0, J[k], m, 1); // ⟨current or reference s0..s1−1, Ritz J⟩
      }
      Z.middleCols(s0, m) = YJ * la::procrustes_rotation(C);
      s0 = s1;
    }
    return Z;
  }

  // The PCG's initial guess for 𝒦W_s = 𝓜U_s: for an eigenvector W_s = U_s/λ_s(ξ), taken as the
  // Galerkin product of U_s with the PCE of 1/λ_s (projected from the Gauss nodes; λ from @p lam,
  // P × n). The PCG then starts from the residual of the subspace error instead of that of the
  // eigenvalue's spread (a mean 1/λ̄_s leaves ~ the CoV of λ_s). A node with λ ≤ 0 (a truncation
  // artefact) falls back to 1/λ_s^(0).
  // @p Ua is gather(U) (the caller holds it for the convergence test already).
  void inverse_eigenvalue_guess(const MatrixXd& Ua, int n, const MatrixXd& lam, std::vector<VecH>& W) const {
    MatrixXd Wa(nl(), static_cast<Index>(n) * P);
    const MatrixXd lq = psi_q * lam; // λ_s(ξ_q)
    for (int s = 0; s < n; ++s) {
      VectorXd mu = VectorXd::Zero(P);
      for (int q = 0; q < rule.size(); ++q) {
        if (!(lq(q, s) > 0)) {
          mu = VectorXd::Unit(P, 0) / lam(0, s);
          break;
        }
        mu += (rule.weights[q] / lq(q, s)) * psi_q.row(q).transpose();
      }
      MatrixXd T = MatrixXd::Zero(P, P); // W_s^(j) = Σ_b T(j, b) U_s^(b), T(j, b) = Σ_k μ^(k) c_kbj
      for (int k = 0; k < P; ++k)
        for (int b = 0; b < P; ++b)
          for (const auto& [j, c] : lambda_tensor->rows[k][b]) T(j, b) += mu(k) * c;
      Wa.middleCols(static_cast<Index>(s) * P, P).noalias() = Ua.middleCols(static_cast<Index>(s) * P, P) * T.transpose();
    }
    scatter(Wa, W);
  }

  // Thesis heuristic per mode: unit blocks, modified Gram–Schmidt across blocks (M-inner product).
  MatrixXd thesis_normalise(const MatrixXd& H, int n) const {
    const Index nP = static_cast<Index>(n) * P;
    MatrixXd X = MatrixXd::Zero(nP, nP);
    for (int s = 0; s < n; ++s) {
      const MatrixXd Hs = H.block(static_cast<Index>(s) * P, static_cast<Index>(s) * P, P, P);
      std::vector<VectorXd> y; // coefficient vectors of the finished blocks
      const double first = std::sqrt(std::max(Hs(0, 0), 0.0));
      for (int b = 0; b < P; ++b) {
        VectorXd v = VectorXd::Unit(P, b);
        const double n0 = std::sqrt(std::max(Hs(b, b), 0.0));
        for (const auto& u : y) v -= (u.dot(Hs * v)) * u;
        const double nv = std::sqrt(std::max(v.dot(Hs * v), 0.0));
        // Negligible blocks (< 1e-8 of block 0) and blocks parallel to earlier ones are zeroed:
        // scaling round-off to unit norm would create the thesis's spurious deflections.
        if (n0 <= 1e-8 * first || nv <= 1e-8 * n0) {
          y.push_back(VectorXd::Zero(P)); // numerically parallel to earlier blocks: zeroed
          continue;
        }
        y.push_back(v / nv);
      }
      for (int b = 0; b < P; ++b) X.block(static_cast<Index>(s) * P, static_cast<Index>(s) * P + b, P, 1) = y[b];
    }
    return X;
  }

  // (6.47): λ_s^(k) = Σ_ij c_kij u_s^(i)·(𝒦u_s)^(j).
  // Groups of neighbouring modes (ids like @p mean_cluster, which they merge) that the pointwise
  // Ritz step would mix or that cross: at every Gauss node ξ_q, the Rayleigh–Ritz problem of
  // (K(ξ_q), M(ξ_q)) on the mean modes φ̄ (the block-0 vectors of @p U) is solved; when a Ritz vector
  // holds more than @p tau of two mean modes' M-weight, or when the Ritz values two mean modes follow
  // swap or come within @p cross_gap (relative), those modes and the ones between them form a group.
  std::vector<int> stochastic_multiplets(const std::vector<VecH>& U, const std::vector<int>& mean_cluster,
                                         double tau, double cross_gap) const {
    const int n = static_cast<int>(U.size());
    const MatrixXd Ua = gather(U), KU = gather(apply(*Kop, U)), MU = gather(apply(*Mop, U));
    MatrixXd Phi(Ua.rows(), n); // φ̄_s: block 0 of vector s
    for (int s = 0; s < n; ++s) Phi.col(s) = Ua.col(static_cast<Index>(s) * P);
    // a((s,t), k) = φ̄_sᵀ(𝒦(e_0⊗φ̄_t))^(k) = φ̄_sᵀK^(k)φ̄_t (and M likewise).
    MatrixXd a(static_cast<Index>(n) * n, P), m(static_cast<Index>(n) * n, P);
    for (int k = 0; k < P; ++k) {
      MatrixXd Kk(Ua.rows(), n), Mk(Ua.rows(), n);
      for (int t = 0; t < n; ++t) {
        Kk.col(t) = KU.col(static_cast<Index>(t) * P + k);
        Mk.col(t) = MU.col(static_cast<Index>(t) * P + k);
      }
      const MatrixXd ak = Phi.transpose() * Kk, mk = Phi.transpose() * Mk;
      a.col(k) = Eigen::Map<const VectorXd>(ak.data(), ak.size());
      m.col(k) = Eigen::Map<const VectorXd>(mk.data(), mk.size());
    }
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, a.data(), static_cast<int>(a.size()), MPI_DOUBLE, MPI_SUM, L.group()));
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, m.data(), static_cast<int>(m.size()), MPI_DOUBLE, MPI_SUM, L.group()));
    std::vector<int> join_to(n); // join_to[s]: the largest mode index that s must share a group with
    for (int s = 0; s < n; ++s) join_to[s] = s;
    for (int q = 0; q < rule.size(); ++q) {
      const VectorXd kv = a * psi_q.row(q).transpose(), mv = m * psi_q.row(q).transpose();
      MatrixXd Kq = Eigen::Map<const MatrixXd>(kv.data(), n, n), Mq = Eigen::Map<const MatrixXd>(mv.data(), n, n);
      Kq = 0.5 * (Kq + Kq.transpose()).eval();
      Mq = 0.5 * (Mq + Mq.transpose()).eval();
      const Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> es(Kq, Mq);
      if (es.info() != Eigen::Success) continue;
      const MatrixXd O = Mq * es.eigenvectors(); // O(s, j) = φ̄_sᵀM(ξ_q)y_j; Σ_j O(s,j)² = φ̄_sᵀM(ξ_q)φ̄_s
      for (int j = 0; j < n; ++j) {
        int lo = n, hi = -1;
        for (int s = 0; s < n; ++s)
          if (O(s, j) * O(s, j) > tau * Mq(s, s)) {
            lo = std::min(lo, s);
            hi = std::max(hi, s);
          }
        if (lo < hi) join_to[lo] = std::max(join_to[lo], hi);
      }
      // Crossings without mixing: modes that do not couple (bending and torsion of a symmetric
      // section) share no Ritz vector, yet their order swaps. Each mean mode follows the Ritz vector
      // it holds most of; modes s < t whose followed Ritz values come within `cross_gap` (relative)
      // or swap are grouped too. Taken one by one, such a pair is resolved pointwise by a Ritz step
      // between two nearly equal values, which turns the pair by the subspace error over the gap:
      // near the crossing the per-mode vectors became mixtures, their PCE was no longer smooth,
      // and the sweeps converged to a wrong pair (tests/sg/sg_crossing_test.cpp: the bar's torsion
      // and bending modes, coupled only by an irregular mesh, came out as 77 %/23 % mixtures past
      // the crossing, both means −3.3e-4 and f_4 + f_5 too).
      const VectorXd& theta = es.eigenvalues();
      std::vector<int> follow(n, 0);
      for (int s = 0; s < n; ++s) {
        double bw = -1;
        for (int j = 0; j < n; ++j)
          if (O(s, j) * O(s, j) > bw) {
            bw = O(s, j) * O(s, j);
            follow[s] = j;
          }
      }
      for (int s = 0; s < n; ++s)
        for (int t = s + 1; t < n; ++t)
          if (mean_cluster[s] != mean_cluster[t] && theta(follow[s]) >= (1 - cross_gap) * theta(follow[t]))
            join_to[s] = std::max(join_to[s], t);
    }
    std::vector<int> group(n, 0);
    int reach = 0; // modes up to here join the current group
    for (int s = 1; s < n; ++s) {
      reach = std::max(reach, join_to[s - 1]);
      const bool join = mean_cluster[s] == mean_cluster[s - 1] || s <= reach;
      group[s] = group[s - 1] + (join ? 0 : 1);
    }
    return group;
  }

  MatrixXd eigenvalue_coefficients(const std::vector<VecH>& U) const {
    const int n = static_cast<int>(U.size());
    const MatrixXd Ua = gather(U), Va = gather(apply(*Kop, U));
    MatrixXd D(P, static_cast<Index>(P) * n); // D(i, (s,j))
    for (int s = 0; s < n; ++s)
      D.middleCols(static_cast<Index>(s) * P, P) =
          Ua.middleCols(static_cast<Index>(s) * P, P).transpose() * Va.middleCols(static_cast<Index>(s) * P, P);
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, D.data(), static_cast<int>(D.size()), MPI_DOUBLE, MPI_SUM, L.group()));
    MatrixXd lam = MatrixXd::Zero(P, n);
    for (int s = 0; s < n; ++s)
      for (int k = 0; k < P; ++k)
        for (int i = 0; i < P; ++i)
          for (const auto& [j, c] : lambda_tensor->rows[k][i]) lam(k, s) += c * D(i, static_cast<Index>(s) * P + j);
    return lam;
  }

  // The per-mode statistics of stochastic multiplets (groups of modes that cross or veer, see
  // stochastic_multiplets). The iteration resolves such a group as a subspace and keeps its vectors
  // a smooth rotation of it; that rotation is no mode. Here, at the Gauss nodes ξ_q, the group's
  // subspace U_G(ξ_q) = Σ_b ψ_b(ξ_q) U_G^(b) gets a Rayleigh–Ritz step on (K(ξ_q), M(ξ_q)), and each
  // mean mode takes the Ritz vector with the largest MAC to it (φ̄_sᵀM^(0)y_j, greedily per mean
  // multiplet in mode order, inside a mean multiplet by Ritz value; the campaign's fe::track_modes),
  // its sign aligned with φ̄_s. Mode s of the group is then that Ritz vector at every node, and its
  // eigenvalue the Ritz value: both are projected on the basis, λ_s^(k) = Σ_q w_q θ_s(ξ_q) ψ_k(ξ_q)
  // (returned in the columns of @p lam, @p tracked set) and U_s^(b) = Σ_q w_q ψ_b(ξ_q) u_s(ξ_q) (in
  // place). Ritz values of a subspace resolved to sine ε are exact to ε², whatever the gap between
  // the pair, while a pointwise Ritz vector turns by ε over the gap; the identity comes from the
  // MAC, which the turn does not change where the pair is apart. Groups of one mean multiplet
  // are left as they are (mean multiplets keep their Procrustes-aligned basis, as before).
  // @p phi: the mean modes (spatial vectors of the group), @p group and @p mean_cluster per vector.
  void track_multiplets(std::vector<VecH>& U, const std::vector<VecH>& phi, Mat M0, const std::vector<int>& group,
                        const std::vector<int>& mean_cluster, int n_wanted, MatrixXd& lam,
                        std::vector<bool>& tracked) const {
    const int n = static_cast<int>(U.size());
    tracked.assign(n, false);
    lam = MatrixXd::Zero(P, n);
    const MatrixXd op_q = uq::Pce::design_matrix(fams, op_basis, rule.points); // nodes × P_α
    const MatrixXd ck = op_q * Kpw.coef, cm = op_q * Mpw.coef;                 // nodes × terms
    MatrixXd Ua; // gathered on the first group that needs it, changed group by group
    VecH x = space->create_spatial_header(), y = space->create_spatial();
    auto mult = [&](Mat A, Vec v) { // A v, this rank's slice
      FLEXUQ_PETSC(MatMult(A, v, y.get()));
      const PetscScalar* ya = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(y.get(), &ya));
      VectorXd out = Eigen::Map<const VectorXd>(ya, nl());
      FLEXUQ_PETSC(VecRestoreArrayRead(y.get(), &ya));
      return out;
    };
    auto products = [&](const std::vector<Mat>& terms, const MatrixXd& cols) {
      std::vector<MatrixXd> G; // colsᵀ A_t cols, summed over the group
      MatrixXd Ac(cols.rows(), cols.cols());
      for (Mat A : terms) {
        for (Index j = 0; j < cols.cols(); ++j) {
          FLEXUQ_PETSC(VecPlaceArray(x.get(), cols.col(j).data()));
          Ac.col(j) = mult(A, x.get());
          FLEXUQ_PETSC(VecResetArray(x.get()));
        }
        MatrixXd g = cols.transpose() * Ac;
        FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, g.data(), static_cast<int>(g.size()), MPI_DOUBLE, MPI_SUM, L.group()));
        G.push_back(0.5 * (g + g.transpose()));
      }
      return G;
    };
    for (int s0 = 0; s0 < n_wanted;) {
      int s1 = s0;
      while (s1 < n && group[s1] == group[s0]) ++s1;
      const int m = s1 - s0;
      if (mean_cluster[s1 - 1] == mean_cluster[s0]) {
        s0 = s1;
        continue;
      }
      if (Ua.size() == 0) Ua = gather(U);
      const Index mP = static_cast<Index>(m) * P;
      const MatrixXd UG = Ua.middleCols(static_cast<Index>(s0) * P, mP);
      const auto GK = products(Kpw.terms, UG), GM = products(Mpw.terms, UG);
      // MAC reference: C(s, (t,b)) = φ̄_{s0+s}ᵀ M^(0) U_{s0+t}^(b).
      MatrixXd MPhi(nl(), m);
      for (int s = 0; s < m; ++s) MPhi.col(s) = mult(M0, phi[s0 + s].get());
      MatrixXd C = MPhi.transpose() * UG;
      FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, C.data(), static_cast<int>(C.size()), MPI_DOUBLE, MPI_SUM, L.group()));
      MatrixXd X = MatrixXd::Zero(mP, mP);
      MatrixXd S = MatrixXd::Zero(mP, m); // U_G(ξ_q) = UG S
      for (int q = 0; q < rule.size(); ++q) {
        for (int s = 0; s < m; ++s) S.block(static_cast<Index>(s) * P, s, P, 1) = psi_q.row(q).transpose();
        MatrixXd Kq = MatrixXd::Zero(mP, mP), Mq = MatrixXd::Zero(mP, mP);
        for (std::size_t t = 0; t < GK.size(); ++t) Kq += ck(q, static_cast<Index>(t)) * GK[t];
        for (std::size_t t = 0; t < GM.size(); ++t) Mq += cm(q, static_cast<Index>(t)) * GM[t];
        const MatrixXd A = S.transpose() * Kq * S, B = S.transpose() * Mq * S;
        const Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> es(0.5 * (A + A.transpose()), 0.5 * (B + B.transpose()));
        if (es.info() != Eigen::Success)
          throw Error(FLEXUQ_MSG("sg: the Ritz step of modes " << s0 + 1 << "-" << s1 << " failed at Gauss node " << q
                                 << " (their subspace collapsed there)"));
        const MatrixXd& Y = es.eigenvectors();     // B-orthonormal: y_j = U_G(ξ_q) Y.col(j)
        const MatrixXd O = C * S * Y;              // O(s, j) = φ̄_sᵀ M^(0) y_j
        // Greedy per mean multiplet, in mode order (fe::track_modes).
        std::vector<int> take(m, -1);
        std::vector<bool> used(m, false);
        for (int a0 = 0; a0 < m;) {
          int a1 = a0;
          while (a1 < m && mean_cluster[s0 + a1] == mean_cluster[s0 + a0]) ++a1;
          std::vector<int> J;
          for (int k = a0; k < a1; ++k) {
            int best = -1;
            double bw = -1;
            for (int j = 0; j < m; ++j) {
              if (used[j]) continue;
              const double share = O.block(a0, j, a1 - a0, 1).squaredNorm();
              if (share > bw) {
                bw = share;
                best = j;
              }
            }
            used[best] = true;
            J.push_back(best);
          }
          std::sort(J.begin(), J.end()); // Ritz values ascend with j
          for (int k = a0; k < a1; ++k) take[k] = J[k - a0];
          a0 = a1;
        }
        MatrixXd Z(m, m); // u_s(ξ_q) = U_G(ξ_q) Z.col(s)
        for (int s = 0; s < m; ++s) {
          Z.col(s) = Y.col(take[s]);
          if (O(s, take[s]) < 0) Z.col(s) *= -1;
          lam.col(s0 + s) += (rule.weights[q] * es.eigenvalues()(take[s])) * psi_q.row(q).transpose();
        }
        for (int t = 0; t < m; ++t)
          for (int s = 0; s < m; ++s)
            X.block(static_cast<Index>(t) * P, static_cast<Index>(s) * P, P, P).noalias() +=
                (rule.weights[q] * Z(t, s)) * psi_q.row(q).transpose() * psi_q.row(q);
      }
      Ua.middleCols(static_cast<Index>(s0) * P, mP) = UG * X;
      for (int s = s0; s < s1; ++s) tracked[s] = true;
      s0 = s1;
    }
    if (Ua.size() > 0) scatter(Ua, U);
  }

  // Normalise (galerkin or thesis) the vectors in place; returns the final block Gram. @p ritz:
  // with the pointwise Rayleigh–Ritz step (galerkin only).
  // @p reference: gather() of the vectors the Ritz step aligns with (see orthonormalise).
  MatrixXd normalise(std::vector<VecH>& U, Normalization how, bool ritz = false,
                     const MatrixXd* reference = nullptr) const {
    const int n = static_cast<int>(U.size());
    const MatrixXd W = gather(U), MW = gather(apply(*Mop, U));
    const MatrixXd H = gram(W, MW);
    MatrixXd Hk, HcT;
    if (ritz) Hk = gram(W, gather(apply(*Kop, U)));
    if (ritz && reference) {
      HcT = MW.transpose() * *reference; // (𝓜W_t)^(c)ᵀ V_s^(b) = W_t^(c)ᵀ(𝓜V_s)^(b) (𝓜 symmetric)
      FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, HcT.data(), static_cast<int>(HcT.size()), MPI_DOUBLE, MPI_SUM, L.group()));
    }
    const MatrixXd X = how == Normalization::Galerkin
                           ? orthonormalise(H, n, ritz ? &Hk : nullptr, ritz && reference ? &HcT : nullptr)
                           : thesis_normalise(H, n);
    scatter(W * X, U);
    return X.transpose() * H * X;
  }
};

EigenSolver::EigenSolver(const StochasticLayout& layout, std::vector<uq::PolynomialFamily> families,
                         uq::MultiIndexSet operator_basis, std::vector<Mat> K, std::vector<Mat> M, EigenOptions opt)
    : layout_(&layout), families_(std::move(families)), op_basis_(std::move(operator_basis)), K_(std::move(K)),
      M_(std::move(M)), opt_(std::move(opt)) {
  FLEXUQ_REQUIRE(!K_.empty() && static_cast<int>(K_.size()) <= op_basis_.size(),
                 "sg: " << K_.size() << " stiffness terms for an operator basis of " << op_basis_.size());
  FLEXUQ_REQUIRE(!M_.empty() && static_cast<int>(M_.size()) <= op_basis_.size(),
                 "sg: " << M_.size() << " mass terms (need 1 or " << op_basis_.size() << ")");
  FLEXUQ_REQUIRE(opt_.order >= 0, opt_.key << ".order must be >= 0, got " << opt_.order);
  FLEXUQ_REQUIRE_OPTION(opt_.n_modes >= 1, "n_modes", "sg: at least one mode must be wanted ({})");
}

void check_memory(MPI_Comm world, int dim, int operator_order, const EigenOptions& opt, long long n_local,
                  long long nnz_local, int n_vectors) {
  const long long Pb = uq::MultiIndexSet::total_degree_size(dim, opt.order);
  const long long Pa = uq::MultiIndexSet::total_degree_size(dim, operator_order);
  const double need = allreduce_max(world, estimate_memory_bytes(Pa, Pb, n_local, nnz_local, n_vectors));
  const double limit = opt.memory_limit_bytes > 0 ? opt.memory_limit_bytes : available_memory_bytes(world);
  FLEXUQ_REQUIRE(need <= limit, opt.key << ".order = " << opt.order << " (P_beta = " << Pb << " blocks, operator_order "
                                        << operator_order << ": P_alpha = " << Pa << ") needs about " << need / 1e9
                                        << " GB per rank for " << n_vectors << " block vectors, more than the "
                                        << limit / 1e9 << " GB available; lower the order or the mode count, or use "
                                           "more ranks");
}

void EigenSolver::set_terms(std::vector<Mat> K_terms, Eigen::MatrixXd K_coefficients, std::vector<Mat> M_terms,
                            Eigen::MatrixXd M_coefficients) {
  FLEXUQ_REQUIRE(!K_terms.empty() && K_coefficients.rows() == op_basis_.size() &&
                     K_coefficients.cols() == static_cast<Eigen::Index>(K_terms.size()),
                 "sg: " << K_terms.size() << " stiffness terms with " << K_coefficients.rows() << " x "
                        << K_coefficients.cols() << " coefficients for an operator basis of " << op_basis_.size());
  FLEXUQ_REQUIRE(M_terms.empty() || (M_coefficients.rows() == op_basis_.size() &&
                                     M_coefficients.cols() == static_cast<Eigen::Index>(M_terms.size())),
                 "sg: " << M_terms.size() << " mass terms with " << M_coefficients.rows() << " x "
                        << M_coefficients.cols() << " coefficients");
  K_terms_ = std::move(K_terms);
  K_coef_ = std::move(K_coefficients);
  M_terms_ = std::move(M_terms);
  M_coef_ = std::move(M_coefficients);
}

EigenResult EigenSolver::solve() {
  const auto& L = *layout_;
  const MPI_Comm world = L.world();
  Impl w(L, opt_, families_);
  w.basis = uq::MultiIndexSet::total_degree(op_basis_.dim(), opt_.order);
  w.P = w.basis.size();
  const int P = w.P;

  auto tensorK = std::make_shared<TripleTensor>(triple_tensor(families_, op_basis_, w.basis));
  w.lambda_tensor = std::make_shared<TripleTensor>(triple_tensor(families_, w.basis, w.basis));
  w.space = std::make_unique<BlockSpace>(L, P, K_[0], opt_.partitioner_key);
  // The Galerkin operator on the affine terms when they are fewer than the expansion's (the
  // same operator: regroup_by_terms), else on K^(a).
  auto galerkin = [&](const std::vector<Mat>& expanded, const std::vector<Mat>& terms, const MatrixXd& coef,
                      const char* what) {
    const int Pa = op_basis_.size();
    if (!terms.empty() && (static_cast<int>(terms.size()) < Pa || static_cast<int>(expanded.size()) < Pa)) {
      // Terms with proportional coefficients (both Lamé parts of a set under a random E) as one:
      // one sparse product per merged term in every Galerkin apply.
      w.merged.push_back(merge_proportional_terms(terms, coef));
      const auto& mt = w.merged.back();
      return std::make_unique<GalerkinOperator>(
          *w.space, std::make_shared<TripleTensor>(regroup_by_terms(*tensorK, mt.coefficients)), mt.terms);
    }
    FLEXUQ_REQUIRE(static_cast<int>(expanded.size()) == op_basis_.size(),
                   "sg: " << expanded.size() << " " << what << " terms for an operator basis of " << op_basis_.size());
    return std::make_unique<GalerkinOperator>(*w.space, tensorK, expanded);
  };
  w.Kop = galerkin(K_, K_terms_, K_coef_, "stiffness");
  // The same choice for the pointwise K(ξ), M(ξ) of track_multiplets: the affine terms with their
  // coefficients, or K^(a) with the identity.
  w.op_basis = op_basis_;
  auto pointwise = [&](const std::vector<Mat>& expanded, const std::vector<Mat>& terms, const MatrixXd& coef) {
    const int Pa = op_basis_.size();
    Impl::Pointwise pw;
    if (!terms.empty() && (static_cast<int>(terms.size()) < Pa || static_cast<int>(expanded.size()) < Pa)) {
      pw.terms = terms;
      pw.coef = coef;
    } else if (expanded.size() == 1) { // a deterministic operator
      pw.terms = expanded;
      pw.coef = MatrixXd::Zero(Pa, 1);
      pw.coef(0, 0) = 1; // ψ_0 = 1
    } else {
      pw.terms = expanded;
      pw.coef = MatrixXd::Identity(Pa, static_cast<Index>(expanded.size()));
    }
    return pw;
  };
  w.Kpw = pointwise(K_, K_terms_, K_coef_);
  w.Mpw = pointwise(M_, M_terms_, M_coef_);
  if (M_.size() == 1 && M_terms_.empty())
    w.Mop = std::make_unique<GalerkinOperator>(*w.space, identity_tensor(P), M_);
  else
    w.Mop = galerkin(M_, M_terms_, M_coef_, "mass");
  {
    // Gauss rule for the pointwise normalisation: p_β + 2 points per input.
    std::vector<int> npts(families_.size(), opt_.order + 2);
    w.rule = uq::tensor_gauss(families_, npts);
    w.psi_q = uq::Pce::design_matrix(families_, w.basis, w.rule.points);
  }

  // Mean problem and mean-based preconditioner (clear errors for a singular/indefinite mean).
  MeanPreconditioner pre(*w.space, K_[0], "K^(0)", opt_.prefix + "mean_");
  if (opt_.preconditioner == Preconditioner::Kronecker)
    pre.set_block_factor(kronecker_block_factor(*w.Kop, K_[0]), "the stiffness' Kronecker factor");
  fe::ModeOptions mo;
  const int guard = guard_vectors(opt_);
  mo.count = opt_.n_modes + guard;
  mo.constrained = true;
  mo.constraint_description = "the mean operator K^(0)";
  mo.prefix = opt_.prefix + "mean_modes_";
  mo.progress = false;
  const fe::ModeSet mean = fe::solve_modes(K_[0], M_[0], mo);
  const int n_all = static_cast<int>(mean.eigenvalues.size());
  int n_wanted = std::min(opt_.n_modes, n_all);
  while (n_wanted < n_all && mean.multiplicity[n_wanted - 1] > 1 &&
         std::abs(mean.eigenvalues[n_wanted] - mean.eigenvalues[n_wanted - 1]) <=
             1e-6 * std::abs(mean.eigenvalues[n_wanted]))
    ++n_wanted;
  // Multiplet (cluster) index of every mean mode.
  std::vector<int> cluster(n_all, 0);
  for (int s = 1; s < n_all; ++s)
    cluster[s] = cluster[s - 1] + (std::abs(mean.eigenvalues[s] - mean.eigenvalues[s - 1]) >
                                   1e-6 * std::abs(mean.eigenvalues[s]));

  w.cluster = cluster;

  EigenResult res;
  res.basis = w.basis;
  res.mean_eigenvalues.assign(mean.eigenvalues.begin(), mean.eigenvalues.begin() + n_wanted);
  res.multiplicity.assign(mean.multiplicity.begin(), mean.multiplicity.begin() + n_wanted);
  res.block_multiplicity = P;

  // e_0 ⊗ φ̄_s as block vectors.
  auto mean_block = [&](int s) {
    VecH v = w.space->create_vec();
    // VecGetArray on every rank, not only the owner of block 0: it invalidates the norm cache
    // VecZeroEntries left, on all ranks alike (else VecNorm deadlocks).
    PetscScalar* va = nullptr;
    FLEXUQ_PETSC(VecGetArray(v.get(), &va));
    if (w.space->first_block() == 0 && w.space->n_owned() > 0) {
      const PetscScalar* pa = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(mean.vectors[s].get(), &pa));
      std::copy(pa, pa + w.nl(), va);
      FLEXUQ_PETSC(VecRestoreArrayRead(mean.vectors[s].get(), &pa));
    }
    FLEXUQ_PETSC(VecRestoreArray(v.get(), &va));
    return v;
  };

  std::vector<VecH> U;
  MatrixXd tracked_lam;        // eigenvalue coefficients of the modes of stochastic multiplets ...
  std::vector<bool> tracked;   // ... and which modes they are (track_multiplets)
  if (opt_.method == Method::InverseSubspace) {
    log::Phase phase(world, "sg inverse subspace");
    const int n = n_all;
    for (int s = 0; s < n; ++s) U.push_back(mean_block(s));
    std::vector<VecH> W, rhs;
    for (int s = 0; s < n; ++s) {
      W.push_back(w.space->create_vec());
      rhs.push_back(w.space->create_vec());
    }
    std::vector<double> lam0(n);
    for (int s = 0; s < n; ++s) lam0[s] = mean.eigenvalues[s];
    MatrixXd lam_all = MatrixXd::Zero(P, n); // eigenvalue coefficients of the current vectors
    for (int s = 0; s < n; ++s) lam_all(0, s) = lam0[s];
    double change = 1.0;
    int first = 1;
    double best = change; // smallest sine so far (< 0.9 × the previous best counts as progress) ...
    int best_it = 0;      // ... and its sweep: the stagnation rule below
    const auto fingerprint = checkpoint_fingerprint(U, L, P, opt_, lam0);
    // Stochastic multiplets: neighbouring mean modes whose eigenvalues may cross (or veer) over the
    // inputs' range are iterated and tested as one subspace, like a mean multiplet. Taken one by
    // one, such a pair has no smooth individual modes: the pointwise Ritz step re-assigns the pair
    // differently from node to node, and the sweeps cycled without converging (the crank of
    // configs/crank-sg.yaml: modes 8 and 9, 0.8 % apart in λ̄, stalled at sine ~1e-5 in a 3-cycle).
    // Criterion, from the mean modes alone (so a resumed run groups alike): the Ritz step's own
    // problem, Rayleigh–Ritz of (K(ξ_q), M(ξ_q)) on the mean modes at the normalisation's Gauss
    // nodes; modes that share a Ritz vector with more than 10 % of their weight each are grouped.
    const std::vector<int> group = w.stochastic_multiplets(U, cluster, 0.1, 1e-3);
    // Groups of guard vectors only are named at debug level. They matter for the rate of the wanted
    // modes: on configs/crank-sg.yaml, grouping the crossing guard vectors 12-13 and 15-16 took mode
    // 10 from 0.82 to ~0.2 per sweep (19 sweeps to 7).
    for (int s0 = 0; s0 < n;) {
      int s1 = s0;
      while (s1 < n && group[s1] == group[s0]) ++s1;
      if (s1 - s0 > 1 && cluster[s1 - 1] != cluster[s0])
        log::print(world, s0 < n_wanted ? log::Level::info : log::Level::debug,
                   FLEXUQ_MSG("sg: " << (s0 < n_wanted ? "modes " : "guard vectors ") << s0 + 1 << "-" << s1
                                     << " (mean eigenvalues " << mean.eigenvalues[s0] << " ... "
                                     << mean.eigenvalues[s1 - 1]
                                     << ") may cross over the inputs' range: iterated and tested as one subspace"));
      s0 = s1;
    }
    w.cluster = group;
    res.stochastic_multiplet.assign(group.begin(), group.begin() + n_wanted);
    if (opt_.resume && !opt_.checkpoint.empty()) {
      Checkpoint c;
      if (read_checkpoint(opt_.checkpoint, world, U, c, fingerprint)) {
        first = c.iteration + 1;
        change = c.change;
        res.pcg_iterations = c.pcg;
        res.iterations = c.iteration;
        res.change = c.change;
        // State written since the stagnation rule: the best sine and its sweep after λ.
        if (c.lam.size() == static_cast<std::size_t>(P) * n + 2) {
          best_it = static_cast<int>(c.lam.back());
          c.lam.pop_back();
          best = c.lam.back();
          c.lam.pop_back();
        } else {
          best = c.change;
          best_it = c.iteration;
        }
        FLEXUQ_REQUIRE(c.lam.size() == static_cast<std::size_t>(P) * n, "sg: the checkpoint " << opt_.checkpoint
                                                                      << " holds " << c.lam.size() << " eigenvalue coefficients");
        lam_all = Eigen::Map<const MatrixXd>(c.lam.data(), P, n);
        log::info(world, FLEXUQ_MSG("sg: resumed from " << opt_.checkpoint << " after sweep " << c.iteration
                                                        << " (subspace sine " << c.change << ")"));
        // The checkpoint holds the iterate (vectors, eigenvalue coefficients, sine), which the
        // preconditioner does not define: the sweeps go on with this run's one, and the result
        // agrees with an uninterrupted run of either to the PCG tolerance, not bit for bit.
        const std::string now(enum_name(kPreconditionerNames, opt_.preconditioner));
        if (!c.preconditioner.empty() && c.preconditioner != now) {
          res.resumed_from_preconditioner = c.preconditioner;
          log::info(world, FLEXUQ_MSG("sg: --resume: the checkpoint's sweeps ran with " << opt_.key
                                      << ".preconditioner: " << c.preconditioner << ", this run uses " << now
                                      << "; continuing with " << now
                                      << " (the same iteration: the result agrees to the PCG tolerance, not bit "
                                         "for bit; recorded as resumed_from_preconditioner)"));
        }
        res.converged = change < std::max(opt_.tol, 1e-7) ||
                        (c.iteration - best_it >= 5 && best < opt_.stagnation_tol); // as the run that wrote it
      }
    }
    MatrixXd H;
    MatrixXd Uold_all = w.gather(U), MUold_all = w.gather(w.apply(*w.Mop, U));
    auto last_checkpoint = std::chrono::steady_clock::now(); // or the start of the sweeps
    for (int it = first; it <= opt_.max_it && !res.converged; ++it) {
      // Inexact inverse iteration keeps its rate when the inner tolerance follows the eigen-residual
      // linearly (the subspace sine stands for it); 10⁻²·sine² over-solved the late sweeps by ~40 %
      // of the PCG iterations for the same results (docs/performance.md).
      const double rtol = std::clamp(1e-2 * change, opt_.pcg_rtol_min, opt_.pcg_rtol_max);
      w.inverse_eigenvalue_guess(Uold_all, n, lam_all, W); // Uold_all = gather(U)
      // A sweep of a large job takes minutes: its progress over the modes, with an ETA, on rank 0
      // (at most every 10 s, so a short sweep prints nothing more).
      log::Progress progress(world, FLEXUQ_MSG("sg inverse subspace: sweep " << it << ", PCG, modes converged"), n,
                             10.0);
      // The n systems 𝒦W_s = 𝓜U_s in lockstep (sg::batched_pcg): every PCG iteration applies 𝒦 and
      // the mean factor to all unconverged modes at once, one multi-right-hand-side MUMPS solve
      // instead of n (the same iterates as n KSPCG solves; docs/performance.md).
      std::vector<Vec> Uv, Bv, Wv;
      for (int s = 0; s < n; ++s) {
        Uv.push_back(U[s].get());
        Bv.push_back(rhs[s].get());
        Wv.push_back(W[s].get());
      }
      w.Mop->apply_many(Uv, Bv);
      const auto pcg = batched_pcg(*w.Kop, pre, Bv, Wv, rtol, opt_.pcg_max_it, [&](int done) {
        if (done < n) progress.update(done); // the sweep's own log line closes it
      });
      for (const int its : pcg.iterations) res.pcg_iterations += its;
      if (pcg.failed >= 0)
        throw Error(FLEXUQ_MSG("sg: PCG on the Galerkin system failed (" << pcg.reason << ", mode " << pcg.failed + 1
                               << "); the operator may be indefinite: lower " << opt_.key
                               << ".order or the input spread"));
      // New orthonormal subspace and its overlap with the old one.
      std::vector<VecH> Unew;
      for (int s = 0; s < n; ++s) {
        Unew.push_back(w.space->create_vec());
        FLEXUQ_PETSC(VecCopy(W[s].get(), Unew[s].get()));
      }
      H = w.normalise(Unew, Normalization::Galerkin, opt_.ritz, &Uold_all);
      // Principal angles between the old and new subspaces of every wanted multiplet in the inner
      // product E[uᵀMv] = ūᵀ𝓜v̄: Σ cos² = tr(G_o⁻¹ C G_n⁻¹ Cᵀ) (the bases are orthonormal only to
      // quadrature accuracy, so the Grams are kept).
      const MatrixXd Un = w.gather(Unew), MUn = w.gather(w.apply(*w.Mop, Unew));
      auto expect_gram = [&](const MatrixXd& A, const MatrixXd& B) {
        MatrixXd X = A.transpose() * B;
        FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, X.data(), static_cast<int>(X.size()), MPI_DOUBLE, MPI_SUM, L.group()));
        MatrixXd E = MatrixXd::Zero(n, n);
        for (int s = 0; s < n; ++s)
          for (int t = 0; t < n; ++t)
            for (int b = 0; b < P; ++b) E(s, t) += X(static_cast<Index>(s) * P + b, static_cast<Index>(t) * P + b);
        return E;
      };
      const MatrixXd Eo = expect_gram(Uold_all, MUold_all), En = expect_gram(Un, MUn), Ec = expect_gram(Uold_all, MUn);
      change = 0;
      std::pair<int, int> worst{1, 1}; // the multiplet with the largest sine (modes, 1-based), for the log
      // A group that reaches past the wanted modes (into the guard vectors) is tested whole: its
      // modes are resolved from its subspace (track_multiplets).
      for (int s0 = 0; s0 < n_wanted;) {
        int s1 = s0;
        while (s1 < n && group[s1] == group[s0]) ++s1;
        const int m = s1 - s0;
        const MatrixXd Go = Eo.block(s0, s0, m, m), Gn = En.block(s0, s0, m, m), C = Ec.block(s0, s0, m, m);
        const double cos2 = (Go.llt().solve(C) * Gn.llt().solve(C.transpose())).trace();
        const double sine = std::sqrt(std::max(0.0, static_cast<double>(m) - cos2));
        if (sine > change) {
          change = sine;
          worst = {s0 + 1, s1};
        }
        s0 = s1;
      }
      Uold_all = Un;
      MUold_all = MUn;
      change = allreduce_max(world, change);
      U = std::move(Unew);
      res.iterations = it;
      res.change = change;
      lam_all = w.eigenvalue_coefficients(U);
      if (change < 0.9 * best) {
        best = change;
        best_it = it;
      }
      // The sine comes from cosines (√(m − Σcos²)), so rounding bounds it below at ~√ε ≈ 1.5e-8.
      const bool tol_reached = change < std::max(opt_.tol, 1e-7);
      // Stagnation: no progress over 5 sweeps once the sine is below opt_.stagnation_tol. The
      // subspace then moves at the level of the Galerkin truncation (seen on the crank body's
      // 4-mode stochastic multiplet: 4.2e-7 … 4.8e-7 for 5 sweeps at order 3); eigenvalue errors go
      // as sine², so the modes are as good as this order gives, and more sweeps only cost.
      const bool stagnated = !tol_reached && it - best_it >= 5 && best < opt_.stagnation_tol;
      // Checkpoint: not after the sweep that ends the solve (the results follow; a kill before they
      // are written resumes from the previous checkpoint), always after the last one of an
      // unconverged solve, else at most once per checkpoint_seconds (each write is a collective
      // HDF5 write of every block vector: ~0.15 s a sweep on a 5.5 k-DOF body, 15 % of its sweep).
      if (!opt_.checkpoint.empty() && !tol_reached && !stagnated) {
        int due = it == opt_.max_it || opt_.checkpoint_seconds <= 0 ||
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint).count() >=
                      opt_.checkpoint_seconds;
        FLEXUQ_MPI(MPI_Bcast(&due, 1, MPI_INT, 0, world)); // one clock decides: the write is collective
        if (due) {
          std::vector<double> state(lam_all.data(), lam_all.data() + lam_all.size());
          state.push_back(best);
          state.push_back(best_it);
          write_checkpoint(opt_.checkpoint, world, U,
                           Checkpoint{it, change, res.pcg_iterations, std::move(state),
                                      std::string(enum_name(kPreconditionerNames, opt_.preconditioner))},
                           fingerprint);
          last_checkpoint = std::chrono::steady_clock::now();
        }
      }
      log::print(world, opt_.progress ? log::Level::info : log::Level::debug,
                 FLEXUQ_MSG("sg inverse subspace: iteration " << it << "  subspace sine " << change << " (mode"
                                  << (worst.first == worst.second ? " " : "s ") << worst.first
                                  << (worst.first == worst.second ? "" : "-" + std::to_string(worst.second)) << ")  PCG rtol "
                                  << rtol << "  PCG iterations so far " << res.pcg_iterations));
      if (tol_reached) {
        res.converged = true;
        break;
      }
      if (stagnated) {
        res.converged = true;
        log::info(world, FLEXUQ_MSG("sg inverse subspace: no progress in 5 sweeps below sine " << best << " (tol "
                                    << opt_.tol << "; stagnation accepted below " << opt_.stagnation_tol
                                    << "): stopping, the subspace no longer improves (eigenvalue errors go as sine²)"));
        break;
      }
    }
    if (!res.converged)
      log::warn(world, FLEXUQ_MSG("sg inverse subspace: not converged after " << res.iterations << " iterations (sine "
                                   << res.change << " > " << opt_.tol << ")"));
    // Modes of a stochastic multiplet follow their identity pointwise (MAC to the mean modes).
    if (opt_.track_multiplets) w.track_multiplets(U, mean.vectors, M_[0], group, cluster, n_wanted, tracked_lam, tracked);
    U.resize(n_wanted);
  } else {
    log::Phase phase(world, "sg straight-forward");
    // The symmetric pencil (𝒦, 𝓜) as a GHEP, shift-and-invert at 0.
    MatH Ka, Ma;
    Mat A = w.Kop->shell(), B = w.Mop->shell();
    if (opt_.assemble) {
      Ka = w.Kop->assemble();
      Ma = w.Mop->assemble();
      A = Ka.get();
      B = Ma.get();
    }
    const int nev = n_all * P;
    EpsH eps;
    FLEXUQ_PETSC(EPSCreate(world, eps.out()));
    FLEXUQ_PETSC(EPSSetOptionsPrefix(eps.get(), (opt_.prefix + "sf_").c_str()));
    FLEXUQ_PETSC(EPSSetOperators(eps.get(), A, B));
    FLEXUQ_PETSC(EPSSetProblemType(eps.get(), EPS_GHEP));
    FLEXUQ_PETSC(EPSSetType(eps.get(), EPSKRYLOVSCHUR));
    FLEXUQ_PETSC(EPSSetDimensions(eps.get(), nev, PETSC_DEFAULT, PETSC_DEFAULT));
    FLEXUQ_PETSC(EPSSetTolerances(eps.get(), opt_.sf_tol, 1000));
    FLEXUQ_PETSC(EPSSetTarget(eps.get(), 0.0));
    FLEXUQ_PETSC(EPSSetWhichEigenpairs(eps.get(), EPS_TARGET_MAGNITUDE));
    ST st = nullptr;
    FLEXUQ_PETSC(EPSGetST(eps.get(), &st));
    FLEXUQ_PETSC(STSetType(st, STSINVERT));
    KSP sk = nullptr;
    FLEXUQ_PETSC(STGetKSP(st, &sk));
    la::SolverDefaults defaults; // MUMPS defaults, in the options database only during the solve
    if (opt_.assemble) {
      la::setup_mumps_cholesky(sk, opt_.prefix + "sf_st_", defaults);
    } else {
      FLEXUQ_PETSC(KSPSetType(sk, KSPCG));
      PC pc = nullptr;
      FLEXUQ_PETSC(KSPGetPC(sk, &pc));
      pre.install(pc);
      FLEXUQ_PETSC(KSPSetTolerances(sk, 1e-13, 0.0, PETSC_DEFAULT, opt_.pcg_max_it));
    }
    {
      const auto scope = defaults.apply();
      FLEXUQ_PETSC(EPSSetFromOptions(eps.get()));
      FLEXUQ_PETSC(EPSSolve(eps.get()));
    }
    PetscInt nconv = 0;
    FLEXUQ_PETSC(EPSGetConverged(eps.get(), &nconv));
    FLEXUQ_REQUIRE(nconv >= nev, "sg straight-forward: SLEPc converged " << nconv << " of " << nev
                                                                        << " eigenpairs of the Galerkin pencil");
    std::vector<VecH> big;
    for (PetscInt i = 0; i < nconv; ++i) {
      PetscScalar kr = 0, ki = 0;
      big.push_back(w.space->create_vec());
      FLEXUQ_PETSC(EPSGetEigenpair(eps.get(), i, &kr, &ki, big.back().get(), nullptr));
      if (std::abs(ki) > 0) ++res.complex_results;
      res.galerkin_spectrum.push_back(kr);
    }
    // Assign each big eigenpair to the mean multiplet that holds most of its energy,
    // o_jt = Σ_b (φ̄_tᵀ M ū_j^(b))² summed over the multiplet (robust when the stochastic spectra of
    // neighbouring modes overlap; nearest-eigenvalue assignment is not), then project e_0 ⊗ φ̄_s
    // onto the multiplet's big eigenvectors (𝓜-orthonormal from SLEPc).
    MatrixXd MPhi(w.nl(), n_all);
    {
      VecH tmp = w.space->create_spatial();
      for (int t = 0; t < n_all; ++t) {
        FLEXUQ_PETSC(MatMult(M_[0], mean.vectors[t].get(), tmp.get()));
        const PetscScalar* ta = nullptr;
        FLEXUQ_PETSC(VecGetArrayRead(tmp.get(), &ta));
        MPhi.col(t) = Eigen::Map<const VectorXd>(ta, w.nl());
        FLEXUQ_PETSC(VecRestoreArrayRead(tmp.get(), &ta));
      }
    }
    const MatrixXd Ball = w.gather(big);
    MatrixXd O = MPhi.transpose() * Ball; // (t, (j,b))
    FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, O.data(), static_cast<int>(O.size()), MPI_DOUBLE, MPI_SUM, L.group()));
    std::vector<int> owner(big.size(), -1);
    std::vector<int> count(cluster[n_all - 1] + 1, 0);
    for (std::size_t j = 0; j < big.size(); ++j) {
      std::vector<double> energy(count.size(), 0.0);
      for (int t = 0; t < n_all; ++t)
        energy[cluster[t]] += O.middleCols(static_cast<Index>(j) * P, P).row(t).squaredNorm();
      const auto best = std::max_element(energy.begin(), energy.end());
      if (*best < 0.5) continue; // belongs to a mode beyond the computed mean modes
      owner[j] = static_cast<int>(best - energy.begin());
      ++count[owner[j]];
    }
    for (int s = 0; s < n_wanted;) {
      const int c = cluster[s];
      int m = 0;
      while (s + m < n_wanted && cluster[s + m] == c) ++m;
      if (count[c] != m * P)
        log::warn(world, FLEXUQ_MSG("sg straight-forward: multiplet at mean eigenvalue " << mean.eigenvalues[s] << " has "
                                    << count[c] << " Galerkin eigenpairs, expected " << m * P
                                    << " (stochastic spectra overlap; prefer inverse-subspace)"));
      for (int t = s; t < s + m; ++t) {
        VecH e0 = mean_block(t), Me0 = w.space->create_vec(), u = w.space->create_vec();
        w.Mop->apply(e0.get(), Me0.get());
        for (std::size_t j = 0; j < big.size(); ++j) {
          if (owner[j] != c) continue;
          PetscScalar d = 0;
          FLEXUQ_PETSC(VecDot(big[j].get(), Me0.get(), &d));
          FLEXUQ_PETSC(VecAXPY(u.get(), d, big[j].get()));
        }
        U.push_back(std::move(u));
      }
      s += m;
    }
    std::sort(res.galerkin_spectrum.begin(), res.galerkin_spectrum.end());
    res.converged = true;
    w.normalise(U, Normalization::Galerkin);
  }
  if (opt_.normalization == Normalization::Thesis) w.normalise(U, Normalization::Thesis);
  res.eigenvalues = w.eigenvalue_coefficients(U);
  // A tracked mode's eigenvalue is its pointwise Ritz value, projected (not the Rayleigh quotient
  // (6.47) of the projected vector, which smooths over where the identity changes hands).
  for (int s = 0; s < static_cast<int>(res.eigenvalues.cols()) && s < static_cast<int>(tracked.size()); ++s)
    if (tracked[s]) res.eigenvalues.col(s) = tracked_lam.col(s);
  {
    const MatrixXd Ua = w.gather(U);
    // Gram with the deterministic/mean mass: apply M^(0) block-wise (I ⊗ M^(0)).
    GalerkinOperator M0(*w.space, identity_tensor(P), {M_[0]});
    res.block_gram = w.gram(Ua, w.gather(w.apply(M0, U)));
  }
  res.modes = std::move(U);
  return res;
}

int guard_vectors(const EigenOptions& opt) { return opt.guard >= 0 ? opt.guard : opt.n_modes / 2 + 2; }

void check_memory_for(MPI_Comm world, int dim, int operator_order, const EigenOptions& opt, Mat K, int extra_vectors) {
  MatInfo info;
  FLEXUQ_PETSC(MatGetInfo(K, MAT_LOCAL, &info));
  PetscInt m = 0, n = 0;
  FLEXUQ_PETSC(MatGetLocalSize(K, &m, &n));
  const int nvec = opt.method == Method::InverseSubspace ? 4 * (opt.n_modes + guard_vectors(opt)) + 4 : 3 * opt.n_modes + 4;
  check_memory(world, dim, operator_order, opt, m, static_cast<long long>(info.nz_used), nvec + extra_vectors);
}

EigenResult solve_component(const StochasticLayout& layout, const fe::Component& component,
                            const uq::StochasticSpace& space, const AffineMap& map, const ExpansionOptions& expansion,
                            const EigenOptions& opt) {
  FLEXUQ_REQUIRE_OPTION(component.stiffness_terms().size() > 0, "component.keep_affine",
                        "sg: the component keeps no affine terms ({}: true is needed for galerkin)");
  check_memory_for(layout.world(), space.dim(), expansion.order, opt, component.K());

  const auto coef = expand_coefficients(space, map, expansion);
  log::info(layout.world(), FLEXUQ_MSG("sg: operator expansion of order " << expansion.order << " ("
                                       << coef.basis.size() << " terms) by "
                                       << (coef.used == Projection::Exact        ? "exact projection"
                                           : coef.used == Projection::Quadrature ? "Gauss projection"
                                                                                 : "regression")));
  // Only K^(0) (and M^(0)) are assembled: the Galerkin products run on the affine terms.
  auto K = expand_operator(component.stiffness_terms(), coef.stiffness.topRows(1));
  std::vector<MatH> Mx;
  std::vector<Mat> Mr, Kt = component.stiffness_terms().terms(), Mt;
  if (map.n_mass > 0) {
    Mx = expand_operator(component.mass_terms(), coef.mass.topRows(1));
    Mr.push_back(Mx[0].get());
    Mt = component.mass_terms().terms();
  } else {
    Mr.push_back(component.M());
  }
  EigenSolver solver(layout, space.families(), coef.basis, {K[0].get()}, Mr, opt);
  solver.set_terms(Kt, coef.stiffness, Mt, coef.mass);
  return solver.solve();
}

} // namespace flexuq::sg
