// SPDX-License-Identifier: MIT
#include "flexuq/fe/Modes.hpp"

#include "flexuq/core/Assert.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/fe/BlockModes.hpp"
#include "flexuq/fe/RecycledModes.hpp"
#include "flexuq/la/MatPattern.hpp"
#include "flexuq/la/MumpsOrdering.hpp"
#include "flexuq/la/Solvers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace flexuq::fe {

std::vector<double> ModeSet::frequencies_hz() const {
  std::vector<double> f;
  for (double l : eigenvalues) f.push_back(std::sqrt(std::max(l, 0.0)) / (2 * M_PI));
  return f;
}

namespace {
/// Kφ and Mφ once; λ = the Rayleigh quotient unless given; residual ‖Kφ − λMφ‖/‖Kφ‖.
std::pair<double, double> residual_of(Mat K, Mat M, Vec phi, const double* given_lambda) {
  VecH Kx, Mx;
  FLEXUQ_PETSC(VecDuplicate(phi, Kx.out()));
  FLEXUQ_PETSC(VecDuplicate(phi, Mx.out()));
  FLEXUQ_PETSC(MatMult(K, phi, Kx.get()));
  FLEXUQ_PETSC(MatMult(M, phi, Mx.get()));
  double lambda = 0;
  if (given_lambda) {
    lambda = *given_lambda;
  } else {
    PetscScalar xKx = 0, xMx = 0;
    FLEXUQ_PETSC(VecDot(Kx.get(), phi, &xKx));
    FLEXUQ_PETSC(VecDot(Mx.get(), phi, &xMx));
    lambda = PetscRealPart(xKx) / PetscRealPart(xMx);
  }
  PetscReal nk = 0, nr = 0;
  FLEXUQ_PETSC(VecNorm(Kx.get(), NORM_2, &nk));
  FLEXUQ_PETSC(VecAYPX(Mx.get(), -lambda, Kx.get())); // Mx ← Kφ − λ Mφ
  FLEXUQ_PETSC(VecNorm(Mx.get(), NORM_2, &nr));
  return {lambda, nk > 0 ? nr / nk : nr};
}
} // namespace

std::pair<double, double> rayleigh_refine(Mat K, Mat M, Vec phi) { return residual_of(K, M, phi, nullptr); }

double eigen_residual(Mat K, Mat M, double lambda, Vec phi) { return residual_of(K, M, phi, &lambda).second; }

void normalize_sign(Vec v) {
  PetscReal vmax = 0, vmin = 0;
  FLEXUQ_PETSC(VecMax(v, nullptr, &vmax));
  FLEXUQ_PETSC(VecMin(v, nullptr, &vmin));
  if (-vmin > vmax * (1 + 1e-12)) FLEXUQ_PETSC(VecScale(v, -1.0));
}

double spectrum_scale(Mat K, Mat M) {
  VecH dk, dm;
  FLEXUQ_PETSC(MatCreateVecs(K, dk.out(), nullptr));
  FLEXUQ_PETSC(VecDuplicate(dk.get(), dm.out()));
  FLEXUQ_PETSC(MatGetDiagonal(K, dk.get()));
  FLEXUQ_PETSC(MatGetDiagonal(M, dm.get()));
  FLEXUQ_PETSC(VecPointwiseDivide(dk.get(), dk.get(), dm.get()));
  PetscReal s = 0;
  FLEXUQ_PETSC(VecMax(dk.get(), nullptr, &s));
  FLEXUQ_REQUIRE(std::isfinite(s) && s > 0,
                 "the stiffness or mass matrix has a zero or non-finite diagonal entry (a node without stiffness "
                 "or mass: an orphan node or a zero density)");
  // Six DOFs per node (shells, beams, Nastran matrices: 3 translations then 3 rotations): the scale
  // is taken over the translations only. On a rotation K_ii/M_ii is transverse shear over rotary
  // inertia, ≈ 12κG/(ρh²), which grows as 1/h² while the bending eigenvalues shrink as h²: a thin
  // shell's first modes would fall below rigid_tol·s and its default shift would sit far below its
  // spectrum. Over the translations s ≈ E/(ρ a_e²) (a_e the element size), independent of h, and a
  // clamped steel plate of a/h = 1000 on a 40 × 40 mesh has λ₁ ≈ 2e-8·s (and the default shift
  // −1e-8·s sits just below a free plate's spectrum); see rigid_tolerance for the zero-mode threshold.
  PetscInt bs = 1;
  FLEXUQ_PETSC(MatGetBlockSize(K, &bs));
  if (bs != 6) return s;
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(VecGetOwnershipRange(dk.get(), &lo, &hi));
  const PetscScalar* r = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(dk.get(), &r));
  PetscReal local = 0;
  for (PetscInt i = lo; i < hi; ++i)
    if (i % 6 < 3) local = std::max(local, static_cast<PetscReal>(PetscRealPart(r[i - lo])));
  FLEXUQ_PETSC(VecRestoreArrayRead(dk.get(), &r));
  PetscReal st = 0;
  FLEXUQ_MPI(MPI_Allreduce(&local, &st, 1, MPIU_REAL, MPI_MAX, PetscObjectComm(reinterpret_cast<PetscObject>(K))));
  return st > 0 ? st : s;
}

/// ModeOptions::rigid_tol, or its default: 1e-9 of s, 1e-13 of s with six DOFs per node. Even over
/// the translations (spectrum_scale) a thin plate's bending eigenvalues fall as (h/a)²: a steel
/// cantilever plate of a/h = 1000 on a 30 × 30 mesh has λ₁ = 2.7e-10·s, while the computed rigid
/// eigenvalues of the same plate free sit at 2e-17·s (rounding), so 1e-13 keeps three orders of
/// margin on both sides. Solids keep the historical 1e-9 (their first modes scale with s itself).
static double rigid_tolerance(Mat K, const ModeOptions& opt) {
  if (!std::isnan(opt.rigid_tol)) return opt.rigid_tol;
  PetscInt bs = 1;
  FLEXUQ_PETSC(MatGetBlockSize(K, &bs));
  return bs == 6 ? 1e-13 : 1e-9;
}

ModeOptions with_component_scale(ModeOptions opt, Mat K, Mat M) {
  if (std::isnan(opt.scale)) opt.scale = spectrum_scale(K, M);
  opt.rigid_tol = rigid_tolerance(K, opt);
  return opt;
}

namespace {

/// EPS monitor: "[eigensolve] 45% (9/20) elapsed … ETA …" on rank 0, at most every 2 s.
struct ProgressCtx {
  log::Progress progress;
  PetscInt wanted;
};

PetscErrorCode eps_progress(EPS, PetscInt, PetscInt nconv, PetscScalar*, PetscScalar*, PetscReal*, PetscInt, void* ctx) {
  PetscFunctionBeginUser;
  auto* p = static_cast<ProgressCtx*>(ctx);
  try {
    p->progress.update(std::min<long long>(nconv, p->wanted));
  } catch (...) {
  }
  PetscFunctionReturn(0);
}

struct RawSolve {
  std::vector<double> values;
  std::vector<VecH> vectors;
  int iterations = 0;
  int converged = 0;
};

/// Seed of the start-vector stream, reset before every solve (see restart_random_stream).
constexpr unsigned long kStartVectorSeed = 0x12345678; // SLEPc's own default seed of a new BV

/// Krylov–Schur starts from a random vector drawn from the BV's PetscRandom stream (no initial
/// space is set). That stream is seeded once when the BV is created and advances with every solve,
/// so an EPS kept alive across solves (ModeSolver) would start solve n from a vector that depends
/// on the n − 1 solves before it: a campaign sample's converged vectors, and so its Rayleigh-refined
/// eigenvalues, would depend on which samples its group happened to solve first (scheduling,
/// --resume). Re-seeding before each solve makes every solve start from the same state, whatever
/// ran before on this solver: a result depends only on the matrices (and the communicator layout).
void restart_random_stream(EPS eps) {
  BV bv = nullptr;
  FLEXUQ_PETSC(EPSGetBV(eps, &bv));
  PetscRandom rnd = nullptr;
  FLEXUQ_PETSC(BVGetRandomContext(bv, &rnd));
  FLEXUQ_PETSC(PetscRandomSetSeed(rnd, kStartVectorSeed));
  FLEXUQ_PETSC(PetscRandomSeed(rnd));
}

/// Pairs in ascending order of their eigenvalues (stable: equal values keep their order).
void sort_ascending(RawSolve& r) {
  std::vector<std::size_t> perm(r.values.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return r.values[a] < r.values[b]; });
  std::vector<double> values;
  std::vector<VecH> vectors;
  for (auto p : perm) {
    values.push_back(r.values[p]);
    vectors.push_back(std::move(r.vectors[p]));
  }
  r.values = std::move(values);
  r.vectors = std::move(vectors);
}

RawSolve collect(EpsH& eps, Mat K, MPI_Comm comm, int nev, bool is_interval, bool show_progress) {
  restart_random_stream(eps.get());
  ProgressCtx progress{log::Progress(comm, "eigensolve", is_interval ? 1 : nev), is_interval ? 1 : nev};
  FLEXUQ_PETSC(EPSMonitorCancel(eps.get()));
  if (!is_interval && show_progress) FLEXUQ_PETSC(EPSMonitorSet(eps.get(), eps_progress, &progress, nullptr));
  const PetscErrorCode solve_err = EPSSolve(eps.get());
  FLEXUQ_PETSC(EPSMonitorCancel(eps.get())); // the context lives on this stack frame
  FLEXUQ_PETSC(solve_err);
  RawSolve r;
  PetscInt nconv = 0, its = 0;
  FLEXUQ_PETSC(EPSGetConverged(eps.get(), &nconv));
  FLEXUQ_PETSC(EPSGetIterationNumber(eps.get(), &its));
  r.iterations = static_cast<int>(its);
  r.converged = static_cast<int>(nconv);
  for (PetscInt i = 0; i < nconv; ++i) {
    PetscScalar kr = 0, ki = 0;
    VecH v;
    FLEXUQ_PETSC(MatCreateVecs(K, v.out(), nullptr));
    FLEXUQ_PETSC(EPSGetEigenpair(eps.get(), i, &kr, &ki, v.get(), nullptr));
    r.values.push_back(PetscRealPart(kr));
    r.vectors.push_back(std::move(v));
  }
  // Ascending order (SLEPc returns by distance to the target, which is the same for σ below the
  // spectrum, but not with spectrum slicing's internal order guarantees).
  sort_ascending(r);
  return r;
}

/// SLEPc's shift-and-invert (`st_matmode` copy, its default) forms K − σM by MatAXPY with the ST's
/// MatStructure, UNKNOWN_NONZERO_PATTERN unless set: on MPIAIJ PETSc 3.18 then builds a new matrix
/// through MatSetValues. K and M of one pattern: SAME_NONZERO_PATTERN, the same sum (la/MatPattern.hpp).
void set_shift_structure(EPS eps, Mat K, Mat M) {
  ST st = nullptr;
  FLEXUQ_PETSC(EPSGetST(eps, &st));
  FLEXUQ_PETSC(STSetMatStructure(st, la::axpy_structure(K, M, UNKNOWN_NONZERO_PATTERN)));
}

/// @p factor: an existing factorization of K (σ = 0) for the ST, or nullptr for one of its own.
RawSolve run_eps(Mat K, Mat M, const ModeOptions& opt, double sigma, int nev,
                 std::optional<std::pair<double, double>> interval, EpsH& eps, la::SolverDefaults& defaults,
                 KSP factor) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  if (eps) {
    // Re-solve with the same matrices (values may have changed, the nonzero pattern has not):
    // PETSc then redoes only the numeric factorization, not MUMPS's analysis (ordering).
    FLEXUQ_PETSC(EPSSetOperators(eps.get(), K, M));
    if (!factor) set_shift_structure(eps.get(), K, M);
    if (!interval) {
      FLEXUQ_PETSC(EPSSetTarget(eps.get(), sigma));
      FLEXUQ_PETSC(EPSSetDimensions(eps.get(), nev, PETSC_DEFAULT, PETSC_DEFAULT));
    }
    const auto scope = defaults.apply();
    return collect(eps, K, comm, nev, interval.has_value(), opt.progress);
  }
  FLEXUQ_PETSC(EPSCreate(comm, eps.out()));
  FLEXUQ_PETSC(EPSSetOperators(eps.get(), K, M));
  FLEXUQ_PETSC(EPSSetProblemType(eps.get(), EPS_GHEP));
  FLEXUQ_PETSC(EPSSetOptionsPrefix(eps.get(), opt.prefix.c_str()));
  FLEXUQ_PETSC(EPSSetType(eps.get(), EPSKRYLOVSCHUR));
  ST st = nullptr;
  FLEXUQ_PETSC(EPSGetST(eps.get(), &st));
  FLEXUQ_PETSC(STSetType(st, STSINVERT));
  if (factor) {
    // σ = 0: SLEPc's shift-and-invert then uses K itself as its operator (no copy), so the KSP's
    // operator is unchanged and its factorization is reused as it is.
    FLEXUQ_PETSC(STSetKSP(st, factor));
  } else {
    KSP ksp = nullptr;
    FLEXUQ_PETSC(STGetKSP(st, &ksp));
    la::setup_mumps_cholesky(ksp, opt.prefix + "st_", defaults);
    // The ST sets the KSP's operator later: the ordering by K's size (la/MumpsOrdering.hpp).
    PetscInt rows = 0;
    FLEXUQ_PETSC(MatGetSize(K, &rows, nullptr));
    int size = 1;
    FLEXUQ_MPI(MPI_Comm_size(comm, &size));
    la::mumps_ordering_defaults(opt.prefix + "st_", size, defaults, rows);
    set_shift_structure(eps.get(), K, M);
  }
  FLEXUQ_PETSC(EPSSetTolerances(eps.get(), opt.tol, opt.max_it));
  // M is positive definite here, so eigenvector purification (one extra solve per vector) buys
  // nothing; -<prefix>eps_purify 1 turns it back on.
  FLEXUQ_PETSC(EPSSetPurify(eps.get(), PETSC_FALSE));
  if (interval) {
    // Spectrum slicing: inertia from the MUMPS factorizations at the interval ends.
    la::mumps_inertia_defaults(opt.prefix + "st_", defaults);
    FLEXUQ_PETSC(EPSSetInterval(eps.get(), interval->first, interval->second));
    FLEXUQ_PETSC(EPSSetWhichEigenpairs(eps.get(), EPS_ALL));
    FLEXUQ_PETSC(EPSKrylovSchurSetDetectZeros(eps.get(), PETSC_TRUE));
  } else {
    FLEXUQ_PETSC(EPSSetTarget(eps.get(), sigma));
    FLEXUQ_PETSC(EPSSetWhichEigenpairs(eps.get(), EPS_TARGET_MAGNITUDE));
    FLEXUQ_PETSC(EPSSetDimensions(eps.get(), nev, PETSC_DEFAULT, PETSC_DEFAULT));
  }
  // This solver's option defaults are in PETSc's database only while it sets up and solves.
  const auto scope = defaults.apply();
  FLEXUQ_PETSC(EPSSetFromOptions(eps.get()));
  return collect(eps, K, comm, nev, interval.has_value(), opt.progress);
}

/// Deflated re-solves that complete the multiplet cut by the count (issue #39).
constexpr int kMaxCompletionRounds = 16;

/// Completes the multiplet of the count-th elastic pair of @p raw (a count solve on @p eps), so
/// that the cut never falls inside a group. A single-vector Krylov method sees one direction of an
/// exactly degenerate eigenspace (the start vector's projection on it); the other members enter
/// through rounding only and may converge after pairs above the group, or not before the requested
/// pairs are in, guard or not: seed 000's rod (configs/seed000-rod-cb.yaml) came back from the
/// Craig–Bampton K_ii factor (σ = 0) with 3 of the 4 members of its group at 6.1255e9 rad²/s².
/// When that multiplet has two or more members, or no converged pair above it, the problem is
/// solved again for one pair, deflated by every converged vector (a missing member is then the pair
/// nearest the target, and the start vector has a generic component along it); a pair found at or
/// below the multiplet joins @p raw, and the check repeats until one finds none. Each check is ~16–25
/// solves with the factorization the count solve set up (never a new one); a simple eigenvalue with
/// converged pairs above it costs nothing. Asking for one pair per check measured cheaper than
/// asking for the multiplet's size (seed 000's rod: 147 against 223 solves in all; a 10 k-DOF box
/// clamped at one end: 188 against 192) and than a smaller subspace (ncv 6 or 8).
void complete_edge_multiplet(Mat K, const ModeOptions& opt, double zero_tol, PetscInt n_dof, RawSolve& raw, EpsH& eps,
                             la::SolverDefaults& defaults) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  for (int round = 0; round < kMaxCompletionRounds; ++round) {
    std::vector<double> elastic;
    for (double l : raw.values)
      if (l > zero_tol) elastic.push_back(l);
    if (static_cast<int>(elastic.size()) < opt.count) return; // too few converged: the caller reports it
    const std::vector<int> ids = la::cluster_ids(elastic, opt.cluster_tol);
    const int edge = ids[opt.count - 1];
    const int size = static_cast<int>(std::count(ids.begin(), ids.end(), edge));
    if (size < 2 && ids.back() != edge) return;
    const auto first = std::find(ids.begin(), ids.end(), edge) - ids.begin(); // a multiplet's ids are consecutive
    const double top = elastic[static_cast<std::size_t>(first + size - 1)];
    // The deflated problem has n_dof − (converged) dimensions; Krylov–Schur needs ncv ≥ nev + 1 = 2.
    const long long room = static_cast<long long>(n_dof) - static_cast<long long>(raw.values.size());
    if (room < 2) return; // (almost) the whole spectrum is converged: nothing can be missing
    const auto ncv = static_cast<PetscInt>(std::min<long long>(16, room)); // SLEPc's default for one pair
    std::vector<Vec> basis;
    for (const auto& v : raw.vectors) basis.push_back(v.get());
    // Operators and target are those of the solve just made: not set again, so the ST keeps its
    // factorization (setting them would refactor K − σM for a shift σ ≠ 0).
    FLEXUQ_PETSC(EPSSetDeflationSpace(eps.get(), static_cast<PetscInt>(basis.size()), basis.data()));
    FLEXUQ_PETSC(EPSSetDimensions(eps.get(), 1, ncv, PETSC_DEFAULT));
    const auto scope = defaults.apply();
    RawSolve more = collect(eps, K, comm, 1, /*is_interval=*/false, /*show_progress=*/false);
    // SLEPc 3.18 leaves the basis with ncv + 1 + (deflation vectors) columns once the constraints
    // are dropped, but its eigenvalue arrays with ncv + 1 entries; EPSAllocateSolution reallocates
    // those only when the size it needs differs from the basis's. The count solve after this one
    // needs exactly that many for the seed's rod (nev 17: ncv 34, 35 = 16 + 1 + 18), so it wrote
    // past the arrays (a crash in SlepcSortEigenvalues). A one-column basis makes every later set-up
    // reallocate both.
    BV bv = nullptr;
    FLEXUQ_PETSC(EPSGetBV(eps.get(), &bv));
    FLEXUQ_PETSC(BVResize(bv, 1, PETSC_FALSE));
    raw.iterations += more.iterations;
    int added = 0;
    for (std::size_t i = 0; i < more.values.size(); ++i) {
      const double l = more.values[i];
      // Negative values past the finite spectrum (massless DOFs) are spurious: never added.
      if (l < -zero_tol || (l > top && !la::same_cluster(top, l, opt.cluster_tol))) continue;
      raw.values.push_back(l);
      raw.vectors.push_back(std::move(more.vectors[i]));
      ++added;
    }
    if (added == 0) return;
    raw.converged += added;
    sort_ascending(raw);
  }
}

}  // namespace

ModeSet solve_modes(Mat K, Mat M, const ModeOptions& opt) {
  ModeSolver solver(opt);
  return solver.solve(K, M);
}

void validate(const ModeOptions& o, const std::string& prefix) {
  if (o.band_hz) {
    const double f0 = o.band_hz->first, f1 = o.band_hz->second;
    FLEXUQ_REQUIRE(f0 >= 0 && f1 > f0, prefix << ".band must be [f_min, f_max] with 0 <= f_min < f_max, got [" << f0
                                              << ", " << f1 << "]");
  } else {
    FLEXUQ_REQUIRE(o.count >= 1, prefix << ".count must be at least 1, got " << o.count);
  }
  FLEXUQ_REQUIRE(o.tol > 0, prefix << ".tol must be > 0, got " << o.tol);
  FLEXUQ_REQUIRE(o.max_it >= 1, prefix << ".max_it must be at least 1, got " << o.max_it);
  FLEXUQ_REQUIRE(o.cluster_tol >= 0 && o.cluster_tol < 1, prefix << ".cluster_tol must lie in [0, 1), got " << o.cluster_tol);
}

ModeSolver::ModeSolver(ModeOptions opt) : opt_(std::move(opt)) { validate(opt_); }

ModeSolver::ModeSolver(ModeOptions opt, Factorization factor)
    : opt_(std::move(opt)), factor_(factor.ksp), defaults_(std::move(factor.defaults)) {
  validate(opt_);
  FLEXUQ_ASSERT(factor_, "ModeSolver: no factorization given");
  FLEXUQ_ASSERT(!opt_.band_hz, "ModeSolver: an existing factorization serves count solves only, not a band");
  FLEXUQ_ASSERT(std::isnan(opt_.shift) || opt_.shift == 0, "ModeSolver: an existing factorization of K means shift 0");
  opt_.shift = 0;
}

ModeSolver::~ModeSolver() {
  if (!factor_ || !eps_) return;
  // EPSDestroy resets its ST, and STReset calls KSPReset on the ST's KSP, which would free the
  // owner's factorization: give the ST a KSP of its own first. Errors are ignored (a destructor).
  ST st = nullptr;
  KSP own = nullptr;
  if (EPSGetST(eps_.get(), &st) == 0 && KSPCreate(PetscObjectComm(reinterpret_cast<PetscObject>(eps_.get())), &own) == 0) {
    (void)STSetKSP(st, own);
    (void)KSPDestroy(&own);
  }
}

namespace {
/// Block solves of a recycled solve at most (RecycleSettings::max_steps): each costs ~0.3 single
/// solves per column, Krylov–Schur ~3 single solves per pair (docs/performance.md).
constexpr int kRecycleSteps = 8;
/// Pseudo-random guard columns beside Φ_ref in the start block.
constexpr int kSeededExtra = 4;
} // namespace

/// The count solve of `solver: block` (fe/BlockModes.hpp) with the existing factorization of K
/// (σ = 0) or one of K − σM of this solver's own, kept for later solves (numeric refactorization only).
BlockEigenResult ModeSolver::solve_block(Mat K, Mat M, double sigma, double zero_tol, int guard, const std::vector<VecH>* start) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  KSP ksp = factor_;
  if (!ksp) {
    Mat S = K;
    if (sigma != 0) {
      // K and M assembled from one preallocation share one pattern: K − σM then adds the value arrays
      // (SAME_NONZERO_PATTERN, the same sum entry by entry); PETSc 3.18's MPIAIJ MatAXPY otherwise
      // rebuilds or fills S through MatSetValues (0.36 s at 294 k on 2 ranks; la/MatPattern.hpp).
      if (!shifted_) {
        FLEXUQ_PETSC(MatDuplicate(K, MAT_COPY_VALUES, shifted_.out()));
        FLEXUQ_PETSC(MatAXPY(shifted_.get(), -sigma, M, la::axpy_structure(K, M, UNKNOWN_NONZERO_PATTERN)));
      } else if (la::same_nonzero_pattern(shifted_.get(), K) && la::same_nonzero_pattern(shifted_.get(), M)) {
        FLEXUQ_PETSC(MatCopy(K, shifted_.get(), SAME_NONZERO_PATTERN));
        FLEXUQ_PETSC(MatAXPY(shifted_.get(), -sigma, M, SAME_NONZERO_PATTERN));
      } else {
        // K's and M's patterns are within S's (it was made from them).
        FLEXUQ_PETSC(MatZeroEntries(shifted_.get()));
        FLEXUQ_PETSC(MatAXPY(shifted_.get(), 1.0, K, SUBSET_NONZERO_PATTERN));
        FLEXUQ_PETSC(MatAXPY(shifted_.get(), -sigma, M, SUBSET_NONZERO_PATTERN));
      }
      S = shifted_.get();
    }
    if (!block_ksp_) {
      FLEXUQ_PETSC(KSPCreate(comm, block_ksp_.out()));
      FLEXUQ_PETSC(KSPSetOptionsPrefix(block_ksp_.get(), (opt_.prefix + "st_").c_str()));
      la::setup_mumps_cholesky(block_ksp_.get(), opt_.prefix + "st_", defaults_);
    }
    const auto scope = defaults_.apply();
    FLEXUQ_PETSC(KSPSetOperators(block_ksp_.get(), S, S));
    FLEXUQ_PETSC(KSPSetFromOptions(block_ksp_.get()));
    FLEXUQ_PETSC(KSPSetUp(block_ksp_.get()));
    ksp = block_ksp_.get();
    block_sigma_ = sigma;
  }
  BlockEigenSettings bs;
  bs.count = opt_.count;
  bs.extra = opt_.constrained ? 1 : 6;
  bs.guard = guard;
  bs.block_size = opt_.block_size;
  bs.tol = opt_.tol;
  bs.cluster_tol = opt_.cluster_tol;
  bs.zero_tol = zero_tol;
  bs.shift = factor_ ? 0.0 : sigma;
  bs.max_steps = opt_.max_it;
  if (start) {
    for (const auto& v : *start) bs.start.push_back(v.get());
    // ModeOptions::recycle_block_steps (10): on the 25 k- and 127 k-DOF cranks the points took 7-9
    // block solves of |Φ_ref| + 4 columns (docs/performance.md); each solves |Φ_ref| + 4 columns.
    bs.max_steps = std::max(1, opt_.recycle_block_steps);
    bs.start_extra = kSeededExtra;
    // No thick restart within the attempt (it would drop the Krylov space built from Φ_ref).
    bs.max_basis = (static_cast<int>(start->size()) + kSeededExtra) * (bs.max_steps + 1);
  }
  BlockEigenResult res;
  {
    const auto scope = defaults_.apply();
    res = block_eigenpairs(K, M, ksp, bs);
  }
  if (start) return res; // reported by try_recycled
  block_.steps = res.steps;
  block_.columns = res.columns;
  block_.restarts = res.restarts;
  block_.max_subspace = res.max_subspace;
  if (!res.ok()) {
    block_.fallback = res.reason;
    log::info(comm, opt_.key + ": the block eigensolver did not converge (" + res.reason + "); Krylov-Schur solve");
    return res;
  }
  {
    std::ostringstream os;
    os << opt_.key << ": block eigensolve: " << res.steps << " block solves, " << res.columns << " right-hand sides, "
       << res.restarts << " restarts, widest basis " << res.max_subspace;
    log::info(comm, os.str());
  }
  return res;
}

ModeSet ModeSolver::solve(Mat K, Mat M, Mat K_scale, Mat M_scale) {
  const ModeOptions& opt = opt_;
  ModeSet out;
  Mat Ks = K_scale ? K_scale : K, Ms = M_scale ? M_scale : M;
  out.spectrum_scale = std::isnan(opt.scale) ? spectrum_scale(Ks, Ms) : opt.scale;
  const double s = out.spectrum_scale;
  const double sigma = std::isnan(opt.shift) ? -opt.shift_factor * s : opt.shift;
  out.shift = sigma;
  const double zero_tol = rigid_tolerance(Ks, opt) * s;

  // The recycled solve (keep_reference): true when its pairs passed and are in raw.
  auto try_recycled = [&](RawSolve& raw_out) {
    recycle_ = RecycleReport{};
    if (!factor_ || !opt_.recycle || reference_.empty() || keep_reference_) return false;
    recycle_.tried = true;
    if (opt_.recycle_block) {
      // The block Krylov method started from Φ_ref (fe/BlockModes.hpp): the first Rayleigh–Ritz has
      // the reference's pairs to O(δ²), later blocks converge as block Krylov does.
      BlockEigenResult res = solve_block(K, M, sigma, zero_tol, std::max(4, opt_.count / 10), &reference_);
      recycle_.steps = res.steps;
      recycle_.columns = res.columns;
      recycle_.subspace = res.max_subspace;
      recycle_.max_error = res.max_error;
      recycle_.reason = res.reason;
      MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
      if (!res.ok()) {
        log::info(comm, opt_.key + ": the block solve from the reference modes did not converge (" + res.reason + "); full solve");
        return false;
      }
      recycle_.used = true;
      std::ostringstream os;
      os << opt_.key << ": block solve from the reference modes (" << res.steps << " block solves, " << res.columns
         << " right-hand sides, largest error " << res.max_error << ")";
      log::info(comm, os.str());
      raw_out.values = std::move(res.values);
      raw_out.vectors = std::move(res.vectors);
      raw_out.converged = static_cast<int>(raw_out.values.size());
      raw_out.iterations = res.steps;
      return true;
    }
    RecycleSettings rs;
    rs.count = opt_.count;
    rs.tol = opt_.tol;
    rs.cluster_tol = opt_.cluster_tol;
    rs.max_steps = kRecycleSteps;
    RecycledPairs p;
    {
      const auto scope = defaults_.apply();
      p = recycled_eigenpairs(K, M, factor_, reference_, rs);
    }
    recycle_.steps = p.steps;
    recycle_.subspace = p.subspace;
    recycle_.max_residual = p.max_residual;
    recycle_.max_error = p.max_error;
    recycle_.reason = p.reason;
    if (!p.ok()) {
      log::info(PetscObjectComm(reinterpret_cast<PetscObject>(K)),
                opt_.key + ": the recycled subspace of the reference modes did not pass (" + p.reason +
                    "); full Krylov-Schur solve");
      return false;
    }
    recycle_.used = true;
    {
      std::ostringstream os;
      os << opt_.key << ": recycled the reference modes (" << p.steps << " block solves, " << p.subspace
         << " directions, largest error " << p.max_error << ")";
      log::info(PetscObjectComm(reinterpret_cast<PetscObject>(K)), os.str());
    }
    raw_out.values = std::move(p.values);
    raw_out.vectors = std::move(p.vectors);
    raw_out.converged = static_cast<int>(raw_out.values.size());
    raw_out.iterations = 0;
    return true;
  };
  recycle_ = RecycleReport{};
  RawSolve raw;
  if (opt.band_hz) {
    const double f0 = opt.band_hz->first, f1 = opt.band_hz->second; // checked by validate()
    double lo = std::pow(2 * M_PI * f0, 2), hi = std::pow(2 * M_PI * f1, 2);
    if (f0 == 0) lo = -std::max(std::abs(sigma), 2 * zero_tol); // catch rigid modes (λ ≈ 0, either sign)
    raw = run_eps(K, M, opt, sigma, 0, std::make_pair(lo, hi), eps_, defaults_, nullptr);
  } else {
    // Ask for the wanted elastic modes plus room for up to 6 zero-energy modes; if more zero modes
    // show up (disconnected parts, mechanisms), ask again with more.
    // Also a guard of max(4, count/10) pairs beyond them: Krylov–Schur can converge the last members
    // of a degenerate multiplet after an eigenvalue above it, so a multiplet at the edge of the
    // converged set may come back incomplete (seed 000's half bar, 4-fold groups, 2 ranks on an AMD
    // EPYC: 3 of the 4 modes at 9.8e10 and then 1.4e11). With the guard the wanted pairs are interior;
    // the pairs past the count are dropped below unless they complete the last multiplet. The guard
    // makes a miss rarer but does not rule it out (seed 000's rod: the member converged after the 4
    // guard pairs): complete_edge_multiplet then asks again, deflated, when a multiplet is at the cut.
    // A guard that reaches past the finite spectrum (massless DOFs: M singular, the other eigenvalues
    // infinite) brings back spurious pairs, negative ones among them: then the solve runs again
    // without it (as before the guard existed), and a negative eigenvalue left is an error below.
    PetscInt n_dof = 0; // nev = count + extra in 64-bit, at most the DOFs (issue #11)
    FLEXUQ_PETSC(MatGetSize(K, &n_dof, nullptr));
    FLEXUQ_REQUIRE(opt.count <= n_dof, opt.key << ".count = " << opt.count << " exceeds the " << n_dof << " free DOFs of the model"
                                               << (opt.constraint_description.empty() ? "" : " with " + opt.constraint_description));
    auto solve_count = [&](int guard) {
      RawSolve r;
      int extra = (opt.constrained ? 1 : 6) + guard;
      for (int attempt = 0; attempt < 3; ++attempt) {
        const int nev = static_cast<int>(std::min<long long>(static_cast<long long>(opt.count) + extra, n_dof));
        r = run_eps(K, M, opt, sigma, nev, std::nullopt, eps_, defaults_, factor_);
        const int nzero = static_cast<int>(std::count_if(r.values.begin(), r.values.end(),
                                                         [&](double l) { return std::abs(l) <= zero_tol; }));
        const int nel = static_cast<int>(r.values.size()) - nzero;
        if (nel >= opt.count || r.converged < nev) break;
        extra = nzero + 6 + guard;
      }
      return r;
    };
    const int guard = std::max(4, opt.count / 10);
    block_ = BlockSolveReport{};
    if (!try_recycled(raw)) {
      if (opt.solver == ModeOptions::Method::block) {
        BlockEigenResult res = solve_block(K, M, sigma, zero_tol, guard);
        raw.values = std::move(res.values);
        raw.vectors = std::move(res.vectors);
        raw.converged = static_cast<int>(raw.values.size());
        raw.iterations = res.steps;
      }
      if (opt.solver != ModeOptions::Method::block || !block_.fallback.empty()) {
        raw = solve_count(guard);
        if (std::any_of(raw.values.begin(), raw.values.end(), [&](double l) { return l < -zero_tol; })) raw = solve_count(0);
        complete_edge_multiplet(K, opt, zero_tol, n_dof, raw, eps_, defaults_);
      }
      if (keep_reference_) {
        // Φ_ref: every converged elastic pair, the guard pairs beyond the count included.
        reference_.clear();
        for (std::size_t i = 0; i < raw.values.size(); ++i) {
          if (raw.values[i] <= zero_tol) continue;
          VecH v;
          FLEXUQ_PETSC(VecDuplicate(raw.vectors[i].get(), v.out()));
          FLEXUQ_PETSC(VecCopy(raw.vectors[i].get(), v.get()));
          reference_.push_back(std::move(v));
        }
        keep_reference_ = false;
      }
    }
  }
  out.iterations = raw.iterations;
  out.n_converged = raw.converged;

  std::vector<double> zero_values;
  for (std::size_t i = 0; i < raw.values.size(); ++i) {
    const double l = raw.values[i];
    if (std::abs(l) <= zero_tol) {
      zero_values.push_back(l);
      normalize_sign(raw.vectors[i].get());
      out.rigid_eigenvalues.push_back(l);
      out.rigid_vectors.push_back(std::move(raw.vectors[i]));
    } else {
      FLEXUQ_REQUIRE(l > 0, "negative eigenvalue " << l
                                                   << " rad^2/s^2: K is not positive semi-definite (check the "
                                                      "material data and the element orientation)");
      // Past the requested count, keep completing the last multiplet: a degenerate eigenspace is
      // returned whole or not at all (its basis is arbitrary, only the subspace is meaningful).
      if (!opt.band_hz && static_cast<int>(out.eigenvalues.size()) >= opt.count) {
        const double last = out.eigenvalues.back();
        if (!la::same_cluster(last, l, opt.cluster_tol)) continue;
      }
      normalize_sign(raw.vectors[i].get());
      out.eigenvalues.push_back(l);
      out.vectors.push_back(std::move(raw.vectors[i]));
    }
  }
  if (opt.constrained && !zero_values.empty()) {
    std::ostringstream os;
    os << "mechanism: " << zero_values.size() << " zero-energy mode(s) remain with " << opt.constraint_description
       << " (|lambda| <= " << zero_tol << " rad^2/s^2); the boundary conditions leave the component free to move. "
       << "Fix more nodes (or add sets to " << opt.fixed_key << "), or omit " << opt.fixed_key << " for a free-free analysis.";
    throw InputError(os.str());
  }
  if (!opt.band_hz && static_cast<int>(out.eigenvalues.size()) < opt.count) {
    std::ostringstream os;
    os << "the eigensolver converged " << out.eigenvalues.size() << " of the " << opt.count
       << " elastic modes requested (" << raw.converged << " pairs converged in " << raw.iterations
       << " iterations); raise -" << opt.prefix << "eps_max_it or -" << opt.prefix << "eps_ncv, or loosen " << opt.key << ".tol";
    throw Error(os.str());
  }
  // Rayleigh quotients with the original K and M: error quadratic in the eigenvector's and free of
  // the rounding of the (K − σM) solves, which grows with the condition of the shifted matrix. This
  // is what makes eigenvalues reproducible across rank counts to ~1e-10.
  for (std::size_t i = 0; i < out.eigenvalues.size(); ++i) {
    const auto [lambda, residual] = rayleigh_refine(K, M, out.vectors[i].get());
    out.eigenvalues[i] = lambda;
    out.residuals.push_back(residual);
  }
  // Refinement can swap the order inside a multiplet by round-off: keep the output ascending.
  {
    std::vector<std::size_t> perm(out.eigenvalues.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](auto a, auto b) { return out.eigenvalues[a] < out.eigenvalues[b]; });
    std::vector<double> ev, res;
    std::vector<VecH> vec;
    for (auto p : perm) {
      ev.push_back(out.eigenvalues[p]);
      res.push_back(out.residuals[p]);
      vec.push_back(std::move(out.vectors[p]));
    }
    out.eigenvalues = std::move(ev);
    out.residuals = std::move(res);
    out.vectors = std::move(vec);
  }
  out.multiplicity = la::cluster_multiplicity(out.eigenvalues, opt.cluster_tol);
  return out;
}

} // namespace flexuq::fe
