#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 001's GCMS bodies in motion (issue #8 deliverable 6; Zwölfer & Gerstmayr Eq. 58 with Newmark):
# the E2 bar of configs/seed001-bar-gcms.yaml as a pendulum (configs/pendulum-seed001-gcms.yaml).
# 1. The same file moved in the floating frame of its free-free modes (type: flexible) spans the same
#    displacements, so the two formulations differ only by their frames, at second order in the
#    deformation: the tip gap must fall with the step (measured 2.1e-6 m at h = 1e-3, 4.6e-7 m at
#    5e-4 on a 16-element mesh) to below 1e-6 m at h = 5e-4.
# 2. Newmark (β = 1/4, γ = 1/2) keeps the energy to second order in h: the balance at 5e-4 is below
#    2e-6 of the kinetic energy and 3–5× smaller than at 1e-3; constraint drift < 1e-10.
# 3. A stiffer bar approaches the rigid pendulum as 1/stiffness: the tip gap to a rigid body with the
#    bar's mass and inertia falls 30–300× when the stiffness rises 100× (measured ≈ 100×).
# 4. Interfaces are node means, linear in q: the XMAX output equals the mean of the XMAX nodes of the
#    animation's deformed geometry; the node output equals that node of the animation.
#    Recovered stresses (S Âᵀ q_flx): the largest von Mises stress against the floating frame's, to
#    second order (measured 22 Pa at h = 1e-3, 4.8 Pa at 5e-4, of 1.9e5 Pa), and the animation's field.
#    The whole pendulum turned (axis (1, 2, 3), 1 rad) and moved, gravity turned with it: the turned
#    tip and the same von Mises stress (measured 8e-10 m, 0.16 Pa of 1.9e5: the Newton tolerance).
#    A free bar spinning at 10 rad/s with its centre of mass moving: the centre follows v t (2e-14 m),
#    the kinetic energy at t = 0 is the rigid one, the axis turns at ω (1.2e-4 rad: the stretch).
#    The same bar pushed at XMAX by 100 N: the force's work equals the rise of kinetic plus strain energy
#    (2.4e-5 J of 35 J at h = 5e-4: Newmark's second-order error).
# 5. B14 (seed 001 Eq. 70): with the unpreconditioned Φ (strategy none, no scaling, no SVD loop)
#    cond(M̂ + τ²/4 K̂) at τ = 1e-4 exceeds cond(Φ) by 4–8 orders; the preconditioned default basis
#    lowers it by more than 1e6.
# 6. Bad input: a revolute joint (an axis on the GCMS body), a point off the interface's reference,
#    modal damping, a torque on the body, an angle output → exit 2 naming the body.
#   simulate_gcms_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
py=/usr/bin/python3
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
cp "$src"/configs/{seed001-bar-gcms,pendulum-seed001-gcms}.yaml .
"$mpiexec" -n 2 "$flexuq" reduce seed001-bar-gcms.yaml > reduce.log 2>&1 || { cat reduce.log; exit 1; }
"$mpiexec" -n 2 "$flexuq" reduce seed001-bar-gcms.yaml --set reduce.gcms.strategy=none --set reduce.gcms.scaling=false \
  --set reduce.gcms.svd_loop=false --set output=raw.h5 > raw.log 2>&1 || { cat raw.log; exit 1; }
run() { # name, extra --set arguments
  local name="$1"; shift
  "$flexuq" simulate pendulum-seed001-gcms.yaml --set output="$name.h5" "$@" > "$name.log" 2>&1 || { cat "$name.log"; exit 1; }
}
run g1 --set solver.step=1e-3
run g5
run f1 --set solver.step=1e-3 --set bodies.bar.type=flexible --set animation=false
run f5 --set bodies.bar.type=flexible --set animation=false
run s100 --set bodies.bar.stiffness_scale=100 --set animation=false
# The whole pendulum turned and moved (pose, joint point and gravity): the pose becomes q0 (gcms_pose).
"$py" - <<'PY'
import numpy as np
ax = np.array([1, 2, 3.0]) / np.sqrt(14.0); th = 1.0
K = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
R = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
P = np.array([0.5, -1.0, 2.0])
s = open("pendulum-seed001-gcms.yaml").read()
rep = [("bar: {type: gcms, body: seed001-bar-gcms.h5}",
        "bar: {type: gcms, body: seed001-bar-gcms.h5, position: [%r, %r, %r], orientation: {axis: [1, 2, 3], angle: 1.0}}" % tuple(P)),
       ("point: [0, 0, 0], interface: XMIN", "point: [%r, %r, %r], interface: XMIN" % tuple(P)),
       ("g: [0, -9.81, 0]", "g: [%r, %r, %r]" % tuple(R @ np.array([0, -9.81, 0]))),
       ("interface: XMAX, point: [2, 0, 0]", "interface: XMAX")]   # default: the reference point
for a, b in rep:
    assert a in s, a
    s = s.replace(a, b)
open("turned.yaml", "w").write(s)
np.save("turn.npy", np.vstack([R, P]))
PY
"$flexuq" simulate turned.yaml --set output=turned.h5 --set animation=false > turned.log 2>&1 || { cat turned.log; exit 1; }
# A free bar spinning in space (no joint, no gravity): the initial rates of the pose (gcms_pose_rates).
cat > spin.yaml <<'YAML'
command: simulate
bodies:
  bar: {type: gcms, body: seed001-bar-gcms.h5, position: [0.3, 0.2, 0.1], velocity: [0.5, -0.2, 0.1], angular_velocity: [0, 0, 10]}
solver: {type: newmark, step: 5.0e-4, end: 0.2, tol: 1.0e-10, output_step: 1.0e-3}
outputs:
  - {name: a, body: bar, interface: XMIN, quantity: position}
  - {name: b, body: bar, interface: XMAX, quantity: position}
  - {name: energy, quantity: energy}
animation: false
output: spin.h5
YAML
"$flexuq" simulate spin.yaml > spin.log 2>&1 || { cat spin.log; exit 1; }
# A free bar pushed at XMAX by a constant force: the force's work goes into kinetic and strain energy.
sed 's/angular_velocity: \[0, 0, 10\]}/angular_velocity: [0, 0, 0]}/; s/^outputs:/forces:\n  - {type: force, body: bar, interface: XMAX, axis: [0, 1, 0], value: 100.0}\noutputs:/; s/^output: spin.h5/output: push.h5/' spin.yaml > push.yaml
"$flexuq" simulate push.yaml > push.log 2>&1 || { cat push.log; exit 1; }
cat > rigid.yaml <<'YAML'
command: simulate
bodies:
  bar: {type: rigid, mass: 20.0, inertia: [0.0333333333333333, 6.68333333333333, 6.68333333333333], position: [1, 0, 0]}
joints:
  - {name: A, type: spherical, bodies: [ground, bar], point: [0, 0, 0]}
forces:
  - {type: gravity, g: [0, -9.81, 0]}
solver: {type: newmark, step: 5.0e-4, end: 0.5, tol: 1.0e-10, output_step: 1.0e-3}
outputs:
  - {name: tip, body: bar, point: [1, 0, 0], quantity: position}
output: rigid.h5
YAML
"$flexuq" simulate rigid.yaml > rigid.log 2>&1 || { cat rigid.log; exit 1; }
PYTHONPATH="$src/tests/support" "$py" - <<'PY'
import h5py, numpy as np
from checks import check, finish
tip = lambda n: h5py.File(n + ".h5", "r")["outputs/tip"][:]
g1, g5, f1, f5, s100, rig = (tip(n) for n in ("g1", "g5", "f1", "f5", "s100", "rigid"))
check(g5.shape == rig.shape == (501, 3), f"501 outputs each ({g5.shape})")
check(abs(g5[-1, 1]) > 1.0, f"the bar has swung (tip y at 0.5 s {g5[-1, 1]:.3f} m)")
gap1, gap5 = np.abs(g1 - f1).max(), np.abs(g5 - f5).max()
check(gap5 < 1e-6 and gap1 > 2.5 * gap5, f"GCMS vs floating frame on the same file: {gap1:.2e} m (h 1e-3), {gap5:.2e} m (h 5e-4)")
vm = lambda n: h5py.File(n + ".h5", "r")["outputs/von_mises"][:, 0]
vg1, vg5, vf1, vf5 = (vm(n) for n in ("g1", "g5", "f1", "f5"))
dv1, dv5 = np.abs(vg1 - vf1).max(), np.abs(vg5 - vf5).max()
check(vg5.max() > 1e5 and dv5 < 1e-4 * vg5.max() and dv1 > 2 * dv5,
      f"von Mises (max {vg5.max():.3e} Pa) vs the floating frame: {dv1:.2e} Pa (h 1e-3), {dv5:.2e} Pa (h 5e-4)")
with h5py.File("g5.h5", "r") as f:
    e = f["outputs/energy"][:]; drift = f["outputs/drift"][:]
    av = f["animation/bar/von_mises"][:].max(axis=1)
    check(np.abs(av - vg5).max() < 1e-9 * vg5.max(), "the animation's von Mises field peaks at the output's value")
with h5py.File("g1.h5", "r") as f:
    e1 = f["outputs/energy"][:]
b5, b1, kmax = np.abs(e[:, 4]).max(), np.abs(e1[:, 4]).max(), e[:, 0].max()
check(b5 < 2e-6 * kmax and 3 < b1 / b5 < 5, f"energy balance {b1:.2e} J (h 1e-3), {b5:.2e} J (h 5e-4) of {kmax:.1f} J kinetic")
check(e[:, 2].max() > 1e-3, f"the bar deforms (strain energy up to {e[:, 2].max():.3e} J)")
check(np.abs(drift).max() < 1e-10, f"constraint drift {np.abs(drift).max():.2e}")
T = np.load("turn.npy"); R, P = T[:3], T[3]
tt = tip("turned"); vt = vm("turned")
check(np.abs(tt - (P + g5 @ R.T)).max() < 1e-8 and np.abs(vt - vg5).max() < 1e-5 * vg5.max(),
      f"turned and moved: tip {np.abs(tt - (P + g5 @ R.T)).max():.1e} m, von Mises {np.abs(vt - vg5).max():.1e} Pa from the turned run")
with h5py.File("spin.h5", "r") as f:
    t = f["time"][:]; a = f["outputs/a"][:]; b = f["outputs/b"][:]; es = f["outputs/energy"][:]
mid = (a + b) / 2 - (np.array([1.3, 0.2, 0.1]) + np.outer(t, [0.5, -0.2, 0.1]))   # the centre of mass
ang = np.unwrap(np.arctan2((b - a)[:, 1], (b - a)[:, 0])) - 10 * t
k0 = 0.5 * 20 * 0.3 + 0.5 * 6.68333333333333 * 100   # 1/2 m v^2 + 1/2 I w^2
tot = es[:, 0] + es[:, 2]
check(np.abs(mid).max() < 1e-10 and abs(es[0, 0] - k0) < 1e-9 * k0 and np.abs(ang).max() < 1e-3
      and np.abs(tot - tot[0]).max() < 1e-4 * k0,
      f"free spinning bar: centre {np.abs(mid).max():.1e} m from v t, kinetic energy at 0 {es[0, 0]:.6f} J "
      f"(rigid {k0:.6f}), angle {np.abs(ang).max():.1e} rad from w t (stretch), energy {np.abs(tot - tot[0]).max():.1e} J")
with h5py.File("push.h5", "r") as f:
    ep = f["outputs/energy"][:]
check(ep[-1, 3] > 10 and ep[:, 2].max() > 1e-3 and np.abs(ep[:, 4] - ep[0, 4]).max() < 1e-5 * ep[-1, 3],
      f"pushed at XMAX: work {ep[-1, 3]:.3f} J = the rise of kinetic + strain energy to {np.abs(ep[:, 4] - ep[0, 4]).max():.1e} J")
r1, r100 = np.abs(g5 - rig).max(), np.abs(s100 - rig).max()
check(30 < r1 / r100 < 300 and r100 < 2e-5, f"to the rigid pendulum: {r1:.2e} m, 100x stiffer {r100:.2e} m")
with h5py.File("g5.h5", "r") as f, h5py.File("seed001-bar-gcms.h5", "r") as b:
    geo = f["animation/bar/geometry"][:]
    xmax = b["/mesh/node_sets/XMAX"][:]
    ids = list(b["/mesh/node_ids"][:])
    node = f["outputs/tip_node"][:]
    mean = geo[:, xmax, :].mean(axis=1)
    check(np.abs(mean - g5).max() < 1e-12, f"XMAX output = mean of its nodes in the animation ({np.abs(mean - g5).max():.1e} m)")
    check(np.abs(geo[:, ids.index(331), :] - node).max() < 1e-12, "node output = the animation's node")
with h5py.File("raw.h5", "r") as f, h5py.File("seed001-bar-gcms.h5", "r") as p:
    cphi = f["/reduced/diagnostics/gcms_stages"][-1, 2]
    cj = dict(map(tuple, f["/reduced/diagnostics/gcms_cond_newmark"][:]))
    cjp = dict(map(tuple, p["/reduced/diagnostics/gcms_cond_newmark"][:]))
    orders = np.log10(cj[1e-4] / cphi)
    check(4 <= orders <= 8, f"B14: cond(M+tau^2/4 K) at tau 1e-4 = {cj[1e-4]:.2e}, cond(Phi) = {cphi:.2e}: {orders:.1f} orders")
    check(cj[1e-4] / cjp[1e-4] > 1e6, f"preconditioned: cond(M+tau^2/4 K) = {cjp[1e-4]:.2e}")
finish()
PY
bad() { # label, expected message part, sed expression applied to the job
  local label="$1" want="$2" expr="$3"
  sed "$expr" pendulum-seed001-gcms.yaml > bad.yaml
  cmp -s bad.yaml pendulum-seed001-gcms.yaml && { echo "FAIL $label: the edit did not apply"; exit 1; }
  set +e; "$flexuq" simulate bad.yaml --set output=bad.h5 > bad.log 2>&1; local rc=$?; set -e
  if [ $rc -ne 2 ] || ! grep -q "$want" bad.log; then echo "FAIL $label: exit $rc"; cat bad.log; exit 1; fi
  echo "ok   $label: exit 2 ($(grep -o "$want" bad.log | head -1))"
}
bad "revolute on a GCMS body" "axis fixed in the GCMS body 'bar'" 's/type: spherical/type: revolute/'
bad "point off the reference" "a point must be its interface's reference point" 's/point: \[0, 0, 0\], interface: XMIN/point: [0, 0.05, 0], interface: XMIN/'
bad "modal damping" "takes no damping" 's/body: seed001-bar-gcms.h5}/body: seed001-bar-gcms.h5, damping: {ratio: 0.01}}/'
bad "torque on a GCMS body" "on the GCMS body 'bar'" 's/  - {type: gravity, g: \[0, -9.81, 0\]}/  - {type: gravity, g: [0, -9.81, 0]}\n  - {type: torque, body: bar, axis: [0, 0, 1], value: 1.0}/'
bad "a force along a body axis" "takes a global direction" 's/  - {type: gravity, g: \[0, -9.81, 0\]}/  - {type: gravity, g: [0, -9.81, 0]}\n  - {type: force, body: bar, interface: XMAX, axis: [0, 1, 0], frame: body, value: 1.0}/'
bad "angle output" "which has no angle" 's/  - {name: energy, quantity: energy}/  - {name: energy, quantity: energy}\n  - {name: swing, joint: A, quantity: angle}/'
bad "a point output off the body" "whose frame does not move" 's/  - {name: energy, quantity: energy}/  - {name: energy, quantity: energy}\n  - {name: p, body: bar, point: [1, 0, 0], quantity: position}/'
