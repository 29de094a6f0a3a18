// SPDX-License-Identifier: MIT
// Floating-frame equations of motion from the inertia invariants (cms/FloatingFrame.hpp) against a
// brute force on the full model: body-frame kinematics of every node (x = x₀ + Φξ, rotations as
// e_a × x, accelerations a_O + ω̇×x + ω×(ω×x) + 2ω×Φξ̇ + Φξ̈) contracted with the assembled consistent
// mass through MatMult (M = M_s ⊗ 1₃ turns Σ_i J_iᵀ m_i a_i into Σ_ij J_iᵀ m_ij a_j). The brute force
// uses neither the invariants nor compute_invariants' lifting. Also closed forms at ξ = 0 against the
// analytic m, c, J_O of the box, kinetic energy, SPD, and agreement of the replicated results.
#include "FeTestUtil.hpp"

#include "flexuq/la/Projection.hpp"
#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace flexuq;
using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

namespace {

constexpr double kLx = 0.3, kLy = 0.1, kLz = 0.05, kRho = 7800;

const std::string kBox = R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [4, 2, 2], order: 2}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
)";

Matrix3d tilde(const Vector3d& a) {
  Matrix3d t;
  t << 0, -a(2), a(1), a(2), 0, -a(0), -a(1), a(0), 0;
  return t;
}

double rel(const MatrixXd& a, const MatrixXd& b) { return (a - b).norm() / b.norm(); }

VecH copy(Vec v) {
  VecH c;
  FLEXUQ_PETSC(VecDuplicate(v, c.out()));
  FLEXUQ_PETSC(VecCopy(v, c.get()));
  return c;
}

/// A basis with its invariants and its physical (component-space) columns.
struct Case {
  cms::ReducedBasis rb;
  cms::Invariants inv;
  std::vector<VecH> phys;
};

struct Body {
  std::unique_ptr<fe::Component> comp;
  std::unique_ptr<cms::WorkSpace> ws;
  std::unique_ptr<cms::Reducer> red;
  explicit Body(MPI_Comm comm) {
    comp = test::component_from_yaml(comm, kBox);
    ws = std::make_unique<cms::WorkSpace>(*comp, std::vector<cms::InterfaceSpec>{
                                                     {"XMIN", cms::InterfaceKind::all_dofs, std::nullopt, {}},
                                                     {"XMAX", cms::InterfaceKind::all_dofs, std::nullopt, {}}});
    cms::ReducerOptions o;
    o.modes.count = 4;
    red = std::make_unique<cms::Reducer>(*ws, o);
  }
  /// Eigenvectors of the symmetric box have no rank-independent sign (several entries of largest
  /// magnitude): orient each mode column by a field without the box's symmetries (a linear one is
  /// orthogonal to the torsion modes) so that 1 and 2 ranks print the same.
  void orient(cms::ReducedBasis& rb) const {
    for (std::size_t j = 0; j < rb.columns.size(); ++j) {
      const auto kind = rb.kinds[j];
      if (kind != cms::ColumnKind::fixed_interface_mode && kind != cms::ColumnKind::free_interface_mode) continue;
      const VecH p = ws->to_physical(rb.columns[j].get());
      const auto& X = comp->mesh().coords;
      const auto& owned = comp->dofs().owned_nodes();
      const PetscScalar* a = nullptr;
      PetscInt nl = 0;
      FLEXUQ_PETSC(VecGetLocalSize(p.get(), &nl));
      FLEXUQ_PETSC(VecGetArrayRead(p.get(), &a));
      double d = 0;
      for (PetscInt r = 0; r < nl; ++r) {
        const auto& x = X[owned[static_cast<std::size_t>(r / 3)]];
        d += a[r] * std::exp(2.1 * x[0] + 3.7 * x[1] + 5.3 * x[2]) * (1 + 0.3 * static_cast<double>(r % 3));
      }
      FLEXUQ_PETSC(VecRestoreArrayRead(p.get(), &a));
      FLEXUQ_MPI(MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, comp->comm()));
      if (d >= 0) continue;
      const auto i = static_cast<Eigen::Index>(j);
      FLEXUQ_PETSC(VecScale(rb.columns[j].get(), -1.0));
      for (auto* A : {&rb.K, &rb.M})
        if (A->rows() == static_cast<Eigen::Index>(rb.columns.size())) {
          A->row(i) *= -1;
          A->col(i) *= -1;
        }
    }
  }
  Case finish(cms::ReducedBasis rb) const {
    orient(rb);
    Case c;
    c.inv = cms::compute_invariants(*ws, rb);
    for (const auto& v : rb.columns) c.phys.push_back(ws->to_physical(v.get()));
    c.rb = std::move(rb);
    return c;
  }
  /// Craig–Bampton as built (contains the rigid-body motion: Φ_CΦ_Rb = Φ_R), max-scaled.
  Case craig_bampton() const {
    cms::BuildOptions b;
    b.method = cms::Method::craig_bampton;
    b.scaling = cms::Scaling::max;
    return finish(red->build(b));
  }
  /// Shapes that vanish on both clamped ends — 4 fixed-interface modes and the 6 inertia-relief
  /// modes — scaled to unit max entry: no rigid motion in the span, so M(ξ) is invertible.
  Case clamped_shapes() const {
    cms::ReducedBasis rb;
    for (const auto& v : red->fixed_modes().vectors) rb.columns.push_back(copy(v.get()));
    for (const auto& v : red->inertia_relief()) rb.columns.push_back(copy(v.get()));
    for (auto& v : rb.columns) {
      PetscReal mx = 0;
      FLEXUQ_PETSC(VecNorm(v.get(), NORM_INFINITY, &mx));
      FLEXUQ_PETSC(VecScale(v.get(), 1.0 / mx));
      rb.labels.push_back("shape");
      rb.kinds.push_back(cms::ColumnKind::fixed_interface_mode);
      rb.scale.push_back(1.0);
    }
    rb.M = la::project(ws->M(), rb.columns);
    return finish(std::move(rb));
  }
};

/// Random state, identical on every rank (fixed seed). ξ in metres of the max-scaled columns.
struct State {
  VectorXd xi, xi_dot, xi_ddot;
  Vector3d omega, omega_dot, a_O, v_O;
  State(Eigen::Index n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    auto vec = [&](Eigen::Index m, double s) {
      VectorXd v(m);
      for (Eigen::Index i = 0; i < m; ++i) v(i) = s * u(gen);
      return v;
    };
    xi = vec(n, 0.01);
    xi_dot = vec(n, 0.5);
    xi_ddot = vec(n, 20);
    omega = vec(3, 8);
    omega_dot = vec(3, 50);
    a_O = vec(3, 10);
    v_O = vec(3, 2);
  }
};

/// Brute force on the full nodal fields of the component (3 DOFs per node, physical layout).
class BruteForce {
public:
  BruteForce(const fe::Component& comp, const std::vector<VecH>& phys, const VectorXd& xi) : comp_(comp), phys_(phys) {
    FLEXUQ_PETSC(MatCreateVecs(comp.M(), x_.out(), nullptr));
    const auto& X = comp.mesh().coords;
    const auto& owned = comp.dofs().owned_nodes();
    PetscInt nl = 0;
    FLEXUQ_PETSC(VecGetLocalSize(x_.get(), &nl));
    EXPECT_EQ(static_cast<std::size_t>(nl), 3 * owned.size());
    PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArray(x_.get(), &a));
    for (PetscInt r = 0; r < nl; ++r) a[r] = X[owned[static_cast<std::size_t>(r / 3)]][static_cast<std::size_t>(r % 3)];
    FLEXUQ_PETSC(VecRestoreArray(x_.get(), &a));
    add_basis(x_.get(), xi); // x = x₀ + Φξ
    // Virtual-displacement fields, the columns of J = [1, −x̃, Φ]: e_a, e_a × x, Φ_j.
    for (int a = 0; a < 3; ++a) U_.push_back(nodal([&](const Vector3d&) { return Vector3d(Vector3d::Unit(a)); }));
    for (int a = 0; a < 3; ++a) U_.push_back(nodal([&](const Vector3d& x) { return Vector3d(Vector3d::Unit(a).cross(x)); }));
    for (const auto& p : phys_) U_.push_back(copy(p.get()));
  }

  /// Σ_ij J_iᵀ m_ij f_j for a nodal field f.
  VectorXd virtual_work(Vec f) const {
    const auto& U = U_;
    VecH mf;
    FLEXUQ_PETSC(VecDuplicate(f, mf.out()));
    FLEXUQ_PETSC(MatMult(comp_.M(), f, mf.get()));
    VectorXd q(static_cast<Eigen::Index>(U.size()));
    for (std::size_t c = 0; c < U.size(); ++c) {
      PetscScalar d = 0;
      FLEXUQ_PETSC(VecDot(mf.get(), U[c].get(), &d));
      q(static_cast<Eigen::Index>(c)) = PetscRealPart(d);
    }
    return q;
  }
  MatrixXd mass() const {
    const auto& U = U_;
    MatrixXd Mb(static_cast<Eigen::Index>(U.size()), static_cast<Eigen::Index>(U.size()));
    for (std::size_t d = 0; d < U.size(); ++d) Mb.col(static_cast<Eigen::Index>(d)) = virtual_work(U[d].get());
    return Mb;
  }
  /// Body-frame acceleration field a_O + ω̇×x + ω×(ω×x) + 2ω×Φξ̇ + Φξ̈; with
  /// @p only_quadratic, ω×(ω×x) + 2ω×Φξ̇.
  VecH acceleration(const State& s, bool only_quadratic) const {
    VecH pd = zero();
    add_basis(pd.get(), s.xi_dot);
    VecH acc = nodal2(pd.get(), [&](const Vector3d& x, const Vector3d& v) {
      Vector3d r = s.omega.cross(s.omega.cross(x)) + 2 * s.omega.cross(v);
      if (!only_quadratic) r += s.a_O + s.omega_dot.cross(x);
      return r;
    });
    if (!only_quadratic) add_basis(acc.get(), s.xi_ddot);
    return acc;
  }
  /// Body-frame velocity field v_O + ω×x + Φξ̇.
  VecH velocity(const State& s) const {
    VecH w = nodal([&](const Vector3d& x) { return Vector3d(s.v_O + s.omega.cross(x)); });
    add_basis(w.get(), s.xi_dot);
    return w;
  }
  VecH uniform(const Vector3d& g) const { return nodal([&](const Vector3d&) { return g; }); }
  double energy(Vec w) const {
    VecH mw;
    FLEXUQ_PETSC(VecDuplicate(w, mw.out()));
    FLEXUQ_PETSC(MatMult(comp_.M(), w, mw.get()));
    PetscScalar e = 0;
    FLEXUQ_PETSC(VecDot(mw.get(), w, &e));
    return 0.5 * PetscRealPart(e);
  }

private:
  VecH zero() const {
    VecH z;
    FLEXUQ_PETSC(VecDuplicate(x_.get(), z.out()));
    FLEXUQ_PETSC(VecSet(z.get(), 0.0));
    return z;
  }
  void add_basis(Vec v, const VectorXd& c) const {
    for (std::size_t j = 0; j < phys_.size(); ++j) FLEXUQ_PETSC(VecAXPY(v, c(static_cast<Eigen::Index>(j)), phys_[j].get()));
  }
  template <class F> VecH nodal(F f) const {
    return nodal2(x_.get(), [&](const Vector3d& x, const Vector3d&) { return f(x); });
  }
  /// out(node) = f(x(node), b(node)).
  template <class F> VecH nodal2(Vec b, F f) const {
    VecH out = zero();
    PetscInt nl = 0;
    FLEXUQ_PETSC(VecGetLocalSize(out.get(), &nl));
    const PetscScalar *xa = nullptr, *ba = nullptr;
    PetscScalar* o = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(x_.get(), &xa));
    FLEXUQ_PETSC(VecGetArrayRead(b, &ba));
    FLEXUQ_PETSC(VecGetArray(out.get(), &o));
    for (PetscInt r = 0; r < nl; r += 3) {
      const Vector3d v = f(Vector3d(xa[r], xa[r + 1], xa[r + 2]), Vector3d(ba[r], ba[r + 1], ba[r + 2]));
      for (int k = 0; k < 3; ++k) o[r + k] = v(k);
    }
    FLEXUQ_PETSC(VecRestoreArray(out.get(), &o));
    FLEXUQ_PETSC(VecRestoreArrayRead(b, &ba));
    FLEXUQ_PETSC(VecRestoreArrayRead(x_.get(), &xa));
    return out;
  }
  const fe::Component& comp_;
  const std::vector<VecH>& phys_;
  VecH x_;
  std::vector<VecH> U_;
};

/// Relative error of the blocks [0,3), [3,6), [6, 6+n) of a generalized vector / matrix.
std::array<double, 3> block_errors(const VectorXd& a, const VectorXd& b) {
  const Eigen::Index n = a.size() - 6;
  return {rel(a.head(3), b.head(3)), rel(a.segment(3, 3), b.segment(3, 3)), rel(a.tail(n), b.tail(n))};
}

struct MassErrors {
  double rr, rt, rf, tt, tf, ff, sym;
};
MassErrors mass_errors(const MatrixXd& M, const MatrixXd& B) {
  const Eigen::Index n = M.rows() - 6;
  auto e = [&](Eigen::Index r, Eigen::Index c, Eigen::Index nr, Eigen::Index nc) {
    return rel(M.block(r, c, nr, nc), B.block(r, c, nr, nc));
  };
  return {e(0, 0, 3, 3), e(0, 3, 3, 3), e(0, 6, 3, n), e(3, 3, 3, 3), e(3, 6, 3, n), e(6, 6, n, n),
          (M - M.transpose()).norm() / M.norm()};
}

void print_rank0(MPI_Comm comm, const std::string& s) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::printf("%s\n", s.c_str());
}

/// The full comparison of one basis at one random state. Returns M(ξ) for further checks.
MatrixXd compare_with_brute_force(const Body& body, const Case& c, const std::string& name, unsigned seed) {
  const auto n = static_cast<Eigen::Index>(c.phys.size());
  const State s(n, seed);
  const BruteForce bf(*body.comp, c.phys, s.xi);
  // M(ξ) block by block.
  const MatrixXd M = cms::generalized_mass(c.inv, s.xi);
  const MatrixXd Mb = bf.mass();
  const auto me = mass_errors(M, Mb);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "[%s n=%ld] M(xi) rel err: rr %.1e rtheta %.1e rf %.1e thetatheta %.1e thetaf %.1e ff %.1e (asym %.1e)",
                name.c_str(), static_cast<long>(n), me.rr, me.rt, me.rf, me.tt, me.tf, me.ff, me.sym);
  print_rank0(MPI_COMM_WORLD, buf);
  EXPECT_LT(me.rr, 1e-10);
  EXPECT_LT(me.rt, 1e-10);
  EXPECT_LT(me.rf, 1e-10);
  EXPECT_LT(me.tt, 1e-10);
  EXPECT_LT(me.tf, 1e-10);
  EXPECT_LT(me.ff, 1e-10);
  EXPECT_EQ(me.sym, 0.0);
  // The state is not a small perturbation: the ξ-dependent parts of M_rθ, M_θθ, M_θf are visible.
  const MatrixXd M0 = cms::generalized_mass(c.inv, VectorXd::Zero(n));
  EXPECT_GT(rel(M.block(3, 3, 3, 3), M0.block(3, 3, 3, 3)), 1e-4);
  EXPECT_GT(rel(M.block(3, 6, 3, n), M0.block(3, 6, 3, n)), 1e-4);
  // Q_v = −Σ_ij J_iᵀ m_ij (ω×(ω×x) + 2ω×Φξ̇)_j.
  const VectorXd Q = cms::quadratic_velocity(c.inv, s.xi, s.xi_dot, s.omega);
  const VecH g = bf.acceleration(s, true);
  const VectorXd Qb = -bf.virtual_work(g.get());
  const auto qe = block_errors(Q, Qb);
  std::snprintf(buf, sizeof buf, "[%s] Q_v rel err: translation %.1e rotation %.1e elastic %.1e", name.c_str(), qe[0],
                qe[1], qe[2]);
  print_rank0(MPI_COMM_WORLD, buf);
  for (double e : qe) EXPECT_LT(e, 1e-10);
  // Whole equation: M(ξ)[a_O; ω̇; ξ̈] − Q_v = Σ_ij J_iᵀ m_ij (body-frame acceleration)_j.
  VectorXd acc(6 + n);
  acc << s.a_O, s.omega_dot, s.xi_ddot;
  const VecH af = bf.acceleration(s, false);
  const VectorXd lhs = M * acc - Q, rhs = bf.virtual_work(af.get());
  const auto ve = block_errors(lhs, rhs);
  std::snprintf(buf, sizeof buf, "[%s] M a - Q_v vs virtual work of the inertia forces: %.1e %.1e %.1e", name.c_str(),
                ve[0], ve[1], ve[2]);
  print_rank0(MPI_COMM_WORLD, buf);
  for (double e : ve) EXPECT_LT(e, 1e-10);
  // The path of the multibody engine: contractions computed once per ξ (here reused in place after
  // another ξ), M(ξ)·a without forming M(ξ), Q_v from the same contractions.
  cms::FrameContractions fc = cms::contract(c.inv, VectorXd::Constant(n, 0.3));
  cms::contract(c.inv, s.xi, fc);
  EXPECT_EQ((cms::generalized_mass(c.inv, fc) - M).norm(), 0.0);
  EXPECT_EQ((cms::quadratic_velocity(c.inv, fc, s.xi_dot, s.omega) - Q).norm(), 0.0);
  const auto te = block_errors(VectorXd(cms::generalized_mass_times(c.inv, fc, acc) - Q), rhs);
  for (double e : te) EXPECT_LT(e, 1e-10);
  EXPECT_LT((cms::generalized_mass_times(c.inv, fc, acc) - M * acc).norm(), 1e-13 * (M * acc).norm());
  // Gravity: Σ_ij J_iᵀ m_ij g.
  const Vector3d gb(0.3, -9.81, 1.2);
  const VecH gf = bf.uniform(gb);
  const auto ge = block_errors(cms::gravity_force(c.inv, s.xi, gb), bf.virtual_work(gf.get()));
  std::snprintf(buf, sizeof buf, "[%s] gravity rel err: %.1e %.1e %.1e", name.c_str(), ge[0], ge[1], ge[2]);
  print_rank0(MPI_COMM_WORLD, buf);
  for (double e : ge) EXPECT_LT(e, 1e-10);
  // Kinetic energy: ½ vᵀM(ξ)v = ½ wᵀ M_full w.
  VectorXd v(6 + n);
  v << s.v_O, s.omega, s.xi_dot;
  const VecH w = bf.velocity(s);
  const double T = cms::kinetic_energy(c.inv, s.xi, v), Tb = bf.energy(w.get());
  std::snprintf(buf, sizeof buf, "[%s] kinetic energy %.6e J, rel err %.1e", name.c_str(), T, std::abs(T - Tb) / Tb);
  print_rank0(MPI_COMM_WORLD, buf);
  EXPECT_LT(std::abs(T - Tb), 1e-12 * Tb);
  // Replicated: every rank holds the same M(ξ) and Q_v.
  VectorXd mine(M.size() + Q.size());
  mine << Eigen::Map<const VectorXd>(M.data(), M.size()), Q;
  VectorXd root = mine;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT_LE((mine - root).cwiseAbs().maxCoeff(), 1e-14 * root.cwiseAbs().maxCoeff());
  return M;
}

} // namespace

TEST(FloatingFrame, ClampedShapesMatchBruteForceAndMassIsPositiveDefinite) {
  Body body(MPI_COMM_WORLD);
  const Case c = body.clamped_shapes();
  ASSERT_EQ(c.phys.size(), 10u);
  EXPECT_FALSE(c.inv.lumped);
  const MatrixXd M = compare_with_brute_force(body, c, "clamped shapes", 11);
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(M, Eigen::EigenvaluesOnly);
  const VectorXd lam = es.eigenvalues();
  print_rank0(MPI_COMM_WORLD, "[clamped shapes] eig(M(xi)) min " + std::to_string(lam(0)) + " max " +
                                  std::to_string(lam(lam.size() - 1)));
  EXPECT_GT(lam(0), 1e-8 * lam(lam.size() - 1));
  EXPECT_EQ(Eigen::LLT<MatrixXd>(M).info(), Eigen::Success);
}

TEST(FloatingFrame, CraigBamptonMatchesBruteForceAndHoldsTheRigidMotion) {
  Body body(MPI_COMM_WORLD);
  const Case c = body.craig_bampton();
  compare_with_brute_force(body, c, "craig-bampton", 23);
  // Φ_CΦ_Rb = Φ_R: [t; θ; −ξ_R] is a null vector of M(0), six times.
  const auto n = static_cast<Eigen::Index>(c.phys.size());
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(cms::generalized_mass(c.inv, VectorXd::Zero(n)), Eigen::EigenvaluesOnly);
  const VectorXd lam = es.eigenvalues();
  EXPECT_LT(lam(5), 1e-10 * lam(lam.size() - 1));
  EXPECT_GT(lam(6), 1e-8 * lam(lam.size() - 1));
}

TEST(FloatingFrame, ClosedFormsAtTheUndeformedState) {
  Body body(MPI_COMM_WORLD);
  const Case c = body.clamped_shapes();
  const auto n = static_cast<Eigen::Index>(c.phys.size());
  // Analytic box [0,lx]×[0,ly]×[0,lz]: m, c, J_O = ∫ρ(|x|²1 − xxᵀ) with ∫ρx_k² = m l_k²/3, ∫ρx_kx_l = m l_k l_l/4.
  const double m = kRho * kLx * kLy * kLz;
  const Vector3d L(kLx, kLy, kLz), com = L / 2;
  Matrix3d I7;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) I7(k, l) = m * L(k) * L(l) / (k == l ? 3.0 : 4.0);
  const Matrix3d JO = I7.trace() * Matrix3d::Identity() - I7;
  const VectorXd zero = VectorXd::Zero(n);
  const MatrixXd M0 = cms::generalized_mass(c.inv, zero);
  MatrixXd R(6, 6);
  R << m * Matrix3d::Identity(), -m * tilde(com), m * tilde(com), JO;
  const double er = rel(M0.topLeftCorner(6, 6), R);
  // ξ = 0, ξ̇ = 0: Q_v = [−m ω̃ω̃c; −ω̃J_Oω; −Σ_kl (ω̃ω̃)_kl I6_lkᵀ].
  const Vector3d w(3.0, -5.0, 7.0);
  const VectorXd Q = cms::quadratic_velocity(c.inv, zero, zero, w);
  const Vector3d qr = -m * tilde(w) * tilde(w) * com, qt = -tilde(w) * JO * w;
  const double e1 = rel(Q.head(3), qr), e2 = rel(Q.segment(3, 3), qt);
  char buf[256];
  std::snprintf(buf, sizeof buf, "[closed forms] rigid block %.1e, -m w~w~c %.1e, -w~J_O w %.1e", er, e1, e2);
  print_rank0(MPI_COMM_WORLD, buf);
  EXPECT_LT(er, 1e-10);
  EXPECT_LT(e1, 1e-10);
  EXPECT_LT(e2, 1e-10);
  // Kinetic energy of a rigid motion at ξ = 0: ½ m|v|² + m v·(ω × c) + ½ ωᵀJ_Oω.
  const Vector3d vO(1.0, -2.0, 0.5);
  VectorXd v = VectorXd::Zero(6 + n);
  v << vO, w, zero;
  const double T = 0.5 * m * vO.squaredNorm() + m * vO.dot(w.cross(com)) + 0.5 * w.dot(JO * w);
  EXPECT_NEAR(cms::kinetic_energy(c.inv, zero, v), T, 1e-10 * T);
}

TEST(FloatingFrame, MacNealUsesTheFullModalMass) {
  // MacNeal's M̄ drops the residual inertia; the floating frame needs ΦᵀMΦ, consistent with I1–I6.
  Body body(MPI_COMM_WORLD);
  cms::BuildOptions b;
  b.method = cms::Method::macneal;
  b.scaling = cms::Scaling::max;
  const Case c = body.finish(body.red->build(b));
  EXPECT_GT(rel(c.rb.M, c.inv.Mff), 1e-6);
  EXPECT_LT(rel(c.inv.Skl[0] + c.inv.Skl[4] + c.inv.Skl[8], c.inv.Mff), 1e-10);
  compare_with_brute_force(body, c, "macneal", 37);
}

TEST(FloatingFrame, ElasticCoordinatesOfCraigBamptonSatisfyTheMeanAxisConditions) {
  // The CB span holds the rigid motion; its elastic coordinates V (free-free modes of the reduced
  // pair without the 6 zero ones) give an invertible M(ξ), S V = 0 and Sr V = 0 (Tisserand frame),
  // and invariants that equal those of the physical basis Φ V (checked by brute force).
  Body body(MPI_COMM_WORLD);
  const Case cb = body.craig_bampton();
  const auto e = cms::elastic_coordinates(cb.rb.K, cb.rb.M);
  EXPECT_EQ(e.rigid, 6);
  const auto ne = e.V.cols();
  ASSERT_EQ(ne, static_cast<Eigen::Index>(cb.rb.columns.size()) - 6);
  EXPECT_LT((e.V.transpose() * cb.rb.M * e.V - MatrixXd::Identity(ne, ne)).norm(), 1e-9 * std::sqrt(double(ne)));
  const MatrixXd KV = e.V.transpose() * cb.rb.K * e.V;
  EXPECT_LT((KV - MatrixXd(e.eigenvalues.asDiagonal())).norm(), 1e-9 * e.eigenvalues.norm());
  EXPECT_GT(e.eigenvalues.minCoeff(), 0);
  const auto inv = cms::transform_invariants(cb.inv, e.V);
  // Mean-axis conditions, relative to the scale of the untransformed coupling.
  const double sV = (cb.inv.S.norm() + cb.inv.Sr.norm()) * e.V.norm();
  EXPECT_LT(inv.S.norm(), 1e-9 * sV);
  EXPECT_LT(inv.Sr.norm(), 1e-9 * sV);
  // Physical columns Φ V and the brute force of M(ξ) at a random state.
  std::vector<VecH> phys;
  for (Eigen::Index j = 0; j < ne; ++j) {
    VecH v = copy(cb.phys[0].get());
    FLEXUQ_PETSC(VecSet(v.get(), 0.0));
    std::vector<Vec> raw;
    for (const auto& p : cb.phys) raw.push_back(p.get());
    const VectorXd c = e.V.col(j);
    FLEXUQ_PETSC(VecMAXPY(v.get(), static_cast<PetscInt>(raw.size()), c.data(), raw.data()));
    phys.push_back(std::move(v));
  }
  const State s(ne, 77);
  const VectorXd xi = 1e-4 * s.xi; // modal units: mass-normalised columns
  const BruteForce bf(*body.comp, phys, xi);
  const MatrixXd Mxi = cms::generalized_mass(inv, xi);
  EXPECT_LT(rel(Mxi, bf.mass()), 1e-10);
  Eigen::LLT<MatrixXd> llt(Mxi);
  EXPECT_EQ(llt.info(), Eigen::Success) << "M(xi) of the elastic coordinates must be positive definite";
  // Quadratic-velocity vector against the brute force on the same fields.
  State q(ne, 79);
  q.xi = xi;
  q.xi_dot *= 1e-2;
  const VectorXd qv = cms::quadratic_velocity(inv, xi, q.xi_dot, q.omega);
  VecH a = bf.acceleration(q, true);
  const VectorXd ref = -bf.virtual_work(a.get());
  EXPECT_LT((qv - ref).norm(), 1e-10 * ref.norm());
}
