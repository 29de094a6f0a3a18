#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Monte Carlo goal of issue #35 (not a test): seed 004's slider-crank with uncertain link lengths, the
# order-1 and order-3 PCT (configs/slider-crank-seed004-pct.yaml, 3000 steps of 1e-3 s, solve wall
# /solver wall_seconds, best of REPEAT) against the Monte Carlo that reaches the same std accuracy.
# Accuracy: the largest relative error of the std of θ1 and of x_C over t = 0.5 … 3 s against the digest's
# exact statistics (Sec. 4.2b). MC's relative std error is ≈ 1/√(2N) (normal outputs), so the MC that
# matches a PCT's θ1 std error ε needs N = ⌈1/(2ε²)⌉ samples (θ1: the PCT's worst output; matching x_C
# too would need more). Its cost is taken as N × one deterministic solve (the order-0 PCT, the fastest
# deterministic run of the mechanism: a lower bound that favours MC), and for order 1 the N-sample MC
# campaign is also run (configs/slider-crank-seed004-uq.yaml, monte-carlo, RANKS ranks, its own wall time
# and measured std errors against the same exact table).
#   bench/pct_vs_mc.sh [--out bench/results] [--flexuq PATH]      (REPEAT=3, RANKS=2 by default)
# Prints a markdown table; docs/performance.md and docs/pct.md record the numbers.
set -euo pipefail
source "$(dirname "$0")/mbs_common.sh"
repeat="${REPEAT:-3}"; ranks="${RANKS:-2}"
mkdir -p pct_vs_mc; cd pct_vs_mc
rm -f ./*.h5 ./*.h5.journal
pct() { # pct ORDER: the smallest solve wall over the repeats (leaves pct-ORDER.h5)
  local b=""
  for ((k = 0; k < repeat; ++k)); do
    "$flexuq" simulate "$here/configs/slider-crank-seed004-pct.yaml" --set "output=pct-$1.h5" \
      --set "uncertainty.order=$1" > "pct-$1.log" 2>&1 || { cat "pct-$1.log"; exit 1; }
    w=$(/usr/bin/python3 -c "import h5py; print(h5py.File('pct-$1.h5', 'r')['solver'].attrs['wall_seconds'])")
    b=$(/usr/bin/python3 -c "print(min(float('$w'), float('${b:-inf}')))")
  done
  echo "$b"
}
load=$(cut -d' ' -f1 /proc/loadavg)
w0=$(pct 0); w1=$(pct 1); w3=$(pct 3)
# The exact statistics (digest Sec. 4.2b) of θ1 and x_C at t = 0.5 … 3 s, and the errors of a result.
cat > exact.py <<'PY'
import math, h5py, numpy as np
TIMES = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
THETA = [1.028592e-3, 4.061148e-3, 7.053596e-3, 8.119002e-3, 8.242109e-3, 8.365137e-3]
XC = [1.737066e-1, 1.741027e-1, 1.745397e-1, 1.747043e-1, 1.747196e-1, 1.747351e-1]
def pct_errors(path):
    with h5py.File(path, "r") as f:
        t = f["time"][()]
        k = [int(np.argmin(abs(t - s))) for s in TIMES]
        th, xc = f["statistics/crank.angle/std"][()][k], f["statistics/C.x/std"][()][k]
    return max(abs(th / THETA - 1)), max(abs(xc / XC - 1))
def mc_errors(path):
    with h5py.File(path, "r") as f:
        th, xc = f["statistics/theta/std"][()], f["statistics/slider_x/std"][()][0::3]
    return max(abs(th / THETA - 1)), max(abs(xc / XC - 1))
def samples(eps):
    return math.ceil(1 / (2 * eps * eps))
PY
n=$(/usr/bin/python3 -c "import exact; print(exact.samples(exact.pct_errors('pct-1.h5')[0]))")
mpiexec -n "$ranks" --allow-run-as-root --oversubscribe "$flexuq" campaign "$here/configs/slider-crank-seed004-uq.yaml" \
  --set output=mc.h5 --set "method={type: monte-carlo, samples: $n}" > mc.log 2>&1 || { cat mc.log; exit 1; }
mcw=$(sed -n 's/.*evaluated \([0-9]*\) sample(s) in \([0-9.e+-]*\) s.*/\2/p' mc.log | tail -1)
echo "cores $(nproc --all), load average $load at the start, PCT best of $repeat, MC campaign on $ranks ranks"
/usr/bin/python3 - "$w0" "$w1" "$w3" "$n" "$mcw" "$ranks" <<'PY'
import sys
import exact
w0, w1, w3, n, mcw, ranks = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
print("| run | solve wall [s] | θ1 std err (rel) | x_C std err (rel) | MC samples N for the θ1 std error | N × one run [s] | MC / PCT |")
print("|---|---|---|---|---|---|---|")
print(f"| one deterministic run (PCT order 0) | {w0:.4f} | — | — | — | — | — |")
for name, w, f in (("PCT order 1", w1, "pct-1.h5"), ("PCT order 3", w3, "pct-3.h5")):
    et, ex = exact.pct_errors(f)
    ns = exact.samples(et)
    print(f"| {name} | {w:.4f} | {et:.2e} | {ex:.2e} | {ns:.3g} | {ns * w0:.3g} | {ns * w0 / w:.3g} |")
et, ex = exact.mc_errors("mc.h5")
print(f"| MC campaign, N = {n} (its wall on {ranks} ranks) | {mcw:.2f} | {et:.2e} | {ex:.2e} | {n} | — | {mcw / w1:.3g} (vs order 1) |")
PY
