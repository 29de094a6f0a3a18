#!/usr/bin/env bash
# Install the Debian packages flexuq needs (only the missing ones), make OpenBLAS the BLAS that runs,
# and configure + build into build/. Idempotent; meant for a fresh Debian 12 machine as root.
# Sourced by run.sh (FLEXUQ_SETUP=runtime), test.sh and sanitize.sh (default: full).
#   FLEXUQ_SETUP=runtime  the packages to build and run flexuq and its postproc scripts; configures
#                         without the tests (FLEXUQ_BUILD_TESTS=OFF, no GoogleTest) and builds the
#                         flexuq target only
#   FLEXUQ_SETUP=full     also the test-only packages (GoogleTest, the oracles, SLURM, clang and the
#                         fuzzing runtime); configures with the tests (turning them back on in a build/
#                         that run.sh configured) and builds the whole tree
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
setup_mode=${FLEXUQ_SETUP:-full}
case "$setup_mode" in
  runtime|full) ;;
  *) echo "flexuq setup: FLEXUQ_SETUP=$setup_mode: expected runtime or full" >&2; exit 2 ;;
esac

packages=(build-essential cmake pkg-config git
          petsc-dev slepc-dev libeigen3-dev libhdf5-openmpi-dev libboost-serialization-dev
          libmumps-ptscotch-5.5                                    # Scotch/PT-Scotch MUMPS orderings (linear_solver.ordering)
          libyaml-cpp-dev librandom123-dev openmpi-bin libopenblas0 libopenblas-dev
          python3 python3-h5py python3-numpy python3-matplotlib)   # postproc/*.py
if [ "$setup_mode" = full ]; then
  packages+=(libgtest-dev                                          # the test suite
             gmsh calculix-ccx python3-openturns python3-scipy     # these four: test oracles only
             python3-yaml                                          # tests/fuzz/simulate_mutations.py
             slurm-wlm munge                                       # tests/slurm: a single-node Slurm
             clang libclang-rt-14-dev)                             # fuzzers (jobs/local/sanitize.sh)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "flexuq setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# OpenBLAS must be the BLAS/LAPACK at run time: Debian's reference BLAS makes MUMPS several times slower.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
for alt in "libblas.so.3-$arch" "liblapack.so.3-$arch"; do
  target=$(update-alternatives --list "$alt" 2>/dev/null | grep openblas | head -n1 || true)
  if [ -n "$target" ] && [ "$(readlink -f "/etc/alternatives/$alt")" != "$(readlink -f "$target")" ]; then
    if [ "$(id -u)" -eq 0 ]; then update-alternatives --set "$alt" "$target" >/dev/null; fi
  fi
done

# Cores for the build and for ctest, counted before OMP_NUM_THREADS=1 is exported below: GNU
# nproc honours OMP_NUM_THREADS, so `nproc` after it says 1 (CI built and tested serially so).
FLEXUQ_JOBS=${FLEXUQ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc --all)}
export FLEXUQ_JOBS

# OpenMPI as root, more ranks than cores on small machines; one BLAS thread per MPI rank.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

if [ "$setup_mode" = runtime ]; then
  [ -f build/CMakeCache.txt ] || cmake --preset release -DFLEXUQ_BUILD_TESTS=OFF
  cmake --build build -j"$FLEXUQ_JOBS" --target flexuq
else
  if [ ! -f build/CMakeCache.txt ]; then
    cmake --preset release -DFLEXUQ_BUILD_TESTS=ON
  elif grep -q '^FLEXUQ_BUILD_TESTS:BOOL=OFF' build/CMakeCache.txt; then
    cmake -S . -B build -DFLEXUQ_BUILD_TESTS=ON    # build/ configured by run.sh: add the tests
  fi
  cmake --build build -j"$FLEXUQ_JOBS"
fi
