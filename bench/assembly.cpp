// SPDX-License-Identifier: MIT
// The "partition+assemble" phase of `flexuq modes` part by part, per process (issue #38):
//   mpirun -n P bench_assembly MESH CLAMP_SET [affine] [PETSc options, e.g. -log_view]
// Reads the mesh and builds fe::Component as `flexuq modes` does (steel, E 2.1e11, nu 0.3, rho 7850;
// keep_affine false unless `affine`), then stops: no eigensolve. Prints, per process, every part of
// fe/AssemblyProfile.hpp (wall and CPU seconds, VmRSS / VmHWM in MB at its end), the read's and the
// construction's totals, malloc's view after it (mallinfo2: heap in use, free but kept) and the
// RSS after malloc_trim(0); then one "sum" line (RSS summed over processes) and the matrices'
// fingerprints (rows, nonzeros, Frobenius norms, and a sum of a_ij (1 + sin(i) cos(2 j)) that
// changes with the DOF numbering: the same rank count must give the same figures).
#include "flexuq/core/Session.hpp"
#include "flexuq/fe/AssemblyProfile.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/MeshReader.hpp"

#include <malloc.h>
#include <petscmat.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

namespace ap = flexuq::fe::assembly_profile;

// Σ a_ij (1 + sin(i) cos(2 j)) over this process's rows, summed over processes.
double fingerprint(Mat A) {
  PetscInt lo = 0, hi = 0;
  MatGetOwnershipRange(A, &lo, &hi);
  double s = 0;
  for (PetscInt i = lo; i < hi; ++i) {
    PetscInt nc = 0;
    const PetscInt* cols = nullptr;
    const PetscScalar* vals = nullptr;
    MatGetRow(A, i, &nc, &cols, &vals);
    for (PetscInt k = 0; k < nc; ++k) s += vals[k] * (1.0 + std::sin(static_cast<double>(i)) * std::cos(2.0 * cols[k]));
    MatRestoreRow(A, i, &nc, &cols, &vals);
  }
  double g = 0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm(reinterpret_cast<PetscObject>(A)));
  return g;
}

int run(int argc, char** argv) {
  MPI_Comm comm = PETSC_COMM_WORLD;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (argc < 3) {
    if (rank == 0) std::fprintf(stderr, "usage: %s MESH CLAMP_SET [affine] [PETSc options]\n", argv[0]);
    return 2;
  }
  const bool affine = argc > 3 && std::strcmp(argv[3], "affine") == 0;
  const auto m0 = ap::rss_mb();
  double t0 = MPI_Wtime(), c0 = ap::cpu_seconds();
  flexuq::io::Mesh mesh = flexuq::io::read_mesh(argv[1]);
  const double t_read = MPI_Wtime() - t0, c_read = ap::cpu_seconds() - c0;
  const auto m_read = ap::rss_mb();
  flexuq::fe::ComponentOptions opts; // steel, clamped, as `flexuq modes` with m300.yaml
  opts.default_material.emplace();
  opts.default_material->E = 2.1e11, opts.default_material->nu = 0.3, opts.default_material->rho = 7850;
  opts.fixed_sets = {argv[2]};
  opts.keep_affine = affine;
  ap::reset();
  MPI_Barrier(comm);
  t0 = MPI_Wtime();
  c0 = ap::cpu_seconds();
  flexuq::fe::Component comp(comm, std::move(mesh), opts);
  const double t_build = MPI_Wtime() - t0, c_build = ap::cpu_seconds() - c0;
  const auto m_build = ap::rss_mb();
  const struct mallinfo2 mi = mallinfo2();
  malloc_trim(0);
  const auto m_trim = ap::rss_mb();

  // Per process: the parts (wall, cpu, rss, hwm), then the totals.
  constexpr std::size_t kParts = static_cast<std::size_t>(ap::Part::count);
  std::vector<double> mine;
  for (const auto& e : ap::entries()) mine.insert(mine.end(), {e.wall, e.cpu, e.rss_mb, e.hwm_mb});
  mine.insert(mine.end(), {t_read, c_read, m0[0], m_read[0], m_read[1], t_build, c_build, m_build[0], m_build[1],
                           static_cast<double>(mi.uordblks + mi.hblkhd) / 1048576.0,
                           static_cast<double>(mi.fordblks) / 1048576.0, m_trim[0]});
  std::vector<double> all(mine.size() * static_cast<std::size_t>(size));
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
             MPI_DOUBLE, 0, comm);
  PetscInt rows = 0;
  MatGetSize(comp.K(), &rows, nullptr);
  MatInfo ik{}, im{};
  MatGetInfo(comp.K(), MAT_GLOBAL_SUM, &ik);
  MatGetInfo(comp.M(), MAT_GLOBAL_SUM, &im);
  PetscReal nk = 0, nm = 0;
  MatNorm(comp.K(), NORM_FROBENIUS, &nk);
  MatNorm(comp.M(), NORM_FROBENIUS, &nm);
  const double fk = fingerprint(comp.K()), fm = fingerprint(comp.M());
  if (rank != 0) return 0;
  std::vector<double> sum(mine.size(), 0.0);
  for (int p = 0; p < size; ++p) {
    const double* v = &all[mine.size() * static_cast<std::size_t>(p)];
    for (std::size_t k = 0; k < mine.size(); ++k) sum[k] += v[k];
    std::printf("process %d:", p);
    for (std::size_t k = 0; k < kParts; ++k)
      if (v[4 * k] > 0 || v[4 * k + 1] > 0)
        std::printf(" %s %.3f/%.3f s %.0f/%.0f MB;", ap::name(static_cast<ap::Part>(k)), v[4 * k], v[4 * k + 1],
                    v[4 * k + 2], v[4 * k + 3]);
    const double* t = v + 4 * kParts;
    std::printf("\nprocess %d totals: read %.3f s (cpu %.3f) RSS %.0f -> %.0f MB (HWM %.0f); build %.3f s (cpu %.3f) "
                "RSS %.0f MB HWM %.0f MB; malloc in use %.0f MB, free kept %.0f MB; RSS after malloc_trim %.0f MB\n",
                p, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11]);
  }
  const double* t = sum.data() + 4 * kParts;
  std::printf("sum over %d processes: RSS after read %.0f MB, after build %.0f MB (HWM %.0f MB), after trim %.0f MB; "
              "malloc in use %.0f MB, free kept %.0f MB\n",
              size, t[3], t[7], t[8], t[11], t[9], t[10]);
  std::printf("matrices: rows %lld nnz K %.0f M %.0f |K|_F %.17g |M|_F %.17g fingerprint K %.17g M %.17g\n",
              static_cast<long long>(rows), ik.nz_used, im.nz_used, nk, nm, fk, fm);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  flexuq::Session session(&argc, &argv);
  int rc = 1;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) { // a bad mesh or set on one rank: every rank stops
    const std::string msg = std::string(argv[0]) + ": " + e.what();
    std::fputs((msg + "\n").c_str(), stderr);
    flexuq::abort_all(msg.c_str(), 1);
  }
  return rc;
}
