#!/usr/bin/env bash
# Usage: jobs/local/run.sh [CONFIG] [NRANKS] [-- extra flexuq arguments]
# Installs what is missing, builds, and runs a job on 2 ranks. Without CONFIG: the demo, i.e.
# configs/demo.yaml (eigenmodes), then demo-cb.yaml (Craig-Bampton body) and demo-uq.yaml (PCE
# campaign) on the same generated bracket.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$here/jobs/local/setup.sh"
config="${1:-}"; shift || true
ranks="${1:-2}"; shift || true
[ "${1:-}" = "--" ] && shift
cd "$here"
if [ -n "$config" ]; then
  mpiexec -n "$ranks" build/bin/flexuq run "$config" "$@"
else
  rm -rf demo-uq.h5 demo-uq.h5.journal   # the demo campaign starts afresh each time
  for job in configs/demo.yaml configs/demo-cb.yaml configs/demo-uq.yaml; do
    echo "=== flexuq run $job"
    mpiexec -n "$ranks" build/bin/flexuq run "$job" "$@"
  done
fi
