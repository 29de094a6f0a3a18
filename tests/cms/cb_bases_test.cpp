// SPDX-License-Identifier: MIT
// CMS bases of Wevers 2024, ch. 2 (seed 002; the checks C1–C11 are identities of its equations, not
// thesis numbers): C1 rigid modes, C2 G = PᵀG_cP, C3 eqs 37/38/44, C4 equivalence
// maps, C5 equal reduced spectra, C6 kept frequencies, C7 Rayleigh–Ritz bounds, C8 zero-mode
// identities, C9 span equality, C10 static completeness, C11 Herting boundary = CB constraint modes;
// CB fixed-interface modes = clamped fe::solve_modes; convergence from above; residual vectors;
// floating-frame invariants of a box; RBE2; 1 rank = all ranks; the reduction facade (cms::reduce) = the chain.
#include "CmsTestUtil.hpp"

#include "flexuq/cms/Reduce.hpp"
#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/cms/StochasticBody.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace flexuq;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const std::string kBox = test::steel_box_yaml();

MatrixXd cols(const fe::Component& c, const std::vector<VecH>& v) { return test::natural_columns(c, v); }

double rel(const MatrixXd& a, const MatrixXd& b) { return (a - b).norm() / b.norm(); }

VectorXd gen_eigs(const MatrixXd& K, const MatrixXd& M) { return test::pencil_eigenvalues(K, M); }

/// Elastic eigenvalues (the 6 lowest dropped when @p free).
VectorXd elastic(const cms::ReducedBasis& b, bool free) {
  VectorXd e = gen_eigs(b.K, b.M);
  return free ? VectorXd(e.tail(e.size() - 6)) : e;
}

/// The box with interfaces XMIN and XMAX.
struct Fixture : test::CmsFixture {
  Fixture(MPI_Comm comm, int modes, std::vector<std::string> res = {}, const std::string& yaml = kBox,
          cms::InterfaceKind kind = cms::InterfaceKind::all_dofs)
      : CmsFixture(test::component_from_yaml(comm, yaml), test::interfaces({"XMIN", "XMAX"}, kind), modes,
                   std::move(res)) {}
  cms::ReducedBasis build(cms::Method m, std::optional<cms::ModeInterface> mi = std::nullopt,
                          cms::Scaling s = cms::Scaling::none, bool resvec = false) {
    cms::BuildOptions b;
    b.method = m;
    b.mode_interface = mi;
    b.scaling = s;
    b.residual_vectors = resvec;
    return red->build(b);
  }
};

} // namespace

TEST(CmsPieces, C1C2C3RigidModesFlexibilityAndConstraintIdentities) {
  Fixture f(MPI_COMM_WORLD, 6);
  auto& r = *f.red;
  const auto& c = *f.comp;
  // C1: K Φ_R = 0.
  const MatrixXd R = cols(c, r.rigid());
  PetscReal knorm = 0;
  FLEXUQ_PETSC(MatNorm(c.K(), NORM_FROBENIUS, &knorm));
  for (const auto& v : r.rigid()) {
    VecH t;
    FLEXUQ_PETSC(VecDuplicate(v.get(), t.out()));
    FLEXUQ_PETSC(MatMult(c.K(), v.get(), t.get()));
    PetscReal a = 0, b = 0;
    FLEXUQ_PETSC(VecNorm(t.get(), NORM_2, &a));
    FLEXUQ_PETSC(VecNorm(v.get(), NORM_2, &b));
    EXPECT_LT(a, 1e-12 * knorm * b);
  }
  // C2: K G_b = P E_b; Φ_RᵀM G_b = 0; G_bb symmetric.
  const auto& G = r.attachment();
  const MatrixXd Gb = r.boundary_rows(G);
  EXPECT_LT((Gb - Gb.transpose()).norm(), 1e-10 * Gb.norm());
  const MatrixXd Mrr = r.rigid_mass();
  const MatrixXd Rb = r.boundary_rows(r.rigid());
  {
    VecH t = f.ws->new_vector();
    double worst = 0, worst_m = 0;
    for (std::size_t k = 0; k < G.size(); ++k) {
      FLEXUQ_PETSC(MatMult(c.K(), G[k].get(), t.get()));
      // P e_k = e_k − MΦ_R M̄_RR⁻¹ Φ_Rb(k,:)ᵀ
      const VectorXd a = Mrr.ldlt().solve(Rb.row(static_cast<Eigen::Index>(k)).transpose());
      std::vector<VecH> one;
      one.push_back(f.ws->new_vector());
      for (int j = 0; j < 6; ++j) {
        VecH mr = f.ws->new_vector();
        FLEXUQ_PETSC(MatMult(c.M(), r.rigid()[static_cast<std::size_t>(j)].get(), mr.get()));
        FLEXUQ_PETSC(VecAXPY(t.get(), a(j), mr.get()));
      }
      const MatrixXd tb = r.boundary_rows([&] {
        std::vector<VecH> x;
        x.push_back(f.ws->new_vector());
        FLEXUQ_PETSC(VecCopy(t.get(), x[0].get()));
        return x;
      }());
      // K G e_k + MΦ_R a − e_k = 0
      PetscReal tn = 0;
      FLEXUQ_PETSC(VecNorm(t.get(), NORM_2, &tn));
      worst = std::max(worst, std::abs(std::sqrt(std::max(0.0, tn * tn - tb(static_cast<Eigen::Index>(k), 0) * tb(static_cast<Eigen::Index>(k), 0))) + std::abs(tb(static_cast<Eigen::Index>(k), 0) - 1.0)));
      VecH mg = f.ws->new_vector();
      FLEXUQ_PETSC(MatMult(c.M(), G[k].get(), mg.get()));
      for (const auto& rv : r.rigid()) {
        PetscScalar d = 0;
        FLEXUQ_PETSC(VecDot(mg.get(), rv.get(), &d));
        worst_m = std::max(worst_m, std::abs(d) / (Mrr.diagonal().maxCoeff()));
      }
    }
    EXPECT_LT(worst, 1e-9);
    EXPECT_LT(worst_m, 1e-10 * Gb.norm());
  }
  // C3: Φ_C Φ_Rb = Φ_R; eq 38: G_b = Φ_C G_bb + H M̄_RR⁻¹ Φ_Rbᵀ; eq 44 with Gʳ.
  const MatrixXd C = cols(c, r.constraint_modes()), H = cols(c, r.inertia_relief());
  EXPECT_LT(rel(C * Rb, R), 1e-10);
  const MatrixXd Gn = cols(c, G);
  const MatrixXd MrrInvRbT = Mrr.ldlt().solve(Rb.transpose());
  EXPECT_LT(rel(C * Gb + H * MrrInvRbT, Gn), 1e-10);
  const auto& fm = r.free_modes();
  const MatrixXd N = cols(c, fm.vectors), Nb = r.boundary_rows(fm.vectors);
  const MatrixXd Gr = cols(c, r.residual_attachment()), Grbb = r.boundary_rows(r.residual_attachment());
  VectorXd lam(static_cast<Eigen::Index>(fm.eigenvalues.size()));
  for (std::size_t i = 0; i < fm.eigenvalues.size(); ++i) lam(static_cast<Eigen::Index>(i)) = fm.eigenvalues[i];
  EXPECT_LT(rel(C * Grbb + H * MrrInvRbT - (N - C * Nb) * lam.cwiseInverse().asDiagonal() * Nb.transpose(), Gr), 1e-10);
}

TEST(CmsBases, C4C5C9C11EquivalenceMapsAndEqualSpectra) {
  Fixture f(MPI_COMM_WORLD, 6);
  auto& r = *f.red;
  const auto& c = *f.comp;
  using M_ = cms::Method;
  const auto free = cms::ModeInterface::free;
  auto amm = f.build(M_::hintz_attachment), cc = f.build(M_::craig_chang), rm = f.build(M_::rubin_martinez);
  auto her = f.build(M_::herting, free), cmm = f.build(M_::hintz_constraint, free);
  auto cb = f.build(M_::craig_bampton), hur = f.build(M_::hurty), herx = f.build(M_::herting, cms::ModeInterface::fixed);
  const MatrixXd Pa = cols(c, amm.columns), Pc = cols(c, cc.columns), Pr = cols(c, rm.columns), Ph = cols(c, her.columns),
                 Pm = cols(c, cmm.columns), Pcb = cols(c, cb.columns), Phu = cols(c, hur.columns);
  const auto nb = static_cast<Eigen::Index>(f.ws->n_boundary());
  const auto& fm = r.free_modes();
  const auto nn = static_cast<Eigen::Index>(fm.vectors.size());
  VectorXd lam(nn);
  for (Eigen::Index i = 0; i < nn; ++i) lam(i) = fm.eigenvalues[static_cast<std::size_t>(i)];
  const MatrixXd Rb = r.boundary_rows(r.rigid()), Nb = r.boundary_rows(fm.vectors);
  const MatrixXd Gbb = r.boundary_rows(r.attachment()), Grbb = r.boundary_rows(r.residual_attachment());
  const MatrixXd Mrr = r.rigid_mass(), I6 = MatrixXd::Identity(6, 6), In = MatrixXd::Identity(nn, nn),
                 Ib = MatrixXd::Identity(nb, nb);
  auto zero = [](Eigen::Index a, Eigen::Index b) { return MatrixXd::Zero(a, b); };
  // AMM → CC (eqs 22–23): coordinates (η_R, η_N, f_b).
  MatrixXd X1(6 + nn + nb, 6 + nn + nb);
  X1 << I6, zero(6, nn), zero(6, nb), zero(nn, 6), In, MatrixXd(-(lam.cwiseInverse().asDiagonal() * Nb.transpose())), zero(nb, 6),
      zero(nb, nn), Ib;
  EXPECT_LT(rel(Pa * X1, Pc), 1e-10) << "AMM -> CC";
  // CC → RM (eqs 27–28): (q_b, η_R, η_N).
  const MatrixXd Gi = Grbb.inverse();
  MatrixXd X2(6 + nn + nb, nb + 6 + nn);
  X2 << zero(6, nb), I6, zero(6, nn), zero(nn, nb), zero(nn, 6), In, Gi, -Gi * Rb, -Gi * Nb;
  EXPECT_LT(rel(Pc * X2, Pr), 1e-10) << "CC -> RM";
  // CMM → AMM (eqs 36–37): CMM (η_C, η̈_R, η_N^rel) ← AMM (η_R, η_N^rel, f_b).
  MatrixXd X3(nb + 6 + nn, 6 + nn + nb);
  X3 << Rb, zero(nb, nn), Gbb, zero(6, 6), zero(6, nn), Mrr.ldlt().solve(Rb.transpose()), zero(nn, 6), In, zero(nn, nb);
  EXPECT_LT(rel(Pm * X3, Pa), 1e-10) << "CMM -> AMM";
  // CMM → Herting (eqs 40–41).
  MatrixXd X4(nb + 6 + nn, nb + 6 + nn);
  X4 << Ib, zero(nb, 6), -Nb, zero(6, nb), I6, zero(6, nn), zero(nn, nb), zero(nn, 6), In;
  EXPECT_LT(rel(Pm * X4, Ph), 1e-10) << "CMM -> Herting";
  // Herting → CC (eqs 42–43).
  MatrixXd X5(nb + 6 + nn, 6 + nn + nb);
  X5 << Rb, Nb, Grbb, zero(6, 6), zero(6, nn), Mrr.ldlt().solve(Rb.transpose()), zero(nn, 6), In,
      MatrixXd(-(lam.cwiseInverse().asDiagonal() * Nb.transpose()));
  EXPECT_LT(rel(Ph * X5, Pc), 1e-10) << "Herting -> CC";
  EXPECT_LT(rel(Ph * X5 * X2, Pr), 1e-10) << "Herting -> RM (eqs 45-46)";
  // CB → Hurty (eqs 54–55): CB (q_b, η_N) ← Hurty (η_R, η_C(e), η_N).
  const auto nf = static_cast<Eigen::Index>(r.fixed_modes().vectors.size());
  MatrixXd X6 = MatrixXd::Zero(nb + nf, 6 + (nb - 6) + nf);
  const auto det = f.ws->determinate_set(true);
  Eigen::Index e = 0;
  for (Eigen::Index k = 0; k < nb; ++k) {
    X6.block(k, 0, 1, 6) = Rb.row(k);
    const auto w = f.ws->boundary()[static_cast<std::size_t>(k)].work;
    if (std::none_of(det.begin(), det.end(), [&](const cms::BoundaryDof& d) { return d.work == w; })) X6(k, 6 + e++) = 1.0;
  }
  X6.bottomRightCorner(nf, nf).setIdentity();
  EXPECT_LT(rel(Pcb * X6, Phu), 1e-10) << "CB -> Hurty";
  // C11: Herting boundary columns are the CB constraint modes.
  EXPECT_LT(rel(Ph.leftCols(nb), Pcb.leftCols(nb)), 1e-14);
  // C9: Herting_free and RM differ numerically but span the same space.
  EXPECT_GT(rel(Ph, Pr), 1e-3);
  EXPECT_GT(test::subspace_cosines(Ph, Pr).minCoeff(), 1 - 1e-10);
  // C5: equal elastic spectra in the free group and in the fixed group (Herting_fixed = CB).
  const VectorXd ref = elastic(amm, true);
  for (const auto* b : {&cc, &rm, &her, &cmm}) {
    const VectorXd ev = elastic(*b, true);
    ASSERT_EQ(ev.size(), ref.size()) << cms::method_name(b->method);
    EXPECT_LT(((ev - ref).array() / ref.array()).abs().maxCoeff(), 1e-8) << cms::method_name(b->method);
  }
  const VectorXd refx = elastic(cb, true);
  for (const auto* b : {&hur, &herx}) {
    const VectorXd ev = elastic(*b, true);
    EXPECT_LT(((ev - refx).array() / refx.array()).abs().maxCoeff(), 1e-8) << cms::method_name(b->method);
  }
  // C6: the free-interface methods reproduce the kept free-interface eigenvalues (the reduced
  // spectrum contains them); CB's mode block is diag(ω²) of the fixed-interface modes.
  for (Eigen::Index i = 0; i < nn; ++i) {
    const double best = (ref.array() - lam(i)).abs().minCoeff();
    EXPECT_LT(best, 1e-10 * lam(i)) << "free mode " << i;
  }
  const auto& fx = r.fixed_modes();
  for (Eigen::Index i = 0; i < nf; ++i) {
    EXPECT_NEAR(cb.K(nb + i, nb + i), fx.eigenvalues[static_cast<std::size_t>(i)], 1e-10 * fx.eigenvalues[static_cast<std::size_t>(i)]);
    EXPECT_NEAR(cb.M(nb + i, nb + i), 1.0, 1e-10);
  }
}

TEST(CmsBases, C6CraigBamptonFixedModesEqualClampedSolve) {
  Fixture f(MPI_COMM_WORLD, 8);
  auto cb = f.build(cms::Method::craig_bampton);
  auto clamped = test::component_from_yaml(MPI_COMM_WORLD, kBox + "  fixed: [XMIN, XMAX]\n");
  fe::ModeOptions o;
  o.count = 8;
  o.constrained = true;
  const auto ref = fe::solve_modes(clamped->K(), clamped->M(), o);
  ASSERT_EQ(cb.mode_eigenvalues.size(), ref.eigenvalues.size());
  for (std::size_t i = 0; i < ref.eigenvalues.size(); ++i)
    EXPECT_NEAR(cb.mode_eigenvalues[i], ref.eigenvalues[i], 1e-10 * ref.eigenvalues[i]);
  // The fixed-interface subspaces agree too (compared by principal angles).
  EXPECT_GT(test::subspace_cosines(cols(*f.comp, f.red->fixed_modes().vectors), cols(*clamped, ref.vectors)).minCoeff(),
            1 - 1e-9);
}

TEST(CmsBases, C7C8RayleighRitzBoundsConvergenceAndZeroModeIdentities) {
  // Reference free-free spectrum.
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, kBox);
  fe::ModeOptions o;
  o.count = 12;
  const auto full = fe::solve_modes(comp->K(), comp->M(), o);
  VectorXd prev;
  for (int n : {0, 2, 6, 12}) {
    Fixture f(MPI_COMM_WORLD, n);
    for (auto m : {cms::Method::craig_bampton, cms::Method::craig_chang, cms::Method::herting}) {
      if (n == 0 && m != cms::Method::craig_bampton) continue;
      const auto b = f.build(n == 0 ? cms::Method::guyan : m, std::nullopt, cms::Scaling::max);
      const VectorXd ev = elastic(b, true);
      for (Eigen::Index k = 0; k < std::min<Eigen::Index>(ev.size(), 12); ++k)
        EXPECT_GE(ev(k), full.eigenvalues[static_cast<std::size_t>(k)] * (1 - 1e-10)) << cms::method_name(m) << " n=" << n;
      if (m == cms::Method::craig_bampton) {
        // Nested CB spaces: the frequencies decrease towards the full ones as modes are added.
        if (prev.size()) {
          for (Eigen::Index k = 0; k < 6; ++k) EXPECT_LE(ev(k), prev(k) * (1 + 1e-10)) << "n=" << n;
        }
        prev = ev;
      }
    }
  }
  EXPECT_LT((prev(0) - full.eigenvalues[0]) / full.eigenvalues[0], 5e-3);
  // C8: zero normal modes: AMM ≡ CC and CMM ≡ Herting.
  Fixture z(MPI_COMM_WORLD, 0);
  const auto& c = *z.comp;
  EXPECT_LT(rel(cols(c, z.build(cms::Method::hintz_attachment).columns), cols(c, z.build(cms::Method::craig_chang).columns)),
            1e-14);
  EXPECT_LT(rel(cols(c, z.build(cms::Method::hintz_constraint).columns), cols(c, z.build(cms::Method::herting).columns)),
            1e-14);
}

TEST(CmsBases, C10StaticCompletenessAndResidualVectors) {
  // Clamp XMIN, load XMAX (interface) and, for the residual vectors, an interior node set.
  auto clamped = test::component_from_yaml(MPI_COMM_WORLD, kBox + "  fixed: [XMIN]\n");
  Fixture f(MPI_COMM_WORLD, 4, {"ZMAX"});
  const auto& c = *f.comp;
  const auto& mesh = c.mesh();
  auto load = [&](const fe::Component& comp, const std::string& set) {
    VecH v;
    FLEXUQ_PETSC(MatCreateVecs(comp.K(), v.out(), nullptr));
    FLEXUQ_PETSC(VecZeroEntries(v.get()));
    const auto& d = comp.dofs();
    for (int n : mesh.node_set(set))
      if (d.node_owner(n) == [&] { int r = 0; MPI_Comm_rank(comp.comm(), &r); return r; }() && !d.is_fixed(n)) {
        FLEXUQ_PETSC(VecSetValue(v.get(), d.node_dof(n) + 2, 1000.0 * (1 + mesh.coords[n][1]), INSERT_VALUES));
        FLEXUQ_PETSC(VecSetValue(v.get(), d.node_dof(n) + 0, 300.0 * mesh.coords[n][2], INSERT_VALUES));
      }
    FLEXUQ_PETSC(VecAssemblyBegin(v.get()));
    FLEXUQ_PETSC(VecAssemblyEnd(v.get()));
    return v;
  };
  auto full_solution = [&](const std::string& set) {
    VecH fv = load(*clamped, set), u;
    FLEXUQ_PETSC(VecDuplicate(fv.get(), u.out()));
    KspH ksp;
    FLEXUQ_PETSC(KSPCreate(MPI_COMM_WORLD, ksp.out()));
    FLEXUQ_PETSC(KSPSetOperators(ksp.get(), clamped->K(), clamped->K()));
    FLEXUQ_PETSC(KSPSetType(ksp.get(), KSPPREONLY));
    PC pc;
    FLEXUQ_PETSC(KSPGetPC(ksp.get(), &pc));
    FLEXUQ_PETSC(PCSetType(pc, PCCHOLESKY));
    FLEXUQ_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
    FLEXUQ_PETSC(KSPSolve(ksp.get(), fv.get(), u.get()));
    std::vector<VecH> one;
    one.push_back(std::move(u));
    return cols(*clamped, one);
  };
  // Reduced: ξ = Z y with Z = null(rows of Φ at XMIN), (ZᵀK̄Z) y = ZᵀΦᵀf.
  auto reduced_solution = [&](const cms::ReducedBasis& b, const std::string& set) {
    const MatrixXd P = cols(c, b.columns);
    std::vector<VecH> one;
    one.push_back(load(c, set));
    const MatrixXd fn = cols(c, one);
    const MatrixXd rows = f.red->boundary_rows(b.columns).topRows(static_cast<Eigen::Index>(f.ws->n_boundary() / 2));
    Eigen::JacobiSVD<MatrixXd> svd(rows, Eigen::ComputeFullV);
    const Eigen::Index rk = (svd.singularValues().array() > 1e-12 * svd.singularValues()(0)).count();
    const MatrixXd Zs = svd.matrixV().rightCols(P.cols() - rk);
    const VectorXd y = (Zs.transpose() * b.K * Zs).ldlt().solve(Zs.transpose() * P.transpose() * fn);
    return MatrixXd(P * Zs * y);
  };
  const MatrixXd uref = full_solution("XMAX");
  using M_ = cms::Method;
  for (auto m : {M_::guyan, M_::craig_bampton, M_::hurty, M_::herting, M_::hintz_constraint, M_::hintz_attachment,
                 M_::craig_chang, M_::rubin_martinez, M_::macneal}) {
    const auto b = f.build(m, std::nullopt, cms::Scaling::max);
    EXPECT_LT(rel(reduced_solution(b, "XMAX"), uref), 1e-9) << cms::method_name(m);
  }
  // An interior load is not reproduced by CB, but is with residual vectors at the loaded nodes.
  const MatrixXd uin = full_solution("ZMAX");
  const auto cb = f.build(M_::craig_bampton, std::nullopt, cms::Scaling::max);
  EXPECT_GT(rel(reduced_solution(cb, "ZMAX"), uin), 1e-6);
  const auto cbr = f.build(M_::craig_bampton, std::nullopt, cms::Scaling::max, true);
  EXPECT_GT(cbr.n_columns(), cb.n_columns());
  EXPECT_LT(rel(reduced_solution(cbr, "ZMAX"), uin), 1e-9);
}

TEST(CmsBody, InvariantsAndCheckoutOfABox) {
  Fixture f(MPI_COMM_WORLD, 6);
  const auto cb = f.build(cms::Method::craig_bampton);
  const auto inv = cms::compute_invariants(*f.ws, cb);
  const double lx = 0.3, ly = 0.1, lz = 0.05, m = 7800 * lx * ly * lz;
  EXPECT_NEAR(inv.mass, m, 1e-12 * m);
  EXPECT_LT((inv.com - Eigen::Vector3d(lx / 2, ly / 2, lz / 2)).norm(), 1e-12);
  const Eigen::Vector3d J(m / 12 * (ly * ly + lz * lz), m / 12 * (lx * lx + lz * lz), m / 12 * (lx * lx + ly * ly));
  EXPECT_LT((inv.inertia_com.diagonal() - J).norm(), 1e-10 * J.norm());
  // Σ_k I5_kk = M_ff (solids, consistent mass) and I7 = ∫ρ x_k x_l (box: m(l_k²/3) on the diagonal).
  EXPECT_LT((inv.Skl[0] + inv.Skl[4] + inv.Skl[8] - inv.Mff).norm(), 1e-10 * inv.Mff.norm());
  EXPECT_NEAR(inv.Ikl(0, 0), m * lx * lx / 3, 1e-10 * m * lx * lx);
  // Check-out: the reduced model holds the 6 rigid-body modes exactly, with the full mass properties.
  const auto chk = cms::checkout(*f.red, cb, 6);
  EXPECT_LT(chk.rigid_residual.maxCoeff(), 1e-10);
  EXPECT_LT(chk.rigid_energy.maxCoeff(), 1e-10);
  EXPECT_NEAR(chk.reduced.mass, chk.full.mass, 1e-10 * m);
  EXPECT_LT((chk.reduced.com - chk.full.com).norm(), 1e-10);
  EXPECT_LT((chk.reduced.inertia_com - chk.full.inertia_com).norm(), 1e-9 * J.norm());
  ASSERT_EQ(chk.full_hz.size(), 6);
  for (Eigen::Index i = 0; i < 6; ++i) EXPECT_GE(chk.reduced_hz(i), chk.full_hz(i) * (1 - 1e-10));
  EXPECT_EQ(chk.effective_mass.rows(), 6);
  EXPECT_LE(chk.effective_fraction.maxCoeff(), 1 + 1e-10);
  // The model-free check-out (POD bodies at θ) from the invariants and K̄, M̄ only: the same mass
  // properties, strain energies, frequencies and floating-frame coordinates; the rigid residual from
  // the expanded quadratic form, zero to its ~1e-8 resolution.
  const auto chi = cms::checkout_from_invariants(inv, cb.K, cb.M);
  EXPECT_NEAR(chi.full.mass, chk.full.mass, 1e-12 * m);
  EXPECT_LT((chi.full.com - chk.full.com).norm(), 1e-12);
  EXPECT_LT((chi.full.inertia_com - chk.full.inertia_com).norm(), 1e-10 * J.norm());
  EXPECT_NEAR(chi.reduced.mass, chk.reduced.mass, 1e-10 * m);
  EXPECT_LT((chi.reduced.inertia_com - chk.reduced.inertia_com).norm(), 1e-9 * J.norm());
  EXPECT_LT((chi.rigid_energy - chk.rigid_energy).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT(chi.rigid_residual.maxCoeff(), 1e-7);
  EXPECT_EQ(chi.reduced_hz, chk.reduced_hz);
  EXPECT_EQ(chi.frame_V, chk.frame_V);
  EXPECT_EQ(chi.full_hz.size(), 0);
  // The invariants from physical columns (the entry point of bases that are not a Reducer's).
  std::vector<VecH> phys;
  for (const auto& c : cb.columns) phys.push_back(f.ws->to_physical(c.get()));
  const auto inv2 = cms::compute_invariants(f.ws->component(), phys, cb.M);
  EXPECT_EQ(cms::flatten_invariants(inv2), cms::flatten_invariants(inv));
  // A body that is not free: the expanded residual sees the missing rigid motion (a grounded basis,
  // the constraint columns dropped, keeps only the fixed-interface modes).
  std::vector<Eigen::Index> modes;
  for (std::size_t j = 0; j < cb.kinds.size(); ++j)
    if (cb.kinds[j] == cms::ColumnKind::fixed_interface_mode) modes.push_back(static_cast<Eigen::Index>(j));
  ASSERT_FALSE(modes.empty());
  cms::Invariants sub = inv;
  sub.S = inv.S(Eigen::all, modes);
  sub.Sr = inv.Sr(Eigen::all, modes);
  const auto chs = cms::checkout_from_invariants(sub, cb.K(modes, modes), cb.M(modes, modes));
  EXPECT_GT(chs.rigid_residual.minCoeff(), 1e-3);
  EXPECT_EQ(chs.frame_V.size(), 0);
}

TEST(CmsBody, Rbe2InterfacesHoldTheFaceRigid) {
  // RBE2 at both ends: fixing the reference nodes clamps the faces, so the fixed-interface modes
  // are the clamped modes; the constraint modes move each face rigidly.
  Fixture f(MPI_COMM_WORLD, 4, {}, kBox, cms::InterfaceKind::rbe2);
  EXPECT_EQ(f.ws->n_boundary(), 12u);
  const auto cb = f.build(cms::Method::craig_bampton);
  Fixture a(MPI_COMM_WORLD, 4);
  const auto cba = a.build(cms::Method::craig_bampton);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(cb.mode_eigenvalues[i], cba.mode_eigenvalues[i], 1e-10 * cba.mode_eigenvalues[i]);
  const auto chk = cms::checkout(*f.red, cb, 0);
  EXPECT_LT(chk.rigid_residual.maxCoeff(), 1e-10);
  // RBE2 bases are a subspace of the all-DOF CB space plus rigid face motion: their spectrum is higher.
  const VectorXd e1 = elastic(cb, true), e2 = elastic(cba, true);
  for (Eigen::Index k = 0; k < 4; ++k) EXPECT_GE(e1(k), e2(k) * (1 - 1e-10));
  // Free-interface methods work on the RBE2-condensed component too (C5 across the free group).
  const VectorXd ra = elastic(f.build(cms::Method::hintz_attachment), true), rr = elastic(f.build(cms::Method::rubin_martinez), true);
  EXPECT_LT(((ra - rr).array() / rr.array()).abs().maxCoeff(), 1e-8);
}

TEST(CmsBody, OneRankEqualsAllRanks) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Fixture all(MPI_COMM_WORLD, 6), self(MPI_COMM_SELF, 6);
  for (auto m : {cms::Method::craig_bampton, cms::Method::rubin_martinez}) {
    const auto a = all.build(m), s = self.build(m);
    const VectorXd ea = gen_eigs(a.K, a.M), es = gen_eigs(s.K, s.M);
    for (Eigen::Index k = 6; k < ea.size(); ++k) EXPECT_NEAR(ea(k), es(k), 1e-10 * es(k)) << cms::method_name(m);
    // Boundary-DOF rows in interface-label order. Rubin–Martinez's boundary block holds Gʳ_bb⁻¹
    // (condition ~1e7 here), so its rounding is amplified accordingly.
    const auto nb = static_cast<Eigen::Index>(all.ws->n_boundary());
    const double tol = m == cms::Method::craig_bampton ? 1e-10 : 1e-8;
    EXPECT_LT((a.K.topLeftCorner(nb, nb) - s.K.topLeftCorner(nb, nb)).norm(), tol * s.K.topLeftCorner(nb, nb).norm());
    EXPECT_LT((a.M.topLeftCorner(nb, nb) - s.M.topLeftCorner(nb, nb)).norm(), tol * s.M.topLeftCorner(nb, nb).norm());
    EXPECT_EQ(a.labels, s.labels);
    const MatrixXd Pa = cols(*all.comp, a.columns), Ps = cols(*self.comp, s.columns);
    EXPECT_GT(test::subspace_cosines(Pa, Ps).minCoeff(), 1 - 1e-9);
  }
}

TEST(CmsErrors, GuardsNameTheProblem) {
  auto comp = test::component_from_yaml(MPI_COMM_WORLD, R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [4, 2, 2], order: 1}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
)");
  // One corner node cannot restrain rigid motion: K_ii singular.
  comp->mesh();
  // RBE3 weights: neither one value nor one per node.
  std::vector<cms::InterfaceSpec> bad{{"ZMAX", cms::InterfaceKind::rbe3, std::nullopt, {1.0, 2.0}}};
  EXPECT_THROW(cms::WorkSpace(*comp, bad), InputError);
  std::vector<cms::InterfaceSpec> weighted_rbe2{{"ZMAX", cms::InterfaceKind::rbe2, std::nullopt, {1.0}}};
  EXPECT_THROW(cms::WorkSpace(*comp, weighted_rbe2), InputError);
  std::vector<cms::InterfaceSpec> overlap{{"XMIN", cms::InterfaceKind::all_dofs, std::nullopt, {}},
                                          {"ZMAX", cms::InterfaceKind::all_dofs, std::nullopt, {}}};
  EXPECT_THROW(cms::WorkSpace(*comp, overlap), InputError);
  EXPECT_FALSE(parse_enum(cms::kMethodNames, "craig-bamton")); // the job-file parser refuses it (tests/app)
  EXPECT_EQ(parse_enum(cms::kMethodNames, "craig-bampton"), cms::Method::craig_bampton);
}

TEST(CmsBody, ReduceFacadeIsTheChain) {
  // cms::reduce / reduced_body_of (issue #33 item 4) against the chain written out: build, check-out,
  // invariants, make_reduced_body. With the same Reducer (its pieces computed once) bit for bit on
  // any number of ranks; a fresh Reducer (reduce on the working space) bit for bit on one rank.
  Fixture f(MPI_COMM_WORLD, 6);
  cms::BuildOptions b; // craig-bampton
  const auto cb = f.red->build(b);
  const auto chk = cms::checkout(*f.red, cb, 6);
  const auto inv = cms::compute_invariants(*f.ws, cb);
  const auto body = cms::make_reduced_body(*f.ws, cb, inv, chk);
  auto expect_chain = [&](const cms::ReduceResult& r, bool full_free_free, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(r.basis.K, cb.K);
    EXPECT_EQ(r.basis.M, cb.M);
    EXPECT_EQ(r.basis.labels, cb.labels);
    EXPECT_EQ(r.basis.mode_eigenvalues, cb.mode_eigenvalues);
    EXPECT_EQ(cms::flatten_invariants(r.invariants), cms::flatten_invariants(inv));
    EXPECT_EQ(r.checkout.rigid_residual, chk.rigid_residual);
    EXPECT_EQ(r.checkout.reduced_hz, chk.reduced_hz);
    EXPECT_EQ(r.checkout.effective_mass, chk.effective_mass);
    EXPECT_EQ(r.checkout.frame_V, chk.frame_V);
    if (full_free_free)
      EXPECT_EQ(r.checkout.full_hz, chk.full_hz);
    else
      EXPECT_EQ(r.checkout.full_hz.size(), 0);
    // The body is the value of exactly these pieces.
    EXPECT_EQ(r.body.K, body.K);
    EXPECT_EQ(r.body.M, body.M);
    EXPECT_EQ(r.body.dof_labels, body.dof_labels);
    EXPECT_EQ(r.body.column_kinds, body.column_kinds);
    EXPECT_EQ(r.body.interface_labels, body.interface_labels);
    EXPECT_EQ(cms::flatten_invariants(r.body.invariants), cms::flatten_invariants(inv));
    EXPECT_EQ(r.body.checkout.reduced_hz, r.checkout.reduced_hz);
    EXPECT_EQ(r.body.checkout.full_hz, r.checkout.full_hz);
  };
  log::PhaseTimes times;
  expect_chain(cms::reduce(*f.red, b, 6, &times), true, "reduce(Reducer&)");
  ASSERT_EQ(times.entries().size(), 2u);
  EXPECT_EQ(times.entries()[0].first, "check-out");
  EXPECT_EQ(times.entries()[1].first, "invariants");
  expect_chain(cms::reduced_body_of(*f.red, f.red->build(b), 0), false, "reduced_body_of, no full free-free modes");

  // A Reducer of its own, whose phase times follow the check-out and the invariants.
  cms::ReducerOptions ro;
  ro.modes.count = 6;
  log::PhaseTimes own;
  const auto r = cms::reduce(*f.ws, ro, b, 6, &own);
  ASSERT_GT(own.entries().size(), 2u);
  EXPECT_EQ(own.entries()[0].first, "check-out");
  EXPECT_EQ(own.entries()[1].first, "invariants");
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) {
    expect_chain(r, true, "reduce(WorkSpace)");
  } else { // MUMPS on two ranks: another factorization differs at round-off
    EXPECT_EQ(r.basis.labels, cb.labels);
    EXPECT_LT(rel(r.basis.K, cb.K), 1e-10);
    EXPECT_LT(rel(r.body.invariants.Mff, inv.Mff), 1e-10);
    EXPECT_LT((r.checkout.full_hz - chk.full_hz).cwiseAbs().maxCoeff(), 1e-9 * chk.full_hz.maxCoeff());
  }
}
