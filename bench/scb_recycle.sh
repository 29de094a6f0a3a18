#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stochastic Craig-Bampton points with shape-changing parameters (E of the crank's WEB section, nu of
# the whole crank): recycled fixed-interface modes (reduce.modes.recycle: auto; the default is off) against
# a full Krylov-Schur solve per point (off), and one fresh `flexuq reduce` (issue #38 item 2; goal: a
# point <= 0.5x a fresh reduction). Results go to docs/performance.md by hand.
#   bench/scb_recycle.sh [mesh=configs/crank.inp | h for gmsh, e.g. 0.006] [points=8] [ranks=1]
#                        [flexuq=build/bin/flexuq]
# RECYCLE_SET="--set reduce.modes.tol=1e-8" (say) passes extra settings to all three runs.
# Prints per run: the mean seconds per point (/samples/seconds), its ratio to the fresh reduction,
# the points that fell back to Krylov-Schur (log lines), and the largest relative difference of the
# points' mode eigenvalues and reduced free-free frequencies between the two runs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mesh="${1:-$here/configs/crank.inp}"; points="${2:-8}"; np="${3:-1}"; flexuq="${4:-$here/build/bin/flexuq}"
wd=$(mktemp -d /tmp/scb_recycle.XXXX)
. "$here/bench/crank_cb_common.sh"
crank_mesh "$wd" "$mesh"
crank_cb_job "$wd"
cat > "$wd/scb.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
parameters:
  E_web: {dist: uniform, low: 1.9e11, high: 2.3e11, param: E, set: WEB}
  nu:    {dist: uniform, low: 0.28, high: 0.32, param: nu}
reduce:
  method: craig-bampton
  interfaces: [{set: JOURNAL_END, kind: rbe2}, {set: PIN_END, kind: rbe2}]
  modes: {count: 20}
  checkout: {free_free: 10}
  stochastic: {method: regression, pce: {order: 1}, samples: $points, basis: false}
campaign: {ranks_per_sample: $np, seed: 42}
output: scb.h5
YAML
cd "$wd"
echo "cores: $(nproc --all), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N); mpirun -n "$np" "$flexuq" reduce cb.yaml ${RECYCLE_SET:-} > cb.log 2>&1; t1=$(date +%s.%N)
mpirun -n "$np" "$flexuq" reduce scb.yaml ${RECYCLE_SET:-} --set output=auto.h5 --set reduce.modes.recycle=auto > auto.log 2>&1
mpirun -n "$np" "$flexuq" reduce scb.yaml ${RECYCLE_SET:-} --set output=off.h5 --set reduce.modes.recycle=off > off.log 2>&1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
dofs=$(grep -o 'DOFs: [0-9]*' cb.log | head -1)
/usr/bin/python3 - "$t0" "$t1" "$dofs" <<'PY'
import sys, h5py, numpy as np
t0, t1 = map(float, sys.argv[1:3]); fresh = t1 - t0
print(f"{sys.argv[3]}; fresh flexuq reduce (whole process, no check-out): {fresh:.2f} s")
out = {}
for tag in ("auto", "off"):
    with h5py.File(f"{tag}.h5", "r") as f:
        sec = f["samples/seconds"][()]
        out[tag] = {k: f[f"outputs/{k}"][()] for k in ("mode_eigenvalues", "free_free_frequencies")}
    fell = open(f"{tag}.log").read().count("did not pass")
    print(f"recycle {tag:4s}: per point {sec.mean():.2f} s (min {sec.min():.2f}, max {sec.max():.2f}) = "
          f"{sec.mean() / fresh:.2f} x a fresh reduction; fell back to Krylov-Schur: {fell} of {len(sec)}")
for k in ("mode_eigenvalues", "free_free_frequencies"):
    a, b = out["auto"][k], out["off"][k]
    print(f"max relative difference auto vs off, {k}: {np.max(np.abs(a - b) / np.abs(b)):.2e}")
PY
echo "work directory: $wd"
