#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `type: planar` bodies through the CLI (configs/slider-crank-seed004-planar.yaml): seed 004's slider-crank in
# planar coordinates equals its twin in 3-D bodies held in the plane (configs/slider-crank-seed004-2d.yaml)
# to round-off with 8 instead of 14 coordinates and 7 instead of 13 rows; 1 rank = 2 ranks bit for bit;
# a tilted planar body and a 3-D joint on a planar body are refused naming file, key and line.
#   simulate_planar_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
run() { # run NP CONFIG LOG [args...]
  local np="$1" cfg="$2" log="$3"; shift 3
  timeout 120 "$mpiexec" -n "$np" "$flexuq" simulate "$cfg" "$@" > "$log" 2>&1 || { echo "FAIL: flexuq simulate $cfg (np $np)"; cat "$log"; exit 1; }
}
run 1 "$src/configs/slider-crank-seed004-planar.yaml" planar.log
run 1 "$src/configs/slider-crank-seed004-2d.yaml" 3d.log
grep -q "8 coordinates, 7 constraint rows" planar.log || { echo "FAIL: planar counts"; cat planar.log; exit 1; }
grep -q "14 coordinates, 13 constraint rows" 3d.log || { echo "FAIL: 3-D counts"; cat 3d.log; exit 1; }
mkdir np2 && (cd np2 && run 2 "$src/configs/slider-crank-seed004-planar.yaml" ../planar2.log)
/usr/bin/python3 - <<'PY'
import sys
import h5py, numpy as np
ok = True
with h5py.File("slider-crank-seed004-2d.h5", "r") as a, h5py.File("slider-crank-seed004-planar.h5", "r") as b:
    assert np.array_equal(a["time"][()], b["time"][()])
    # Trajectories: the bodies' [r, p] (a planar body's recorded as [x, y, z0, e0, 0, 0, e3]) and outputs.
    for k in ["bodies/crank/q", "bodies/rod/q", "outputs/theta", "outputs/slider_x", "outputs/energy"]:
        x, y = a[k][()], b[k][()]
        d = np.max(np.abs(x - y)) / np.max(np.abs(x))
        print(f"{k}: planar vs 3-D in the plane {d:.3g} relative")
        if not d <= 1e-10: print("FAIL:", k); ok = False
    # Reactions come from the multipliers, which the index-3 Newton resolves less finely (measured 1.5e-9).
    for k in ["reactions/A", "reactions/B", "reactions/C"]:
        x, y = a[k][()], b[k][()]
        d = np.max(np.abs(x - y)) / np.max(np.abs(x))
        print(f"{k}: {d:.3g} relative")
        if not d <= 1e-8: print("FAIL:", k); ok = False
    q = b["bodies/rod/q"][()]
    if np.any(q[:, [2, 4, 5]] != 0.0): print("FAIL: a planar body left z = 0 or tilted"); ok = False
    if "reactions/rod.plane" in b: print("FAIL: planar bodies need no plane joint"); ok = False
def walk(g, pre=""):
    for k in g:
        if isinstance(g[k], h5py.Dataset): yield pre + k
        else: yield from walk(g[k], pre + k + "/")
with h5py.File("slider-crank-seed004-planar.h5", "r") as a, h5py.File("np2/slider-crank-seed004-planar.h5", "r") as b:
    names = sorted(walk(a))
    if names != sorted(walk(b)): print("FAIL: 1 and 2 ranks wrote different datasets"); ok = False
    for k in names:
        x, y = a[k][()], b[k][()]
        if not (np.array_equal(x, y) if hasattr(x, "shape") else x == y): print("FAIL: 1 rank != 2 ranks:", k); ok = False
sys.exit(0 if ok else 1)
PY
# Refusals on every rank: exit 2 and the file, key and line named.
refuse() { # refuse SED_EXPR EXPECTED
  sed "$1" "$src/configs/slider-crank-seed004-planar.yaml" > bad.yaml
  set +e
  timeout 60 "$mpiexec" -n 2 "$flexuq" simulate bad.yaml > bad.log 2>&1
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "FAIL: exit $rc for $1"; cat bad.log; exit 1; }
  grep -qF "$2" bad.log || { echo "FAIL: expected '$2'"; cat bad.log; exit 1; }
}
refuse 's/orientation: {axis: \[0, 0, 1\], angle: 0.7853981633974483}/orientation: {axis: [1, 0, 0], angle: 0.3}/' \
  "bad.yaml: bodies.crank.orientation (line 11): a planar body turns about z only"
refuse 's/type: revolute-2d, bodies: \[ground, crank\]/type: cylindrical, bodies: [ground, crank]/' \
  "joint 'A' (cylindrical): body 'crank' has planar coordinates"
refuse 's/^joints:/plane: {normal: [1, 0, 0]}\njoints:/' "plane.normal"
echo "planar bodies: OK"
