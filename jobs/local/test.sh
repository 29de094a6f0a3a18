#!/usr/bin/env bash
# Installs what is missing (the runtime and the test-only packages), builds the whole tree with the
# tests, and runs the whole ctest suite (1- and 2-rank variants).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FLEXUQ_SETUP=full   # also after run.sh, which configured build/ without the tests
source "$here/jobs/local/setup.sh"
cd "$here/build"
# Tests in parallel up to the core count: MPI tests declare their rank count (PROCESSORS), so a
# 2-rank test takes both cores of a 2-core machine; timing-sensitive tests are RUN_SERIAL.
ctest --output-on-failure --timeout 600 -j"$FLEXUQ_JOBS" "$@"
