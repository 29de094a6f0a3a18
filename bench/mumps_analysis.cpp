// SPDX-License-Identifier: MIT
// MUMPS's analysis of a clamped solid's stiffness matrix, per process (issue #38: what 16 ranks would do):
//   mpirun -n P bench_mumps_analysis MESH CLAMP_SET ORDERING [factor] [compress=off] [PETSc options]
// ORDERING is a linear_solver.ordering name (auto, pord, scotch, ptscotch), mapped to MUMPS's ICNTLs by
// la::mumps_ordering_defaults exactly as flexuq's solvers map it. The mesh is read and K assembled as
// `flexuq modes` does (steel, E 2.1e11, nu 0.3, rho 7850; the pattern is that of K − σM). Then only
// MatCholeskyFactorSymbolic (MUMPS's analysis, JOB = 1) runs, unless factor: then the numeric
// factorisation, one solve and one solve with 8 right-hand sides are timed too. K has the block size 3
// (fe::Component: every node all or none of its DOFs free), so MUMPS orders the node graph (ICNTL(15) −3,
// linear_solver.compress auto) except with compress=off (ICNTL(15) 0) and PT-Scotch (not compressed).
// Prints one line per process (RINFO(1) estimated operations of its elimination, INFO(3) its factor
// entries, INFO(15)/INFO(17) its in-core / out-of-core MUMPS memory in MB, its peak RSS) and one
// "summary" line with the global figures (RINFOG(1), INFOG(3)/(5)/(16)/(17)/(26)/(27)) and the largest
// per-process operations over their mean.
#include "flexuq/core/Session.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/MeshReader.hpp"
#include "flexuq/la/MumpsCompression.hpp"
#include "flexuq/la/MumpsOrdering.hpp"
#include "flexuq/la/Solvers.hpp"

#include <petscmat.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

#define CHK(call)                                                                                                      \
  do {                                                                                                                 \
    if ((call) != 0) throw std::runtime_error(#call " failed");                                                        \
  } while (0)

// This process's CPU seconds (user + system): on a shared machine a 1-process phase's CPU time is close to
// its wall time on an idle one, where its wall time is not.
double cpu_s() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec + 1e-6 * (r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

double peak_rss_mb() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return r.ru_maxrss / 1024.0;
}

// MUMPS reports sizes above 2^31 as negative millions (INFO(3), INFOG(3), INFOG(20)).
double mumps_count(PetscInt v) { return v < 0 ? -1e6 * static_cast<double>(v) : static_cast<double>(v); }

int run(int argc, char** argv) {
  MPI_Comm comm = PETSC_COMM_WORLD;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (argc < 4) {
    if (rank == 0)
      std::fprintf(stderr, "usage: %s MESH CLAMP_SET ORDERING [factor] [compress=off] [PETSc options]\n", argv[0]);
    return 2;
  }
  bool factor = false;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "factor") == 0) factor = true;
    if (std::strcmp(argv[i], "compress=off") == 0) flexuq::la::set_mumps_compression(flexuq::la::MumpsCompression::off);
  }
  const auto ordering = flexuq::parse_enum(flexuq::la::kMumpsOrderingNames, argv[3]);
  if (!ordering) throw std::runtime_error(std::string("unknown ordering '") + argv[3] + "' (auto, pord, scotch or ptscotch)");
  flexuq::la::set_mumps_ordering(*ordering);

  double t0 = MPI_Wtime();
  flexuq::fe::ComponentOptions opts;
  opts.fixed_sets = {argv[2]};
  flexuq::io::Material steel;
  steel.E = 2.1e11;
  steel.nu = 0.3;
  steel.rho = 7850;
  opts.default_material = steel;
  opts.keep_affine = false;
  flexuq::fe::Component comp(comm, flexuq::io::read_mesh(argv[1]), opts);
  Mat K = comp.K();
  PetscInt rows = 0;
  CHK(MatGetSize(K, &rows, nullptr));
  CHK(MatSetOption(K, MAT_SYMMETRIC, PETSC_TRUE));
  const double t_assemble = MPI_Wtime() - t0;

  flexuq::la::SolverDefaults defaults;
  flexuq::la::mumps_ordering_defaults("", size, defaults, rows);
  flexuq::la::mumps_compression_defaults("", defaults);
  if (size > 1) defaults.set("mat_mumps_icntl_20", "10");
  flexuq::la::SolverDefaults::Scope scope(defaults);

  Mat F = nullptr;
  CHK(MatGetFactor(K, MATSOLVERMUMPS, MAT_FACTOR_CHOLESKY, &F));
  MatFactorInfo info;
  CHK(MatFactorInfoInitialize(&info));
  MPI_Barrier(comm);
  t0 = MPI_Wtime();
  const double c_analysis0 = cpu_s();
  CHK(MatCholeskyFactorSymbolic(F, K, nullptr, &info));
  const double t_analysis = MPI_Wtime() - t0;
  const double c_analysis = cpu_s() - c_analysis0; // rank 0's: the sequential ordering's host
  PetscInt icntl15 = 0;
  CHK(MatMumpsGetIcntl(F, 15, &icntl15));
  const double rss_analysis = peak_rss_mb();

  PetscInt i3 = 0, i15 = 0, i17 = 0;
  PetscReal r1 = 0;
  CHK(MatMumpsGetInfo(F, 3, &i3));
  CHK(MatMumpsGetInfo(F, 15, &i15));
  CHK(MatMumpsGetInfo(F, 17, &i17));
  CHK(MatMumpsGetRinfo(F, 1, &r1));
  double mine[5] = {r1, mumps_count(i3), static_cast<double>(i15), static_cast<double>(i17), rss_analysis};
  std::vector<double> all(5 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, comm);

  PetscInt g[8] = {};
  const int gi[8] = {3, 5, 7, 16, 17, 20, 26, 27};
  for (int k = 0; k < 8; ++k) CHK(MatMumpsGetInfog(F, gi[k], &g[k]));
  PetscReal rg1 = 0;
  CHK(MatMumpsGetRinfog(F, 1, &rg1));

  double t_factor = -1, t_solve = -1, t_solve8 = -1, c_factor = -1, c_solve = -1, c_solve8 = -1;
  if (factor) {
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    double c0 = cpu_s();
    CHK(MatCholeskyFactorNumeric(F, K, &info));
    t_factor = MPI_Wtime() - t0;
    c_factor = cpu_s() - c0;
    Vec b = nullptr, x = nullptr;
    CHK(MatCreateVecs(K, &x, &b));
    CHK(VecSet(b, 1.0));
    for (int rep = 0; rep < 2; ++rep) { // the first solve sets MUMPS's solve workspace up: time the second
      MPI_Barrier(comm);
      t0 = MPI_Wtime();
      c0 = cpu_s();
      CHK(MatSolve(F, b, x));
      t_solve = MPI_Wtime() - t0;
      c_solve = cpu_s() - c0;
    }
    PetscInt local = 0;
    CHK(MatGetLocalSize(K, &local, nullptr));
    Mat B = nullptr, X = nullptr;
    CHK(MatCreateDense(comm, local, PETSC_DECIDE, rows, 8, nullptr, &B));
    CHK(MatCreateDense(comm, local, PETSC_DECIDE, rows, 8, nullptr, &X));
    CHK(MatSetRandom(B, nullptr));
    for (int rep = 0; rep < 2; ++rep) {
      MPI_Barrier(comm);
      t0 = MPI_Wtime();
      c0 = cpu_s();
      CHK(MatMatSolve(F, B, X));
      t_solve8 = MPI_Wtime() - t0;
      c_solve8 = cpu_s() - c0;
    }
    CHK(MatDestroy(&B));
    CHK(MatDestroy(&X));
    CHK(VecDestroy(&b));
    CHK(VecDestroy(&x));
  }
  double rss_end = peak_rss_mb(), rss_sum = 0;
  MPI_Reduce(&rss_end, &rss_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);

  if (rank == 0) {
    double ops_sum = 0, ops_max = 0, fac_max = 0, fac_sum = 0, rss_an_sum = 0;
    for (int p = 0; p < size; ++p) {
      const double* v = &all[5 * static_cast<std::size_t>(p)];
      std::printf("process %d: RINFO(1) %.4e ops, INFO(3) %.4e factor entries, INFO(15) %.0f MB in core, "
                  "INFO(17) %.0f MB out of core, peak RSS after analysis %.0f MB\n",
                  p, v[0], v[1], v[2], v[3], v[4]);
      ops_sum += v[0];
      ops_max = std::max(ops_max, v[0]);
      fac_sum += v[1];
      fac_max = std::max(fac_max, v[1]);
      rss_an_sum += v[4];
    }
    std::printf("summary: ordering %s processes %d rows %lld ICNTL15_asked %lld assemble_s %.2f analysis_s %.2f "
                "rank0_cpu_analysis_s %.2f "
                "RINFOG1 %.4e sum_RINFO1 %.4e max_RINFO1 %.4e ops_imbalance %.3f "
                "INFOG3 %.4e max_INFO3 %.4e factor_imbalance %.3f INFOG5 %lld INFOG7 %lld "
                "INFOG16_MB %lld INFOG17_MB %lld INFOG26_MB %lld INFOG27_MB %lld INFOG20 %.4e "
                "rss_after_analysis_sum_MB %.0f rss_end_sum_MB %.0f factor_s %.2f solve_s %.3f solve8_s %.3f "
                "rank0_cpu_factor_s %.2f rank0_cpu_solve_s %.3f rank0_cpu_solve8_s %.3f\n",
                argv[3], size, static_cast<long long>(rows), static_cast<long long>(icntl15), t_assemble, t_analysis,
                c_analysis, rg1, ops_sum, ops_max,
                ops_max / (ops_sum / size), mumps_count(g[0]), fac_max, fac_max / (fac_sum / size),
                static_cast<long long>(g[1]), static_cast<long long>(g[2]), static_cast<long long>(g[3]),
                static_cast<long long>(g[4]), static_cast<long long>(g[6]), static_cast<long long>(g[7]),
                mumps_count(g[5]), rss_an_sum, rss_sum, t_factor, t_solve, t_solve8, c_factor, c_solve, c_solve8);
  }
  CHK(MatDestroy(&F));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  flexuq::Session session(&argc, &argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_mumps_analysis: %s\n", e.what());
    flexuq::abort_all(e.what(), 1);
  }
}
