#!/usr/bin/env bash
# Sanitizer and fuzz stage of CI (.ci/run calls it after test.sh). Usage: jobs/local/sanitize.sh
#   1. preset asan (GCC, -O0, AddressSanitizer + UBSan, no recovery): builds only what the fast part
#      needs - the core, io and uq test binaries (with SANITIZE_APP=1 also the flexuq command) - and
#      runs those tests (and the app corpus: bad input at 1 and 2 ranks, tiny positive runs);
#   2. preset fuzz (clang, libFuzzer + ASan + UBSan): one target per reader (tests/fuzz), each
#      fuzzed for FLEXUQ_FUZZ_SECONDS (default 60; 20 under CI=true, to keep CI under 30 min) from the seed corpus; a finding fails the stage
#      and is kept as build-fuzz/tests/fuzz/findings/<reader>-crash-*.
# SKIP_ASAN=1 / SKIP_FUZZ=1 skip a part; FUZZ_SIMULATE=1 adds the simulate-job fuzzer (tests/fuzz/
# SimulateAdapter.hpp: it links every module, so the fuzz build compiles the whole tree instrumented);
# SANITIZE_APP=1 adds the flexuq command and the app corpus
# (tests/app) to the asan part: off by default until its build time on CI is measured (it compiles
# fe, cms and campaign under ASan, most of the tree). Timings on 2 cores: see docs/performance.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$here/jobs/local/setup.sh"
cd "$here"
jobs=$(( FLEXUQ_JOBS < 2 ? FLEXUQ_JOBS : 2 ))
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

# LeakSanitizer is off: OpenMPI (opal, hwloc, pmix) and PETSc keep allocations past MPI_Finalize
# by design, so every MPI program "leaks"; a suppression list would have to track their internals.
# Memory errors and undefined behaviour are what this stage checks.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if [ "${SKIP_ASAN:-0}" != 1 ]; then
  start=$SECONDS
  [ -f build-asan/CMakeCache.txt ] || cmake --preset asan "${launcher[@]}"
  targets=(test_core test_io_readers test_io_config test_io_hdf5 test_io_limits test_io_op4 test_uq)
  pattern='^(test_core|test_io_(readers|config|hdf5|limits|op4)|test_uq)_np'
  if [ "${SANITIZE_APP:-0}" = 1 ]; then # the flexuq command for the app corpus: most of the build time
    targets+=(flexuq)
    pattern='^((test_core|test_io_(readers|config|hdf5|limits|op4)|test_uq)_np|app_)'
  fi
  cmake --build build-asan -j"$jobs" --target "${targets[@]}"
  echo "sanitize: asan build took $((SECONDS - start)) s"
  start=$SECONDS
  (cd build-asan && ctest --output-on-failure --timeout 600 -j"$jobs" -R "$pattern")
  echo "sanitize: asan tests took $((SECONDS - start)) s"
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
  start=$SECONDS
  fuzz_default=60
  [ "${CI:-}" = true ] && fuzz_default=20 # four readers, two at a time: 40 s of the CI budget (60 s locally: 2 min)
  cmake --preset fuzz "${launcher[@]}" -DFLEXUQ_FUZZ_SECONDS="${FLEXUQ_FUZZ_SECONDS:-$fuzz_default}" >/dev/null
  fuzzers=(fuzz_inp fuzz_msh fuzz_bdf fuzz_yaml fuzz_matrices fuzz_body)
  skip='^fuzz_simulate$'
  if [ "${FUZZ_SIMULATE:-0}" = 1 ]; then # simulate jobs: links every module, instrumented (most of the build time)
    fuzzers+=(fuzz_simulate)
    skip='^$'
  fi
  cmake --build build-fuzz -j"$jobs" --target "${fuzzers[@]}"
  echo "sanitize: fuzz build took $((SECONDS - start)) s"
  (cd build-fuzz && ctest --output-on-failure -L fuzz -E "$skip" -j"$jobs") # one fuzzer per core
fi
