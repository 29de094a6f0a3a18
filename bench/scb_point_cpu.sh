#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A stochastic-CB point's CPU time against a fresh `flexuq reduce`'s, on a loaded machine (issue #38
# item 2; goal: a point <= 0.5x a fresh reduction). Wall-clock ratios on a shared machine scatter
# with the other jobs' load; the CPU time of a 1-rank process does much less. A point's CPU time is
# (cpu(job with 2N points) - cpu(job with N points)) / N: the reference body, the check-out, the
# fit and the files cancel. The job is bench/scb_recycle.sh's (E of the WEB section and nu of the
# crank, CB with both ends RBE2, 20 modes, regression of order 1, basis: false).
#   bench/scb_point_cpu.sh [mesh=configs/crank.inp | h for gmsh] [N=4] [flexuq=build/bin/flexuq]
# RUNS (default "off:krylov-schur off:block block:krylov-schur block:block"): recycle:solver pairs;
# FRESH_SOLVERS (default "krylov-schur block"); REPEAT (default 2): rounds, each running everything
# once back to back; the least CPU time per run is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mesh="${1:-$here/configs/crank.inp}"; n="${2:-4}"; flexuq="${3:-$here/build/bin/flexuq}"
wd=$(mktemp -d /tmp/scb_point_cpu.XXXX)
. "$here/bench/crank_cb_common.sh"
crank_mesh "$wd" "$mesh"
crank_cb_job "$wd"
cd "$wd"
crank_scb_shape_job short.yaml "$n" 1; crank_scb_shape_job long.yaml $((2 * n)) 1
runs="${RUNS:-off:krylov-schur off:block block:krylov-schur block:block}"
fresh_solvers="${FRESH_SOLVERS:-krylov-schur block}"; repeat="${REPEAT:-2}"
cpu() { # cpu TAG ARGS...: the process's user + system seconds into cpu.txt
  local tag=$1; shift
  /usr/bin/time -f "$tag %U %S %e" -a -o cpu.txt "$flexuq" "$@" > "$tag.log" 2>&1
}
: > cpu.txt
for r in $(seq "$repeat"); do
  echo "round $r, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  for sol in $fresh_solvers; do cpu "fresh:$sol" reduce cb.yaml --set reduce.modes.solver="$sol"; done
  for run in $runs; do
    rc=${run%%:*}; sol=${run#*:}
    for f in short long; do
      cpu "$f:$run" reduce "$f.yaml" --set output="$f-$rc-$sol-$r.h5" --set reduce.modes.recycle="$rc" --set reduce.modes.solver="$sol"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$n" "$fresh_solvers" $runs <<'PY'
import sys, collections
n, fresh_solvers, runs = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
t = collections.defaultdict(list)
for line in open("cpu.txt"):
    tag, u, s, e = line.split(); t[tag].append(float(u) + float(s))
fresh = {sol: min(t[f"fresh:{sol}"]) for sol in fresh_solvers}
for sol, c in fresh.items():
    print(f"fresh flexuq reduce, solver {sol}: {c:.2f} s CPU (least of {len(t[f'fresh:{sol}'])}: {t[f'fresh:{sol}']})")
for run in runs:
    rc, sol = run.split(":", 1)
    p = (min(t[f"long:{run}"]) - min(t[f"short:{run}"])) / n
    same = f"{p / fresh[sol]:.2f} x fresh {sol}, " if sol in fresh else ""
    dflt = f"{p / fresh['krylov-schur']:.2f} x fresh krylov-schur (default)" if "krylov-schur" in fresh else ""
    print(f"recycle {rc:5s} solver {sol:12s}: per point {p:.2f} s CPU = {same}{dflt}")
PY
echo "work directory: $wd"
