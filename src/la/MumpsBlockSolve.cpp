// SPDX-License-Identifier: MIT
#include "flexuq/la/MumpsBlockSolve.hpp"

#include "flexuq/core/Error.hpp"

#include <dmumps_c.h>
#include <petsc/private/kspimpl.h> // KSP_MatSolve (the event KSPMatSolve logs under)
#include <petsc/private/matimpl.h> // Mat::data: PETSc's Mat_MUMPS, whose first member is the DMUMPS_STRUC_C
#include <petscsf.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::la {

namespace {

/// The process-wide choice: unset until the first call or linear_solver.block_solve
/// (set_mumps_block_solve); unset, the environment's FLEXUQ_MUMPS_BLOCK_SOLVE (an alias) or mumps.
std::optional<MumpsBlockSolve> g_choice;

MumpsBlockSolve choice_from_environment() {
  const char* e = std::getenv("FLEXUQ_MUMPS_BLOCK_SOLVE");
  if (!e || !*e) return MumpsBlockSolve::mumps;
  const auto c = parse_enum(kMumpsBlockSolveNames, e);
  if (!c)
    throw InputError(std::string("FLEXUQ_MUMPS_BLOCK_SOLVE (the environment's alias of linear_solver.block_solve): "
                                 "unknown value '") + e + "' (" + enum_choices(kMumpsBlockSolveNames) + ")");
  return *c;
}

using DmumpsC = void (*)(DMUMPS_STRUC_C*);

/// The dmumps_c PETSc calls: looked up in the process's global scope, where the dynamic linker bound
/// PETSc's reference (the PT-Scotch build where the executable links it first, see MumpsOrdering.hpp),
/// so that the instance PETSc created is driven by the same library.
DmumpsC dmumps_entry() {
  static const auto f = reinterpret_cast<DmumpsC>(dlsym(RTLD_DEFAULT, "dmumps_c"));
  return f;
}

/// What the direct path keeps with a factor (composed on it, so it goes with the factor).
struct BlockSolveCache {
  std::vector<MUMPS_INT> irhs;   ///< this rank's rows of the right-hand sides, 1-based global
  std::vector<MUMPS_INT> isol;   ///< MUMPS's rows of this rank's part of the solution (ISOL_loc)
  std::vector<MUMPS_INT> mapped; ///< the ISOL_loc the SF was built for
  std::vector<PetscScalar> sol;  ///< SOL_loc, INFO(23) × columns
  PetscSF sf = nullptr;          ///< MUMPS's solution rows (leaves) → PETSc's rows (roots)
  ~BlockSolveCache() {
    if (sf) (void)PetscSFDestroy(&sf);
  }
};

PetscErrorCode destroy_cache(void* p) {
  delete static_cast<BlockSolveCache*>(p);
  return 0;
}

constexpr const char* kCacheName = "flexuq_mumps_block_solve";

BlockSolveCache& cache_of(Mat F) {
  PetscObject obj = nullptr;
  FLEXUQ_PETSC(PetscObjectQuery(reinterpret_cast<PetscObject>(F), kCacheName, &obj));
  void* p = nullptr;
  if (obj) {
    FLEXUQ_PETSC(PetscContainerGetPointer(reinterpret_cast<PetscContainer>(obj), &p));
    return *static_cast<BlockSolveCache*>(p);
  }
  auto* c = new BlockSolveCache;
  PetscContainer container = nullptr;
  FLEXUQ_PETSC(PetscContainerCreate(PetscObjectComm(reinterpret_cast<PetscObject>(F)), &container));
  FLEXUQ_PETSC(PetscContainerSetPointer(container, c));
  FLEXUQ_PETSC(PetscContainerSetUserDestroy(container, destroy_cache));
  FLEXUQ_PETSC(PetscObjectCompose(reinterpret_cast<PetscObject>(F), kCacheName, reinterpret_cast<PetscObject>(container)));
  FLEXUQ_PETSC(PetscContainerDestroy(&container)); // F holds it now
  return *c;
}

/// PETSc's MUMPS instance behind the factor @p F, or null where F is not a MUMPS factor whose first
/// member reads as the DMUMPS_STRUC_C that MatMumpsGet* report (checked on this rank only).
DMUMPS_STRUC_C* mumps_instance(Mat F) {
  MatSolverType type = nullptr;
  if (MatFactorGetSolverType(F, &type) != 0 || !type || std::strcmp(type, MATSOLVERMUMPS) != 0) return nullptr;
  if (!F->data || !dmumps_entry()) return nullptr;
  auto* id = static_cast<DMUMPS_STRUC_C*>(F->data);
  PetscInt N = 0;
  FLEXUQ_PETSC(MatGetSize(F, &N, nullptr));
  if (id->n != N || id->par != 1 || id->sym < 0 || id->sym > 2) return nullptr;
  if (id->job != 2 && id->job != 3) return nullptr; // factorised, maybe solved since
  for (const PetscInt k : {1, 3, 4, 7, 9, 28, 29}) {
    PetscInt v = 0;
    if (MatMumpsGetInfog(F, k, &v) != 0 || v != id->infog[k - 1]) return nullptr;
  }
  for (const PetscInt k : {7, 14, 18, 28}) {
    PetscInt v = 0;
    if (MatMumpsGetIcntl(F, k, &v) != 0 || v != id->icntl[k - 1]) return nullptr;
  }
  PetscReal r = 0;
  if (MatMumpsGetRinfog(F, 1, &r) != 0 || r != id->rinfog[0]) return nullptr;
  if (id->infog[0] < 0 || id->info[22] < 0) return nullptr;
  // MUMPS's communicator: PETSc's duplicate of F's, so congruent with it.
  const MPI_Comm mc = MPI_Comm_f2c(id->comm_fortran);
  int cmp = MPI_UNEQUAL;
  if (mc == MPI_COMM_NULL) return nullptr;
  FLEXUQ_MPI(MPI_Comm_compare(mc, PetscObjectComm(reinterpret_cast<PetscObject>(F)), &cmp));
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT) return nullptr;
  return id;
}

/// The fields of @p id a solve sets, restored on scope exit (PETSc's own MatSolve relies on them).
class SavedSolveFields {
public:
  explicit SavedSolveFields(DMUMPS_STRUC_C* id) : id_(id), saved_(*id) {}
  ~SavedSolveFields() {
    id_->job = saved_.job;
    id_->icntl[19] = saved_.icntl[19];
    id_->icntl[20] = saved_.icntl[20];
    id_->nrhs = saved_.nrhs;
    id_->lrhs = saved_.lrhs;
    id_->rhs = saved_.rhs;
    id_->nloc_rhs = saved_.nloc_rhs;
    id_->lrhs_loc = saved_.lrhs_loc;
    id_->irhs_loc = saved_.irhs_loc;
    id_->rhs_loc = saved_.rhs_loc;
    id_->lsol_loc = saved_.lsol_loc;
    id_->sol_loc = saved_.sol_loc;
    id_->isol_loc = saved_.isol_loc;
  }
  SavedSolveFields(const SavedSolveFields&) = delete;
  SavedSolveFields& operator=(const SavedSolveFields&) = delete;

private:
  DMUMPS_STRUC_C* id_;
  DMUMPS_STRUC_C saved_;
};

struct ReadArray {
  Mat m;
  const PetscScalar* a = nullptr;
  explicit ReadArray(Mat mat) : m(mat) { FLEXUQ_PETSC(MatDenseGetArrayRead(m, &a)); }
  ~ReadArray() { (void)MatDenseRestoreArrayRead(m, &a); }
};
struct WriteArray {
  Mat m;
  PetscScalar* a = nullptr;
  explicit WriteArray(Mat mat) : m(mat) { FLEXUQ_PETSC(MatDenseGetArrayWrite(m, &a)); }
  ~WriteArray() { (void)MatDenseRestoreArrayWrite(m, &a); }
};

void direct_solve(DMUMPS_STRUC_C* id, Mat F, Mat B, Mat X) {
  BlockSolveCache& c = cache_of(F);
  PetscInt nloc = 0, rstart = 0, rend = 0, ncols = 0, ldb = 0, ldx = 0;
  FLEXUQ_PETSC(MatGetLocalSize(B, &nloc, nullptr));
  FLEXUQ_PETSC(MatGetOwnershipRange(B, &rstart, &rend));
  FLEXUQ_PETSC(MatGetSize(B, nullptr, &ncols));
  FLEXUQ_PETSC(MatDenseGetLDA(B, &ldb));
  FLEXUQ_PETSC(MatDenseGetLDA(X, &ldx));
  if (static_cast<PetscInt>(c.irhs.size()) != nloc || (nloc > 0 && c.irhs[0] != rstart + 1)) {
    c.irhs.resize(static_cast<std::size_t>(nloc));
    for (PetscInt i = 0; i < nloc; ++i) c.irhs[static_cast<std::size_t>(i)] = static_cast<MUMPS_INT>(rstart + i + 1);
  }
  const MUMPS_INT lsol = id->info[22]; // INFO(23): this rank's rows of the solution
  c.isol.resize(static_cast<std::size_t>(lsol));
  c.sol.resize(static_cast<std::size_t>(lsol) * static_cast<std::size_t>(ncols));
  {
    const ReadArray b(B);
    const SavedSolveFields restore(id);
    id->job = 3;
    id->icntl[19] = 10; // ICNTL(20): dense right-hand sides, distributed
    id->icntl[20] = 1;  // ICNTL(21): solution distributed
    id->nrhs = static_cast<MUMPS_INT>(ncols);
    id->nloc_rhs = static_cast<MUMPS_INT>(nloc);
    id->lrhs_loc = static_cast<MUMPS_INT>(std::max<PetscInt>(ldb, 1));
    id->irhs_loc = c.irhs.data();
    id->rhs_loc = const_cast<PetscScalar*>(b.a); // MUMPS reads RHS_loc only
    id->lsol_loc = lsol;
    id->sol_loc = c.sol.data();
    id->isol_loc = c.isol.data();
    FLEXUQ_PETSC(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
    dmumps_entry()(id);
    FLEXUQ_PETSC(PetscFPTrapPop());
    if (id->infog[0] < 0)
      throw Error(FLEXUQ_MSG("MUMPS solve with " << ncols << " right-hand sides failed: INFOG(1) = " << id->infog[0]
                                                 << ", INFOG(2) = " << id->infog[1]));
  }
  // MUMPS's solution rows → PETSc's rows: rebuilt only when ISOL_loc differs from the one mapped
  // (a new factorisation); every rank decides the same.
  int changed = c.sf == nullptr || c.mapped != c.isol ? 1 : 0, any = 0;
  FLEXUQ_MPI(MPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_LOR, PetscObjectComm(reinterpret_cast<PetscObject>(F))));
  if (any) {
    if (c.sf) FLEXUQ_PETSC(PetscSFDestroy(&c.sf));
    PetscLayout rmap = nullptr;
    FLEXUQ_PETSC(MatGetLayouts(X, &rmap, nullptr));
    std::vector<PetscInt> rows(c.isol.begin(), c.isol.end());
    for (auto& r : rows) --r;
    FLEXUQ_PETSC(PetscSFCreate(PetscObjectComm(reinterpret_cast<PetscObject>(F)), &c.sf));
    FLEXUQ_PETSC(PetscSFSetGraphLayout(c.sf, rmap, static_cast<PetscInt>(rows.size()), nullptr, PETSC_COPY_VALUES, rows.data()));
    FLEXUQ_PETSC(PetscSFSetUp(c.sf));
    c.mapped = c.isol;
  }
  // One PetscSFReduce pair per column on the kept map. Measured cheaper on 2 ranks than one exchange for all
  // columns (294 k rows, 8 columns, best of 30 at load 7: 2.7–3.1 ms against 3.4–3.8 ms for a unit of 8
  // scalars before the two transposes it needs, 18–23 ms with them, 3.7 ms for an 8-column SF whose set-up
  // costs 44–150 ms per column count, 3.9 ms for 8 Begins then 8 Ends; docs/performance.md, "1 → 2 ranks
  // after the shift's MatAXPY"): the exchange is bound by packing and bandwidth, not by messages.
  const WriteArray x(X);
  for (PetscInt j = 0; j < ncols; ++j) {
    const PetscScalar* leaf = c.sol.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(lsol);
    PetscScalar* root = x.a + static_cast<std::size_t>(j) * static_cast<std::size_t>(ldx);
    FLEXUQ_PETSC(PetscSFReduceBegin(c.sf, MPIU_SCALAR, leaf, root, MPI_REPLACE));
    FLEXUQ_PETSC(PetscSFReduceEnd(c.sf, MPIU_SCALAR, leaf, root, MPI_REPLACE));
  }
}

} // namespace

void set_mumps_block_solve(MumpsBlockSolve choice) { g_choice = choice; }

MumpsBlockSolve mumps_block_solve() {
  if (!g_choice) g_choice = choice_from_environment();
  return *g_choice;
}

bool ksp_mat_solve(KSP ksp, Mat B, Mat X) {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(ksp));
  int size = 1;
  FLEXUQ_MPI(MPI_Comm_size(comm, &size));
  DMUMPS_STRUC_C* id = nullptr;
  if (size > 1 && mumps_block_solve() == MumpsBlockSolve::mumps) {
    FLEXUQ_PETSC(KSPSetUp(ksp));
    PetscBool preonly = PETSC_FALSE, dense_b = PETSC_FALSE, dense_x = PETSC_FALSE;
    FLEXUQ_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(ksp), KSPPREONLY, &preonly));
    FLEXUQ_PETSC(PetscObjectTypeCompareAny(reinterpret_cast<PetscObject>(B), &dense_b, MATMPIDENSE, MATSEQDENSE, ""));
    FLEXUQ_PETSC(PetscObjectTypeCompareAny(reinterpret_cast<PetscObject>(X), &dense_x, MATMPIDENSE, MATSEQDENSE, ""));
    PC pc = nullptr;
    FLEXUQ_PETSC(KSPGetPC(ksp, &pc));
    PetscBool factor = PETSC_FALSE;
    FLEXUQ_PETSC(PetscObjectTypeCompareAny(reinterpret_cast<PetscObject>(pc), &factor, PCCHOLESKY, PCLU, ""));
    Mat F = nullptr;
    if (preonly && dense_b && dense_x && factor && PCFactorGetMatrix(pc, &F) == 0 && F) id = mumps_instance(F);
    int ok = id ? 1 : 0, all = 0;
    FLEXUQ_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm));
    if (all) {
      FLEXUQ_PETSC(PetscLogEventBegin(KSP_MatSolve, ksp, B, X, nullptr));
      direct_solve(id, F, B, X);
      FLEXUQ_PETSC(PetscLogEventEnd(KSP_MatSolve, ksp, B, X, nullptr));
      return true;
    }
  }
  FLEXUQ_PETSC(KSPMatSolve(ksp, B, X));
  return false;
}

} // namespace flexuq::la
