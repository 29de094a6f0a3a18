// SPDX-License-Identifier: MIT
#include "flexuq/cms/ReducedBodyBuild.hpp"

#include "flexuq/la/BlockProduct.hpp"
#include "flexuq/la/Guards.hpp"
#include "flexuq/la/Projection.hpp"
#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/la/Blas.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/ModesFile.hpp"
#include "flexuq/io/MeshOutput.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace flexuq::cms {

namespace {


/// New vector with component @p to of every node ← f(local entry of component @p from), others 0.
template <class F> VecH lift(Vec like, int dpn, int to, F f) {
  VecH out;
  FLEXUQ_PETSC(VecDuplicate(like, out.out()));
  {
    la::VecWriteArray a(out.get(), true);
    for (PetscInt r = 0; r < a.size(); ++r) a[r] = (r % dpn == to) ? f(r - to) : 0.0;
  }
  return out;
}

Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0, -a(2), a(1), a(2), 0, -a(0), -a(1), a(0), 0;
  return s;
}

} // namespace

MassProperties mass_properties(const Eigen::Matrix<double, 6, 6>& Mrr) {
  // Rigid modes u = t + θ × x: M_tθ = −m c̃ (so c from its skew part), M_θθ = J_O.
  MassProperties p;
  p.mass = (Mrr(0, 0) + Mrr(1, 1) + Mrr(2, 2)) / 3;
  const Eigen::Matrix3d Mtr = Mrr.block<3, 3>(0, 3);
  const Eigen::Matrix3d S = -Mtr / p.mass; // = c̃
  p.com = Eigen::Vector3d(0.5 * (S(2, 1) - S(1, 2)), 0.5 * (S(0, 2) - S(2, 0)), 0.5 * (S(1, 0) - S(0, 1)));
  const Eigen::Matrix3d C = skew(p.com);
  p.inertia_com = Mrr.block<3, 3>(3, 3) - p.mass * C.transpose() * C;
  return p;
}

namespace {

/// mass_properties of a 2-D component, whose rigid motions are tx, ty, rz only (the tz, rx, ry rows
/// of @p Mrr vanish): m from M_tx,tx and M_ty,ty, c from M_tx,rz = −m c_y and M_ty,rz = m c_x, and of
/// the inertia about the CoM only J_zz = M_rz,rz − m (c_x² + c_y²).
MassProperties mass_properties_2d(const Eigen::Matrix<double, 6, 6>& Mrr) {
  MassProperties p;
  p.mass = (Mrr(0, 0) + Mrr(1, 1)) / 2;
  p.com = Eigen::Vector3d(0.5 * (Mrr(1, 5) + Mrr(5, 1)), -0.5 * (Mrr(0, 5) + Mrr(5, 0)), 0.0) / p.mass;
  p.inertia_com(2, 2) = Mrr(5, 5) - p.mass * p.com.squaredNorm();
  return p;
}

/// Owned nodes that carry DOFs, in the order of their DOFs (DofMap::owned_nodes also lists fixed
/// nodes, which have none).
std::vector<int> free_owned_nodes(const fe::Component& comp) {
  std::vector<int> out;
  for (int v : comp.dofs().owned_nodes())
    if (!comp.dofs().is_fixed(v)) out.push_back(v);
  return out;
}

/// The space the invariants are taken in: mass matrix M whose local rows are dpn per node of
/// @p owned (in that order), the nodes' coordinates X.
struct PhysicalSpace {
  Mat M = nullptr;
  std::vector<int> owned;
  const std::vector<std::array<double, 3>>* X = nullptr;
  int dpn = 3;
  MPI_Comm comm = MPI_COMM_NULL;
};

/// The component's physical space, and the columns in it. A component with single fixed components
/// (fe::DofMap::partly_fixed) has fewer rows at those nodes: M and the columns are padded to dpn
/// rows per node with zeros at the fixed components, M_p = Sᵀ M S and Φ_p = Sᵀ Φ with S the 0/1
/// selection of the component's rows; the fixed components' mass drops out, as a fixed node's does.
/// Otherwise the component's M and the columns themselves.
struct PaddedSpace {
  PhysicalSpace space;
  const std::vector<VecH>* Phi; ///< @p columns, or the padded ones
  std::vector<VecH> padded;
  MatH S, Mp;
  /// @p columns must outlive this object.
  PaddedSpace(const fe::Component& comp, const std::vector<VecH>& columns) : Phi(&columns) {
    const auto& d = comp.dofs();
    space = {comp.M(), free_owned_nodes(comp), &comp.mesh().coords, d.dofs_per_node(), comp.comm()};
    if (!d.has_partly_fixed()) return;
    const int dpn = space.dpn;
    const auto nloc = static_cast<PetscInt>(space.owned.size()) * dpn;
    PetscInt first = 0;
    FLEXUQ_MPI(MPI_Exscan(&nloc, &first, 1, MPIU_INT, MPI_SUM, space.comm));
    int rank = 0;
    FLEXUQ_MPI(MPI_Comm_rank(space.comm, &rank));
    if (rank == 0) first = 0;
    FLEXUQ_PETSC(MatCreateAIJ(space.comm, d.local_size(), nloc, d.global_size(), PETSC_DETERMINE, 1, nullptr, 0, nullptr,
                              S.out()));
    PetscInt col = first;
    for (int v : space.owned)
      for (int k = 0; k < dpn; ++k, ++col)
        if (d.dof(v, k) >= 0) FLEXUQ_PETSC(MatSetValue(S.get(), d.dof(v, k), col, 1.0, INSERT_VALUES));
    FLEXUQ_PETSC(MatAssemblyBegin(S.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatAssemblyEnd(S.get(), MAT_FINAL_ASSEMBLY));
    FLEXUQ_PETSC(MatPtAP(comp.M(), S.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, Mp.out()));
    space.M = Mp.get();
    for (const auto& c : columns) {
      VecH v;
      FLEXUQ_PETSC(MatCreateVecs(S.get(), v.out(), nullptr));
      FLEXUQ_PETSC(MatMultTranspose(S.get(), c.get(), v.get()));
      padded.push_back(std::move(v));
    }
    Phi = &padded;
  }
};

} // namespace

/// Beams (6 DOFs per node): I5–I7 from the lumped translational masses, by lifting component k of
/// every column into slot 0 (general, but 3n mass applications and 9n VecMDots).
namespace {
Invariants invariants_lifting(const PhysicalSpace& sp, const std::vector<VecH>& Phi, Eigen::MatrixXd Mff) {
  const int dpn = sp.dpn;
  Mat M = sp.M;
  Invariants inv;
  const auto n = static_cast<Eigen::Index>(Phi.size());
  inv.Mff = std::move(Mff);
  // Rigid modes in the physical space about O.
  std::vector<VecH> R;
  {
    VecH x;
    FLEXUQ_PETSC(MatCreateVecs(M, x.out(), nullptr));
    const auto& X = *sp.X;
    const auto& owned = sp.owned;
    for (int j = 0; j < 6; ++j) {
      R.push_back(lift(x.get(), 1, 0, [&](PetscInt r) {
        return rigid_row(X[owned[static_cast<std::size_t>(r / dpn)]], static_cast<int>(r % dpn), {0, 0, 0})(j);
      }));
    }
  }
  const Eigen::Matrix<double, 6, 6> Mrr = la::project(M, R);
  const auto mp = mass_properties(Mrr);
  inv.mass = mp.mass;
  inv.com = mp.com;
  inv.inertia_origin = Mrr.block<3, 3>(3, 3);
  inv.inertia_com = mp.inertia_com;
  inv.S.resize(3, n);
  inv.Sr.resize(3, n);
  VecH t;
  FLEXUQ_PETSC(MatCreateVecs(M, t.out(), nullptr));
  for (Eigen::Index j = 0; j < n; ++j) {
    FLEXUQ_PETSC(MatMult(M, Phi[static_cast<std::size_t>(j)].get(), t.get()));
    for (int a = 0; a < 6; ++a) {
      PetscScalar v = 0;
      FLEXUQ_PETSC(VecDot(t.get(), R[static_cast<std::size_t>(a)].get(), &v));
      (a < 3 ? inv.S(a, j) : inv.Sr(a - 3, j)) = PetscRealPart(v);
    }
  }
  // I5–I7 by lifting component k into slot 0: ∫ρ f g dV = L(f)ᵀ M L(g) for solids (M = M_s ⊗ 1₃);
  // beams use the diagonal lumped translational mass instead.
  inv.lumped = dpn != 3;
  VecH lumped;
  if (inv.lumped) {
    lumped = lift(t.get(), dpn, 0, [](PetscInt) { return 1.0; });
    VecH ml;
    FLEXUQ_PETSC(VecDuplicate(t.get(), ml.out()));
    FLEXUQ_PETSC(MatMult(M, lumped.get(), ml.get()));
    lumped = std::move(ml); // row sums of the ux rows over the ux columns' unit field
    PetscScalar* a = nullptr;
    PetscInt nl = 0;
    FLEXUQ_PETSC(VecGetLocalSize(lumped.get(), &nl));
    FLEXUQ_PETSC(VecGetArray(lumped.get(), &a));
    for (PetscInt r = 0; r < nl; ++r)
      if (r % dpn != 0) a[r] = 0;
    FLEXUQ_PETSC(VecRestoreArray(lumped.get(), &a));
  }
  auto mass_apply = [&](Vec in, Vec out) {
    if (inv.lumped) FLEXUQ_PETSC(VecPointwiseMult(out, lumped.get(), in));
    else FLEXUQ_PETSC(MatMult(M, in, out));
  };
  const auto& X = *sp.X;
  const auto& owned = sp.owned;
  std::array<std::vector<VecH>, 3> L; // L[k][j]: component k of column j, in slot 0
  std::array<VecH, 3> Xk;             // x₀_k in slot 0
  for (int k = 0; k < 3; ++k) {
    for (const auto& p : Phi) {
      const PetscScalar* a = nullptr;
      FLEXUQ_PETSC(VecGetArrayRead(p.get(), &a));
      L[k].push_back(lift(p.get(), dpn, 0, [&](PetscInt r) { return a[r + k]; }));
      FLEXUQ_PETSC(VecRestoreArrayRead(p.get(), &a));
    }
    Xk[k] = lift(t.get(), dpn, 0, [&](PetscInt r) { return X[owned[static_cast<std::size_t>(r / dpn)]][k]; });
  }
  for (auto& S : inv.Skl) S.resize(n, n);
  inv.Sbar.resize(9, n);
  for (int l = 0; l < 3; ++l) {
    for (Eigen::Index j = 0; j < n; ++j) {
      mass_apply(L[l][static_cast<std::size_t>(j)].get(), t.get());
      for (int k = 0; k < 3; ++k) {
        std::vector<Vec> lk;
        for (const auto& v : L[k]) lk.push_back(v.get());
        Eigen::VectorXd col(n);
        FLEXUQ_PETSC(VecMDot(t.get(), static_cast<PetscInt>(n), lk.data(), col.data())); // one reduction
        inv.Skl[static_cast<std::size_t>(3 * k + l)].col(j) = col;
        PetscScalar v = 0;
        FLEXUQ_PETSC(VecDot(t.get(), Xk[k].get(), &v));
        inv.Sbar(3 * k + l, j) = PetscRealPart(v);
      }
    }
    mass_apply(Xk[l].get(), t.get());
    for (int k = 0; k < 3; ++k) {
      PetscScalar v = 0;
      FLEXUQ_PETSC(VecDot(t.get(), Xk[k].get(), &v));
      inv.Ikl(k, l) = PetscRealPart(v);
    }
  }
  return inv;
}

/// Solids (M = M_s ⊗ 1₃) and 2-D components (M = M_s ⊗ 1₂, the z components zero): every invariant from Y = MΦ (n mass applications) and one more
/// application to the coordinate field, then local dense products over the owned nodes and one
/// reduction. With Φ_k, Y_l the component-k/l rows (one per node):
///   I5_kl = Φ_kᵀ Y_l (= Σ_ab φ_k(a) m_ab φ_l(b)),  I3 = Σ_b Y(b),  I4 = Σ_b x(b) × Y(b),
///   I6_kl = x_kᵀ Y_l,  I7_kl = x_kᵀ (M_s x_l),  I1 = Σ_b (M_s 1)(b),  I2 = x_kᵀ (M_s 1),
///   J_O = tr(I7) 1 − I7 (exact, as M_θθ of the rigid modes).
Invariants invariants_solid(const PhysicalSpace& sp, const std::vector<VecH>& Phi, Eigen::MatrixXd Mff) {
  Mat M = sp.M;
  const int dpn = sp.dpn; // 3, or 2 (z components zero)
  MPI_Comm comm = sp.comm;
  Invariants inv;
  inv.lumped = false;
  inv.Mff = std::move(Mff);
  const auto n = static_cast<Eigen::Index>(Phi.size());
  const auto& owned = sp.owned;
  const auto nn = static_cast<Eigen::Index>(owned.size());
  const auto& X = *sp.X;
  // Local blocks: P = [Φ_x Φ_y Φ_z], Q = [Y_x Y_y Y_z] (nn × 3n), and the coordinate fields.
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(nn, 3 * n), Q = Eigen::MatrixXd::Zero(nn, 3 * n), Xl(nn, 3),
                  Z = Eigen::MatrixXd::Zero(nn, 3);
  Eigen::VectorXd ones_m(nn);
  for (Eigen::Index a = 0; a < nn; ++a)
    for (int k = 0; k < 3; ++k) Xl(a, k) = X[owned[static_cast<std::size_t>(a)]][k];
  VecH y;
  FLEXUQ_PETSC(MatCreateVecs(M, y.out(), nullptr));
  auto unpack = [&](Vec v, Eigen::MatrixXd& dst, Eigen::Index col0, Eigen::Index stride) {
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(v, &a));
    for (Eigen::Index b = 0; b < nn; ++b)
      for (Eigen::Index k = 0; k < dpn; ++k) dst(b, col0 + k * stride) = PetscRealPart(a[dpn * b + k]);
    FLEXUQ_PETSC(VecRestoreArrayRead(v, &a));
  };
  // Physical columns split by component into P, then Y = MΦ in row-major blocks of 64 columns
  // (BlockProduct: M streamed once per block), split by component into Q.
  for (Eigen::Index j = 0; j < n; ++j) unpack(Phi[static_cast<std::size_t>(j)].get(), P, j, n);
  constexpr Eigen::Index kBlock = 64;
  la::BlockProduct bp(M);
  std::vector<double> Xr(static_cast<std::size_t>(dpn * nn * std::min(kBlock, n))), Yr(Xr.size());
  for (Eigen::Index j0 = 0; j0 < n; j0 += kBlock) {
    const Eigen::Index b = std::min(kBlock, n - j0);
    for (Eigen::Index r = 0; r < nn; ++r)
      for (Eigen::Index k = 0; k < dpn; ++k)
        for (Eigen::Index j = 0; j < b; ++j) Xr[static_cast<std::size_t>((dpn * r + k) * b + j)] = P(r, j0 + j + k * n);
    bp.apply(Xr.data(), static_cast<PetscInt>(b), Yr.data());
    for (Eigen::Index r = 0; r < nn; ++r)
      for (Eigen::Index k = 0; k < dpn; ++k)
        for (Eigen::Index j = 0; j < b; ++j) Q(r, j0 + j + k * n) = Yr[static_cast<std::size_t>((dpn * r + k) * b + j)];
  }
  {
    // Coordinate field x(b) in component k → M_s x_k; the all-ones field → M_s 1.
    VecH xv, one;
    FLEXUQ_PETSC(VecDuplicate(y.get(), xv.out()));
    FLEXUQ_PETSC(VecDuplicate(y.get(), one.out()));
    PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArray(xv.get(), &a));
    for (Eigen::Index b = 0; b < nn; ++b)
      for (int k = 0; k < dpn; ++k) a[dpn * b + k] = Xl(b, k);
    FLEXUQ_PETSC(VecRestoreArray(xv.get(), &a));
    FLEXUQ_PETSC(MatMult(M, xv.get(), y.get()));
    unpack(y.get(), Z, 0, 1);
    FLEXUQ_PETSC(VecSet(xv.get(), 1.0));
    FLEXUQ_PETSC(MatMult(M, xv.get(), one.get()));
    const PetscScalar* o = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(one.get(), &o));
    for (Eigen::Index b = 0; b < nn; ++b) ones_m(b) = PetscRealPart(o[dpn * b]);
    FLEXUQ_PETSC(VecRestoreArrayRead(one.get(), &o));
  }
  // Everything that is summed over nodes, in one buffer and one reduction.
  // 3n × 3n: block (k, l) = I5_kl; only k ≤ l is computed (I5_lk = I5_klᵀ), the rest filled below.
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (Eigen::Index k = 0; k < 3; ++k)
    blas::gemm_tn(P.col(k * n).data(), nn, n, std::max<Eigen::Index>(1, nn), Q.col(k * n).data(), (3 - k) * n,
                  std::max<Eigen::Index>(1, nn), G.data() + k * n + k * n * (3 * n), 3 * n);
  const Eigen::MatrixXd XY = blas::gemm_tn(Xl, Q); // 3 × 3n: block l, row k = I6_kl
  const Eigen::Matrix3d XZ = Xl.transpose() * Z;   // I7
  const Eigen::VectorXd Ysum = Q.colwise().sum().transpose(); // I3 (3n)
  Eigen::MatrixXd Cr = Eigen::MatrixXd::Zero(3, n); // I4 = Σ x × Y
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index b = 0; b < nn; ++b) {
      const Eigen::Vector3d xb = Xl.row(b).transpose();
      const Eigen::Vector3d yb(Q(b, j), Q(b, n + j), Q(b, 2 * n + j));
      Cr.col(j) += xb.cross(yb);
    }
  const double mass_local = ones_m.sum();
  const Eigen::Vector3d first_local = Xl.transpose() * ones_m;
  std::vector<double> buf;
  auto push = [&](const Eigen::MatrixXd& A) { buf.insert(buf.end(), A.data(), A.data() + A.size()); };
  push(G);
  push(XY);
  push(XZ);
  push(Ysum);
  push(Cr);
  buf.push_back(mass_local);
  push(first_local);
  FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, MPI_SUM, comm));
  std::size_t off = 0;
  auto pop = [&](Eigen::Index r, Eigen::Index c) {
    Eigen::MatrixXd A = Eigen::Map<const Eigen::MatrixXd>(buf.data() + off, r, c);
    off += static_cast<std::size_t>(r * c);
    return A;
  };
  const Eigen::MatrixXd Gs = pop(3 * n, 3 * n), XYs = pop(3, 3 * n);
  inv.Ikl = pop(3, 3);
  const Eigen::MatrixXd Ys = pop(3 * n, 1);
  inv.Sr = pop(3, n);
  inv.mass = pop(1, 1)(0, 0);
  const Eigen::Vector3d first = pop(3, 1);
  inv.com = first / inv.mass;
  inv.inertia_origin = inv.Ikl.trace() * Eigen::Matrix3d::Identity() - inv.Ikl;
  const Eigen::Matrix3d C = skew(inv.com);
  inv.inertia_com = inv.inertia_origin - inv.mass * C.transpose() * C;
  inv.S.resize(3, n);
  for (int k = 0; k < 3; ++k) inv.S.row(k) = Ys.block(k * n, 0, n, 1).transpose();
  inv.Sbar.resize(9, n);
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) {
      inv.Skl[static_cast<std::size_t>(3 * k + l)] =
          k <= l ? Eigen::MatrixXd(Gs.block(k * n, l * n, n, n)) : Eigen::MatrixXd(Gs.block(l * n, k * n, n, n).transpose());
      inv.Sbar.row(3 * k + l) = XYs.block(k, l * n, 1, n);
    }
  return inv;
}

/// The basis in the component's (physical) space, and the ΦᵀMΦ consistent with I1–I6 (MacNeal's
/// rb.M drops the residual inertia).
std::vector<VecH> physical_columns(const WorkSpace& ws, const ReducedBasis& rb) {
  std::vector<VecH> Phi;
  for (const auto& c : rb.columns) Phi.push_back(ws.to_physical(c.get()));
  return Phi;
}
Eigen::MatrixXd invariant_mass(const WorkSpace& ws, const ReducedBasis& rb) {
  return rb.method == Method::macneal ? la::project(ws.M(), rb.columns) : rb.M;
}

} // namespace

Invariants compute_invariants_by_lifting(const WorkSpace& ws, const ReducedBasis& rb) {
  const auto physical = physical_columns(ws, rb);
  const PaddedSpace p(ws.component(), physical);
  return invariants_lifting(p.space, *p.Phi, invariant_mass(ws, rb));
}

Invariants compute_invariants(const fe::Component& comp, const std::vector<VecH>& physical, const Eigen::MatrixXd& Mff) {
  const PaddedSpace p(comp, physical);
  return p.space.dpn <= 3 ? invariants_solid(p.space, *p.Phi, Mff) : invariants_lifting(p.space, *p.Phi, Mff);
}

Invariants compute_invariants(const WorkSpace& ws, const ReducedBasis& rb) {
  return compute_invariants(ws.component(), physical_columns(ws, rb), invariant_mass(ws, rb));
}

namespace {

/// ξ_Rᵀ K̄ ξ_R / (λ_max(K̄,diag) ξ_Rᵀ diag(M̄) ξ_R) per rigid mode: 0 for a free body, O(1) when grounded.
Eigen::VectorXd rigid_strain_energy(const Eigen::MatrixXd& K, const Eigen::MatrixXd& Mt, const Eigen::MatrixXd& xi) {
  const Eigen::VectorXd kd = K.diagonal().cwiseAbs(), md = Mt.diagonal().cwiseAbs();
  double ratio = 0;
  for (Eigen::Index j = 0; j < K.rows(); ++j)
    if (md(j) > 0) ratio = std::max(ratio, kd(j) / md(j));
  Eigen::VectorXd e(6);
  for (int a = 0; a < 6; ++a) {
    const double mass = xi.col(a).cwiseAbs2().dot(md);
    e(a) = std::abs(xi.col(a).dot(K * xi.col(a))) / std::max(ratio * mass, 1e-300);
  }
  return e;
}

/// The reduced pair's free-free frequencies and, for a free body (exactly 6 zero eigenvalues), the
/// floating-frame elastic coordinates: one dense eigensolve serves both. @p n_rigid < 0: the rigid
/// motions are counted (|λ| ≤ 1e-12 max|λ|), for a component on single-component supports (a
/// symmetry plane leaves 3).
void reduced_free_free(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, Checkout& c, int n_rigid = 6) {
  Eigen::VectorXd lam;
  try {
    auto e = elastic_coordinates(K, M);
    if (e.rigid == 6) {
      c.frame_V = std::move(e.V);
      lam = std::move(e.eigenvalues);
    }
  } catch (const Error&) {
    // A grounded or partly grounded basis has no floating-frame form: eigenvalues only.
  }
  if (c.frame_V.size() == 0) {
    Eigen::Index rigid = n_rigid; // a 2-D component: 3
    if (!blas::sygv(K, M, lam, nullptr)) {
      // M̄ is singular on a basis of full rank (finish_basis checked): some directions carry no
      // mass — the twist of straight Nastran CBARs (no torsional inertia). They have no finite
      // frequency; condense them statically (Nastran eliminates massless DOFs the same way). A
      // massless direction without stiffness either is a massless rigid motion: one rigid mode less.
      const Eigen::Index n = M.rows();
      const double mtop = std::max(M.diagonal().maxCoeff(), 1e-300);
      const Eigen::VectorXd d = M.diagonal().cwiseMax(1e-8 * mtop).cwiseSqrt().cwiseInverse();
      const Eigen::MatrixXd Ms = d.asDiagonal() * (0.5 * (M + M.transpose())) * d.asDiagonal();
      const Eigen::MatrixXd Ks = d.asDiagonal() * (0.5 * (K + K.transpose())) * d.asDiagonal();
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> em(Ms);
      Eigen::Index nn = 0; // massless directions: the first nn eigenvectors (ascending)
      while (nn < n && em.eigenvalues()(nn) <= 1e-10 * em.eigenvalues()(n - 1)) ++nn;
      FLEXUQ_REQUIRE(nn > 0 && nn < n, "check-out: the reduced mass matrix is not positive definite");
      const Eigen::MatrixXd U0 = em.eigenvectors().leftCols(nn), U1 = em.eigenvectors().rightCols(n - nn);
      const Eigen::MatrixXd K00 = U0.transpose() * Ks * U0, K01 = U0.transpose() * Ks * U1;
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ek(K00);
      const double ktop = std::max(Ks.diagonal().cwiseAbs().maxCoeff(), 1e-300);
      Eigen::VectorXd kinv = Eigen::VectorXd::Zero(nn);
      Eigen::Index free_massless = 0;
      for (Eigen::Index i = 0; i < nn; ++i)
        if (ek.eigenvalues()(i) > 1e-10 * ktop) kinv(i) = 1.0 / ek.eigenvalues()(i);
        else ++free_massless;
      const Eigen::MatrixXd W = ek.eigenvectors().transpose() * K01;
      const Eigen::MatrixXd Kc = U1.transpose() * Ks * U1 - W.transpose() * kinv.asDiagonal() * W;
      const Eigen::MatrixXd Mc = em.eigenvalues().tail(n - nn).asDiagonal();
      FLEXUQ_REQUIRE(blas::sygv(0.5 * (Kc + Kc.transpose()), Mc, lam, nullptr),
                     "check-out: the reduced mass matrix is not positive definite");
      rigid = std::max<Eigen::Index>(0, n_rigid - free_massless);
    }
    if (n_rigid < 0) {
      const double top = lam.size() ? lam.cwiseAbs().maxCoeff() : 0.0;
      rigid = 0;
      for (Eigen::Index i = 0; i < lam.size(); ++i) rigid += std::abs(lam(i)) <= 1e-12 * top ? 1 : 0;
    }
    lam = lam.tail(std::max<Eigen::Index>(0, lam.size() - rigid)).eval();
  }
  c.reduced_hz = lam.cwiseMax(0.0).cwiseSqrt() / (2 * M_PI);
  c.frame_eigenvalues = c.frame_V.size() ? lam : Eigen::VectorXd();
}

} // namespace

Checkout checkout_from_invariants(const Invariants& inv, const Eigen::MatrixXd& K, const Eigen::MatrixXd& M) {
  const Eigen::Index n = K.rows();
  FLEXUQ_REQUIRE(M.rows() == n && M.cols() == n && K.cols() == n && inv.S.cols() == n && inv.Sr.cols() == n,
                 "check-out: K̄, M̄ and the invariants disagree on the number of columns");
  Checkout c;
  // The rigid modes about O: B = ΦᵀMΦ_R = [I3ᵀ I4ᵀ], and M_RR = [m 1, −s̃; s̃, J_O] with s = m c
  // (the t_i·(e_a × x) block is (e_a × s)_i = −s̃_ia).
  Eigen::MatrixXd B(n, 6);
  B.leftCols(3) = inv.S.transpose();
  B.rightCols(3) = inv.Sr.transpose();
  const Eigen::Vector3d s = inv.mass * inv.com;
  Eigen::Matrix3d st;
  st << 0, -s(2), s(1), s(2), 0, -s(0), -s(1), s(0), 0;
  Eigen::Matrix<double, 6, 6> Mrr;
  Mrr << inv.mass * Eigen::Matrix3d::Identity(), -st, st, inv.inertia_origin;
  const Eigen::MatrixXd xi = M.ldlt().solve(B);
  const Eigen::Matrix<double, 6, 6> Mrr_red = xi.transpose() * M * xi;
  // ‖Φξ − Φ_R‖²_M = M_RR,aa − B_aᵀ M̄⁻¹ B_a: the expanded form (no model to form the vector), so a
  // residual below ~1e-8 reads as 0.
  c.rigid_residual.resize(6);
  for (int a = 0; a < 6; ++a)
    c.rigid_residual(a) = // a massless rigid motion (twist of straight CBARs) has nothing to represent: 0
        Mrr(a, a) > 1e-12 * Mrr.diagonal().maxCoeff() ? std::sqrt(std::max(0.0, Mrr(a, a) - B.col(a).dot(xi.col(a))) / Mrr(a, a)) : 0.0;
  c.rigid_energy = rigid_strain_energy(K, M, xi);
  c.full = mass_properties(Mrr);
  c.reduced = mass_properties(Mrr_red);
  c.effective_mass.resize(0, 6); // no normal-mode columns are known here
  c.effective_fraction = Eigen::VectorXd::Zero(6);
  reduced_free_free(K, M, c);
  return c;
}

Checkout checkout(Reducer& r, const ReducedBasis& rb, int free_free) {
  const WorkSpace& ws = r.space();
  Checkout c;
  const auto& R = r.rigid();
  const auto n = static_cast<Eigen::Index>(rb.columns.size());
  // ξ_R = M̄⁻¹ ΦᵀMΦ_R with the true reduced mass (MacNeal's M̄ drops the residual inertia).
  const Eigen::MatrixXd Mt = rb.method == Method::macneal ? la::project(ws.M(), rb.columns) : rb.M;
  Eigen::MatrixXd B(n, 6);
  VecH t = ws.new_vector();
  std::vector<Vec> rawc;
  for (const auto& v : rb.columns) rawc.push_back(v.get());
  for (int a = 0; a < 6; ++a) { // one reduction per rigid mode (VecMDot), not one per column
    FLEXUQ_PETSC(MatMult(ws.M(), R[static_cast<std::size_t>(a)].get(), t.get()));
    if (n > 0) FLEXUQ_PETSC(VecMDot(t.get(), static_cast<PetscInt>(n), rawc.data(), B.col(a).data()));
  }
  const Eigen::MatrixXd xi = Mt.ldlt().solve(B);
  const Eigen::Matrix<double, 6, 6> Mrr = r.rigid_mass();
  const Eigen::Matrix<double, 6, 6> Mrr_red = xi.transpose() * Mt * xi;
  c.rigid_residual.resize(6);
  c.rigid_energy = rigid_strain_energy(rb.K, Mt, xi);
  VecH res = ws.new_vector(), mres = ws.new_vector();
  for (int a = 0; a < 6; ++a) {
    // ‖Φξ − Φ_R‖_M formed as a vector (the expanded quadratic form loses half the digits).
    FLEXUQ_PETSC(VecCopy(R[static_cast<std::size_t>(a)].get(), res.get()));
    FLEXUQ_PETSC(VecScale(res.get(), -1.0));
    const Eigen::VectorXd xa = xi.col(a);
    if (!rawc.empty()) FLEXUQ_PETSC(VecMAXPY(res.get(), static_cast<PetscInt>(rawc.size()), xa.data(), rawc.data()));
    FLEXUQ_PETSC(MatMult(ws.M(), res.get(), mres.get()));
    PetscScalar e2 = 0;
    FLEXUQ_PETSC(VecDot(mres.get(), res.get(), &e2));
    // A massless rigid motion (twist of straight CBARs) has nothing to represent: residual 0.
    c.rigid_residual(a) = Mrr(a, a) > 1e-12 * Mrr.diagonal().maxCoeff() ? std::sqrt(std::max(0.0, PetscRealPart(e2)) / Mrr(a, a)) : 0.0;
  }
  c.full = ws.rigid_count() == 3 ? mass_properties_2d(Mrr) : mass_properties(Mrr);
  c.reduced = ws.rigid_count() == 3 ? mass_properties_2d(Mrr_red) : mass_properties(Mrr_red);
  // Effective mass of the normal-mode columns, rigid modes about the CoM.
  const auto Rc = ws.rigid_modes({c.full.com(0), c.full.com(1), c.full.com(2)});
  for (Eigen::Index j = 0; j < n; ++j) {
    const auto k = rb.kinds[static_cast<std::size_t>(j)];
    if (k == ColumnKind::fixed_interface_mode || k == ColumnKind::free_interface_mode ||
        k == ColumnKind::mixed_interface_mode)
      c.mode_columns.push_back(static_cast<std::size_t>(j));
  }
  const auto nm = static_cast<Eigen::Index>(c.mode_columns.size());
  c.effective_mass.resize(nm, 6);
  std::vector<Vec> modes;
  for (std::size_t q : c.mode_columns) modes.push_back(rb.columns[q].get());
  Eigen::MatrixXd L(nm, 6); // Γ = Φ_Nᵀ M R_c (modal participation factors × μ)
  Eigen::VectorXd total(6);  // R_cᵀ M R_c: mass and inertia about the CoM per direction
  for (int a = 0; a < 6; ++a) {
    FLEXUQ_PETSC(MatMult(ws.M(), Rc[static_cast<std::size_t>(a)].get(), t.get()));
    PetscScalar v = 0;
    FLEXUQ_PETSC(VecDot(t.get(), Rc[static_cast<std::size_t>(a)].get(), &v));
    total(a) = PetscRealPart(v);
    if (nm > 0) FLEXUQ_PETSC(VecMDot(t.get(), static_cast<PetscInt>(nm), modes.data(), L.col(a).data()));
  }
  for (Eigen::Index q = 0; q < nm; ++q) {
    const auto j = static_cast<Eigen::Index>(c.mode_columns[static_cast<std::size_t>(q)]);
    c.effective_mass.row(q) = L.row(q).cwiseAbs2() / Mt(j, j);
  }
  c.effective_fraction = c.effective_mass.colwise().sum().transpose().cwiseQuotient(total);
  for (int a = 0; a < 6; ++a)
    if (!(total(a) > 1e-12 * total.maxCoeff())) c.effective_fraction(a) = 0.0; // a direction without mass (no NaN in the output)
  // Free-free frequencies: reduced pair (dense) and, optionally, the full component.
  // One dense eigensolve serves the check-out and, for a free body (exactly 6 zero eigenvalues), the
  // floating-frame elastic coordinates written beside the invariants.
  if (rb.method != Method::macneal)
    reduced_free_free(rb.K, rb.M, c, ws.component().dofs().has_partly_fixed() ? -1 : ws.rigid_count());
  // A rigid motion without mass (the twist of a straight bar of Nastran CBARs, which have no
  // torsional inertia) makes the full free-free problem singular (K and M both vanish on it): the
  // reduced frequencies above condense it, the full ones are not computed.
  bool massless_rigid = false;
  if (free_free > 0) {
    // The component's own rigid motions (a 2-D one has no tz, rx, ry: their rows vanish).
    const Eigen::MatrixXd Mr = ws.rigid_selection().transpose() * r.rigid_mass() * ws.rigid_selection();
    const double top = std::max(Mr.diagonal().maxCoeff(), 1e-300);
    const Eigen::VectorXd d = Mr.diagonal().cwiseMax(1e-12 * top).cwiseSqrt().cwiseInverse();
    const Eigen::VectorXd ev = blas::syev_values(d.asDiagonal() * Mr * d.asDiagonal());
    massless_rigid = ev.minCoeff() <= 1e-10 * ev.maxCoeff();
    if (massless_rigid)
      log::warn(ws.comm(), "check-out: a rigid-body motion of the component has no mass (e.g. the twist of straight "
                           "CBARs, which Nastran gives no torsional inertia); the full model's free-free frequencies "
                           "are not computed");
  }
  if (free_free > 0 && !massless_rigid) {
    const auto& fm = r.free_modes();
    const auto nf = std::min<std::size_t>(static_cast<std::size_t>(free_free), fm.eigenvalues.size());
    c.full_hz.resize(static_cast<Eigen::Index>(nf));
    for (std::size_t i = 0; i < nf; ++i) c.full_hz(static_cast<Eigen::Index>(i)) = std::sqrt(fm.eigenvalues[i]) / (2 * M_PI);
  }
  return c;
}

std::string checkout_summary(const ReducedBasis& rb, const Checkout& c) {
  std::ostringstream os;
  os << std::scientific << std::setprecision(4);
  os << "  check-out (" << method_name(rb.method) << ", " << rb.n_columns() << " columns):\n";
  os << "    rigid-body modes of the reduced model  residual |Phi xi - Phi_R|_M/|Phi_R|_M   strain energy (grounding)\n";
  const char* names[6] = {"tx", "ty", "tz", "rx", "ry", "rz"};
  for (int a = 0; a < 6; ++a)
    os << "      " << names[a] << "  " << std::setw(12) << c.rigid_residual(a) << "  " << std::setw(12) << c.rigid_energy(a) << "\n";
  os << "    mass      full " << c.full.mass << "  reduced " << c.reduced.mass << " kg\n";
  os << "    CoM       full " << c.full.com.transpose() << "  reduced " << c.reduced.com.transpose() << " m\n";
  os << "    inertia   full diag " << c.full.inertia_com.diagonal().transpose() << "  reduced diag "
     << c.reduced.inertia_com.diagonal().transpose() << " kg m^2 (about the CoM)\n";
  os << "    free-free elastic frequencies [Hz]:   reduced        full         rel. diff\n";
  for (Eigen::Index i = 0; i < std::max(c.full_hz.size(), std::min<Eigen::Index>(c.reduced_hz.size(), 10)); ++i) {
    os << "      " << std::setw(4) << i + 1 << "  ";
    if (i < c.reduced_hz.size()) os << std::setw(14) << c.reduced_hz(i); else os << std::setw(14) << "-";
    if (i < c.full_hz.size()) os << "  " << std::setw(14) << c.full_hz(i); else os << "  " << std::setw(14) << "-";
    if (i < c.full_hz.size() && i < c.reduced_hz.size())
      os << "  " << std::setw(11) << (c.reduced_hz(i) - c.full_hz(i)) / c.full_hz(i);
    os << "\n";
  }
  if (!c.mode_columns.empty()) {
    os << "    modal effective mass (about the CoM), fraction of the total captured by the kept modes:\n      ";
    for (int a = 0; a < 6; ++a) os << names[a] << " " << std::fixed << std::setprecision(4) << c.effective_fraction(a) << "  ";
    os << "\n";
  }
  return os.str();
}

ReducedBody make_reduced_body(const WorkSpace& ws, const ReducedBasis& rb, const Invariants& inv, const Checkout& chk) {
  ReducedBody b;
  b.method = method_name(rb.method);
  b.mode_interface = enum_name(kModeInterfaceNames, rb.mode_interface);
  b.K = rb.K;
  b.M = rb.M;
  b.dof_labels = rb.labels;
  for (auto k : rb.kinds) b.column_kinds.emplace_back(enum_name(kColumnKindNames, k));
  b.column_scale = Eigen::Map<const Eigen::VectorXd>(rb.scale.data(), static_cast<Eigen::Index>(rb.scale.size()));
  b.mode_eigenvalues =
      Eigen::Map<const Eigen::VectorXd>(rb.mode_eigenvalues.data(), static_cast<Eigen::Index>(rb.mode_eigenvalues.size()));
  for (const auto& bd : ws.boundary()) b.interface_labels.push_back(bd.label);
  for (std::size_t s = 0; s < ws.interfaces().size(); ++s)
    if (ws.interfaces()[s].kind != InterfaceKind::all_dofs)
      b.interface_points[io::upper(ws.interfaces()[s].set)] = ws.reference_point(s);
  b.n_boundary = static_cast<std::int64_t>(ws.n_boundary());
  b.physical_boundary = static_cast<std::int64_t>(rb.physical_boundary);
  b.dofs_per_node = static_cast<std::int64_t>(ws.dofs_per_node());
  b.basis_rcond = rb.basis_rcond;
  b.diagnostics = rb.diagnostics;
  b.invariants = inv;
  b.checkout = chk;
  return b;
}

void write_reduced_file(const std::string& path, const WorkSpace& ws, const ReducedBasis& rb, const ReducedBody& body,
                        const std::vector<std::pair<std::string, double>>& phase_seconds) {
  const auto& comp = ws.component();
  BodyFile f(comp.comm(), path, BodyFile::Mode::create);
  f.write_mesh(comp.mesh());
  f.write_reduced(body);
  const std::uint64_t n = rb.n_columns();
  // Basis in input node order.
  std::vector<VecH> phys;
  std::vector<Vec> raw;
  for (const auto& c : rb.columns) {
    phys.push_back(ws.to_physical(c.get()));
    raw.push_back(phys.back().get());
  }
  fe::NaturalLayout layout(comp);
  const auto block = layout.gather(raw);
  const std::uint64_t nn = comp.mesh().num_nodes(), dpn = static_cast<std::uint64_t>(ws.dofs_per_node());
  f.write_basis({nn, dpn, n}, layout.node_begin(), layout.node_end() - layout.node_begin(), block.data());
  io::write_phase_times(f.file_for_writing(), phase_seconds);
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(comp.comm(), &rank));
  if (rank == 0) BodyFile::write_basis_xdmf(path, comp.mesh(), dpn, n);
}

void write_reduced_file(const std::string& path, const WorkSpace& ws, const ReducedBasis& rb, const Invariants& inv,
                        const Checkout& chk, const std::vector<std::pair<std::string, double>>& phase_seconds) {
  write_reduced_file(path, ws, rb, make_reduced_body(ws, rb, inv, chk), phase_seconds);
}

/// A partition-independent field in the working space: value sin(a·x + b·y + c·z + d) at every node
/// DOF (different a, b, c, d per @p j and component; zero at RBE2/RBE3 reference DOFs). Each entry is
/// computed from the node's coordinates alone, so only the order of sums over it depends on the ranks.
VecH probe_field(const WorkSpace& ws, int j) {
  VecH w = ws.new_vector();
  const auto& mesh = ws.component().mesh();
  const int dpn = ws.component().dofs().dofs_per_node();
  std::vector<PetscInt> idx;
  std::vector<PetscScalar> val;
  for (int n : ws.component().dofs().owned_nodes()) {
    if (ws.component().dofs().is_fixed(n)) continue;
    const auto& x = mesh.coords[static_cast<std::size_t>(n)];
    for (int k = 0; k < dpn; ++k) {
      const PetscInt g = ws.work_index(n, k);
      if (g < 0) continue;
      idx.push_back(g);
      val.push_back(std::sin(12.9898 * (j + 1) * x[0] + 78.233 * x[1] + 37.719 * (k + 1) * x[2] + 0.7 * j + 1.3 * k));
    }
  }
  FLEXUQ_PETSC(VecSetValues(w.get(), static_cast<PetscInt>(idx.size()), idx.data(), val.data(), INSERT_VALUES));
  FLEXUQ_PETSC(VecAssemblyBegin(w.get()));
  FLEXUQ_PETSC(VecAssemblyEnd(w.get()));
  return w;
}

std::vector<double> gather_basis(const WorkSpace& ws, const fe::NaturalLayout& natural, const std::vector<VecH>& columns) {
  std::vector<VecH> phys;
  std::vector<Vec> raw;
  for (const auto& c : columns) {
    phys.push_back(ws.to_physical(c.get()));
    raw.push_back(phys.back().get());
  }
  const auto block = natural.gather(raw);
  int size = 1, rank = 0;
  FLEXUQ_MPI(MPI_Comm_size(ws.comm(), &size));
  FLEXUQ_MPI(MPI_Comm_rank(ws.comm(), &rank));
  const int mine = static_cast<int>(block.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  FLEXUQ_MPI(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, ws.comm()));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<double> full(rank == 0 ? static_cast<std::size_t>(total) : 0);
  FLEXUQ_MPI(MPI_Gatherv(block.data(), mine, MPI_DOUBLE, full.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                         ws.comm()));
  return full;
}

void write_matrix_market(MPI_Comm comm, const std::string& prefix, const ReducedBasis& rb) {
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  if (rank != 0) return;
  for (const auto& [name, A] : {std::make_pair(std::string("K"), &rb.K), std::make_pair(std::string("M"), &rb.M)}) {
    const std::string path = prefix + "_" + name + ".mtx";
    std::ofstream out(path);
    FLEXUQ_REQUIRE_OPTION(out, "matrix_market", "{}: cannot write " << path);
    out << "%%MatrixMarket matrix array real symmetric\n% flexuq reduce " << method_name(rb.method) << ": " << name
        << "bar, rows/columns as /reduced/dof_labels\n"
        << A->rows() << " " << A->cols() << "\n"
        << std::setprecision(17);
    for (Eigen::Index j = 0; j < A->cols(); ++j)
      for (Eigen::Index i = j; i < A->rows(); ++i) out << (*A)(i, j) << "\n";
  }
}

} // namespace flexuq::cms
