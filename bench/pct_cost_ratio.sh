#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The PCT cost goal of issue #35 (not a test): the wall time of seed 004's order-1 PCT of the slider-crank
# (configs/slider-crank-seed004-pct.yaml, 3000 steps of 1e-3 s) against one deterministic run of the same
# mechanism over the same steps: the order-0 PCT (the deterministic model in the same scheme and code) and
# `flexuq simulate`'s multibody engine with 3-D joints (configs/slider-crank-seed004.yaml), 3-D bodies held in
# the plane by 2-D joints (-2d.yaml) and planar bodies (-planar.yaml). Each the best of REPEAT runs of the
# solve's own /solver wall_seconds (set-up and file writing excluded).
#   bench/pct_cost_ratio.sh [--out bench/results] [--flexuq PATH]      (REPEAT=5 by default)
# Prints a markdown table; docs/performance.md records the numbers.
set -euo pipefail
source "$(dirname "$0")/mbs_common.sh"
repeat="${REPEAT:-5}"
best() { # best NAME CONFIG [--set ...]: the smallest /solver wall_seconds over the repeats
  local name="$1" cfg="$2"; shift 2
  local b=""
  for ((k = 0; k < repeat; ++k)); do
    "$flexuq" simulate "$here/configs/$cfg" --set "output=ratio-$name.h5" "$@" > "ratio-$name.log" 2>&1 ||
      { cat "ratio-$name.log"; exit 1; }
    w=$(/usr/bin/python3 -c "import h5py; print(h5py.File('ratio-$name.h5', 'r')['solver'].attrs['wall_seconds'])")
    b=$(/usr/bin/python3 -c "print(min(float('$w'), float('${b:-inf}')))")
  done
  echo "$b"
}
size() { # the unknowns a run's log reports: "N + M" (coordinates + constraint rows in use)
  sed -nE 's/.* ([0-9]+) \+ ([0-9]+) unknowns.*/\1 + \2/p; s/.* ([0-9]+) coordinates, ([0-9]+) constraint rows.*/\1 + \2/p' "ratio-$1.log" | head -1
}
nproc_=$(nproc --all); load=$(cut -d' ' -f1 /proc/loadavg)
p1=$(best pct1 slider-crank-seed004-pct.yaml --set uncertainty.order=1)
p0=$(best pct0 slider-crank-seed004-pct.yaml --set uncertainty.order=0)
ps=$(best pct1ps slider-crank-seed004-pct.yaml --set uncertainty.order=1 --set uncertainty.quadrature_points=2)
d3=$(best det3d slider-crank-seed004.yaml)
d2=$(best det2d slider-crank-seed004-2d.yaml)
dp=$(best detplanar slider-crank-seed004-planar.yaml)
echo "cores $nproc_, load average $load at the start, best of $repeat"
echo "| run | coordinates + rows (all rows before the redundancy check) | solve wall [s] | PCT order 1 exact / this run | PCT order 1 4-node / this run |"
echo "|---|---|---|---|---|"
/usr/bin/python3 - "$p1" "$ps" "$p0" "$d3" "$d2" "$dp" "$(size pct1)" "$(size pct1ps)" "$(size pct0)" "$(size det3d)" \
  "$(size det2d)" "$(size detplanar)" <<'PY'
import sys
import h5py, numpy as np
w = list(map(float, sys.argv[1:7]))
names = ["PCT order 1, exact (9 quadrature nodes)", "PCT order 1, pseudo-spectral 2 points per input (4 nodes)",
         "PCT order 0 (same code)", "simulate, 3-D joints", "simulate, 3-D bodies held in the plane (2-D joints)",
         "simulate, planar bodies"]
for name, size, t in zip(names, sys.argv[7:13], w):
    print(f"| {name} | {size} | {t:.4f} | {w[0] / t:.1f} | {w[1] / t:.1f} |")
# What the 4-node rule gives up: its statistics against the exact projection's.
with h5py.File("ratio-pct1.h5", "r") as a, h5py.File("ratio-pct1ps.h5", "r") as b:
    d = max(np.max(np.abs(a[f"statistics/{o}/std"][()] - b[f"statistics/{o}/std"][()])) / np.max(np.abs(a[f"statistics/{o}/std"][()]))
            for o in a["statistics"])
    m = max(np.max(np.abs(a[f"statistics/{o}/mean"][()] - b[f"statistics/{o}/mean"][()])) for o in a["statistics"])
print(f"4-node pseudo-spectral against the exact projection: std {d:.2g} relative, mean {m:.2g} absolute (all outputs, all times)")
PY
