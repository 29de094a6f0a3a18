#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stochastic Craig-Bampton body (flexuq reduce with reduce.stochastic, 2 parameters, regression on N
# points) against N fresh deterministic reductions of the same crank (issue #6 item 5). Results go to
# docs/performance.md ("Stochastic CB") by hand.
#   bench/scb_vs_reduce.sh [mesh=configs/crank.inp | h for gmsh, e.g. 0.0043 (~300 k DOF)] [points=30]
#                          [ranks=2] [flexuq=build/bin/flexuq]
# SCB_SET="--set reduce.stochastic.exact_scaling=false" (say) passes extra settings to the stochastic
# run: the issue's parameters (E and rho of the whole crank) only scale K and M, so by default every
# point is the reference body scaled exactly; exact_scaling=false measures a reduction per point.
# Prints: total wall time, the campaign's own "evaluated ... in X s", the mean time per point (from
# /samples/seconds), one fresh `flexuq reduce` (same interfaces and modes, its own process), the ratio
# per point / fresh reduction, the overhead after the points (expansion fit + HDF5 writing), everything
# after the reference body beyond the points' own work (checkpoints, statistics, expansions, files), and the
# peak resident memory of every rank (/usr/bin/time around each rank) of both runs, and of a fresh
# reduction with the full free-free check-out the stochastic job does once for its reference body.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mesh="${1:-$here/configs/crank.inp}"; points="${2:-30}"; np="${3:-2}"; flexuq="${4:-$here/build/bin/flexuq}"
wd=$(mktemp -d /tmp/scb_vs_reduce.XXXX)
. "$here/bench/crank_cb_common.sh"
crank_mesh "$wd" "$mesh"
crank_cb_job "$wd"
cat > "$wd/scb.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
parameters:
  E:   {dist: lognormal, mean: 2.1e11, std: 1.0e10}
  rho: {dist: uniform, low: 7700, high: 8000}
reduce:
  method: craig-bampton
  interfaces: [{set: JOURNAL_END, kind: rbe2}, {set: PIN_END, kind: rbe2}]
  modes: {count: 20}
  checkout: {free_free: 10}
  stochastic: {method: regression, pce: {order: auto, max_order: 4}, samples: $points, basis: true}
campaign: {ranks_per_sample: $np, seed: 42}
output: scb.h5
YAML
cd "$wd"
# Each rank under /usr/bin/time: its peak RSS (kB) in rss_<tag>_<rank>.
ranked() {
  local tag=$1; shift
  mpirun -n "$np" bash -c 'exec /usr/bin/time -f %M -o "rss_'"$tag"'_${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"' _ "$@"
}
t0=$(date +%s.%N); ranked cb "$flexuq" reduce cb.yaml > cb.log 2>&1; t1=$(date +%s.%N)
ranked scb "$flexuq" reduce scb.yaml ${SCB_SET:-} > scb.log 2>&1; t2=$(date +%s.%N)
# The stochastic job's reference body has the full free-free check-out (10 modes, as `flexuq reduce`
# does by default); a fresh reduction with that check-out is the memory peer of the whole job.
ranked cbx "$flexuq" reduce cb.yaml --set reduce.checkout.free_free=10 --set output=cbx.h5 > cbx.log 2>&1
dofs=$(grep -o 'DOFs: [0-9]*' cb.log | head -1)
/usr/bin/python3 - "$t0" "$t1" "$t2" "$points" "$dofs" <<'PY'
import re, sys, h5py
t0, t1, t2 = map(float, sys.argv[1:4]); n = int(sys.argv[4])
fresh, total = t1 - t0, t2 - t1
log = open("scb.log").read()
loop = float(re.search(r"evaluated \d+ sample\(s\) in ([0-9.]+) s", log).group(1))
sec = h5py.File("scb.h5", "r")["samples/seconds"][()]
per_point = sec.mean()
print(f"{sys.argv[5]}; {n} points, 1 group")
print(f"fresh flexuq reduce: {fresh:.2f} s (whole process: read, assemble, reduce, write)")
print(f"stochastic reduce:   {total:.2f} s total = {total / (n * fresh):.2f} x {n} fresh reductions")
print(f"  points loop {loop:.2f} s, per point {per_point:.2f} s = {per_point / fresh:.2f} x a fresh reduction")
print(f"  set-up (mesh, assembly, reference reduction) + expansion and IO: {total - loop:.2f} s "
      f"({100 * (total - loop) / total:.1f} % of the total)")
after = re.search(r"after the reference body: ([0-9.]+) s", log)
if after:
    # What the points add beyond their own work: checkpoints, statistics, expansions, files.
    a = float(after.group(1)); extra = a - sec.sum()
    exp = re.search(r"expansion and writing ([0-9.]+) s", log)
    print(f"  after the reference body {a:.2f} s: the points' own work {sec.sum():.2f} s, the rest "
          f"(checkpoints, statistics, expansions, files) {extra:.2f} s = {100 * extra / total:.1f} % of the total"
          + (f"; of which the body's expansion and file {float(exp.group(1)):.2f} s = "
             f"{100 * float(exp.group(1)) / total:.1f} %" if exp else ""))
import glob
def rss(tag):
    return [int(open(f).read().split()[-1]) / 1024 for f in sorted(glob.glob(f"rss_{tag}_*"))]
rc, rx, rs = rss("cb"), rss("cbx"), rss("scb")
if rc and rs:
    print("peak RSS per rank [MB]: fresh reduce " + ", ".join(f"{x:.0f}" for x in rc) +
          " (with the free-free check-out " + ", ".join(f"{x:.0f}" for x in rx) + ")"
          "; stochastic reduce " + ", ".join(f"{x:.0f}" for x in rs) +
          f"; max ratio {max(rs) / max(rc):.2f} ({max(rs) / max(rx):.2f} against the reduction with the check-out)")
PY
grep -E "stochastic body:" scb.log || true
echo "work directory: $wd"
