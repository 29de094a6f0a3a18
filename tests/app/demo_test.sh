#!/usr/bin/env bash
# The newcomer's demo (jobs/local/demo.sh, issue #39 item 4) in a scratch folder at 2 ranks: every
# step exits 0 within the 3 minutes the README promises, the closing lines name result files and a
# plot that exist, and the results hang together: the stochastic body at its means is step 2's
# Craig-Bampton body (same reduced K, fixed-interface eigenvalues and |M|: a mode's sign may differ),
# the campaign ran its 9 simulations, and the simulation at the means lies inside the campaign's
# mean ± 3 std of the slider position at every output time.
# Usage: demo_test.sh <flexuq> <mpiexec> <source dir> <work dir>
set -euo pipefail
flexuq="$1" mpiexec="$2" src="$3" wd="$4"
rm -rf "$wd" && mkdir -p "$wd"
cd "$wd"
start=$SECONDS
FLEXUQ="$flexuq" MPIEXEC="$mpiexec" timeout 180 "$src/jobs/local/demo.sh" "$wd/demo" 2 > demo.log 2>&1 ||
  { echo "FAIL: jobs/local/demo.sh (exit $?, after $((SECONDS - start)) s)"; cat demo.log; exit 1; }
echo "demo: $((SECONDS - start)) s"
tail -n 20 demo.log
for f in rod-modes.h5 rod-cb.h5 rod-scb.h5 slider-crank.h5 slider-crank-uq.h5; do
  grep -q "^  $wd/demo/$f " demo.log || { echo "FAIL: the closing lines do not name $wd/demo/$f"; exit 1; }
done
for f in rod-modes.h5 rod-modes.xdmf rod-cb.h5 rod-scb.h5 slider-crank.h5 slider-crank.xdmf slider-crank-uq.h5 \
         slider-crank-uq.png; do
  [ -s "demo/$f" ] || { echo "FAIL: demo/$f missing or empty"; exit 1; }
done
grep -q "^Open first: $wd/demo/slider-crank-uq.png$" demo.log || { echo "FAIL: no 'Open first:' plot line"; exit 1; }
cd demo
/usr/bin/python3 - <<'PY'
import sys
import h5py
import numpy as np
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what)
        ok = False
with open("slider-crank-uq.png", "rb") as f:
    check(f.read(8) == b"\x89PNG\r\n\x1a\n", "slider-crank-uq.png is not a PNG")
a, b = h5py.File("rod-cb.h5", "r")["reduced"], h5py.File("rod-scb.h5", "r")["reduced"]
for k, x, y in (("K", a["K"][()], b["K"][()]), ("mode_eigenvalues", a["mode_eigenvalues"][()], b["mode_eigenvalues"][()]),
                ("|M|", np.abs(a["M"][()]), np.abs(b["M"][()]))):
    d = np.max(np.abs(x - y)) / np.max(np.abs(x))
    check(d < 1e-10, f"stochastic body at the means vs CB body: {k} differs by {d:.3g}")
with h5py.File("slider-crank-uq.h5", "r") as c:
    status = c["samples/status"][()]
    check(len(status) == 9 and (status == 0).all(), f"campaign: samples status {status}")
    mean, std = c["statistics/x_B/mean"][()], c["statistics/x_B/std"][()]
with h5py.File("slider-crank.h5", "r") as s:
    t, x = s["time"][()], s["outputs/x_B"][()]
times = 0.005 * np.arange(1, 71)
xs = np.array([np.interp(tt, t, x[:, 0]) for tt in times])
dev = np.abs(xs - mean[0::3]) / np.maximum(std[0::3], 1e-12)
check(dev.max() < 3, f"the simulation at the means leaves the campaign's mean ± 3 std of x_B: {dev.max():.3g} std")
check(std[0::3][-1] > 1e-3, f"x_B's std at 0.35 s is {std[0::3][-1]:.3g}: the campaign shows no spread")
sys.exit(0 if ok else 1)
PY
echo "PASS"
