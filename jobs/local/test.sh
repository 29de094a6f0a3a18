#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole ctest suite (1- and 2-rank variants).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$here/jobs/local/setup.sh"
cd "$here/build"
ctest --output-on-failure --timeout 600 -j1 "$@"
