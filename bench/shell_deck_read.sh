#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Read time of the 1 M-DOF stiffened panel (issue #37 Goals) as .inp and as Nastran decks in three forms:
# large field (GRID* on two lines, the .inp's coordinates), small fixed field (coordinates rounded to 8
# columns) and free field (the .inp's coordinates), one file per bench_read_mesh process, alternating,
# ROUNDS rounds (default 6); prints each run and the best CPU and wall time per file.
#   bench/shell_deck_read.sh [NDOF] [WORKDIR]      (BEFORE=path/to/another/bench_read_mesh adds its runs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ndof=${1:-1e6}
work=${2:-${TMPDIR:-/tmp}/flexuq-shell-deck-read}
bench=${BENCH:-$here/../build/bench/bench_read_mesh}
rounds=${ROUNDS:-6}
# The reader uses no BLAS; OpenBLAS's idle pool threads otherwise spin (sched_yield) on a loaded machine
# and their CPU time lands in the process's getrusage (up to +0.1 s per run here).
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
[ -f "$work/panel_free.bdf" ] || /usr/bin/env python3 "$here/make_shell_panel.py" "$ndof" "$work" small free
uptime
runs=$(mktemp)
for r in $(seq "$rounds"); do
  for f in panel.inp panel.bdf panel_small.bdf panel_free.bdf; do
    "$bench" "$work/$f" | sed "s|^|after |" | tee -a "$runs"
    if [ -n "${BEFORE:-}" ] && [ "$f" != panel.inp ]; then "$BEFORE" "$work/$f" | sed "s|^|before |" | tee -a "$runs"; fi
  done
done
uptime
echo "best of $rounds (wall, CPU):"
awk '{ key = $1 " " $2; w = $7; c = $10;
       if (!(key in bw) || w < bw[key]) bw[key] = w; if (!(key in bc) || c < bc[key]) bc[key] = c }
     END { for (k in bw) printf "  %-60s %.3f s wall, %.3f s CPU\n", k, bw[k], bc[k] }' "$runs" | sort
rm -f "$runs"
