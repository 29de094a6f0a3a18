#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 002's generalised superelement (GS) bodies in `flexuq simulate` (type: gs, mbs/GsBody.hpp) on
# the seed's slider-crank (configs/seed002-slider-crank-gs{,-2}.yaml, digest seed-002.md §5.1):
#   S8  the GS body reproduces the floating-frame body on the same basis (Craig–Bampton, 6 modes):
#       `type: flexible` with `frame: {interface: END0}` has the same frame (END0's pose) and the same
#       Ritz space (every column but END0's), so both are the same Lagrangian in other coordinates and
#       differ only by the integrator's error in each: one body, end C; two bodies joined by a revolute at
#       the midpoint, d(φ) of the midpoint;
#   G6  scaled internal modes (reduce.scaling: max) do not change d(φ) (1e-6 of max |d|; the step counts
#       of the seed's table are bench/gs_slider_crank.sh's);
#   and refusals: a joint a gs body cannot take, a node output, a missing frame, an unknown frame point.
#   simulate_gs_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
cp "$src"/configs/seed002-{rod,slider-crank,slider-crank-2,slider-crank-gs,slider-crank-gs-2}.yaml .
. "$src/tests/mbs/flexuq_run.sh" # run <log> <flexuq args...>, refuse <pattern> <yaml>
half=(--set model.generator.length=0.15 --set model.generator.elements=4 --set 'model.generator.origin=[-0.075, 0, 0]')
run reduce-rod.log reduce seed002-rod.yaml --set output=seed002-rod.h5
run reduce-half.log reduce seed002-rod.yaml "${half[@]}" --set output=seed002-half.h5
# S8: GS against the floating frame held at END0, same files, same HHT.
sed -e 's/{type: flexible, body: seed002-rod.h5,/{type: flexible, body: seed002-rod.h5, frame: {interface: END0},/' \
    -e '/name: mid/d' seed002-slider-crank.yaml > ff-1.yaml
sed -e 's/{type: flexible, body: seed002-half.h5,/{type: flexible, body: seed002-half.h5, frame: {interface: END0},/' \
    seed002-slider-crank-2.yaml > ff-2.yaml
# rk45 at rtol 1e-8 over 0.01 s (1.5 rad of the crank): the integrator's own error is far below the
# comparison (HHT h = 1e-5 errs by 1.1e-4 m at end C in either formulation, which would hide it).
s8=(--set solver.type=rk45 --set solver.rtol=1e-8 --set solver.atol=1e-11 --set solver.step=1e-7 --set solver.end=0.01)
run gs-1.log simulate seed002-slider-crank-gs.yaml "${s8[@]}" --set output=gs-1.h5
run ff-1.log simulate ff-1.yaml "${s8[@]}" --set output=ff-1.h5
# Two bodies joined at the midpoint by a revolute (a fixed joint differs: the floating-frame body's
# attached axis is linear in its interface's rotation, a + θ × a, so its fixed joint holds tan Δ = θ where
# the GS holds Δ = θ exactly; the two differ at third order in θ: 4.4e-3 of max |d| after 0.02 s).
sed 's/name: M, type: fixed/name: M, type: revolute/' seed002-slider-crank-gs-2.yaml > gs-2.yaml
sed 's/name: M, type: fixed/name: M, type: revolute/' ff-2.yaml > ff-2r.yaml
run gs-2.log simulate gs-2.yaml "${s8[@]}" --set output=gs-2.h5
run ff-2.log simulate ff-2r.yaml "${s8[@]}" --set output=ff-2.h5
# G6 (short): two GS bodies with the adaptive rk45 over 0.02 s, Craig–Bampton unscaled and scaled
# (bench/gs_slider_crank.sh runs the seed's table: three bases, two revolutions, step counts).
for sc in none max; do
  run "reduce-$sc.log" reduce seed002-rod.yaml "${half[@]}" --set reduce.scaling=$sc --set output=half-$sc.h5
  run "g6-$sc.log" simulate seed002-slider-crank-gs-2.yaml --set bodies.left.body=half-$sc.h5 \
      --set bodies.right.body=half-$sc.h5 --set solver.type=rk45 --set solver.rtol=1e-6 --set solver.atol=1e-9 \
      --set solver.step=1e-6 --set solver.end=0.02 --set output=g6-$sc.h5
done
# Refusals: exit 2, named.
sed 's/name: C, type: revolute, bodies: \[rod, slider\], point: \[0.45, 0, 0\], axis: \[0, 0, 1\]/name: C, type: revolute, bodies: [rod, slider], point: [0.45, 0, 0], axis: [0, 1, 0]/' \
    seed002-slider-crank-gs.yaml > bad-axis.yaml
refuse "joint 'C' (revolute): a gs body moves in the plane z = 0" bad-axis.yaml
sed 's/  - {name: energy, quantity: energy}/  - {name: n5, body: rod, node: 5, quantity: position}/' seed002-slider-crank-gs.yaml > bad-node.yaml
refuse "outputs\[3\].node.*is a gs body" bad-node.yaml
sed 's/frame: {interface: END0}, //' seed002-slider-crank-gs.yaml > bad-frame.yaml
refuse "bodies.rod.*a gs body needs frame" bad-frame.yaml
sed 's/frame: {interface: END0}/frame: {interface: MID}/' seed002-slider-crank-gs.yaml > bad-point.yaml
refuse "frame.interface MID is not an interface point of the body (END0, END1)" bad-point.yaml
PYTHONPATH="$src/postproc:$src/tests/support" /usr/bin/python3 - <<'PY'
import h5py, numpy as np
from plot_deflection import deflection
from checks import check, finish
def out(path, name):
    with h5py.File(path, "r") as f:
        return f["outputs/" + name][()]
# S8, one body: end C (the slider end) of the GS body against the floating frame held at END0.
c_gs, c_ff = out("gs-1.h5", "end_C"), out("ff-1.h5", "end_C")
e1 = np.max(np.abs(c_gs - c_ff)) / 0.3
check(e1 < 1e-8, f"S8 one body: end C, GS vs floating frame (END0) {e1:.3g} of L (< 1e-8)")
check(np.max(np.abs(c_gs[:, 2])) < 1e-12, f"GS one body in the plane: |z| {np.max(np.abs(c_gs[:, 2])):.2g}")
# S8, two bodies: d(phi) of the midpoint.
_, _, d_gs = deflection("gs-2.h5")
_, _, d_ff = deflection("ff-2.h5")
e2 = np.max(np.abs(d_gs - d_ff)) / np.max(np.abs(d_ff))
check(e2 < 1e-8, f"S8 two bodies (revolute at M): d, GS vs floating frame (END0) {e2:.3g} of max |d| = {np.max(np.abs(d_ff)):.4f} (< 1e-8)")
for name in ["gs-1", "gs-2"]:
    with h5py.File(f"{name}.h5", "r") as f:
        drift = np.max(f["drift"][()][:, 0])
    check(drift < 1e-8, f"{name}: drift {drift:.2g}")
# G6: scaling the internal modes leaves d unchanged.
d6 = {sc: deflection(f"g6-{sc}.h5")[2] for sc in ["none", "max"]}
r = np.max(np.abs(d6["max"] - d6["none"])) / np.max(np.abs(d6["none"]))
check(r < 1e-6, f"G6 Craig-Bampton, scaled vs unscaled modes: d {r:.3g} of max |d| (< 1e-6)")
for name in ["gs-1", "gs-2", "ff-1", "ff-2"]:
    with h5py.File(f"{name}.h5", "r") as f:
        print(f"S8 {name}: {f['/solver'].attrs['steps']} rk45 steps")
finish()
PY
