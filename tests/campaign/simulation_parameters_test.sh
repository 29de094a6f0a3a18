#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Campaign parameters that set numbers of the simulate job (issue #35 item 1: a parameter named by a
# key path of the job, model.set expressions), through `flexuq campaign`:
#  1. a mass on a spring along a prismatic guide, x(t) = L + A cos(√(k/m) t), with an uncertain mass
#     (parameters.bodies.mass.mass) and an uncertain free length L that moves the body, the joint and
#     the spring's end (model.set): the collocation PCE's mean and std against the closed form's
#     expectation by 200-point Gauss–Legendre quadrature (numpy);
#  2. seed 004's slider-crank with uncertain link lengths (configs/slider-crank-seed004-uq.yaml,
#     collocation on 6 × 6 Gauss–Hermite points) against the digest's exact quadrature (Sec. 4.2b:
#     θ1 and x_C, mean and std at t = 0.5 … 3 s); the same job with Monte Carlo and LHS (mean within
#     3 std/√N, std within 25 %: seed 004 V16) and a regression PCE;
#  3. the collocation campaign bit-identical at 1 and 2 ranks and after a resume from a partial journal;
#  4. seed 004's mass-spring-damper (configs/msd-seed004.yaml: its closed form first, which also checks
#     that a spring's first end is where `point` says) with k ~ N(100, σ²) (parameter forces.1.stiffness):
#     collocation on p + 1 Gauss–Hermite points against the digest's Sec. 4.2a table, whose order-p
#     Galerkin columns it must reproduce (a coefficient linear in ξ: p + 1-point collocation = order-p
#     Galerkin) — σ = 3.333: 2 points = p 1, 4 points = p 3, 12 points = exact; σ = 10: 6 points = p 5.
# Usage: simulation_parameters_test.sh FLEXUQ MPIEXEC SRCDIR WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; src=$3; work=$4
py=/usr/bin/python3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { local n=$1; shift; "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }

# 1. Mass-spring: k = 100, amplitude A = 0.1 about the free length L.
cat > spring.yaml <<'YAML'
command: simulate
bodies:
  mass: {type: rigid, mass: 1.0, inertia: [0.1, 0.1, 0.1], position: [1.1, 0, 0]}
joints:
  - {name: slide, type: prismatic, bodies: [ground, mass], point: [1.1, 0, 0], axis: [1, 0, 0]}
forces:
  - {type: spring, bodies: [ground, mass], point: [0, 0, 0], point2: [1.1, 0, 0], stiffness: 100.0, length: 1.0}
solver: {type: hht, alpha: 0, step: 2.5e-4, end: 1.0, tol: 1.0e-12, output_step: 0.01}
outputs:
  - {name: x, body: mass, quantity: position}
output: spring.h5
YAML
cat > spring-uq.yaml <<'YAML'
model:
  simulation: spring.yaml
  set:
    bodies.mass.position.0: L + 0.1
    joints[0].point[0]: L + 0.1
    forces.0.point2.0: L + 0.1
    forces.0.length: L
parameters:
  bodies.mass.mass: {dist: uniform, low: 0.8, high: 1.2}
  L: {dist: uniform, low: 0.9, high: 1.1}
outputs: {simulation: [x], times: [0.5, 1.0]}
method: {type: pce, pce: {order: 3, fit: projection, grid: tensor, points: 8}}
campaign: {seed: 3}
output: spring-uq.h5
YAML
run 1 campaign spring-uq.yaml > spring.log
$py - <<'PY'
import sys
import h5py, numpy as np
with h5py.File("spring-uq.h5", "r") as f:
    mean, std = f["statistics/x/mean"][()], f["statistics/x/std"][()]
    names = [n.decode() if isinstance(n, bytes) else n for n in f["parameters/names"][()]]
    assert names == ["bodies.mass.mass", "L"], names
    assert f["samples/parameters"].shape == (64, 2), f["samples/parameters"].shape
x, w = np.polynomial.legendre.leggauss(200)
w = w / 2
m = 1.0 + 0.2 * x  # uniform on [0.8, 1.2]
ok = True
for i, t in enumerate([0.5, 1.0]):
    c = 0.1 * np.cos(np.sqrt(100.0 / m) * t)
    mu = 1.0 + w @ c
    sd = np.sqrt(0.2 ** 2 / 12 + w @ (c - w @ c) ** 2)
    em, es = abs(mean[3 * i] - mu), abs(std[3 * i] - sd) / sd
    print(f"spring t = {t}: mean {mean[3 * i]:.8f} (exact {mu:.8f}, {em:.2g}), std {std[3 * i]:.6g} (exact {sd:.6g}, {es:.2g} relative)")
    ok &= em < 2e-6 and es < 1e-4
    ok &= max(abs(mean[3 * i + 1]), abs(mean[3 * i + 2]), std[3 * i + 1], std[3 * i + 2]) < 1e-12  # y, z stay 0
sys.exit(0 if ok else 1)
PY

# 2. Seed 004's slider-crank with uncertain link lengths, collocation (and 3. across ranks and a resume).
cfg=$src/configs/slider-crank-seed004-uq.yaml
run 1 campaign "$cfg" --set output=sc1.h5 > sc1.log
run 2 campaign "$cfg" --set output=sc2.h5 > sc2.log
$py "$src/tests/campaign/compare_h5.py" 0 sc1.h5 sc2.h5
$py "$src/tests/support/keep_records.py" sc1.h5.journal part.h5.journal "k % 3 != 1"
run 2 campaign "$cfg" --set output=part.h5 --resume > part.log
grep -q "evaluated 12 sample" part.log || { echo "the resume should have evaluated the 12 dropped samples"; cat part.log; exit 1; }
$py "$src/tests/campaign/compare_h5.py" 0 sc1.h5 part.h5
# Monte Carlo, LHS and a regression PCE of the same job, to t = 1 s.
run 2 campaign "$cfg" --set output=mc.h5 --set 'outputs.times=[1.0]' --set method='{type: monte-carlo, samples: 100}' > mc.log
run 2 campaign "$cfg" --set output=lhs.h5 --set 'outputs.times=[1.0]' --set method='{type: lhs, samples: 50}' > lhs.log
run 2 campaign "$cfg" --set output=reg.h5 --set 'outputs.times=[1.0]' \
    --set method='{type: pce, samples: 30, pce: {order: 3, fit: regression}}' > reg.log
$py - <<'PY'
import math, sys
import h5py, numpy as np
# Seed 004 digest Sec. 4.2b: exact statistics (reduced-coordinate Lagrangian, RK4, 8 x 8 Gauss-Hermite).
times = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
theta = [(0.794089, 1.028592e-3), (0.819910, 4.061148e-3), (0.845533, 7.053596e-3),
         (0.854410, 8.119002e-3), (0.855023, 8.242109e-3), (0.855635, 8.365137e-3)]
xc = [(4.038690, 1.737066e-1), (3.982088, 1.741027e-1), (3.924938, 1.745397e-1),
      (3.904930, 1.747043e-1), (3.903552, 1.747196e-1), (3.902175, 1.747351e-1)]
def stats(path):
    with h5py.File(path, "r") as f:
        th = (f["statistics/theta/mean"][()] + math.pi / 4, f["statistics/theta/std"][()])
        x = (f["statistics/slider_x/mean"][()][0::3], f["statistics/slider_x/std"][()][0::3])
        n = f["samples/status"].shape[0]
        failed = int(np.count_nonzero(f["samples/status"][()]))
    return th, x, n, failed
ok = True
th, x, n, failed = stats("sc1.h5")
ok &= n == 36 and failed == 0
worst = [0.0] * 4
for i, t in enumerate(times):
    worst[0] = max(worst[0], abs(th[0][i] - theta[i][0]))
    worst[1] = max(worst[1], abs(th[1][i] - theta[i][1]) / theta[i][1])
    worst[2] = max(worst[2], abs(x[0][i] - xc[i][0]))
    worst[3] = max(worst[3], abs(x[1][i] - xc[i][1]) / xc[i][1])
print("collocation 6x6 vs exact: theta1 mean %.2g rad, std %.2g relative; x_C mean %.2g, std %.2g relative" % tuple(worst))
ok &= worst[0] < 3e-6 and worst[1] < 1e-4 and worst[2] < 2e-6 and worst[3] < 1e-5
for name, tol_mean in (("mc.h5", None), ("lhs.h5", None), ("reg.h5", (1e-6, 2e-3, 2e-5, 1e-4))):
    th, x, n, failed = stats(name)
    ok &= failed == 0
    for label, (mean, std), (ref_mean, ref_std) in (("theta1", th, theta[1]), ("x_C", x, xc[1])):
        dm, ds = abs(mean[0] - ref_mean), abs(std[0] - ref_std) / ref_std
        print(f"{name} ({n} samples) t = 1: {label} mean {mean[0]:.6f} (exact {ref_mean}, {dm:.2g}), "
              f"std {std[0]:.4g} (exact {ref_std}, {ds:.2g} relative)")
        if tol_mean is None:  # sampling: seed 004 V16
            ok &= dm <= 3 * ref_std / math.sqrt(n) and ds < 0.25
        else:
            k = 0 if label == "theta1" else 2
            ok &= dm < tol_mean[k] and ds < tol_mean[k + 1]
sys.exit(0 if ok else 1)
PY

# 4. Seed 004's mass-spring-damper: the deterministic run against its closed form, then k uncertain.
run 1 simulate "$src/configs/msd-seed004.yaml" > msd.log
$py - <<'PY'
import sys
import h5py, numpy as np
with h5py.File("msd-seed004.h5", "r") as f:
    t, y = f["time"][()], f["outputs/y"][()]
m, c, k, g = 1.0, 0.4, 100.0, 9.81
w = np.sqrt(k / m); z = c / (2 * np.sqrt(k * m)); wd = w * np.sqrt(1 - z * z)
exact = -(m * g / k) * (1 - np.exp(-z * w * t) * (np.cos(wd * t) + z * w / wd * np.sin(wd * t)))
err = np.max(np.abs(y[:, 1] - exact))
print(f"mass-spring-damper: |y - closed form| <= {err:.2g} m over [0, 2] s (h = 2e-4)")
sys.exit(0 if err < 1e-6 and np.max(np.abs(y[:, [0, 2]])) == 0 else 1)
PY
msd=$src/configs/msd-seed004-uq.yaml
for n in 2 4 12; do
  run 2 campaign "$msd" --set output=msd$n.h5 --set method.pce.points=$n --set method.pce.order=$((n - 1)) > msd$n.log
done
run 2 campaign "$msd" --set output=msd10.h5 --set method.pce.points=6 --set method.pce.order=5 \
    --set 'parameters={forces.1.stiffness: {dist: normal, mean: 100.0, std: 10.0}}' > msd10.log
$py - <<'PY'
import sys
import h5py, numpy as np
# Seed 004 digest Sec. 4.2a at t = 0.5, 1, 2: (mean, std); p-order Galerkin columns and exact values.
table = {
    "msd2.h5": ("sigma 3.333, 2 points = p 1", [(-7.517339e-2, 9.666762e-3), (-1.659753e-1, 1.253572e-2), (-7.066123e-2, 1.707422e-2)]),
    "msd4.h5": ("sigma 3.333, 4 points = p 3", [(None, 9.708064e-3), (None, 1.242894e-2), (None, 1.634170e-2)]),
    "msd12.h5": ("sigma 3.333, 12 points = exact", [(-7.517361e-2, 9.708064e-3), (-1.659732e-1, 1.242893e-2), (-7.067791e-2, 1.634043e-2)]),
    "msd10.h5": ("sigma 10, 6 points = p 5", [(-7.891222e-2, 3.034583e-2), (-1.619642e-1, 3.374919e-2), (-7.848283e-2, 3.343323e-2)]),
}
ok = True
for name, (label, rows) in table.items():
    with h5py.File(name, "r") as f:
        mean, std = f["statistics/y/mean"][()][1::3], f["statistics/y/std"][()][1::3]
    dm = max(abs(mean[i] - r[0]) for i, r in enumerate(rows) if r[0] is not None) if rows[0][0] is not None else 0.0
    ds = max(abs(std[i] - r[1]) / r[1] for i, r in enumerate(rows))
    print(f"{label}: mean within {dm:.2g}, std within {ds:.2g} relative of the digest's table")
    ok &= dm < 1e-6 and ds < 2e-5
sys.exit(0 if ok else 1)
PY
echo "simulation-parameter campaigns passed"
