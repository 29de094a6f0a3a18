#!/usr/bin/env bash
# Usage: jobs/local/run.sh [CONFIG] [NRANKS] [-- extra flexuq arguments]
# Installs the runtime packages that are missing (not the test-only ones: jobs/local/test.sh adds
# those), builds the flexuq target only, and runs a job on 2 ranks. Without CONFIG: the demo
# (jobs/local/demo.sh: a connecting rod's modes, its Craig-Bampton body, a stochastic body, a
# slider-crank simulation with it and a small campaign over it; results and a plot in demo/).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FLEXUQ_SETUP=runtime
source "$here/jobs/local/setup.sh"
config="${1:-}"; shift || true
ranks="${1:-2}"; shift || true
[ "${1:-}" = "--" ] && shift
cd "$here"
if [ -n "$config" ]; then
  mpiexec -n "$ranks" build/bin/flexuq run "$config" "$@"
else
  exec "$here/jobs/local/demo.sh" "$here/demo" "$ranks"
fi
