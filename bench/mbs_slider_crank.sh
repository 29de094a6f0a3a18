#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Multibody benchmark (issue #8, not a test): seed 004's rigid slider-crank over 3 s with
# `flexuq simulate` (HHT α = −0.05, h = 1e-3; generalized-α; RK45) against SciPy's solve_ivp on the
# same DAE in seed 004's planar form (bench/mbs_slider_crank_scipy.py), in one run on one machine.
# The issue's benchmark (seed 000's flexible slider-crank with CB rods): bench/mbs_flexible_slider_crank.sh.
#   bench/mbs_slider_crank.sh [--out bench/results] [--flexuq PATH]
# Prints a markdown table; docs/performance.md records the numbers.
set -euo pipefail
source "$(dirname "$0")/mbs_common.sh"
job="$here/configs/slider-crank-seed004.yaml"
echo "| integrator | steps | θ1(3 s) | max drift | wall time [s] |"
echo "|---|---|---|---|---|"
for variant in "hht" "generalized-alpha" "rk45"; do
  extra=(--set solver.type=$variant --set output=bench-$variant.h5)
  [ "$variant" = rk45 ] && extra+=(--set solver.rtol=1e-10 --set solver.atol=1e-12)
  "$flexuq" simulate "$job" "${extra[@]}" > "bench-$variant.log" 2>&1 || { cat "bench-$variant.log"; exit 1; }
  /usr/bin/python3 - "bench-$variant.h5" "$variant" <<'PY'
import math, sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    s = f["solver"].attrs
    th = math.pi / 4 + f["outputs/theta"][-1, 0]
    print(f"| flexuq {sys.argv[2]} | {int(s['steps'])} | {th:.7f} | {float(s['max_drift']):.1e} | {float(s['wall_seconds']):.4f} |")
PY
done
/usr/bin/python3 "$here/bench/mbs_slider_crank_scipy.py" > scipy.log
th=$(awk '/scipy_theta1/ {print $7}' scipy.log)
dr=$(awk '/scipy_drift/ {print $2}' scipy.log)
nf=$(awk '/scipy_rhs_evaluations/ {print $2}' scipy.log)
wt=$(awk '/scipy_wall_seconds/ {print $2}' scipy.log)
echo "| SciPy solve_ivp RK45 (rtol 1e-10), index-1, no projection | $nf RHS | $th | $dr | $wt |"
echo "| reference integration of Ryan (2018) Sec. 3.7 | | 0.855149 | | |"
