// SPDX-License-Identifier: MIT
// Recycled fixed-interface modes (issue #38 item 2): a Reducer whose reference reduction kept its
// modes (Reducer::record_mode_reference) solves a later point's fixed-interface eigenproblem by a
// Rayleigh–Ritz on [Φ_ref, K_ii⁻¹M_iiΦ_ref] with a residual test, falling back to Krylov–Schur.
//  - the oracle: the lowest eigenpairs of the dense K_ii, M_ii gathered and solved by Eigen's
//    generalized symmetric solver (LAPACK-free, independent of SLEPc and of the recycled code);
//  - small and larger shape-changing steps (ν and E of one half of the box against the other):
//    the recycled pairs are taken (asserted) and agree with the oracle to the tolerance, their
//    vectors with MAC > 0.999;
//  - a far point (ν 0.30 → 0.45, the half's E × 3) fails the test and falls back (asserted), with
//    the full solve's result bit for bit on one rank;
//  - a point does not depend on the points evaluated before it (two orders, bit for bit on one
//    rank, 1e-10 on two).
#include "flexuq/app/ComponentConfig.hpp"
#include "flexuq/cms/Reduction.hpp"
#include "flexuq/config/Config.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstring>
#include <memory>

using namespace flexuq;

namespace {

// Two element sets (the halves of the box) so that E of one half changes the mode shapes.
const char* const kBox = R"(
model:
  generator: {type: box, size: [0.4, 0.1, 0.06], cells: [12, 4, 3], order: 1}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
)";

std::vector<fe::MaterialParameter> e_nu() {
  std::vector<fe::MaterialParameter> p(2);
  p[0].name = "E";
  p[0].property = fe::MaterialProperty::E;
  p[1].name = "nu";
  p[1].property = fe::MaterialProperty::nu;
  return p;
}

struct Box {
  fe::Component comp;
  fe::MaterialParametrisation params;
  cms::WorkSpace ws;
  static fe::ComponentOptions options() {
    auto co = app::component_options(io::Config::from_string(kBox, "<test>"));
    co.keep_affine = true;
    return co;
  }
  explicit Box(const std::vector<fe::MaterialParameter>& p = e_nu())
      : comp(MPI_COMM_WORLD, app::load_mesh(io::Config::from_string(kBox, "<test>")), options()), params(comp, p),
        ws(comp, {{"XMIN", cms::InterfaceKind::rbe2, {}, {}}, {"XMAX", cms::InterfaceKind::rbe2, {}, {}}}) {}
  void at(const std::vector<double>& theta) {
    params.apply(comp, theta);
    ws.refresh_operators();
  }
};

/// @p block: `reduce.modes.recycle: block` (the block Krylov solve started from Φ_ref) instead of auto.
cms::ReducerOptions reducer_options(bool recycle, bool block = false, int block_steps = 10) {
  cms::ReducerOptions ro;
  ro.modes.count = 8;
  ro.modes.progress = false;
  ro.modes.recycle = recycle;
  ro.modes.recycle_block = block;
  ro.modes.recycle_block_steps = block_steps;
  return ro;
}

cms::BuildOptions cb() {
  cms::BuildOptions b;
  b.method = cms::Method::craig_bampton;
  return b;
}


/// The lowest @p n eigenvalues of the interior pencil (K_ii, M_ii) of the working space: the
/// matrices gathered dense on every rank and solved by Eigen (the oracle).
std::vector<double> dense_interior_eigenvalues(const cms::WorkSpace& ws, std::size_t n) {
  MatH Kii, Mii;
  FLEXUQ_PETSC(MatCreateSubMatrix(ws.K(), ws.is_i(), ws.is_i(), MAT_INITIAL_MATRIX, Kii.out()));
  FLEXUQ_PETSC(MatCreateSubMatrix(ws.M(), ws.is_i(), ws.is_i(), MAT_INITIAL_MATRIX, Mii.out()));
  auto gather = [](Mat A) {
    PetscInt N = 0, lo = 0, hi = 0;
    FLEXUQ_PETSC(MatGetSize(A, &N, nullptr));
    FLEXUQ_PETSC(MatGetOwnershipRange(A, &lo, &hi));
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(N, N);
    for (PetscInt r = lo; r < hi; ++r) {
      PetscInt nc = 0;
      const PetscInt* cols = nullptr;
      const PetscScalar* vals = nullptr;
      FLEXUQ_PETSC(MatGetRow(A, r, &nc, &cols, &vals));
      for (PetscInt k = 0; k < nc; ++k) D(r, cols[k]) = vals[k];
      FLEXUQ_PETSC(MatRestoreRow(A, r, &nc, &cols, &vals));
    }
    MPI_Allreduce(MPI_IN_PLACE, D.data(), static_cast<int>(D.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return D;
  };
  const Eigen::MatrixXd K = gather(Kii.get()), M = gather(Mii.get());
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(K, M, Eigen::EigenvaluesOnly);
  return std::vector<double>(es.eigenvalues().data(), es.eigenvalues().data() + n);
}

/// MAC of the fixed-interface modes of two solves in the mass matrix of the point (M-normalised).
double min_mac(const cms::WorkSpace& ws, const fe::ModeSet& a, const fe::ModeSet& b) {
  double m = 1;
  VecH w = ws.new_vector();
  for (std::size_t i = 0; i < a.vectors.size(); ++i) {
    FLEXUQ_PETSC(MatMult(ws.M(), a.vectors[i].get(), w.get()));
    PetscScalar ab = 0, aa = 0, bb = 0;
    FLEXUQ_PETSC(VecDot(w.get(), b.vectors[i].get(), &ab));
    FLEXUQ_PETSC(VecDot(w.get(), a.vectors[i].get(), &aa));
    FLEXUQ_PETSC(MatMult(ws.M(), b.vectors[i].get(), w.get()));
    FLEXUQ_PETSC(VecDot(w.get(), b.vectors[i].get(), &bb));
    m = std::min(m, ab * ab / (aa * bb));
  }
  return m;
}

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// Bit for bit on one rank. On two, where MUMPS's parallel factorisation differs from run to run in
/// the last bits (docs/architecture.md) and a mode's sign (largest entry positive) may flip on a
/// symmetric shape, what does not depend on the sign or the basis of a multiplet: the mode
/// eigenvalues and the eigenvalues of the reduced pencil (K̄, M̄), to 1e-10 and 1e-9 relative.
void expect_same(const cms::ReducedBasis& a, const cms::ReducedBasis& b, const std::string& what) {
  const Eigen::Map<const Eigen::VectorXd> la(a.mode_eigenvalues.data(), static_cast<Eigen::Index>(a.mode_eigenvalues.size())),
      lb(b.mode_eigenvalues.data(), static_cast<Eigen::Index>(b.mode_eigenvalues.size()));
  ASSERT_EQ(la.size(), lb.size()) << what;
  ASSERT_EQ(a.K.size(), b.K.size()) << what;
  if (world_size() == 1) {
    EXPECT_EQ(0, std::memcmp(la.data(), lb.data(), static_cast<std::size_t>(la.size()) * sizeof(double))) << what;
    EXPECT_EQ(0, std::memcmp(a.K.data(), b.K.data(), static_cast<std::size_t>(a.K.size()) * sizeof(double))) << what;
    EXPECT_EQ(0, std::memcmp(a.M.data(), b.M.data(), static_cast<std::size_t>(a.M.size()) * sizeof(double))) << what;
    return;
  }
  EXPECT_LE((la - lb).cwiseAbs().maxCoeff(), 1e-10 * la.cwiseAbs().maxCoeff()) << what << ": mode eigenvalues";
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> ea(a.K, a.M, Eigen::EigenvaluesOnly), eb(b.K, b.M, Eigen::EigenvaluesOnly);
  EXPECT_LE((ea.eigenvalues() - eb.eigenvalues()).cwiseAbs().maxCoeff(), 1e-9 * ea.eigenvalues().cwiseAbs().maxCoeff())
      << what << ": reduced pencil";
}

const std::vector<double> kReference{2.0e11, 0.3};

/// A Reducer (recycle on) whose Craig–Bampton reduction at the reference kept its modes.
std::unique_ptr<cms::Reducer> reference_reducer(Box& box, bool block = false, int block_steps = 10) {
  box.at(kReference);
  auto r = std::make_unique<cms::Reducer>(box.ws, reducer_options(true, block, block_steps));
  r->record_mode_reference();
  (void)r->build(cb());
  return r;
}

/// The point @p th built by the reference's Reducer @p kept, its recycled solve expected taken.
cms::ReducedBasis build_recycled(Box& box, cms::Reducer& kept, const std::vector<double>& th) {
  box.at(th);
  kept.update_operators();
  auto rb = kept.build(cb());
  const auto* rep = kept.fixed_mode_recycle();
  EXPECT_TRUE(rep && rep->tried && rep->used) << (rep ? rep->reason : "no report") << " (nu = " << th[1] << ")";
  return rb;
}

} // namespace

// ν changes the mode shapes (E of the whole box only scales them): 0.3 → 0.301 and → 0.32 with E.
TEST(RecycledModes, SmallAndLargerStepsAgreeWithTheOracleAndTheFullSolve) {
  Box box;
  auto kept_ptr = reference_reducer(box);
  cms::Reducer& kept = *kept_ptr;
  EXPECT_FALSE(kept.fixed_mode_recycle()->tried); // the reference itself is a full solve
  for (const auto& th : std::vector<std::vector<double>>{{2.02e11, 0.301}, {2.2e11, 0.32}}) {
    const auto rb = build_recycled(box, kept, th);
    const auto* rep = kept.fixed_mode_recycle();
    ASSERT_TRUE(rep && rep->used);
    EXPECT_LE(rep->max_error, 1e-12);
    EXPECT_GE(rep->steps, 2); // the space [Φ_ref, K⁻¹MΦ_ref] is tested by the second solve at the earliest
    cms::Reducer fresh(box.ws, reducer_options(false));
    const auto full = fresh.build(cb());
    const auto oracle = dense_interior_eigenvalues(box.ws, rb.mode_eigenvalues.size());
    double d_oracle = 0, d_full = 0;
    for (std::size_t i = 0; i < oracle.size(); ++i) {
      d_oracle = std::max(d_oracle, std::abs(rb.mode_eigenvalues[i] / oracle[i] - 1));
      d_full = std::max(d_full, std::abs(rb.mode_eigenvalues[i] / fresh.fixed_modes().eigenvalues[i] - 1));
    }
    EXPECT_LE(d_oracle, 1e-10) << "nu = " << th[1];
    EXPECT_LE(d_full, 1e-12) << "nu = " << th[1];
    EXPECT_GT(min_mac(box.ws, kept.fixed_modes(), fresh.fixed_modes()), 0.999999) << "nu = " << th[1];
    // The reduced pencils agree: the recycled basis spans what the full one spans.
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> er(rb.K, rb.M, Eigen::EigenvaluesOnly),
        ef(full.K, full.M, Eigen::EigenvaluesOnly);
    EXPECT_LE((er.eigenvalues() - ef.eigenvalues()).cwiseAbs().maxCoeff(), 1e-9 * ef.eigenvalues().cwiseAbs().maxCoeff());
  }
}

// ν 0.3 → 0.49: the reference modes are too far from the point's for the block solves allowed; the
// point falls back to Krylov–Schur and gives exactly what a Reducer without a reference gives.
namespace {
void check_far_point_falls_back(bool block) {
  Box box;
  // On this small box the block Krylov space of 8 solves (|Φ_ref| + 4 = 16 columns each) holds
  // the wanted pairs of any point: the far point is given 4, which the near points of
  // TheBlockSolveFromTheReferenceAgreesWithTheFullSolve do not reach either (7-8 solves).
  auto kept_ptr = reference_reducer(box, block, 4);
  cms::Reducer& kept = *kept_ptr;
  box.at({2.0e11, 0.49});
  kept.update_operators();
  const auto rb = kept.build(cb());
  const auto* rep = kept.fixed_mode_recycle();
  ASSERT_TRUE(rep && rep->tried);
  EXPECT_FALSE(rep->used);
  EXPECT_NE(rep->reason.find("block solves"), std::string::npos) << rep->reason;
  EXPECT_GT(rep->max_error, 1e-12);
  cms::Reducer fresh(box.ws, reducer_options(false));
  const auto full = fresh.build(cb());
  EXPECT_FALSE(fresh.fixed_mode_recycle()->tried);
  expect_same(rb, full, "the fallback against a full solve");
}
} // namespace

TEST(RecycledModes, AFarPointFallsBackToTheFullSolve) { check_far_point_falls_back(false); }
// The same far point with the block solve from Φ_ref, given 4 block solves: the full solve's result.
TEST(RecycledModes, AFarPointFallsBackFromTheBlockSolve) { check_far_point_falls_back(true); }

namespace {
/// A point depends on θ and the fixed reference only: two groups evaluating two points in opposite
/// orders give the same bodies (bit for bit on one rank).
void check_order_independence(bool block) {
  const std::vector<std::vector<double>> points{{2.1e11, 0.31}, {1.9e11, 0.29}};
  std::vector<cms::ReducedBasis> first, second;
  for (int order = 0; order < 2; ++order) {
    Box box;
    auto kept_ptr = reference_reducer(box, block);
    cms::Reducer& kept = *kept_ptr;
    std::vector<cms::ReducedBasis> got(2);
    for (int k = 0; k < 2; ++k) {
      const int p = order == 0 ? k : 1 - k;
      box.at(points[static_cast<std::size_t>(p)]);
      kept.update_operators();
      got[static_cast<std::size_t>(p)] = kept.build(cb());
      EXPECT_TRUE(kept.fixed_mode_recycle()->used) << kept.fixed_mode_recycle()->reason;
    }
    (order == 0 ? first : second) = std::move(got);
  }
  for (std::size_t p = 0; p < 2; ++p) {
    expect_same(first[p], second[p], "point " + std::to_string(p) + " in two orders");
  }
  EXPECT_GT((first[0].K - first[1].K).norm(), 1e-6 * first[0].K.norm()); // the two points differ
}
} // namespace

TEST(RecycledModes, TheOrderOfThePointsDoesNotMatter) { check_order_independence(false); }

// `reduce.modes.recycle: block`: the block Krylov solve started from Φ_ref (fe/BlockModes.hpp,
// BlockEigenSettings::start) agrees with the dense oracle and a full Krylov–Schur solve of the point
// (eigenvalues to 1e-10, the fixed-interface subspaces by their largest principal angle in M), and
// needs fewer block solves than the same method from its pseudo-random start.
TEST(RecycledModes, TheBlockSolveFromTheReferenceAgreesWithTheFullSolve) {
  Box box;
  auto kept_ptr = reference_reducer(box, true);
  cms::Reducer& kept = *kept_ptr;
  for (const auto& th : std::vector<std::vector<double>>{{2.02e11, 0.301}, {2.2e11, 0.32}}) {
    const auto rb = build_recycled(box, kept, th);
    const auto* rep = kept.fixed_mode_recycle();
    ASSERT_TRUE(rep && rep->used);
    EXPECT_GE(rep->steps, 2); // the first Rayleigh–Ritz (span Φ_ref) is not yet at 1e-12
    EXPECT_GT(rep->columns, static_cast<long long>(rep->steps) * 8); // blocks as wide as Φ_ref and the guard columns
    cms::ReducerOptions unseeded_opt = reducer_options(false);
    unseeded_opt.modes.solver = fe::ModeOptions::Method::block;
    cms::Reducer fresh(box.ws, reducer_options(false)), unseeded(box.ws, unseeded_opt);
    const auto full = fresh.build(cb());
    (void)unseeded.build(cb());
    ASSERT_TRUE(unseeded.fixed_mode_block() && unseeded.fixed_mode_block()->fallback.empty());
    EXPECT_LT(rep->steps, unseeded.fixed_mode_block()->steps) << "nu = " << th[1];
    const auto oracle = dense_interior_eigenvalues(box.ws, rb.mode_eigenvalues.size());
    const auto& a = kept.fixed_modes();
    const auto& b = fresh.fixed_modes();
    ASSERT_EQ(a.eigenvalues.size(), b.eigenvalues.size());
    double d_oracle = 0, d_full = 0;
    for (std::size_t i = 0; i < oracle.size(); ++i) {
      d_oracle = std::max(d_oracle, std::abs(rb.mode_eigenvalues[i] / oracle[i] - 1));
      d_full = std::max(d_full, std::abs(a.eigenvalues[i] / b.eigenvalues[i] - 1));
    }
    EXPECT_LE(d_oracle, 1e-10) << "nu = " << th[1];
    EXPECT_LE(d_full, 1e-10) << "nu = " << th[1];
    // Principal angles: the singular values of AᵀMB (both M-orthonormal) are their cosines.
    const auto n = static_cast<Eigen::Index>(a.vectors.size());
    Eigen::MatrixXd C(n, n);
    VecH w = box.ws.new_vector();
    for (Eigen::Index i = 0; i < n; ++i) {
      FLEXUQ_PETSC(MatMult(box.ws.M(), a.vectors[static_cast<std::size_t>(i)].get(), w.get()));
      for (Eigen::Index j = 0; j < n; ++j) FLEXUQ_PETSC(VecDot(w.get(), b.vectors[static_cast<std::size_t>(j)].get(), &C(i, j)));
    }
    const Eigen::VectorXd cosines = Eigen::JacobiSVD<Eigen::MatrixXd>(C).singularValues();
    EXPECT_LE(std::sqrt(std::max(0.0, 1 - cosines.minCoeff() * cosines.minCoeff())), 1e-6) << "nu = " << th[1];
    EXPECT_LE(cosines.maxCoeff(), 1 + 1e-10);
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> er(rb.K, rb.M, Eigen::EigenvaluesOnly),
        ef(full.K, full.M, Eigen::EigenvaluesOnly);
    EXPECT_LE((er.eigenvalues() - ef.eigenvalues()).cwiseAbs().maxCoeff(), 1e-9 * ef.eigenvalues().cwiseAbs().maxCoeff());
  }
}

TEST(RecycledModes, TheBlockSolveFromTheReferenceDoesNotDependOnTheOrder) { check_order_independence(true); }

// `reduce.modes.solver: block` keeps an assembled M_ii (la::BlockProduct's M products; Krylov–Schur
// a virtual submatrix of M_w), refilled with K_ii and K_ib when update_operators re-targets the
// Reducer to a later point. A stale M_ii (the reference's masses) would give the reference's mode
// eigenvalues scaled by the stiffness alone: every point of a kept block Reducer must equal the
// dense oracle of its own pencil (1e-10) and a fresh Krylov–Schur Reducer's reduced pencil (1e-9).
TEST(RecycledModes, AKeptBlockReducerFollowsEveryPointsMass) {
  auto p = e_nu();
  p[1].name = "rho"; // E and ρ: ρ changes M(θ), which E and ν leave as it is
  p[1].property = fe::MaterialProperty::rho;
  Box box(p);
  cms::ReducerOptions bo = reducer_options(false);
  bo.modes.solver = fe::ModeOptions::Method::block;
  box.at({2.0e11, 7800});
  cms::Reducer kept(box.ws, bo);
  (void)kept.build(cb());
  ASSERT_TRUE(kept.fixed_mode_block() && kept.fixed_mode_block()->fallback.empty());
  // The last point returns to the reference.
  for (const auto& th : std::vector<std::vector<double>>{{2.2e11, 9000}, {1.9e11, 6500}, {2.0e11, 7800}}) {
    box.at(th);
    kept.update_operators();
    const auto rb = kept.build(cb());
    ASSERT_TRUE(kept.fixed_mode_block() && kept.fixed_mode_block()->fallback.empty());
    const auto oracle = dense_interior_eigenvalues(box.ws, rb.mode_eigenvalues.size());
    double d_oracle = 0;
    for (std::size_t i = 0; i < oracle.size(); ++i)
      d_oracle = std::max(d_oracle, std::abs(rb.mode_eigenvalues[i] / oracle[i] - 1));
    EXPECT_LE(d_oracle, 1e-10) << "E = " << th[0] << ", rho = " << th[1];
    cms::Reducer fresh(box.ws, reducer_options(false));
    const auto full = fresh.build(cb());
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> er(rb.K, rb.M, Eigen::EigenvaluesOnly),
        ef(full.K, full.M, Eigen::EigenvaluesOnly);
    EXPECT_LE((er.eigenvalues() - ef.eigenvalues()).cwiseAbs().maxCoeff(), 1e-9 * ef.eigenvalues().cwiseAbs().maxCoeff())
        << "E = " << th[0] << ", rho = " << th[1];
  }
}
