#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A shell component end to end (issue #37, Goals: "a shell component reduced by CB and run in
# flexuq simulate and a campaign"): a steel square plate 1 m x 1 m x 10 mm (12 x 12 S4, *SHELL
# SECTION), its edge x = 0 (ROOT) the interface.
#  1. `flexuq modes` (ROOT fixed) and `flexuq reduce` (Craig-Bampton, ROOT an rbe2 interface) at 2
#     ranks: the rbe2 edge held = the clamped edge, so the reduced K's modal diagonal equals the
#     cantilever eigenvalues to 1e-7; omega_1 is Leissa's CFFF square plate (lambda = 3.492) to 1.5 %.
#  2. `flexuq simulate`: the body held at ROOT by a fixed joint, gravity switched on at t = 0 from
#     rest. The mid-tip node's deflection w(t) = A + B cos(w1 t) + C cos(w3 t) (least squares):
#     w1 = sqrt of the body's first fixed-interface eigenvalue to 2e-4 (HHT alpha = 0, h = 5e-4:
#     period error (w h)^2/12 ~ 6e-5), w(0) = 0 so A + B + C ~ 0 (1 %: the modes above w3), and
#     the static sag A lies between cylindrical bending q L^4/(8 D) and the free beam
#     q L^4/(8 D (1 - nu^2)), q = rho h g.
#  3. `flexuq campaign` over the simulation (model.stiffness E, 3 Monte-Carlo samples): K -> s K
#     gives w_s(t) = w(sqrt(s) t)/s, so each sample's fitted w1 = w1(E0) sqrt(E/E0) (2e-4) and its
#     sag A = A0 E0/E (1e-3).
#  4. `flexuq campaign` of frequencies over E on the plate itself (ROOT fixed): f = f0 sqrt(E/E0)
#     to 1e-7 (K linear in E at fixed nu), f0 from step 1.
#  5. `flexuq reduce` with reduce.stochastic (E log-normal, regression PCE of order 2) and `flexuq
#     body-at` E = 2.4e11: K = s K0 (s = E/E0; 1e-3, the PCE's truncation), M = M0, and that body in
#     `flexuq simulate` oscillates at sqrt(s) w1 (1e-3; measured 2.9e-4).
# Usage: shell_e2e_test.sh FLEXUQ MPIEXEC WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; work=$3
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { local n=$1; shift; timeout 120 "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
$py "$here/shell_plate.py" 12 1.0 0.01 ROOT plate.inp
$py - <<'PY'
N = 12
lab = lambda i, j: j * (N + 1) + i + 1
open("modes.yaml", "w").write("model:\n  mesh: plate.inp\n  fixed: [ROOT]\nmodes:\n  count: 3\noutput: cant.h5\n")
open("cb.yaml", "w").write("model:\n  mesh: plate.inp\nreduce:\n  method: craig-bampton\n"
                           "  interfaces: [{set: ROOT, kind: rbe2, ref: [0, 0.5, 0]}]\n  modes: {count: 6}\n"
                           "  checkout: {free_free: 0}\noutput: plate-cb.h5\n")
open("sim.yaml", "w").write(f"""command: simulate
bodies:
  plate: {{type: flexible, body: plate-cb.h5, position: [0, 0, 0]}}
joints:
  - {{name: clamp, type: fixed, bodies: [ground, plate], point: [0, 0.5, 0], interface: ROOT}}
forces:
  - {{type: gravity, g: [0, 0, -9.81]}}
solver: {{type: hht, alpha: 0, step: 5.0e-4, end: 0.3, tol: 1.0e-10, output_step: 5.0e-4}}
outputs:
  - {{name: tip, quantity: position, body: plate, node: {lab(N, N // 2)}}}
animation: false
output: plate-sim.h5
""")
times = ", ".join(f"{0.002 * k:.3f}" for k in range(151))
open("sim-uq.yaml", "w").write(f"""command: campaign
model:
  simulation: sim.yaml
  stiffness:
    E: {{reference: 2.1e11, bodies: [plate]}}
parameters:
  E: {{dist: uniform, low: 1.5e11, high: 2.7e11}}
outputs: {{simulation: [tip], times: [{times}]}}
method: {{type: monte-carlo, samples: 3}}
campaign: {{ranks_per_sample: 1, seed: 11}}
output: plate-sim-uq.h5
""")
open("scb.yaml", "w").write(open("cb.yaml").read().replace("output: plate-cb.h5", "output: plate-scb.h5").replace(
    "model:\n  mesh: plate.inp\n", "model:\n  mesh: plate.inp\nparameters:\n  E: {dist: lognormal, mean: 2.1e11, std: 1.5e10}\n")
    .replace("  checkout: {free_free: 0}\n", "  checkout: {free_free: 0}\n  stochastic: {method: regression, pce: {order: 2}, samples: 8}\n"
             "campaign: {ranks_per_sample: 1, seed: 7}\n"))
open("at-sim.yaml", "w").write(open("sim.yaml").read().replace("plate-cb.h5", "plate-at.h5").replace("plate-sim.h5", "plate-at-sim.h5"))
open("freq-uq.yaml", "w").write("model:\n  mesh: plate.inp\n  fixed: [ROOT]\nparameters:\n"
                                "  E: {dist: lognormal, mean: 2.1e11, std: 1.5e10}\n"
                                "outputs: {frequencies: 3}\nmethod:\n  type: monte-carlo\n  samples: 4\n"
                                "campaign: {ranks_per_sample: 1, seed: 5}\noutput: plate-freq-uq.h5\n")
PY
# ranks, verb, job: each writes <job>.log and must exit 0
for step in "2 modes modes" "2 reduce cb" "1 simulate sim" "2 campaign sim-uq" "2 campaign freq-uq" "2 reduce scb" \
            "1 body-at plate-scb.h5 --set E=2.4e11 -o plate-at.h5" "1 simulate at-sim"; do
  set -- $step
  job=$3; [[ $job == *.h5 ]] || job=$job.yaml
  log=${3%.*}.log
  run "$1" "$2" "$job" "${@:4}" > "$log" 2>&1 || { echo "FAIL: flexuq ${*:2}"; cat "$log"; exit 1; }
done
PYTHONPATH="$here/../support" $py - <<'PY'
import h5py, numpy as np
from scipy.optimize import least_squares
from checks import check, finish
E0, nu, rho, h, L = 2.1e11, 0.3, 7850.0, 0.01, 1.0
D = E0 * h**3 / (12 * (1 - nu**2))
scale = np.sqrt(D / (rho * h)) / L**2
# 1. modes and the CB body
lam = h5py.File("cant.h5", "r")["modes/eigenvalues"][()]
cb = h5py.File("plate-cb.h5", "r")["reduced"]
kinds = [k.decode() for k in cb["column_kinds"][()]]
K = cb["K"][()]
modal = np.sort([K[i, i] for i, k in enumerate(kinds) if k == "fixed_interface_mode"])
d = np.max(np.abs(modal[:3] / lam[:3] - 1))
check(len(modal) == 6 and d < 1e-7, f"CB fixed-interface eigenvalues = clamped modes: {d:.2e}")
w1 = np.sqrt(modal[0])
e = abs(w1 / (3.492 * scale) - 1)
check(e < 0.015, f"omega_1 {w1:.5f} vs Leissa CFFF {3.492 * scale:.5f}: {e:.2%}")
# 2. the simulation
def fit(t, w):
    res = lambda p: p[0] + p[1] * np.cos(p[2] * t) + p[3] * np.cos(p[4] * t) - w
    r = least_squares(res, [w.mean(), -w.mean(), w1, 0.0, np.sqrt(modal[2])],
                      x_scale=[1e-4, 1e-4, 10, 1e-6, 10], xtol=1e-14, ftol=1e-14)
    return r.x, np.abs(r.fun).max() / np.abs(w).max()
s = h5py.File("plate-sim.h5", "r")
t, w = s["time"][()], s["outputs/tip"][()][:, 2]
p, rr = fit(t, w)
A, B, ws, C = p[0], p[1], p[2], p[3]
e = abs(ws / w1 - 1)
check(e < 2e-4, f"simulate: tip frequency {ws:.6f} vs sqrt(lambda_1) {w1:.6f}: {e:.2e} (fit residual {rr:.1e})")
check(abs(A + B + C) < 1e-2 * abs(A) and abs(w[0]) < 1e-12, f"simulate: w(0) = {w[0]:.1e}, A + B + C = {A + B + C:.2e}")
q = rho * h * 9.81
strip, beam = q * L**4 / (8 * D), q * L**4 / (8 * D * (1 - nu**2))
check(strip < -A < beam, f"simulate: static sag {-A:.5e} in (strip {strip:.5e}, beam {beam:.5e})")
# 3. the campaign over the simulation
u = h5py.File("plate-sim-uq.h5", "r")
Es = u["samples/parameters"][()][:, 0]
tip = u["outputs/tip"][()].reshape(len(Es), -1, 3)[:, :, 2]
tt = 0.002 * np.arange(tip.shape[1])
check(np.all(u["samples/status"][()] == 0) and len(Es) == 3, f"campaign: {len(Es)} samples, E = {Es}")
p0, _ = fit(tt, w[::4])
for E, wk in zip(Es, tip):
    pk, _ = fit(tt, wk)
    ef = abs(pk[2] / (p0[2] * np.sqrt(E / E0)) - 1)
    ea = abs(pk[0] / (p0[0] * E0 / E) - 1)
    check(ef < 2e-4 and ea < 1e-3, f"campaign E = {E:.4e}: omega {pk[2]:.5f} vs sqrt scaling {ef:.1e}, sag vs 1/E {ea:.1e}")
# 4. the frequency campaign
f = h5py.File("plate-freq-uq.h5", "r")
Es, fr = f["samples/parameters"][()][:, 0], f["outputs/frequencies"][()]
pred = np.sqrt(lam[:3])[None, :] / (2 * np.pi) * np.sqrt(Es[:, None] / E0)
e = np.max(np.abs(fr / pred - 1))
check(len(Es) == 4 and e < 1e-7, f"frequency campaign: f = f0 sqrt(E/E0) over {len(Es)} samples: {e:.1e}")
# 5. the stochastic body (E, PCE order 2) at E = 2.4e11: K -> s K with the same modes, so its K is s K0 (to
# the PCE's truncation of the log-normal: 4e-4), M unchanged, and its simulation's tip frequency sqrt(s) w1
s = 2.4e11 / E0
at = h5py.File("plate-at.h5", "r")["reduced"]
ek = np.abs(at["K"][()] - s * K).max() / np.abs(s * K).max()
em = np.abs(np.abs(at["M"][()]) - np.abs(cb["M"][()])).max() / np.abs(cb["M"][()]).max()
check(ek < 1e-3 and em < 1e-9, f"stochastic body at E = 2.4e11: K vs s K0 {ek:.1e}, |M| vs |M0| {em:.1e}")
ta = h5py.File("plate-at-sim.h5", "r")
pa, _ = fit(ta["time"][()], ta["outputs/tip"][()][:, 2])
e = abs(pa[2] / (ws * np.sqrt(s)) - 1)
check(e < 1e-3, f"stochastic body simulated: omega {pa[2]:.5f} vs sqrt(s) omega_0 {ws * np.sqrt(s):.5f}: {e:.1e}")
finish("shell end to end")
PY
