#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run a modes job, then check its output file:
#   run_and_check.sh OUTPUT.h5 [CHECK ARG]... -- COMMAND [ARG]...
# Removes OUTPUT.h5 and its .xdmf first (no stale result can pass), runs COMMAND under a 60 s
# timeout (it must exit 0), then check_modes_h5.py OUTPUT.h5 [CHECK ARG]...
set -u
here="$(cd "$(dirname "$0")" && pwd)"
[[ $# -ge 3 ]] || { echo "usage: $0 OUTPUT.h5 [CHECK ARG]... -- COMMAND [ARG]..." >&2; exit 2; }
h5="$1"
shift
check=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  check+=("$1")
  shift
done
[[ $# -ge 2 ]] || { echo "missing -- COMMAND" >&2; exit 2; }
shift
rm -f "$h5" "${h5%.*}.xdmf"
timeout 60 "$@"
code=$?
[[ $code -ne 124 ]] || { echo "FAIL: the run hung (killed by timeout after 60 s)"; exit 1; }
[[ $code -eq 0 ]] || { echo "FAIL: the run exited $code"; exit 1; }
/usr/bin/python3 "$here/check_modes_h5.py" "$h5" "${check[@]+"${check[@]}"}"
