#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Intrusive PCT benchmark (issue #35, not a test): seed 004's slider-crank with uncertain link lengths
# (configs/slider-crank-seed004-pct.yaml) by `flexuq simulate` with `uncertainty.order` 0 (the
# deterministic model in the same scheme) … 3, traditional and variational routes, h = 1e-3 over 3 s;
# the wall time of the solve (/solver wall_seconds) and the largest error of θ1 and x_C (mean, std)
# over t = 0.5 … 3 s against the digest's exact statistics (Sec. 4.2b).
#   bench/pct_slider_crank.sh [--out bench/results] [--flexuq PATH]
# Prints a markdown table; docs/performance.md records the numbers.
set -euo pipefail
source "$(dirname "$0")/mbs_common.sh"
job="$here/configs/slider-crank-seed004-pct.yaml"
echo "| order | route | unknowns | nodes | solve wall [s] | / order 0 | θ1 mean err | θ1 std err (rel) | x_C mean err | x_C std err (rel) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for variant in "0 traditional" "1 traditional" "1 variational" "2 traditional" "3 traditional"; do
  set -- $variant
  f="bench-pct-$1-$2.h5"
  "$flexuq" simulate "$job" --set "output=$f" --set "uncertainty.order=$1" --set "uncertainty.route=$2" > "$f.log" 2>&1 ||
    { cat "$f.log"; exit 1; }
  /usr/bin/python3 - "$f" "bench-pct-0-traditional.h5" <<'PY'
import sys, h5py, numpy as np
ex = {0.5: (0.794089, 1.028592e-3, 4.038690, 1.737066e-1), 1.0: (0.819910, 4.061148e-3, 3.982088, 1.741027e-1),
      1.5: (0.845533, 7.053596e-3, 3.924938, 1.745397e-1), 2.0: (0.854410, 8.119002e-3, 3.904930, 1.747043e-1),
      2.5: (0.855023, 8.242109e-3, 3.903552, 1.747196e-1), 3.0: (0.855635, 8.365137e-3, 3.902175, 1.747351e-1)}
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "r") as f0:
    t = f["time"][()]
    g, s = f["galerkin"].attrs, f["solver"].attrs
    e = np.zeros(4)
    for tt, ref in ex.items():
        k = int(np.argmin(abs(t - tt)))
        got = (f["statistics/crank.angle/mean"][k], f["statistics/crank.angle/std"][k], f["statistics/C.x/mean"][k],
               f["statistics/C.x/std"][k])
        e = np.maximum(e, [abs(got[0] - ref[0]), abs(got[1] / ref[1] - 1), abs(got[2] - ref[2]), abs(got[3] / ref[3] - 1)])
    w, w0 = float(s["wall_seconds"]), float(f0["solver"].attrs["wall_seconds"])
    n = f["galerkin/q"].shape[1] + f["galerkin/lambda"].shape[1]
    route = g["route"].decode() if isinstance(g["route"], bytes) else g["route"]
    print(f"| {int(g['order'])} | {route} | {n} | {int(g['quadrature_points'])**2} | {w:.3f} | {w / w0:.1f} | "
          f"{e[0]:.1e} | {e[1]:.1e} | {e[2]:.1e} | {e[3]:.1e} |")
PY
done
