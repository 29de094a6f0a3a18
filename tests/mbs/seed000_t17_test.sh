#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 000 T17 (Sec. 7.2.1, Fig. 7.3b, eq. 7.5): the thesis' "forward Euler" (semi-explicit:
# q̇ += h q̈, q += h q̇, then the Newton–Raphson projection; solver.type euler) at its dt = 1e-6 s
# against a tight Runge–Kutta reference on seed 000's own flexible slider-crank over its whole
# 0.25 s: both bars are the seed's Craig–Bampton bars (configs/seed000-{bar1,rod}-cb.yaml: END0,
# END1 and the CoM node MID as interfaces, the frame holding MID) with the boundary modes only
# (reduce.modes.count = 0: the set the seed retains, "6 rigid + 12 boundary" per bar, T6), and the
# joints are the seed's Table 7.2 set of 11 rows, 1 DOF: O = 3 translations + 1 rotation (a
# spherical joint and a dot-1 row), A = a revolute (3 + 2), B = point on the x axis (2). The
# mechanism turns about global z (configs/slider-crank-flexible.yaml's assumption); the seed's
# (R_1 n_y)ᵀ n_z = 0 for a loop turning about y is here (R_1 n_z)ᵀ n_y = 0: the crank's z ⊥ global y.
#
# X = the 15 coordinates of the seed (frame origins 1, 2 and the points O, A, B);
# E_integration(t) = Σ(X_FE − X_RK)² / Σ X_FE² (7.5). Asserted:
# 1. 11 joint rows (+ 2 Euler-parameter norms = 13), none dropped as redundant (T6: full row rank).
# 2. ‖Φ‖∞ < 1e-10 at every output step of every run (the digest's suggestion; solver.tol 1e-11: the
#    projection stops at 1e-11, the Euler-parameter normalisation after it leaves ≤ 1.1e-11).
# 3. The reference: rk45 (Dormand–Prince 5(4) on the index-1 form, the seed's ode45 with a tolerance
#    it does not give) at rtol 1e-6, atol 1e-8: against rtol 1e-7 / atol 1e-9 (35 s, not rerun
#    here) max E = 4.3e-16 (max |ΔX| 6.5e-9 m), six decades below Euler's error. Chosen over
#    HHT / generalized-α at a smaller step: those are second order with numerical damping of the
#    boundary modes' vibration, which the step torque excites (HHT α = −0.05 at h = 1e-6 is as far
#    from the reference as Euler over the first 0.01 s).
# 4. Euler at h = 1e-6: max_t E_integration = 3.61e-10 (at t = 0.163 s), within 20 %; the seed
#    calls it "small" without a number (digest T17). Its meaning comes from 5.
# 5. First order: Euler at 2h = 2e-6 gives 1.47e-9, E(2h)/E(h) = 4.07 (E is squared: 4 = 2²),
#    asserted in [3.4, 4.6], i.e. an observed order log2 √ratio in [0.88, 1.10]: the difference to
#    the reference is Euler's own O(h) error, not the reference's.
# The seed's second curve (12 internal modes per bar added, configs/seed000-*-cb.yaml as they are)
# makes the system stiff: rk45 needs ~14 s per 0.01 s of motion there (350 s for 0.25 s), so it is
# not run; on 0.01 s it gives the same picture (E(1e-6) 2.2e-13, E(2e-6)/E(1e-6) = 3.8).
#   seed000_t17_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
cp "$src"/configs/seed000-{bar1,rod}-cb.yaml .
for b in bar1 rod; do
  timeout 120 "$mpiexec" -n 1 "$flexuq" reduce seed000-$b-cb.yaml --set reduce.modes.count=0 --set output=$b-b.h5 \
    > reduce-$b.log 2>&1 || { echo "FAIL: reduce seed000-$b-cb.yaml (boundary modes only)"; cat reduce-$b.log; exit 1; }
done
cat > t17.yaml <<'YAML'
command: simulate
bodies:                  # configs/slider-crank-seed000-cb.yaml's poses (crank at 45°, A above the x axis)
  crank: {type: flexible, body: bar1-b.h5, frame: {interface: MID}, position: [0.053033008588991064, 0.05303300858899106, 0],
          orientation: {axis: [0, 0, 1], angle: 0.7853981633974483}}
  rod:   {type: flexible, body: rod-b.h5, frame: {interface: MID}, position: [0.24637816918200495, 0.05303300858899106, 0],
          orientation: {axis: [0, 0, 1], angle: -0.3613671239067078}}
joints:                  # Table 7.2: 4 + 5 + 2 = 11 rows
  - {name: O, type: spherical, bodies: [ground, crank], point: [0, 0, 0], interface: END0}
  - {name: O-axis, type: dot1, bodies: [ground, crank], axis: [0, 1, 0], axis2: [0, 0, 1], interface: END0}
  - {name: A, type: revolute, bodies: [crank, rod], point: [0.10606601717798213, 0.10606601717798211, 0],
     axis: [0, 0, 1], interface: [END1, END0]}
  - {name: B, type: point-on-line, bodies: [ground, rod], point: [0.38669032118602775, 0, 0],
     point2: [0.38669032118602775, 0, 0], axis: [1, 0, 0], interface: END1}
forces:
  - {type: torque, body: crank, axis: [0, 0, 1], value: 1.0}
solver: {type: euler, step: 1.0e-6, end: 0.25, tol: 1.0e-11, output_step: 1.0e-3}
outputs:
  - {name: frame1, body: crank, quantity: coordinates}
  - {name: frame2, body: rod, quantity: coordinates}
  - {name: x_O, body: crank, point: [-0.075, 0, 0], interface: END0, quantity: position}
  - {name: x_A, body: crank, point: [0.075, 0, 0], interface: END1, quantity: position}
  - {name: x_B, body: rod, point: [0.15, 0, 0], interface: END1, quantity: position}
  - {name: drift, quantity: drift}
animation: false
output: euler.h5
YAML
run() { # run <name> <args...>: one simulation in the background (2 cores: the reference beside the Euler runs)
  local name="$1"; shift
  timeout 240 "$mpiexec" -n 1 "$flexuq" simulate t17.yaml --set output=$name.h5 "$@" > $name.log 2>&1 &
}
run rk --set solver.type=rk45 --set solver.rtol=1e-6 --set solver.atol=1e-8
run euler
wait -n || { echo "FAIL: a simulation"; cat rk.log euler.log; exit 1; }
run euler2 --set solver.step=2e-6
wait || true
for n in rk euler euler2; do
  grep -q -- "-> $n.h5" $n.log || { echo "FAIL: flexuq simulate ($n)"; cat $n.log; exit 1; }
done
grep -q "38 coordinates, 13 constraint rows" euler.log ||
  { echo "FAIL: expected 2 x (7 + 12) coordinates and 11 joint rows + 2 Euler-parameter norms"; cat euler.log; exit 1; }
PYTHONPATH="$src/tests/support" /usr/bin/python3 - <<'PY'
import h5py, numpy as np
from checks import check, finish
def load(name):
    with h5py.File(name + ".h5", "r") as f:
        o = f["outputs"]
        X = np.hstack([o["frame1"][:, :3], o["frame2"][:, :3], o["x_O"][()], o["x_A"][()], o["x_B"][()]])
        return f["time"][()], X, f["drift"][()][:, 0], [s.decode() for s in f["redundant_rows"][()]]
t, ref, d_rk, red = load("rk")
check(red == [""], f"T6: no constraint row dropped as redundant (11 independent rows): {red}")
check(len(t) == 251 and abs(t[-1] - 0.25) < 1e-12, f"output times 0 ... 0.25 s every 1 ms ({len(t)}, {t[-1]})")
def e_integration(name):
    tt, X, d, _ = load(name)
    check(X.shape == ref.shape and np.allclose(tt, t, atol=1e-12), f"{name}: the reference's output times")
    check(np.max(d) < 1e-10, f"{name}: |Phi| < 1e-10 at every output step (max {np.max(d):.3g})")
    return np.sum((X - ref) ** 2, axis=1) / np.sum(X ** 2, axis=1)
check(np.max(d_rk) < 1e-10, f"rk45: |Phi| < 1e-10 at every output step (max {np.max(d_rk):.3g})")
e1, e2 = e_integration("euler"), e_integration("euler2")
m1, m2 = np.max(e1), np.max(e2)
print(f"E_integration(t) Euler h = 1e-6 at 0.05/0.1/0.15/0.2/0.25 s: " + " ".join(f"{e1[k]:.3g}" for k in (50, 100, 150, 200, 250)))
print(f"max E_integration: h = 1e-6 {m1:.4g} (at {t[np.argmax(e1)]:.3f} s), h = 2e-6 {m2:.4g}, ratio {m2 / m1:.3f}")
check(abs(m1 / 3.61e-10 - 1) < 0.2, f"T17: max E_integration(Euler 1e-6 vs rk45) = {m1:.4g} (3.61e-10 +- 20 %)")
check(3.4 < m2 / m1 < 4.6, f"T17: first order, E(2h)/E(h) = {m2 / m1:.3f} in [3.4, 4.6] (4 = 2^2)")
finish()
PY
