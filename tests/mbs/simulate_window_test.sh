#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A load switched on and released (`forces[i].window: [start, end]`, seed 003's V17 force released after
# 10 s): a 4 kg block on a prismatic guide along x, pushed by 2 N on [0.2, 0.5] s, free before and after.
# Closed form: v = 0 before 0.2; v(t ≥ 0.5) = F (0.5 − 0.2)/m = 0.15 m/s; x(1) = F/(2m) 0.3² + 0.15·0.5
# = 0.0975 m. rk45 (adaptive, it steps onto the jumps) to 1e-7 of those; HHT at h = 0.01 (the window's
# ends on step times): no velocity before 0.2, exactly constant velocity after the release, and the impulse
# within 1.5 steps' F h/m of F·0.3/m (the trapezoid at each jump adds half a step: 0.005 = F h/m here). Refusals: start ≥ end, a window on a driver.
#   simulate_window_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
. "$src/tests/mbs/flexuq_run.sh" # run <log> <flexuq args...>, refuse <pattern> <yaml>
job() { # job <solver line> <output> [window]
  cat <<YAML
command: simulate
bodies:
  block: {type: rigid, mass: 4.0, inertia: [1, 1, 1], position: [0, 0, 0]}
joints:
  - {name: guide, type: prismatic, bodies: [ground, block], point: [0, 0, 0], axis: [1, 0, 0]}
forces:
  - {type: force, body: block, axis: [1, 0, 0], value: 2.0, window: ${3:-[0.2, 0.5]}}
solver: $1
animation: false
outputs:
  - {name: v, body: block, point: [0, 0, 0], quantity: velocity}
  - {name: x, body: block, point: [0, 0, 0], quantity: position}
output: $2
YAML
}
job "{type: rk45, rtol: 1.0e-10, atol: 1.0e-12, step: 1.0e-4, end: 1.0, output_step: 0.01}" rk.h5 > rk.yaml
job "{type: hht, alpha: -0.05, step: 0.01, end: 1.0, formulation: index-3}" hht.h5 > hht.yaml
run rk.log simulate rk.yaml
run hht.log simulate hht.yaml
PYTHONPATH="$src/tests/support" /usr/bin/python3 - <<'PY'
import h5py, numpy as np
from checks import check, finish
def near(what, err, tol):
    check(err <= tol, f"{what}: {err:.3g} (<= {tol:.3g})")
F, m, on, off = 2.0, 4.0, 0.2, 0.5
with h5py.File("rk.h5") as f:
    t = f["time"][:]; v = f["outputs/v"][:, 0]; x = f["outputs/x"][:, 0]
vx = np.where(t < on, 0.0, F / m * (np.minimum(t, off) - on))
xx = np.where(t < on, 0.0, F / (2 * m) * (np.minimum(t, off) - on) ** 2 + F / m * (off - on) * np.maximum(t - off, 0.0))
near("rk45 velocity = closed form", np.max(np.abs(v - vx)), 1e-7)
near("rk45 position = closed form", np.max(np.abs(x - xx)), 1e-7)
with h5py.File("hht.h5") as f:
    t = f["time"][:]; v = f["outputs/v"][:, 0]
before, after = t < on - 1e-9, t > off + 0.01 + 1e-9
near("hht: no motion before the window", np.max(np.abs(v[before])), 1e-14)
near("hht: constant velocity after the release", np.max(np.abs(v[after] - v[after][0])), 1e-12)
near("hht: impulse within 1.5 steps of F(end - start)/m", abs(v[-1] - F / m * (off - on)), 1.5 * F / m * 0.01)
finish()
PY
job "{type: rk45, step: 1.0e-4, end: 1.0}" bad.h5 "[0.5, 0.2]" > bad-order.yaml
refuse "forces\[0\].window.*start < end" bad-order.yaml
sed 's/value: 2.0, window: \[0.2, 0.5\]/value: 2.0/; s/axis: \[1, 0, 0\]}$/axis: [1, 0, 0], window: [0, 1]}/' rk.yaml > bad-driver.yaml
sed -i 's/type: prismatic/type: translation-driver/' bad-driver.yaml
refuse "window" bad-driver.yaml
echo "simulate window checks passed"
