#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `flexuq simulate` on configs/slider-crank-seed004.yaml (and its 2-D-joint twin) and configs/slider-crank.yaml, the HDF5
# result checked with h5py against seed 004's θ1(t) (independent reference integration of Ryan 2018 Sec. 3.7, 2e-6), the energy balance and
# the drift; then postproc/plot_simulation.py must write its three plots.
#   simulate_seed004_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
timeout 120 "$mpiexec" -n 1 "$flexuq" simulate "$src/configs/slider-crank-seed004.yaml" > run.log 2>&1 ||
  { echo "FAIL: flexuq simulate (seed 004)"; cat run.log; exit 1; }
grep -q "redundant constraint row" run.log || { echo "FAIL: the redundant row was not reported"; cat run.log; exit 1; }
/usr/bin/python3 - <<'PY'
import math, sys
import h5py, numpy as np
with h5py.File("slider-crank-seed004.h5", "r") as f:
    t = f["time"][()]
    th = math.pi / 4 + f["outputs/theta"][()][:, 0]
    e = f["energy"][()]
    d = f["drift"][()]
    x = f["outputs/slider_x"][()]
    assert f["outputs/theta"].shape == (len(t), 1), f["outputs/theta"].shape
    assert f["reactions/A"].shape == (len(t), 6)
    assert f["bodies/rod/q"].shape == (len(t), 7)
ok = True
for tt, ref in zip([0.5, 1.0, 1.5, 2.0, 2.5, 3.0], [0.794030, 0.819679, 0.845135, 0.853949, 0.854549, 0.855149]):
    k = int(np.argmin(abs(t - tt)))
    if abs(t[k] - tt) > 1e-12 or abs(th[k] - ref) > 2e-6:
        print(f"FAIL: theta1({tt}) = {th[k]:.7f}, seed 004 {ref}"); ok = False
if np.max(np.abs(e[:, 4] - e[0, 4])) > 2e-5 * np.max(e[:, 0]):
    print("FAIL: energy balance", np.max(np.abs(e[:, 4] - e[0, 4]))); ok = False
if np.max(d[:, 0]) > 1e-10:
    print("FAIL: drift", np.max(d[:, 0])); ok = False
if np.max(np.abs(x[:, 1])) > 1e-10:
    print("FAIL: the slider point left the x axis", np.max(np.abs(x[:, 1]))); ok = False
if abs(x[0, 0] - 4.0599649) > 1e-6:
    print("FAIL: x_C(0)", x[0, 0]); ok = False
sys.exit(0 if ok else 1)
PY
# The same mechanism in 2-D joints (plane + revolute-2d + point-on-line-2d): no redundant row, the
# same θ1(t) (measured 2e-8 apart, different constraint rows in the HHT iteration) and reactions at A.
timeout 120 "$mpiexec" -n 1 "$flexuq" simulate "$src/configs/slider-crank-seed004-2d.yaml" > run2d.log 2>&1 ||
  { echo "FAIL: flexuq simulate (seed 004, 2-D joints)"; cat run2d.log; exit 1; }
grep -q "redundant" run2d.log && { echo "FAIL: 2-D joints left a redundant row"; cat run2d.log; exit 1; }
grep -q "13 constraint rows" run2d.log || { echo "FAIL: expected 2 norm + 6 plane + 5 joint rows"; cat run2d.log; exit 1; }
/usr/bin/python3 - <<'PY'
import sys
import h5py, numpy as np
with h5py.File("slider-crank-seed004.h5", "r") as a, h5py.File("slider-crank-seed004-2d.h5", "r") as b:
    dth = np.max(np.abs(a["outputs/theta"][()] - b["outputs/theta"][()]))
    dx = np.max(np.abs(a["outputs/slider_x"][()] - b["outputs/slider_x"][()]))
    ra, rb = a["outputs/reaction_A"][()], b["outputs/reaction_A"][()]
    dr = np.max(np.abs(ra - rb)) / np.max(np.abs(ra))
    z = np.max(np.abs(b["bodies/rod/q"][()][:, 2]))
print(f"2-D vs 3-D joints: theta {dth:.3g} rad, slider {dx:.3g} m, reaction at A {dr:.3g} of its max, rod z {z:.2g}")
sys.exit(0 if dth < 1e-6 and dx < 1e-6 and dr < 1e-3 and z < 1e-12 else 1)
PY
# The issue's example (slider body, 3 redundant rows, gravity) at 2 ranks: runs, balances energy.
timeout 120 "$mpiexec" -n 2 "$flexuq" simulate "$src/configs/slider-crank.yaml" --set solver.end=0.5 > run2.log 2>&1 ||
  { echo "FAIL: flexuq simulate (slider-crank, 2 ranks)"; cat run2.log; exit 1; }
grep -q "3 redundant constraint row" run2.log || { echo "FAIL: expected 3 redundant rows"; cat run2.log; exit 1; }
/usr/bin/python3 - <<'PY'
import sys
import h5py, numpy as np
with h5py.File("slider-crank.h5", "r") as f:
    e = f["energy"][()]; d = f["drift"][()]; t = f["time"][()]
    r = f["outputs/reaction_D"][()]
bal = np.max(np.abs(e[:, 4] - e[0, 4])) / max(1.0, np.max(np.abs(e[:, :4])))
ok = abs(t[-1] - 0.5) < 1e-12 and bal < 1e-4 and np.max(d[:, 0]) < 1e-9 and np.all(np.isfinite(r))
if not ok:
    print("FAIL: slider-crank", t[-1], bal, np.max(d[:, 0])); sys.exit(1)
PY
/usr/bin/python3 "$src/postproc/plot_simulation.py" slider-crank-seed004.h5 > plot.log 2>&1 ||
  { echo "FAIL: plot_simulation.py"; cat plot.log; exit 1; }
for p in slider-crank-seed004_outputs.png slider-crank-seed004_energy.png slider-crank-seed004_drift.png; do
  [ -s "$p" ] || { echo "FAIL: $p not written"; cat plot.log; exit 1; }
done
grep -q "energy balance" plot.log || { echo "FAIL: no energy summary"; cat plot.log; exit 1; }
echo PASS
