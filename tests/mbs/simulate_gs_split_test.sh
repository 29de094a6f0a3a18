#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 002's generalised superelement (type: gs) on bases without physical interface coordinates
# (issue #36 item 3): `flexuq reduce` writes the Ψ/Υ split (/reduced/gs) and the GS body works in the
# split coordinates. The seed's slider-crank (configs/seed002-slider-crank-gs.yaml, one connector body,
# frame at END0), rk45 at rtol 1e-8 over 0.005 s, so that the integrator's error is far below the checks:
#   S8  Hurty (6 fixed-interface modes) spans Craig–Bampton's space and splits into CB's Ψ, Υ: its GS body
#       follows CB's floating-frame body held at END0 (`type: flexible, frame: {interface: END0}`);
#   G2  Craig–Chang (0 modes, Ψ̂ = Gʳ_b) splits into Rubin–Martinez's Ψ, Υ: the same trajectory and the
#       same rk45 path as the Rubin–Martinez GS body (the floating-frame body holds no frame at END0 on
#       either: it needs a Craig–Bampton basis there).
#   simulate_gs_split_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
cp "$src"/configs/seed002-{rod,slider-crank,slider-crank-gs}.yaml .
. "$src/tests/mbs/flexuq_run.sh" # run <log> <flexuq args...>
for m in hurty:6 craig-bampton:6 craig-chang:0 rubin-martinez:0; do
  run "reduce-${m%%:*}.log" reduce seed002-rod.yaml --set reduce.method="${m%%:*}" --set reduce.modes.count="${m##*:}" \
      --set output="rod-${m%%:*}.h5"
done
grep -q "interface/internal split (/reduced/gs)" reduce-hurty.log || { echo "FAIL: reduce wrote no split"; cat reduce-hurty.log; exit 1; }
sed -e 's/{type: flexible, body: seed002-rod.h5,/{type: flexible, body: seed002-rod.h5, frame: {interface: END0},/' \
    -e '/name: mid/d' seed002-slider-crank.yaml > ff-1.yaml
s8=(--set solver.type=rk45 --set solver.rtol=1e-8 --set solver.atol=1e-11 --set solver.step=1e-7 --set solver.end=0.005)
for m in hurty craig-chang rubin-martinez; do
  run "gs-$m.log" simulate seed002-slider-crank-gs.yaml --set bodies.rod.body="rod-$m.h5" "${s8[@]}" --set output="gs-$m.h5"
done
run ff-cb.log simulate ff-1.yaml --set bodies.rod.body=rod-craig-bampton.h5 "${s8[@]}" --set output=ff-cb.h5
PYTHONPATH="$src/tests/support" /usr/bin/python3 - <<'PY'
import h5py, numpy as np
from checks import check, finish
def run(name):
    with h5py.File(name + ".h5", "r") as f:
        return f["outputs/end_C"][()], int(f["/solver"].attrs["steps"]), float(np.max(f["drift"][()][:, 0]))
hur, s_hur, d_hur = run("gs-hurty")
cb, s_cb, _ = run("ff-cb")
cc, s_cc, d_cc = run("gs-craig-chang")
rm, s_rm, _ = run("gs-rubin-martinez")
travel = np.max(np.abs(hur - hur[0]))
check(travel > 0.05, f"end C travels {travel:.3f} m")
e8 = np.max(np.abs(hur - cb)) / 0.3
check(e8 < 1e-8, f"S8 Hurty GS vs Craig-Bampton floating frame (END0): end C {e8:.3g} of L (< 1e-8; rk45 steps {s_hur} / {s_cb})")
e2 = np.max(np.abs(cc - rm)) / 0.3
check(e2 < 1e-10, f"G2 Craig-Chang GS vs Rubin-Martinez GS: end C {e2:.3g} of L (< 1e-10)")
check(s_cc == s_rm, f"G2 same rk45 path: {s_cc} and {s_rm} steps")
check(max(d_hur, d_cc) < 1e-8, f"drift {max(d_hur, d_cc):.2g}")
finish()
PY
