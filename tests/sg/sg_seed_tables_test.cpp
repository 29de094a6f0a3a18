// SPDX-License-Identifier: MIT
// Seed 000's SG validation tables on bar 1 (issue 39 item 3): T13, the leave-one-out study of the
// expansion orders (Validation 1, Tables 7.9 and 7.11), and T15, the imaginary eigenvalues of
// Table 7.13 (when they appear, and why flexuq's solvers cannot produce them).
#include "FeTestUtil.hpp"
#include "SgTestUtil.hpp"

#include "flexuq/fe/MaterialParametrisation.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/sg/EigenSolver.hpp"
#include "flexuq/sg/Expansion.hpp"
#include "flexuq/uq/Pce.hpp"

#include <Eigen/Eigenvalues>
#include <gtest/gtest.h>
#include <slepceps.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <tuple>

using namespace flexuq;

namespace {

// Seed 000 bar 1 (Table 7.1): L = 0.15, @p elements two-node beam elements, square 10 mm section with
// the digest's J = 0.1406 a⁴ (§4.8; the thesis gives no section), (G, C) = (76.9, 166.7) GPa,
// ρ = 7870, clamped at both ends and the CoM node: the internal problem K_ii, M_ii of its CB bars.
std::unique_ptr<fe::Component> bar1(MPI_Comm comm, int elements) {
  const double a = 0.01, I = std::pow(a, 4) / 12, J = 0.1406 * std::pow(a, 4);
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "model:\n  generator: {type: beam, length: 0.15, elements: %d, section: {shape: GENERAL, dims: "
                "[%.17g, %.17g, 0, %.17g, %.17g]}}\n  material: {G: 76.9e9, C: 166.7e9, rho: 7870}\n"
                "  fixed: [END0, END1, MID]\n",
                elements, a * a, I, I, J);
  return test::component_from_yaml(comm, buf, /*keep_affine=*/true);
}

// The seed's inputs: G, or G and C, moment-matched log-normals (digest §3).
uq::StochasticSpace seed_space(bool with_C) {
  uq::StochasticSpace s;
  s.add("G", uq::Distribution::lognormal_from_moments(76.9e9, 1e9));
  if (with_C) s.add("C", uq::Distribution::lognormal_from_moments(166.7e9, 1e9));
  return s;
}

std::vector<fe::MaterialParameter> seed_parameters(bool with_C) {
  std::vector<fe::MaterialParameter> p{{"G", fe::MaterialProperty::G, std::nullopt}};
  if (with_C) p.push_back({"C", fe::MaterialProperty::C, std::nullopt});
  return p;
}

std::vector<double> eigenvalues(const fe::Component& c, int n) {
  fe::ModeOptions mo;
  mo.count = n;
  mo.constrained = true;
  mo.progress = false;
  return fe::solve_modes(c.K(), c.M(), mo).eigenvalues;
}

// ---- T13 ----
//
// Validation 1 of the seed (Tables 7.9, 7.11): the error (7.12) E = ((λ_MC − λ_SG)/λ_MC)² of the
// eigenvalue PCE by orders (K order α = 1..3, mode and eigenvalue order β = γ = 1, 2), averaged over
// the seed's leave-one-out points. Here its expectation over the inputs instead: a tensor Gauss–Hermite
// rule of deterministic solves (12 nodes for G, 8 × 8 for G and C; the integrand is smooth, so the
// rule is exact to round-off), the quantity the seed's LOO mean estimates from a handful of random
// points ("order of magnitude (random samples)", digest T13). K(ξ) is the regression of the seed's
// size n = 2 P_α (5.9) on a Latin hypercube, as the seed's regression of K on its training points.
//
// The maths (T9): a beam's K = E K_E + G K_G, bending and axial modes see only E(G, C), torsion only
// G, and every mode shape is independent of the inputs; so λ_SG^(k) = λ(ξ₀-shape) κ^(k) for
// k ≤ min(α, β), κ the K coefficients, and the error is that of a PCE of degree m = min(α, β) of E/E₀
// or G/G₀. Its lower bound is the L² projection of the deterministic eigenvalues on degree m
// (computed below): G only 5.78e-9 (E-governed) and 1.43e-8 (torsion) for m = 1, 5.71e-14 and
// 8.07e-13 for m = 2; G and C 6.11e-9 / 1.43e-8 and 1.30e-13 / 8.07e-13. Asserted, both methods:
// 1. α > β: K is expanded beyond the modes' order and its regression is exact to that order, so SG
//    attains the bound (measured ratio 1.000 to 1e-3; asserted within 2 %).
// 2. α ≤ β: the regression on 2 P_α points aliases the next term into κ: bound ≤ E ≤ 4 × bound
//    (measured 1.3 … 3.0).
// 3. The digest: order-1 rows (β = 1, and α = 1) in ~1e-9 … 6e-7 (measured 5.8e-9 … 4.3e-8); the best
//    G-only E-governed rows with α ≥ 2, β = 2 ≤ 1e-12 (measured 1.08e-13, 5.72e-14; thesis 1.11e-13,
//    2.90e-14).
// 4. The thesis' cells within one decade, where they agree with the maths. Where they do not, the maths
//    is followed (kNaN below): G only (1, 1) and G and C (1, 1) torsion: 8.75e-10, 2.16e-9 and 2.29e-9
//    lie 6–7 × below the bound any degree-1 PCE has in expectation (a lucky draw of a few LOO points:
//    the thesis' (1, 2) cell, the same expansion, is 6 × larger); G and C (1, ·) E-governed: 5.59e-7 and
//    2.69e-7 are 90 × the degree-1 bound, as the seed's own 2-D regression of degree 1 is ("A^T A close
//    to singular", Table 7.6); G and C (≥ 2, 2): 1.77e-9 … 4.18e-9 do not drop with the mode order,
//    while the degree-2 bound is 1.3e-13 / 8.1e-13 and both SG methods reach it.
// 5. The inverse-subspace result equals the straight-forward one to 1 % (both solve the same Galerkin
//    problem; the thesis' inexact method fell short of it on λ5…λ11).

constexpr int kModes = 12; // bending ×4, torsion ×2, bending ×4, axial ×2 (digest §4.8)
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ModeErrors {
  double e_governed = 0, torsion = 0; // (7.12) averaged over the modes of the type
};

struct OrderRow {
  int alpha, beta;  // K order, mode / eigenvalue order
  ModeErrors sg, bound; // SG's error and the degree-min(α, β) projection's
};

// Deterministic eigenvalues at the nodes of a tensor Gauss–Hermite rule (the "Monte Carlo" side of
// (7.12)) and each mode's type: d ln λ / d ln G = 1 for torsion, 3C/(3C+G) = 0.867 for the E-governed.
struct Reference {
  uq::Quadrature rule;
  Eigen::MatrixXd lambda; // nodes × kModes
  std::vector<bool> torsion;
};

Reference reference(fe::Component& c, const fe::MaterialParametrisation& par, const uq::StochasticSpace& space, int n) {
  Reference r;
  r.rule = space.gauss_rule(n);
  r.lambda.resize(r.rule.size(), kModes);
  for (int q = 0; q < r.rule.size(); ++q) {
    const Eigen::RowVectorXd x = space.from_germ(r.rule.points.row(q));
    c.set_materials(par.materials(std::vector<double>(x.data(), x.data() + x.size())));
    const auto lam = eigenvalues(c, kModes);
    for (int s = 0; s < kModes; ++s) r.lambda(q, s) = lam[s];
  }
  std::vector<double> at(space.dim());
  for (int i = 0; i < space.dim(); ++i) at[i] = space.distribution(i).mean();
  c.set_materials(par.materials(at));
  const auto l0 = eigenvalues(c, kModes);
  at[0] *= 1.001;
  c.set_materials(par.materials(at));
  const auto l1 = eigenvalues(c, kModes);
  for (int s = 0; s < kModes; ++s) r.torsion.push_back(std::log(l1[s] / l0[s]) / std::log(1.001) > 0.95);
  at[0] /= 1.001;
  c.set_materials(par.materials(at));
  return r;
}

// E[((λ_MC − λ)/λ_MC)²] by the reference's rule for the eigenvalue PCE @p pce (one output per mode),
// averaged over the modes of each type.
ModeErrors mean_errors(const Reference& ref, const uq::Pce& pce) {
  const Eigen::MatrixXd v = pce.evaluate(ref.rule.points);
  double e[2] = {0, 0};
  int n[2] = {0, 0};
  for (int s = 0; s < kModes; ++s) {
    double sum = 0;
    for (int q = 0; q < ref.rule.size(); ++q) sum += ref.rule.weights[q] * std::pow(1 - v(q, s) / ref.lambda(q, s), 2);
    e[ref.torsion[s]] += sum;
    ++n[ref.torsion[s]];
  }
  return {e[0] / n[0], e[1] / n[1]};
}

std::vector<OrderRow> order_table(bool with_C, sg::Method method) {
  sg::StochasticLayout layout(MPI_COMM_WORLD, sgtest::world_size());
  auto c = bar1(layout.group(), 20);
  const auto space = seed_space(with_C);
  fe::MaterialParametrisation par(*c, seed_parameters(with_C));
  const auto map = sg::parametrisation_map(par);
  const Reference ref = reference(*c, par, space, with_C ? 8 : 12);
  EXPECT_EQ(std::count(ref.torsion.begin(), ref.torsion.end(), true), 2); // λ5, λ6
  std::vector<OrderRow> rows;
  for (int beta : {1, 2})
    for (int alpha : {1, 2, 3}) {
      sg::ExpansionOptions ex;
      ex.order = alpha;
      ex.regression_samples = 2 * static_cast<int>(uq::MultiIndexSet::total_degree_size(space.dim(), alpha));
      sg::EigenOptions opt;
      opt.order = beta;
      opt.n_modes = kModes;
      opt.method = method;
      opt.assemble = method == sg::Method::StraightForward;
      opt.guard = 2;
      opt.progress = false;
      const auto r = sg::solve_component(layout, *c, space, map, ex, opt);
      const auto best = uq::Pce::fit_projection(
          space.families(), uq::MultiIndexSet::total_degree(space.dim(), std::min(alpha, beta)), ref.rule, ref.lambda);
      rows.push_back({alpha, beta, mean_errors(ref, r.eigenvalue_pce(space.families())), mean_errors(ref, best)});
    }
  return rows;
}

// The thesis' straight-forward columns λ1 (E-governed) and λ11 (torsion), rows in order_table's
// order: β = 1 with α = 1, 2, 3, then β = 2 with α = 1, 2, 3.
struct ThesisTable {
  double e_governed[6], torsion[6];
};

void check_table(const char* what, bool with_C, const ThesisTable& thesis) {
  std::vector<OrderRow> sf;
  for (auto method : {sg::Method::StraightForward, sg::Method::InverseSubspace}) {
    const bool is_sf = method == sg::Method::StraightForward;
    const auto rows = order_table(with_C, method);
    if (sgtest::world_rank() == 0) {
      std::printf("%s, %s\n  K order  mode order   E-governed (bound)       torsion (bound)\n", what,
                  is_sf ? "straight-forward" : "inverse subspace");
      for (const auto& r : rows)
        std::printf("  %7d  %10d   %.3e (%.3e)   %.3e (%.3e)\n", r.alpha, r.beta, r.sg.e_governed, r.bound.e_governed,
                    r.sg.torsion, r.bound.torsion);
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      const std::string row = std::string(what) + (is_sf ? " SF" : " IN") + " alpha " + std::to_string(r.alpha) +
                              " beta " + std::to_string(r.beta);
      for (const auto& [e, bound, th] : {std::tuple{r.sg.e_governed, r.bound.e_governed, thesis.e_governed[i]},
                                         std::tuple{r.sg.torsion, r.bound.torsion, thesis.torsion[i]}}) {
        if (r.alpha > r.beta) {
          EXPECT_NEAR(e / bound, 1.0, 0.02) << row; // 1
        } else { // 2
          EXPECT_GE(e / bound, 0.95) << row;
          EXPECT_LE(e / bound, 4.0) << row;
        }
        if (r.beta == 1 || r.alpha == 1) { // 3
          EXPECT_GE(e, 1e-9) << row;
          EXPECT_LE(e, 6e-7) << row;
        }
        if (!std::isnan(th)) { // 4
          EXPECT_LT(std::abs(std::log10(e / th)), 1.0) << row << ": " << e << ", thesis " << th;
        }
      }
      if (!is_sf) { // 5
        EXPECT_NEAR(r.sg.e_governed / sf[i].sg.e_governed, 1.0, 0.01) << row;
        EXPECT_NEAR(r.sg.torsion / sf[i].sg.torsion, 1.0, 0.01) << row;
      }
    }
    if (is_sf) sf = rows;
  }
  if (!with_C) { // 3: the best G-only rows
    for (int i : {4, 5}) EXPECT_LE(sf[i].sg.e_governed, 1e-12) << "G only, alpha " << sf[i].alpha << " beta 2";
  }
}

} // namespace

TEST(SgSeedTables, T13ShearModulusOnly) { // Table 7.9
  check_table("G only", false, {{kNaN, 4.47e-9, 1.89e-9, 5.21e-9, 1.11e-13, 2.90e-14},
                         {kNaN, 1.11e-8, 4.67e-9, 1.29e-8, 1.57e-12, 4.22e-13}});
}

TEST(SgSeedTables, T13ShearAndBulkModulus) { // Table 7.11
  check_table("G and C", true, {{kNaN, 4.75e-9, 3.10e-9, kNaN, kNaN, kNaN},
                          {kNaN, 8.24e-9, 6.60e-9, 1.03e-8, kNaN, kNaN}});
}

// ---- T15 ----
//
// Table 7.13: the thesis solved K_ii u = λ M_ii u of bar 1 with 5, 11, 21, 31, 41 nodes, 10 random G
// each, as the generalized problem (MATLAB eig / eigs: never complex) and in the standard form
// A = L⁻¹ K L⁻ᵀ, M = L Lᵀ (eig: complex results in 10 of 10 runs from 11 nodes on; eigs for 80/50/20 %
// of the eigenvalues: fewer, growing with the node count). Why: A is symmetric in exact arithmetic, but
// the computed product is not (measured ‖A − Aᵀ‖/‖A‖ = 1.1–1.4e-16), and MATLAB's eig/eigs use their
// symmetric algorithms only for an exactly symmetric matrix; the general ones (Hessenberg QR; Arnoldi)
// do not keep the symmetry in floating point, and the bar's multiple eigenvalues (bending ×4,
// torsion ×2, axial ×2: a square section and two clamped–clamped halves) split under that round-off
// into complex conjugate pairs (|Im| ~ 1e-16 ‖A‖, so more likely the larger the mesh, as the table
// shows). flexuq cannot produce them: it never forms the unsymmetrised product, and its eigen solvers
// are the symmetric ones (fe::solve_modes and the SG straight-forward method: SLEPc GHEP on the
// symmetric pencil; the inverse-subspace method: symmetric Rayleigh–Ritz), whose eigenvalues are real
// by construction. Asserted (the table's setup, 10 log-normal G per node count):
// 1. Symmetric solvers, SLEPc Krylov–Schur with shift-and-invert at 0 (eigs' 'smallestabs') for
//    80/50/20 % of the eigenvalues, on the pencil (GHEP) and on the symmetrised (A + Aᵀ)/2 (HEP):
//    0 complex results for every node count and fraction (exact).
// 2. The diagnostic, qualitative (the counts follow the round-off, so the BLAS and the vector width):
//    the general dense solver (Eigen's real Schur, as LAPACK dgeev / MATLAB eig) on the unsymmetrised
//    A has complex results for every node count ≥ 11 (measured 4, 10, 10, 8 of 10; the thesis 10, 10,
//    10, 10) and in ≥ 20 of the 30 runs of 21–41 nodes (measured 28); the non-symmetric Krylov–Schur
//    (NHEP) for 80/50/20 % has some at every fraction and more at 41 nodes than at 11 (measured
//    80 %: 2 → 10, 50 %: 2 → 10, 20 %: 1 → 9; the thesis 1 → 7, 0 → 7, 0 → 8). At 5 nodes (n = 12) the
//    computed product happens to be exactly symmetric here: no complex eig() result (thesis 0), but
//    NHEP's shift-and-invert (a non-symmetric LU) still finds one pair in 1 of 10 runs.
// 3. The general dense solver on the exactly symmetrised matrix also returns complex pairs (measured 3,
//    8, 10, 10 of 10 from 11 nodes; asserted ≥ 15 of the 30 runs of 21–41 nodes): the effect is the
//    non-symmetric algorithm on a matrix with multiple eigenvalues, so symmetrising helps only with a
//    symmetric solver, which is what flexuq uses.

namespace {

Eigen::MatrixXd dense(Mat A) {
  Mat D = nullptr;
  FLEXUQ_PETSC(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscInt n = 0, m = 0;
  FLEXUQ_PETSC(MatGetSize(D, &n, &m));
  const PetscScalar* a = nullptr;
  FLEXUQ_PETSC(MatDenseGetArrayRead(D, &a));
  Eigen::MatrixXd out = Eigen::Map<const Eigen::MatrixXd>(a, n, m);
  FLEXUQ_PETSC(MatDenseRestoreArrayRead(D, &a));
  FLEXUQ_PETSC(MatDestroy(&D));
  return out;
}

Mat petsc_dense(const Eigen::MatrixXd& A) {
  const PetscInt n = A.rows();
  Mat M = nullptr;
  FLEXUQ_PETSC(MatCreateSeqDense(PETSC_COMM_SELF, n, n, nullptr, &M));
  for (PetscInt i = 0; i < n; ++i)
    for (PetscInt j = 0; j < n; ++j) FLEXUQ_PETSC(MatSetValue(M, i, j, A(i, j), INSERT_VALUES));
  FLEXUQ_PETSC(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  FLEXUQ_PETSC(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  return M;
}

// Whether SLEPc's Krylov–Schur, shift-and-invert at 0 for the lowest @p nev (MATLAB's eigs(·, k,
// 'smallestabs')), returns an eigenvalue with an imaginary part for the problem @p type on A (and B).
bool partial_has_complex(EPSProblemType type, const Eigen::MatrixXd& A, const Eigen::MatrixXd* B, int nev) {
  Mat a = petsc_dense(A), b = B ? petsc_dense(*B) : nullptr;
  EPS eps = nullptr;
  FLEXUQ_PETSC(EPSCreate(PETSC_COMM_SELF, &eps));
  FLEXUQ_PETSC(EPSSetOperators(eps, a, b));
  FLEXUQ_PETSC(EPSSetProblemType(eps, type));
  FLEXUQ_PETSC(EPSSetType(eps, EPSKRYLOVSCHUR));
  FLEXUQ_PETSC(EPSSetDimensions(eps, nev, PETSC_DEFAULT, PETSC_DEFAULT));
  FLEXUQ_PETSC(EPSSetTarget(eps, 0.0));
  FLEXUQ_PETSC(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
  ST st = nullptr;
  FLEXUQ_PETSC(EPSGetST(eps, &st));
  FLEXUQ_PETSC(STSetType(st, STSINVERT));
  FLEXUQ_PETSC(EPSSolve(eps));
  PetscInt nconv = 0;
  FLEXUQ_PETSC(EPSGetConverged(eps, &nconv));
  FLEXUQ_REQUIRE(nconv >= nev, "T15: SLEPc converged " << nconv << " of " << nev);
  bool complex = false;
  for (PetscInt i = 0; i < nconv; ++i) {
    PetscScalar kr = 0, ki = 0;
    FLEXUQ_PETSC(EPSGetEigenpair(eps, i, &kr, &ki, nullptr, nullptr));
    if (ki != 0) complex = true;
  }
  FLEXUQ_PETSC(EPSDestroy(&eps));
  FLEXUQ_PETSC(MatDestroy(&a));
  if (b) FLEXUQ_PETSC(MatDestroy(&b));
  return complex;
}

} // namespace

TEST(SgSeedTables, T15ImaginaryResults) {
  const int nodes[] = {5, 11, 21, 31, 41};
  const double frac[3] = {0.8, 0.5, 0.2};
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> xi;
  const auto G = uq::Distribution::lognormal_from_moments(76.9e9, 1e9);
  int full[5] = {}, part[5][3] = {}, sym_full[5] = {};
  for (int i = 0; i < 5; ++i) {
    auto c = bar1(PETSC_COMM_SELF, nodes[i] - 1);
    fe::MaterialParametrisation par(*c, seed_parameters(false));
    for (int run = 0; run < 10; ++run) {
      c->set_materials(par.materials({G.from_germ(xi(rng))}));
      const Eigen::MatrixXd K = dense(c->K()), M = dense(c->M());
      const Eigen::LLT<Eigen::MatrixXd> L(M);
      Eigen::MatrixXd A = L.matrixL().solve(K);                // L⁻¹ K
      A = L.matrixL().solve(A.transpose()).transpose().eval(); // (L⁻¹ (L⁻¹ K)ᵀ)ᵀ = L⁻¹ K L⁻ᵀ, unsymmetrised
      const Eigen::MatrixXd As = 0.5 * (A + A.transpose());
      for (int f = 0; f < 3; ++f) {
        const int nev = static_cast<int>(std::lround(frac[f] * A.rows()));
        EXPECT_FALSE(partial_has_complex(EPS_GHEP, K, &M, nev)) << nodes[i] << " nodes, " << nev << " of the pencil"; // 1
        EXPECT_FALSE(partial_has_complex(EPS_HEP, As, nullptr, nev)) << nodes[i] << " nodes, " << nev << " symmetrised";
        part[i][f] += partial_has_complex(EPS_NHEP, A, nullptr, nev);
      }
      Eigen::EigenSolver<Eigen::MatrixXd> ge(A, false), gs(As, false);
      full[i] += ge.eigenvalues().imag().cwiseAbs().maxCoeff() > 0;
      sym_full[i] += gs.eigenvalues().imag().cwiseAbs().maxCoeff() > 0;
    }
    if (sgtest::world_rank() == 0)
      std::printf("%2d nodes: runs with complex results, unsymmetrised eig() 100%% %2d, eigs() 80%% %2d, 50%% %2d, "
                  "20%% %2d; general solver on the symmetrised matrix %2d\n",
                  nodes[i], full[i], part[i][0], part[i][1], part[i][2], sym_full[i]);
  }
  for (int i = 1; i < 5; ++i) EXPECT_GE(full[i], 1) << nodes[i] << " nodes"; // 2
  EXPECT_GE(full[2] + full[3] + full[4], 20);
  for (int f = 0; f < 3; ++f) {
    EXPECT_GE(part[1][f] + part[2][f] + part[3][f] + part[4][f], 1) << "fraction " << frac[f];
    EXPECT_GT(part[4][f], part[1][f]) << "fraction " << frac[f];
  }
  EXPECT_GE(sym_full[2] + sym_full[3] + sym_full[4], 15); // 3
}
