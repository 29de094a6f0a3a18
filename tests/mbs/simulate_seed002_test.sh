#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 002's 2-D flexible slider-crank (Wevers 2024 §5.1; digest seed-002.md §5.1 and G1–G4) in 3-D
# joints: configs/seed002-rod.yaml reduced with every basis the seed compares, simulated with
# configs/seed002-slider-crank.yaml (one connector body) and configs/seed002-slider-crank-2.yaml
# (two half bodies), d(φ) from postproc/plot_deflection.py:
#   G1  the connector's mass and first free-free bending frequency (Euler–Bernoulli, 299.18 Hz);
#   G2  bases with the same span give the same d(φ): Hurty = Craig–Bampton (6 modes), Craig–Chang =
#       Rubin–Martinez and Hintz (constraint) = Herting (0 free-interface modes), to 1e-10 of max |d|
#       at Newton tolerance 1e-13, as the digest asks (measured 2e-13 … 3e-13; 3e-10 … 5e-9 before the
#       stabilised integrator, whose position correction is in the modal mass: basis-independent);
#   G3  Herting = Rubin–Martinez (equivalent bases): 1e-6 of max |d| (digest: 1e-3);
#   G6  modes scaled to max |value| = 1 (reduce.scaling: max): the same d(φ), 1e-6 (measured 1.7e-9);
#   G4  two bodies, 12 internal modes: Craig–Bampton, Rubin–Martinez, Herting within 1e-3 of max |d|
#       (digest: 5 %; measured 1.3e-5);
#   G5  no seed number (figure-level comparison with SPACAR); instead the two-body d(φ), averaged over one
#       bending period, against an independent quasi-static beam estimate: 5 % of its peak (measured 3.1 %);
#   and the seed's statements: the Guyan body (no internal modes) is inaccurate; one body with 18
#   modes stays clearly off the two-body result; with two bodies and 6 internal modes all bases are
#   close to the converged one, Rubin–Martinez and Herting closer than Craig–Bampton.
# Also: planar motion (|z| < 1e-8), drift, a node output equals the animation's node, bad node labels.
#   simulate_seed002_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
cp "$src"/configs/seed002-{rod,slider-crank,slider-crank-2}.yaml .
. "$src/tests/mbs/flexuq_run.sh" # run <log> <flexuq args...>
half=(--set model.generator.length=0.15 --set model.generator.elements=4 --set 'model.generator.origin=[-0.075, 0, 0]')
# One connector body: tol 1e-13 so that equal spans give equal results to far below the comparisons.
for v in craig-bampton:6 hurty:6 craig-chang:0 rubin-martinez:0 herting:0 hintz-constraint:0 craig-bampton:0 craig-bampton:18; do
  m=${v%:*}; c=${v#*:}
  run "reduce-$m-$c.log" reduce seed002-rod.yaml --set reduce.method=$m --set reduce.modes.count=$c --set output=rod-$m-$c.h5
  run "one-$m-$c.log" simulate seed002-slider-crank.yaml --set bodies.rod.body=rod-$m-$c.h5 --set solver.tol=1e-13 \
      --set output=one-$m-$c.h5
done
# G6: the internal modes scaled to max |value| = 1 (reduce.scaling: max) do not change the results.
run reduce-scaled.log reduce seed002-rod.yaml --set reduce.modes.count=6 --set reduce.scaling=max --set output=rod-scaled.h5
run one-scaled.log simulate seed002-slider-crank.yaml --set bodies.rod.body=rod-scaled.h5 --set solver.tol=1e-13 \
    --set output=one-craig-bampton-6-scaled.h5
for v in craig-bampton:6 rubin-martinez:0 herting:0 craig-bampton:12 rubin-martinez:6 herting:6; do
  m=${v%:*}; c=${v#*:}
  run "reduce-half-$m-$c.log" reduce seed002-rod.yaml "${half[@]}" --set reduce.method=$m --set reduce.modes.count=$c \
      --set output=half-$m-$c.h5
  run "two-$m-$c.log" simulate seed002-slider-crank-2.yaml --set bodies.left.body=half-$m-$c.h5 \
      --set bodies.right.body=half-$m-$c.h5 --set output=two-$m-$c.h5
done
# A node that is not in the mesh, and a node on a rigid body: exit 2, named.
sed 's/node: 5,/node: 99,/' seed002-slider-crank.yaml > bad-node.yaml
set +e
"$mpiexec" -n 1 "$flexuq" simulate bad-node.yaml --set bodies.rod.body=rod-craig-bampton-6.h5 > bad1.log 2>&1; rc1=$?
sed 's/{name: mid, body: rod, node: 5,/{name: mid, body: crank, node: 5,/' seed002-slider-crank.yaml > bad-rigid.yaml
"$mpiexec" -n 1 "$flexuq" simulate bad-rigid.yaml --set bodies.rod.body=rod-craig-bampton-6.h5 > bad2.log 2>&1; rc2=$?
set -e
[ $rc1 = 2 ] && grep -q "node 99 is not in the mesh of rod-craig-bampton-6.h5" bad1.log ||
  { echo "FAIL: a missing node (exit $rc1)"; cat bad1.log; exit 1; }
[ $rc2 = 2 ] && grep -q "outputs\[3\].node.*body 'crank' is not flexible" bad2.log ||
  { echo "FAIL: a node on a rigid body (exit $rc2)"; cat bad2.log; exit 1; }
PYTHONPATH="$src/postproc:$src/tests/support" /usr/bin/python3 - <<'PY'
import h5py, numpy as np
from plot_deflection import deflection
from checks import check, finish
# G1: the connector (8 elements) against the digest's derived values.
with h5py.File("rod-craig-bampton-6.h5", "r") as f:
    mass = f["reduced/checkout/mass_full_reduced"][()][0]
    f1 = f["reduced/checkout/free_free_full_hz"][()]
check(abs(mass / 0.0667557 - 1) < 1e-5, f"G1 connector mass {mass:.7g} kg (0.0667557)")
bend = f1[f1 > 1.0][0]
check(abs(bend / 299.18 - 1) < 5e-3, f"G1 first free-free bending {bend:.2f} Hz (Euler-Bernoulli 299.18)")
d = {k: deflection(f"{k}.h5")[2] for k in
     ["one-craig-bampton-6", "one-hurty-6", "one-craig-chang-0", "one-rubin-martinez-0", "one-herting-0",
      "one-hintz-constraint-0", "one-craig-bampton-6-scaled", "one-craig-bampton-0", "one-craig-bampton-18", "two-craig-bampton-6",
      "two-rubin-martinez-0", "two-herting-0", "two-craig-bampton-12", "two-rubin-martinez-6", "two-herting-6"]}
def rel(a, b):
    return np.max(np.abs(d[a] - d[b])) / np.max(np.abs(d[b]))
# G5: the seed compares "two bodies + Guyan" with Schilder's and SPACAR's curves only as figures (digest:
# "no numbers available in the text"), and SPACAR is not available here, so there is no seed number for d.
# Instead an independent estimate from the seed's data: quasi-statically the connector is a pinned-pinned
# Euler-Bernoulli beam under its own rigid-motion inertial load -rhoA a_perp(s), linear along the rod
# (a rigid body's acceleration field is affine), whose midspan deflection is that of the mean load:
# d_qs = -5 rhoA a_perp(mid) L^3 / (384 EI), a_perp from the rigid slider-crank kinematics (r = 0.15,
# L = 0.3, 150 rad/s). The simulated d is d_qs plus the bending vibration started by the undeformed
# initial state (pinned-pinned 131.98 Hz, digest); averaged over one such period both must agree.
# Measured (two bodies, CB 12): the averaged curves within 3.1 % of max |d_qs| = 0.01225; asserted 5 %
# (neglected: the axial force, up to 8 % of the Euler load, which changes the deflection by up to that
# fraction where it acts). Peak: max |d| = 0.01604 = 1.31 max |d_qs|; a load applied to an undeformed
# beam overshoots its static deflection by at most a factor 2, so asserted within [1, 2] max |d_qs|.
t2, phi2, d2 = deflection("two-craig-bampton-12.h5")
r_c, L_c, w_c = 0.15, 0.3, 150.0
rhoA, EI = 7870 * np.pi * 0.003**2, 200e9 * np.pi * 0.003**4 / 4
tt = np.linspace(0.0, t2[-1], 200001)
hh = tt[1] - tt[0]
ph = w_c * tt
pa = np.stack([r_c * np.cos(ph), r_c * np.sin(ph)], -1)
pb = np.stack([r_c * np.cos(ph) + np.sqrt(L_c**2 - (r_c * np.sin(ph))**2), 0 * ph], -1)
a_mid = np.gradient(np.gradient((pa + pb) / 2, hh, axis=0), hh, axis=0)
e_ab = (pb - pa) / L_c
a_perp = a_mid[:, 1] * e_ab[:, 0] - a_mid[:, 0] * e_ab[:, 1]  # along the left normal of B -> C
d_qs = np.interp(t2, tt, -5 * rhoA * a_perp * L_c**3 / (384 * EI))
k_avg = int(round(1 / 131.98 / (t2[1] - t2[0])))
avg = lambda v: np.convolve(v, np.ones(k_avg) / k_avg, "valid")
qs_max = np.max(np.abs(d_qs))
e_avg = np.max(np.abs(avg(d2) - avg(d_qs))) / qs_max
check(e_avg < 0.05, f"G5 two bodies, 12 modes: d averaged over one bending period vs the quasi-static beam "
      f"{e_avg:.3g} of max |d_qs| = {qs_max:.5f} (< 0.05)")
peak = np.max(np.abs(d["two-craig-bampton-12"]))
check(qs_max <= peak <= 2 * qs_max, f"G5 peak max |d| = {peak:.5f} = {peak / qs_max:.3f} max |d_qs| (in [1, 2])")
for a, b in [("one-hurty-6", "one-craig-bampton-6"), ("one-craig-chang-0", "one-rubin-martinez-0"),
             ("one-hintz-constraint-0", "one-herting-0")]:
    check(rel(a, b) < 1e-10, f"G2 {a} = {b}: {rel(a, b):.3g}")
check(rel("one-craig-bampton-6-scaled", "one-craig-bampton-6") < 1e-6,
      f"G6 modes scaled to max 1: {rel('one-craig-bampton-6-scaled', 'one-craig-bampton-6'):.3g}")
check(rel("one-herting-0", "one-rubin-martinez-0") < 1e-6, f"G3 Herting = Rubin-Martinez: {rel('one-herting-0', 'one-rubin-martinez-0'):.3g}")
for a in ["two-rubin-martinez-6", "two-herting-6"]:
    check(rel(a, "two-craig-bampton-12") < 1e-3, f"G4 {a} vs two-craig-bampton-12: {rel(a, 'two-craig-bampton-12'):.3g}")
conv = "two-craig-bampton-12"
e_cb, e_rm, e_h = rel("two-craig-bampton-6", conv), rel("two-rubin-martinez-0", conv), rel("two-herting-0", conv)
check(max(e_cb, e_rm, e_h) < 2e-3, f"two bodies, 6 internal modes, all bases close to 12: CB {e_cb:.3g}, RM {e_rm:.3g}, Herting {e_h:.3g}")
check(e_rm < e_cb and e_h < e_cb, "Rubin-Martinez and Herting converge faster than Craig-Bampton")
check(rel("one-craig-bampton-0", conv) > 0.25, f"one Guyan body is inaccurate: {rel('one-craig-bampton-0', conv):.3g}")
check(rel("one-craig-bampton-18", conv) > 10 * rel("two-craig-bampton-6", conv),
      f"one body, 18 modes stays off: {rel('one-craig-bampton-18', conv):.3g}")
# Planar motion, drift, and the node output against the animation's node (another code path).
for name in ["one-craig-bampton-6", "two-herting-6"]:
    with h5py.File(f"{name}.h5", "r") as f:
        z = max(np.max(np.abs(f["outputs/" + k][()][:, 2])) for k in ["end_B", "end_C", "mid"])
        drift = np.max(f["drift"][()][:, 0])
        check(z < 1e-8 and drift < 1e-8, f"{name}: out-of-plane {z:.2g} m, drift {drift:.2g}")
with h5py.File("one-craig-bampton-6.h5", "r") as f:
    mid = f["outputs/mid"][()]
    anim = f["animation/rod/geometry"][()][:, 4, :]
    check(np.max(np.abs(mid - anim)) < 1e-12, f"node 5 output = animation node 5: {np.max(np.abs(mid - anim)):.2g}")
finish()
PY
