#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 004's non-intrusive baseline (issue #35 items 1 and 5, goals; a benchmark, not a test): the
# slider-crank with uncertain link lengths (configs/slider-crank-seed004-uq.yaml) by Monte Carlo
# (N = 100, 500: the thesis's MC-500), LHS and collocation on 4 × 4 and 6 × 6 Gauss–Hermite points,
# each against the seed digest's exact statistics (Sec. 4.2b) of θ1 and x_C at t = 0.5 … 3 s, and its
# cost against one deterministic run (the thesis's V27: MC-500 ≈ 500 runs; an intrusive PCT's wall
# time is to be compared with these).
#   bench/seed004_uq_baseline.sh [--ranks 2] [--out bench/results] [--flexuq PATH]
# Prints a markdown table; docs/performance.md records the numbers.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ranks=2; out="$here/bench/results"; flexuq="$here/build/bin/flexuq"
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks=$2; shift 2;; --out) out=$2; shift 2;; --flexuq) flexuq=$2; shift 2;;
    *) echo "unknown option $1"; exit 2;;
  esac
done
[ -x "$flexuq" ] || { echo "build flexuq first (jobs/local/setup.sh)"; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out/seed004_uq"; cd "$out/seed004_uq"
rm -rf ./*.h5 ./*.h5.journal
cfg="$here/configs/slider-crank-seed004-uq.yaml"
# One deterministic run at the means, 3 s (its own solve time, and the process's wall time).
start=$(date +%s.%N)
"$flexuq" simulate "$here/configs/slider-crank-seed004-2d.yaml" --set output=det.h5 > det.log
end=$(date +%s.%N)
echo "det $(sed -n 's/.*, \([0-9.e-]*\) s -> .*/\1/p' det.log) $(echo "$end - $start" | bc -l)" > times.txt
campaign() { # NAME METHOD
  local name=$1 method=$2
  mpiexec -n "$ranks" --allow-run-as-root --oversubscribe "$flexuq" campaign "$cfg" --set output="$name.h5" \
    --set method="$method" > "$name.log"
  echo "$name $(sed -n 's/.*evaluated \([0-9]*\) sample(s) in \([0-9.e+-]*\) s.*/\1 \2/p' "$name.log")" >> times.txt
}
campaign mc100 '{type: monte-carlo, samples: 100}'
campaign mc500 '{type: monte-carlo, samples: 500}'
campaign lhs100 '{type: lhs, samples: 100}'
campaign col4 '{type: pce, pce: {order: 3, fit: projection, grid: tensor, points: 4}}'
campaign col6 '{type: pce, pce: {order: 5, fit: projection, grid: tensor, points: 6}}'
/usr/bin/python3 - "$ranks" <<'PY'
import math, sys
import h5py
ranks = sys.argv[1]
theta = [(0.794089, 1.028592e-3), (0.819910, 4.061148e-3), (0.845533, 7.053596e-3),
         (0.854410, 8.119002e-3), (0.855023, 8.242109e-3), (0.855635, 8.365137e-3)]
xc = [(4.038690, 1.737066e-1), (3.982088, 1.741027e-1), (3.924938, 1.745397e-1),
      (3.904930, 1.747043e-1), (3.903552, 1.747196e-1), (3.902175, 1.747351e-1)]
times = {}
for line in open("times.txt"):
    p = line.split()
    times[p[0]] = [float(v) for v in p[1:]]
det_solve, det_wall = times["det"]
print(f"one deterministic run (3 s of motion): solve {det_solve:.4f} s, process {det_wall:.2f} s; campaigns on {ranks} ranks")
print()
print("| method | samples | wall (s) | per sample (s) | wall / one solve | theta1 mean err (rad) | theta1 std err (rel) | x_C mean err | x_C std err (rel) |")
print("|---|---|---|---|---|---|---|---|---|")
for name in ("mc100", "mc500", "lhs100", "col4", "col6"):
    n, wall = times[name]
    with h5py.File(name + ".h5", "r") as f:
        tm, ts = f["statistics/theta/mean"][()] + math.pi / 4, f["statistics/theta/std"][()]
        xm, xs = f["statistics/slider_x/mean"][()][0::3], f["statistics/slider_x/std"][()][0::3]
    e = [max(abs(tm[i] - theta[i][0]) for i in range(6)), max(abs(ts[i] / theta[i][1] - 1) for i in range(6)),
         max(abs(xm[i] - xc[i][0]) for i in range(6)), max(abs(xs[i] / xc[i][1] - 1) for i in range(6))]
    print(f"| {name} | {int(n)} | {wall:.2f} | {wall / n * int(ranks):.4f} | {wall / det_solve:.0f} | {e[0]:.2g} | {e[1]:.2g} | {e[2]:.2g} | {e[3]:.2g} |")
PY
