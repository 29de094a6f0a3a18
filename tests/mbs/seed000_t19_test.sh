#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 000 T19 (Sec. 7.3, Tables 7.5 and 7.6): PCE of x_A(0.1 s) of the flexible slider-crank
# (configs/slider-crank-flexible.yaml, both CB bars reduced again at every sample: G and C move ν,
# which no stiffness scaling can do) over G alone and over (G, C), moment-matched log-normals
# (std 1e9), regression on random (Monte Carlo) samples, the order by leave-one-out. Sample counts:
# the seed's LOO set n + 1 = 2P + 1 for its highest order (5.9), 15 (G, p ≤ 6) and 43 ((G, C), p ≤ 5),
# campaign.seed 7. The campaign = direct run identity of T19 stays in simulate_flexible_test.sh; the
# timing (a PCE evaluation against a run) is bench/mbs_flexible_slider_crank.sh.
#
# Asserted:
# 1. The campaign's LOO by order (/statistics/x_A/pce_loo, the normalised closed-form LOO averaged
#    over x_A's 3 columns) equals an independent numpy recomputation from the stored samples (germs
#    from the parameters, orthonormal Hermite basis, QR leverages) to 1e-3 (measured ≤ 4e-5: the
#    leverages of p = 5, 6 are near 1), and /pce/x_A is the order of its smallest value.
# 2. The seed's error (5.20), E = mean((x − x̂_LOO)² / x²) of the x-coordinate over all samples, by
#    order, to 10 % of the measured (deterministic: one sample set, fixed-step HHT; the x-coordinate's
#    G-dependence is ~1e-7 m, far above the run's round-off):
#      G:      p = 1..6: 6.69e-11, 7.94e-11, 2.21e-10, 4.60e-9, 4.45e-9, 2.61e-8 (seed 8.32e-9, 7.30e-9,
#              8.56e-9, 8.30e-6, 8.76e-7, 6.16e-7);
#      (G, C): p = 1..5: 2.53e-10, 1.20e-10, 9.49e-11, 1.52e-10, 4.65e-10 (seed 2.46e2, 2.24e-6,
#              5.65e-8, 2.60e-7, 5.97e-7).
#    The seed's trends hold on this sample set: G p ≤ 3 similar and p ≥ 4 larger (asserted: min over
#    p ≥ 4 > 10 × max over p ≤ 3, measured 20×); (G, C) p = 3 the smallest; the LOO-best orders are the
#    seed's chosen ones, p = 1 for G and p = 3 for (G, C) (asserted for this set only: see below).
# 3. The magnitudes are 1.5–3 decades below the seed's, and they must be: (5.20) is the normalised
#    LOO (measured 0.19–0.69 for p ≤ 3, asserted < 1) times the relative variance var(x)/x̄² of x_A
#    over the inputs, 3.6e-10 here (std 5.8e-8 m on x_A = −3.05e-3 m; asserted within [1e-10, 5e-10]);
#    the seed's 8e-9 is 20 × that whole variance. Its x_A(0.1 s) spread (its geometry and torque axis are
#    unknown, digest §8.15) or its integration noise (adaptive ode45, tolerances not given) is larger.
# Not reproducible, so only stated: the choice of order. The normalised LOO of the x-coordinate stays
# at 0.1–1 for every order: x_A(0.1 s) depends on G through the phase of the bars' vibration (the
# step torque excites it), an oscillation of ~1e-7 m over ±3σ (a direct scan with rk45 at rtol 1e-9
# and the trapezoidal rule at h = 5e-6 agree on it to 3e-8 m), which no low-order PCE follows. So the
# LOO-best order follows the sample set: on 6 other sets (campaign.seed 1..6) it is p = 6, 1, 6, 3, 2, 2
# for G and p = 2, 3, 2, 3, 2, 2 for (G, C). The campaign's own choice (1.) is p = 2 for both here: it
# averages the y-column and the z-column, which is round-off only (x_A's z is 0, std 5e-20 m), into
# the order selection (reported).
#   seed000_t19_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
cp "$src"/configs/{rod-cb,slider-crank-bar1-cb,slider-crank-flexible}.yaml .
for c in rod-cb slider-crank-bar1-cb; do
  timeout 120 "$mpiexec" -n 1 "$flexuq" reduce $c.yaml > $c.log 2>&1 || { echo "FAIL: reduce $c.yaml"; cat $c.log; exit 1; }
done
cat > g.yaml <<'YAML'
command: campaign
model:
  simulation: slider-crank-flexible.yaml
  reduce: {crank: slider-crank-bar1-cb.yaml, rod: rod-cb.yaml}
parameters:
  G: {dist: lognormal, mean: 76.9e9, std: 1e9, param: G}
outputs: {simulation: [x_A], times: [0.1]}
method:
  type: pce
  samples: 15
  pce: {order: auto, max_order: 6, fit: regression, sampling: monte-carlo}
campaign: {ranks_per_sample: 1, seed: 7}
output: g.h5
YAML
sed -e 's/^  G: .*/&\n  C: {dist: lognormal, mean: 166.7e9, std: 1e9, param: C}/' -e 's/samples: 15/samples: 43/' \
    -e 's/max_order: 6/max_order: 5/' -e 's/output: g.h5/output: gc.h5/' g.yaml > gc.yaml
grep -q "param: C" gc.yaml || { echo "FAIL: the (G, C) campaign was not written"; exit 1; }
for c in g gc; do
  timeout 240 "$mpiexec" -n 2 "$flexuq" campaign $c.yaml > $c.log 2>&1 || { echo "FAIL: flexuq campaign $c.yaml"; cat $c.log; exit 1; }
done
PYTHONPATH="$src/tests/support" /usr/bin/python3 - <<'PY'
import itertools, math
import h5py, numpy as np
from numpy.polynomial.hermite_e import hermeval
from checks import check, finish
def design(xi, p):
    """Orthonormal Hermite He_k/sqrt(k!) products of total degree <= p at the germs xi (n x M)."""
    cols = []
    for a in itertools.product(range(p + 1), repeat=xi.shape[1]):
        if sum(a) <= p:
            c = np.ones(len(xi))
            for j, k in enumerate(a):
                c = c * hermeval(xi[:, j], [0] * k + [1]) / math.sqrt(math.factorial(k))
            cols.append(c)
    return np.array(cols).T
def loo(xi, y, p):
    """Closed-form LOO residuals r_i / (1 - h_i) of the least-squares fit: (5.20) and the normalised error."""
    A = design(xi, p)
    Q, _ = np.linalg.qr(A)
    e = (y - A @ np.linalg.lstsq(A, y, rcond=None)[0]) / (1 - np.sum(Q ** 2, axis=1))
    return np.mean((e / y) ** 2), np.mean(e ** 2) / np.var(y, ddof=1)
def germ(theta, mean, sd):
    s2 = math.log(1 + (sd / mean) ** 2)
    return (np.log(theta) - math.log(mean) + s2 / 2) / math.sqrt(s2)
cases = [("g", "G", [(76.9e9, 1e9)], [6.69e-11, 7.94e-11, 2.21e-10, 4.60e-9, 4.45e-9, 2.61e-8], 1),
         ("gc", "(G, C)", [(76.9e9, 1e9), (166.7e9, 1e9)], [2.53e-10, 1.20e-10, 9.49e-11, 1.52e-10, 4.65e-10], 3)]
for name, what, pars, expect, seed_order in cases:
    with h5py.File(name + ".h5", "r") as f:
        th, x, st = f["samples/parameters"][()], f["outputs/x_A"][()], f["samples/status"][()]
        orders, pce_loo = f["statistics/x_A/pce_loo_orders"][()], f["statistics/x_A/pce_loo"][()]
        chosen = int(f["pce/x_A"].attrs["order"])
    xi = np.column_stack([germ(th[:, j], *pars[j]) for j in range(len(pars))])
    check(bool(np.all(st == 0)) and x.shape == (len(xi), 3), f"{what}: {len(xi)} samples, all succeeded")
    # 1. The campaign's LOO by order.
    mine = np.array([np.mean([loo(xi, x[:, c], int(p))[1] for c in range(3)]) for p in orders])
    check(list(orders) == list(range(1, len(expect) + 1)), f"{what}: LOO orders {list(orders)}")
    check(np.max(np.abs(mine / pce_loo - 1)) < 1e-3,
          f"{what}: campaign pce_loo {np.array2string(pce_loo, precision=4)} = numpy {np.array2string(mine, precision=4)}")
    check(chosen == int(orders[np.argmin(pce_loo)]), f"{what}: /pce/x_A order {chosen} = the smallest pce_loo")
    # 2. The seed's (5.20) on the x-coordinate.
    y = x[:, 0]
    e = np.array([loo(xi, y, p)[0] for p in range(1, len(expect) + 1)])
    norm = np.array([loo(xi, y, p)[1] for p in range(1, len(expect) + 1)])
    rel = np.var(y, ddof=1) / np.mean(y) ** 2
    print(f"{what}: x_A(0.1 s) = {np.mean(y):.6e} +- {np.std(y, ddof=1):.3g} m; var/mean^2 = {rel:.3g}")
    for p in range(1, len(expect) + 1):
        print(f"  p = {p}: E_LOO (5.20) {e[p - 1]:.3e}, normalised {norm[p - 1]:.3f}")
    check(np.max(np.abs(e / np.array(expect) - 1)) < 0.1, f"{what}: E_LOO by order within 10 % of {expect}")
    best = int(np.argmin(e)) + 1
    check(best == seed_order, f"{what}: LOO-best order {best} (the seed's choice {seed_order}, this sample set)")
    if name == "g":
        check(np.min(e[3:]) > 10 * np.max(e[:3]), f"G: larger for p >= 4 ({np.min(e[3:]):.3g} > 10 x {np.max(e[:3]):.3g})")
    # 3. Why the seed's magnitudes are out of reach.
    check(1e-10 < rel < 5e-10, f"{what}: relative variance of x_A {rel:.3g} in [1e-10, 5e-10]")
    check(np.all(norm[:3] < 1), f"{what}: normalised LOO < 1 for p <= 3 (E_LOO below the relative variance)")
finish()
PY
