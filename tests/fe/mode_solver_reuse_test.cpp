// SPDX-License-Identifier: MIT
// Issue #10 (tracker 14): a ModeSolver kept alive across solves (one per campaign group) must give
// a result that depends only on the matrices, not on what the solver solved before. Compared bit
// for bit (same communicator, same partition): this is a reproducibility claim, not an accuracy one.
// Also: a ModeSolver on an existing factorization (fe::Factorization) reuses it without refactoring
// and hands it back intact.
#include "FeTestUtil.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/la/Solvers.hpp"

#include <petsc/private/petscimpl.h> // PetscObjectStateGet: counts the numeric factorizations

#include <gtest/gtest.h>

#include <cstring>

using namespace flexuq;

namespace {

// Square section: every bending frequency is a double eigenvalue, whose basis inside the pair is
// fixed by the start vector, so a start vector that drifts from solve to solve shows at once.
const char* kBeam = "model:\n  generator: {type: beam, length: 1.0, elements: 40, section: {shape: RECT, dims: [0.02, "
                    "0.02]}}\n  material: {E: 2.0e11, nu: 0.3, rho: 7800}\n  fixed: [END0]\n";

fe::ModeOptions options() {
  fe::ModeOptions o;
  o.count = 8;
  o.constrained = true;
  o.constraint_description = "END0";
  o.progress = false;
  o.tol = 1e-10;
  return o;
}

void set_material(fe::Component& c, double E, double rho) {
  std::vector<fe::IsoMaterial> mats;
  for (const auto& g : c.groups()) mats.push_back(fe::IsoMaterial::checked("test", E, g.material.nu, rho));
  c.set_materials(mats);
}

/// Local entries of every vector, eigenvalues and residuals: everything a solve returns.
struct Snapshot {
  std::vector<double> values, residuals, entries;
};

Snapshot snapshot(const fe::ModeSet& m) {
  Snapshot s{m.eigenvalues, m.residuals, {}};
  for (const auto& v : m.vectors) {
    PetscInt n = 0;
    FLEXUQ_PETSC(VecGetLocalSize(v.get(), &n));
    const PetscScalar* a = nullptr;
    FLEXUQ_PETSC(VecGetArrayRead(v.get(), &a));
    s.entries.insert(s.entries.end(), a, a + n);
    FLEXUQ_PETSC(VecRestoreArrayRead(v.get(), &a));
  }
  return s;
}

/// Bitwise equality (EXPECT_EQ on doubles would also pass −0 == +0; memcmp is the honest test).
void expect_identical(const Snapshot& a, const Snapshot& b, const char* what) {
  ASSERT_EQ(a.values.size(), b.values.size()) << what;
  ASSERT_EQ(a.entries.size(), b.entries.size()) << what;
  EXPECT_EQ(0, std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double))) << what << ": eigenvalues";
  EXPECT_EQ(0, std::memcmp(a.residuals.data(), b.residuals.data(), a.residuals.size() * sizeof(double)))
      << what << ": residuals";
  EXPECT_EQ(0, std::memcmp(a.entries.data(), b.entries.data(), a.entries.size() * sizeof(double))) << what << ": vectors";
}

} // namespace

TEST(ModeSolverReuse, ResultDoesNotDependOnEarlierSolves) {
  auto c = test::component_from_yaml(MPI_COMM_WORLD, kBeam, /*keep_affine=*/true);
  // A fresh solver on material A: the "sample evaluated alone".
  set_material(*c, 2.1e11, 7700);
  const Snapshot alone = snapshot(fe::ModeSolver(options()).solve(c->K(), c->M()));

  // One solver kept alive: A is solved third, after two other materials, then again fifth.
  fe::ModeSolver solver(options());
  set_material(*c, 1.9e11, 7900);
  (void)solver.solve(c->K(), c->M());
  set_material(*c, 2.0e11, 8000);
  (void)solver.solve(c->K(), c->M());
  set_material(*c, 2.1e11, 7700);
  const Snapshot third = snapshot(solver.solve(c->K(), c->M()));
  set_material(*c, 1.8e11, 7600);
  (void)solver.solve(c->K(), c->M());
  set_material(*c, 2.1e11, 7700);
  const Snapshot fifth = snapshot(solver.solve(c->K(), c->M()));

  expect_identical(alone, third, "fresh solver vs third solve of a reused one");
  expect_identical(third, fifth, "third vs fifth solve of the same matrices");
  // The test has teeth only if the pairs are there (their in-pair basis follows the start vector).
  const auto m = fe::ModeSolver(options()).solve(c->K(), c->M());
  EXPECT_EQ(m.multiplicity[0], 2);
}

namespace {
/// State of the factored matrix of @p ksp's PC: increases with every numeric factorization.
PetscObjectState factor_state(KSP ksp) {
  PC pc = nullptr;
  Mat F = nullptr;
  FLEXUQ_PETSC(KSPGetPC(ksp, &pc));
  FLEXUQ_PETSC(PCFactorGetMatrix(pc, &F));
  PetscObjectState s = 0;
  FLEXUQ_PETSC(PetscObjectStateGet(reinterpret_cast<PetscObject>(F), &s));
  return s;
}

/// ‖K x − b‖ / ‖b‖ for x solved with @p ksp.
double solve_residual(KSP ksp, Mat K) {
  VecH b, x, r;
  FLEXUQ_PETSC(MatCreateVecs(K, x.out(), b.out()));
  FLEXUQ_PETSC(VecDuplicate(b.get(), r.out()));
  FLEXUQ_PETSC(VecSet(b.get(), 1.0));
  FLEXUQ_PETSC(KSPSolve(ksp, b.get(), x.get()));
  FLEXUQ_PETSC(MatMult(K, x.get(), r.get()));
  FLEXUQ_PETSC(VecAXPY(r.get(), -1.0, b.get()));
  PetscReal nr = 0, nb = 0;
  FLEXUQ_PETSC(VecNorm(r.get(), NORM_2, &nr));
  FLEXUQ_PETSC(VecNorm(b.get(), NORM_2, &nb));
  return nr / nb;
}
} // namespace

// A ModeSolver on an existing factorization of K (the Craig–Bampton K_ii factor): the same modes
// as a solver with a factorization of its own (eigenvalues to 1e-10, subspaces by principal angles),
// no second numeric factorization, and the factorization still usable after the solver is gone.
TEST(ModeSolverFactorization, ReusesTheOwnersFactorAndLeavesItIntact) {
  auto c = test::component_from_yaml(MPI_COMM_WORLD, kBeam);
  const fe::ModeSet ref = fe::ModeSolver(options()).solve(c->K(), c->M());

  KspH ksp;
  FLEXUQ_PETSC(KSPCreate(c->comm(), ksp.out()));
  FLEXUQ_PETSC(KSPSetOperators(ksp.get(), c->K(), c->K()));
  FLEXUQ_PETSC(KSPSetOptionsPrefix(ksp.get(), "owner_"));
  la::SolverDefaults defaults;
  la::setup_mumps_cholesky(ksp.get(), "owner_", defaults);
  {
    const auto scope = defaults.apply();
    FLEXUQ_PETSC(KSPSetFromOptions(ksp.get()));
    FLEXUQ_PETSC(KSPSetUp(ksp.get()));
  }
  const PetscObjectState before = factor_state(ksp.get());
  fe::ModeSet shared;
  {
    fe::ModeSolver solver(options(), fe::Factorization{ksp.get(), defaults});
    shared = solver.solve(c->K(), c->M());
    EXPECT_EQ(factor_state(ksp.get()), before) << "the eigensolver factored K again";
  }
  ASSERT_EQ(shared.eigenvalues.size(), ref.eigenvalues.size());
  for (std::size_t i = 0; i < ref.eigenvalues.size(); ++i)
    EXPECT_NEAR(shared.eigenvalues[i], ref.eigenvalues[i], 1e-10 * ref.eigenvalues[i]) << i;
  EXPECT_NEAR(shared.shift, 0.0, 0.0);
  const Eigen::VectorXd cosines =
      test::subspace_cosines(test::natural_columns(*c, shared.vectors), test::natural_columns(*c, ref.vectors));
  EXPECT_GT(cosines.minCoeff(), 1 - 1e-8);
  // The solver is gone; the owner's factorization is untouched and still solves (a reset KSP would
  // throw here: no operators). The clamped slender beam's K has a condition number ~1e9, so a
  // backward-stable solve leaves a relative residual of ~1e-9.
  EXPECT_EQ(factor_state(ksp.get()), before);
  {
    const auto scope = defaults.apply();
    EXPECT_LT(solve_residual(ksp.get(), c->K()), 1e-7);
  }
  EXPECT_EQ(factor_state(ksp.get()), before);
}

TEST(ModeSolverFactorization, RefusesABandOrAShift) {
  auto c = test::component_from_yaml(MPI_COMM_WORLD, kBeam);
  KspH ksp;
  FLEXUQ_PETSC(KSPCreate(c->comm(), ksp.out()));
  auto band = options();
  band.band_hz = std::make_pair(0.0, 100.0);
  EXPECT_THROW(fe::ModeSolver(band, fe::Factorization{ksp.get(), {}}), InternalError);
  auto shifted = options();
  shifted.shift = -1.0;
  EXPECT_THROW(fe::ModeSolver(shifted, fe::Factorization{ksp.get(), {}}), InternalError);
}
