#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 002's generalised superelement in 3-D (`type: gs3d`, mbs/GsBody3d.hpp) in `flexuq simulate`, on
# the Craig–Bampton connector of configs/seed002-rod.yaml (6 modes):
#   S8 in 3-D: a pendulum hung by a spherical joint at END0, thrown about a skew axis under gravity (an
#       out-of-plane swing with a spin about the rod), against the floating-frame body held at the same
#       interface point (`type: flexible, frame: {interface: END0}`): the same frame (END0's pose) and the
#       same Ritz space, so the same Lagrangian in other coordinates; rk45 at rtol 1e-8 so that each run's
#       own error is far below the comparison;
#   the planar GS = the 3-D GS held in the plane: seed 002's slider-crank with the connector in two halves
#       fixed at the midpoint (configs/seed002-slider-crank-gs-2.yaml) with `type: gs3d` (out-of-plane
#       coordinates free, unexcited) against `type: gs` (the local rotations are rotation vectors, so in the
#       plane they are the planar body's angles exactly);
#   and refusals: a gs3d body without its frame point, a node output.
#   simulate_gs3d_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
cp "$src"/configs/seed002-{rod,slider-crank-gs-2}.yaml .
. "$src/tests/mbs/flexuq_run.sh" # run <log> <flexuq args...>, refuse <pattern> <yaml>
run reduce-rod.log reduce seed002-rod.yaml --set output=seed002-rod.h5
# The pendulum: END0 (mesh x = -0.15) at the origin, the rod turned 0.5 rad about [1, 1, 1] (placed so END0
# stays at the origin), ω = [2, 5, 20] rad/s; the mesh origin's velocity ω × (its offset from END0).
cat > pendulum.yaml <<'YAML'
command: simulate
bodies:
  rod: {type: gs3d, body: seed002-rod.h5, frame: {interface: END0}, position: P0,
        orientation: {axis: [1, 1, 1], angle: 0.5}, velocity: V0, angular_velocity: [2, 5, 20]}
joints:
  - {name: S, type: spherical, bodies: [ground, rod], point: [0, 0, 0], interface: END0}
forces:
  - {type: gravity, g: [0, 0, -9.81]}
solver: {type: rk45, rtol: 1.0e-8, atol: 1.0e-11, step: 1.0e-7, end: 0.01, output_step: 2.5e-4}
outputs:
  - {name: end_C, body: rod, point: [0.15, 0, 0], interface: END1, quantity: position}
  - {name: energy, quantity: energy}
  - {name: drift, quantity: drift}
output: gs3d-pendulum.h5
YAML
/usr/bin/python3 - <<'PY'
import numpy as np
ax = np.ones(3) / np.sqrt(3.0); a = 0.5
K = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
R = np.eye(3) + np.sin(a) * K + (1 - np.cos(a)) * K @ K
p0 = R @ np.array([0.15, 0, 0])          # END0 = p0 + R (-0.15, 0, 0) = 0
v0 = np.cross([2.0, 5.0, 20.0], p0)
fmt = lambda v: "[" + ", ".join(f"{x:.17g}" for x in v) + "]"
s = open("pendulum.yaml").read().replace("P0", fmt(p0)).replace("V0", fmt(v0))
open("pendulum.yaml", "w").write(s)
open("pendulum-ff.yaml", "w").write(s.replace("type: gs3d", "type: flexible").replace("gs3d-pendulum.h5", "ff-pendulum.h5"))
PY
run gs3d-pendulum.log simulate pendulum.yaml
run ff-pendulum.log simulate pendulum-ff.yaml
# The planar slider-crank as gs and as gs3d, rk45 over 0.005 s (0.75 rad of the crank), with the connector
s8=(--set solver.type=rk45 --set solver.rtol=1e-8 --set solver.atol=1e-11 --set solver.step=1e-7 --set solver.end=0.005)
# in two halves held together by a fixed joint at the midpoint (configs/seed002-slider-crank-gs-2.yaml): the
# planar gs holds the relative turn about z exactly, gs3d the whole relative rotation exactly.
run reduce-half.log reduce seed002-rod.yaml --set model.generator.length=0.15 --set model.generator.elements=4 \
    --set 'model.generator.origin=[-0.075, 0, 0]' --set output=seed002-half.h5
run gs-2.log simulate seed002-slider-crank-gs-2.yaml "${s8[@]}" --set output=gs-2.h5
run gs3d-2.log simulate seed002-slider-crank-gs-2.yaml "${s8[@]}" --set bodies.left.type=gs3d \
    --set bodies.right.type=gs3d --set output=gs3d-2.h5
# An L: the halves joined at a right angle by a fixed joint (the right half turned 90° about z), the left
# one hinged at END0 to the ground, under gravity. The planar gs holds θ_right − θ_left at its initial value
# (its fixed joint pulled it to 0 before, and rk45 stalled at t = 2e-4), gs3d the relative rotation.
cat > L.yaml <<'YAML'
command: simulate
bodies:
  left:  {type: gs, body: seed002-half.h5, frame: {interface: END0}, position: [0.075, 0, 0]}
  right: {type: gs, body: seed002-half.h5, frame: {interface: END0}, position: [0.15, 0.075, 0],
          orientation: {axis: [0, 0, 1], angle: 1.5707963267948966}}
joints:
  - {name: O, type: revolute, bodies: [ground, left], point: [0, 0, 0], axis: [0, 0, 1], interface: END0}
  - {name: M, type: fixed, bodies: [left, right], point: [0.15, 0, 0], axis: [0, 0, 1], interface: [END1, END0]}
forces:
  - {type: gravity, g: [0, -9.81, 0]}
solver: {type: rk45, rtol: 1.0e-8, atol: 1.0e-11, step: 1.0e-7, end: 0.01, output_step: 1.0e-3}
outputs:
  - {name: tip, body: right, point: [0.075, 0, 0], interface: END1, quantity: position}
output: gs-L.h5
YAML
run gs-L.log simulate L.yaml
run gs3d-L.log simulate L.yaml --set bodies.left.type=gs3d --set bodies.right.type=gs3d --set output=gs3d-L.h5
# Refusals: exit 2, named.
sed 's/frame: {interface: END0}, //' pendulum.yaml > bad-frame.yaml
refuse "bodies.rod.*a gs3d body needs frame" bad-frame.yaml
sed 's/  - {name: energy, quantity: energy}/  - {name: n5, body: rod, node: 5, quantity: position}/' pendulum.yaml > bad-node.yaml
refuse "outputs\[1\].node.*is a gs body" bad-node.yaml
PYTHONPATH="$src/postproc:$src/tests/support" /usr/bin/python3 - <<'PY'
import h5py, numpy as np
from plot_deflection import deflection
from checks import check, finish
def out(path, name):
    with h5py.File(path, "r") as f:
        return f["outputs/" + name][()]
c3, cf = out("gs3d-pendulum.h5", "end_C"), out("ff-pendulum.h5", "end_C")
z = np.ptp(c3[:, 2])
check(z > 1e-3, f"the pendulum leaves its plane: end C moves {z:.3g} m in z")
e1 = np.max(np.abs(c3 - cf)) / 0.3
check(e1 < 1e-8, f"S8 in 3-D: pendulum end C, gs3d vs floating frame (END0) {e1:.3g} of L (< 1e-8)")
with h5py.File("gs3d-pendulum.h5", "r") as f:
    drift = np.max(f["drift"][()][:, 0])
    steps = f["/solver"].attrs["steps"]
check(drift < 1e-8, f"gs3d pendulum: drift {drift:.2g} (norm rows of the interface Euler parameters included)")
with h5py.File("gs3d-pendulum.h5", "r") as f:
    en = f["energy"][()]  # T, V, U, W, balance T + V + U - W
bal = np.ptp(en[:, 4]) / np.max(en[:, 0])
check(bal < 1e-8, f"gs3d pendulum: energy balance varies by {bal:.2g} of max T = {np.max(en[:, 0]):.4g} J")
cs, c3s = out("gs-2.h5", "end_C"), out("gs3d-2.h5", "end_C")
e2 = np.max(np.abs(cs - c3s)) / 0.3
check(e2 < 1e-8, f"planar gs = gs3d held in the plane (slider-crank, end C): {e2:.3g} of L (< 1e-8)")
check(np.max(np.abs(c3s[:, 2])) < 1e-12, f"gs3d slider-crank stays in the plane: |z| {np.max(np.abs(c3s[:, 2])):.2g}")
_, _, d2 = deflection("gs-2.h5")
_, _, d3 = deflection("gs3d-2.h5")
e3 = np.max(np.abs(d2 - d3)) / np.max(np.abs(d2))
check(e3 < 1e-8, f"planar gs = gs3d, two halves fixed at the midpoint: d {e3:.3g} of max |d| = {np.max(np.abs(d2)):.4f} (< 1e-8)")
tl, t3 = out("gs-L.h5", "tip"), out("gs3d-L.h5", "tip")
check(np.linalg.norm(tl[-1, :2] - tl[0, :2]) > 5e-4, f"the L swings: its tip moves {np.linalg.norm(tl[-1, :2] - tl[0, :2]):.3g} m")
e4 = np.max(np.abs(tl - t3)) / 0.15
check(e4 < 1e-9, f"an L fixed at 90°: planar gs = gs3d at the tip {e4:.3g} of L (< 1e-9)")
for name in ["gs3d-pendulum", "ff-pendulum", "gs-2", "gs3d-2", "gs-L", "gs3d-L"]:
    with h5py.File(f"{name}.h5", "r") as f:
        print(f"{name}: {f['/solver'].attrs['steps']} rk45 steps")
finish()
PY
