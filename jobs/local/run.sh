#!/usr/bin/env bash
# Usage: jobs/local/run.sh [CONFIG] [NRANKS] [-- extra flexuq arguments]
# Installs what is missing, builds, and runs a job (default configs/demo.yaml) on 2 ranks.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$here/jobs/local/setup.sh"
config="${1:-configs/demo.yaml}"; shift || true
ranks="${1:-2}"; shift || true
[ "${1:-}" = "--" ] && shift
cd "$here"
mpiexec -n "$ranks" build/bin/flexuq run "$config" "$@"
