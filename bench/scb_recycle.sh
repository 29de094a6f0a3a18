#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stochastic Craig-Bampton points with shape-changing parameters (E of the crank's WEB section, nu of
# the whole crank): recycled fixed-interface modes (reduce.modes.recycle: auto; the default is off) against
# a full Krylov-Schur solve per point (off), and one fresh `flexuq reduce` (issue #38 item 2; goal: a
# point <= 0.5x a fresh reduction). Results go to docs/performance.md by hand.
#   bench/scb_recycle.sh [mesh=configs/crank.inp | h for gmsh, e.g. 0.006] [points=8] [ranks=1]
#                        [flexuq=build/bin/flexuq]
# RECYCLE_SET="--set reduce.modes.tol=1e-8" (say) passes extra settings to every run.
# RECYCLE_RUNS (default "off:krylov-schur auto:krylov-schur"; the first off run is the one compared with): the stochastic runs, each
# recycle:solver (reduce.modes.recycle and reduce.modes.solver), e.g. "block:krylov-schur off:block";
# FRESH_SOLVERS (default krylov-schur): the fresh reductions, one per reduce.modes.solver; REPEAT
# (default 1): rounds of every fresh reduction and every stochastic run back to back, the best kept.
# Prints per run: the mean seconds per point (/samples/seconds), its ratio to the best fresh reduction,
# the points that fell back to the full solve and the block solves / right-hand sides of the
# seeded ones (log lines), and the largest relative difference of the points' mode eigenvalues and
# reduced free-free frequencies against the first off run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mesh="${1:-$here/configs/crank.inp}"; points="${2:-8}"; np="${3:-1}"; flexuq="${4:-$here/build/bin/flexuq}"
wd=$(mktemp -d /tmp/scb_recycle.XXXX)
. "$here/bench/crank_cb_common.sh"
crank_mesh "$wd" "$mesh"
crank_cb_job "$wd"
crank_scb_shape_job "$wd/scb.yaml" "$points" "$np"
cd "$wd"
runs="${RECYCLE_RUNS:-off:krylov-schur auto:krylov-schur}"; fresh_solvers="${FRESH_SOLVERS:-krylov-schur}"; repeat="${REPEAT:-1}"
echo "cores: $(nproc --all), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
: > fresh.txt
# Round r runs every fresh reduction and every stochastic job once, back to back, so that each
# ratio compares runs under the same load; the best of the rounds is kept per run.
for r in $(seq "$repeat"); do
  echo "round $r, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  for sol in $fresh_solvers; do
    t0=$(date +%s.%N)
    mpirun -n "$np" "$flexuq" reduce cb.yaml ${RECYCLE_SET:-} --set reduce.modes.solver="$sol" > "cb-$sol.log" 2>&1
    t1=$(date +%s.%N); echo "$sol $t0 $t1" >> fresh.txt
  done
  for run in $runs; do
    rc=${run%%:*}; sol=${run#*:}
    mpirun -n "$np" "$flexuq" reduce scb.yaml ${RECYCLE_SET:-} --set output="$rc-$sol-$r.h5" \
      --set reduce.modes.recycle="$rc" --set reduce.modes.solver="$sol" > "$rc-$sol-$r.log" 2>&1
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
dofs=$(grep -o 'DOFs: [0-9]*' cb-*.log | head -1 | sed 's/.*DOFs/DOFs/')
/usr/bin/python3 - "$dofs" "$repeat" $runs <<'PY'
import sys, re, collections, h5py, numpy as np
dofs, repeat, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
fresh = collections.defaultdict(list)
for line in open("fresh.txt"):
    sol, t0, t1 = line.split(); fresh[sol].append(float(t1) - float(t0))
for sol, t in fresh.items():
    print(f"{dofs}; fresh flexuq reduce, solver {sol} (whole process, no check-out): best {min(t):.2f} s of {len(t)}")
best = min(min(t) for t in fresh.values())
ref = None
for run in runs:
    rc, sol = run.split(":", 1)
    bestrun = None
    for r in range(1, repeat + 1):
        tag = f"{rc}-{sol}-{r}"
        with h5py.File(f"{tag}.h5", "r") as f:
            sec = f["samples/seconds"][()]
            outs = {k: f[f"outputs/{k}"][()] for k in ("mode_eigenvalues", "free_free_frequencies")}
        if bestrun is None or sec.mean() < bestrun[1].mean(): bestrun = (tag, sec, outs)
    tag, sec, outs = bestrun
    log = open(f"{tag}.log").read()
    fell = log.count("did not pass") + log.count("did not converge (")
    seeded = re.findall(r"block solve from the reference modes \((\d+) block solves, (\d+) right-hand sides", log)
    extra = ""
    if seeded:
        st = [int(a) for a, _ in seeded]; cols = [int(b) for _, b in seeded]
        extra = f"; seeded block: {min(st)}-{max(st)} block solves, {min(cols)}-{max(cols)} right-hand sides per point"
    same = f"{sec.mean() / min(fresh[sol]):.2f} x the fresh reduction with solver {sol}, " if sol in fresh else ""
    dflt = f"{sec.mean() / min(fresh['krylov-schur']):.2f} x the default (krylov-schur) fresh reduction, " if "krylov-schur" in fresh else ""
    print(f"recycle {rc:5s} solver {sol:12s}: per point {sec.mean():.2f} s (min {sec.min():.2f}, max {sec.max():.2f}) = "
          f"{same}{dflt}{sec.mean() / best:.2f} x the best fresh reduction; fell back: {fell} of {len(sec)}{extra}")
    if rc == "off" and ref is None: ref = (run, outs)
    elif ref is not None:
        for k in outs:
            a, b = outs[k], ref[1][k]
            print(f"  max relative difference vs {ref[0]}, {k}: {np.max(np.abs(a - b) / np.abs(b)):.2e}")
PY
echo "work directory: $wd"
