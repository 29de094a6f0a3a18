#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `flexuq static` end to end (issue #36 item 2): configs/nff-tip-force.yaml (seed 002 N8) on 1 and 2
# ranks; /static in the HDF5 file read back with h5py: the tip against the elastica (digest §5.6 (a),
# 1 % of L), 1 rank = 2 ranks (1e-10), NFFe = NFE (1e-8), the same mesh read from an .inp file = the
# generated one (1e-10); bad input exits 2 naming the key.
#   static_cli_test.sh <flexuq binary> <source dir>
set -eu
exe="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OPENBLAS_NUM_THREADS=1
job="$src/configs/nff-tip-force.yaml"
mpirun -n 1 "$exe" static "$job" --set output=np1.h5 > np1.log
mpirun -n 2 "$exe" static "$job" --set output=np2.h5 > np2.log
mpirun -n 1 "$exe" static "$job" --set output=nffe.h5 --set static.formulation=nffe > nffe.log
grep -q "load path" np2.log
/usr/bin/python3 - <<'PY'
import h5py, numpy as np
u_ref = [0.05643, 0.16064, 0.25442, 0.32894, 0.38763, 0.43459, 0.47293, 0.50483, 0.53182, 0.55500]
v_ref = [0.30172, 0.49346, 0.60325, 0.66996, 0.71379, 0.74457, 0.76737, 0.78498, 0.79906, 0.81061]
def tip(path):
    with h5py.File(path) as f:
        g = f["static"]
        assert g.attrs["completed"] == 1
        assert g.attrs["formulation"] in (b"nfe", b"nffe", "nfe", "nffe")
        assert np.allclose(g["lambda"][:], np.arange(1, 11) / 10)
        node = int(g["sets/tip_mid"][0])
        assert np.allclose(g["coordinates"][node], [1.0, 0.0])
        return g["displacement"][:, node, :]
a, b, e = tip("np1.h5"), tip("np2.h5"), tip("nffe.h5")
err = np.hypot(-a[:, 0] - u_ref, a[:, 1] - v_ref)
print("worst |tip - elastica| / L = %.2e" % err.max())
assert err.max() < 0.01, err
d12 = np.abs(a - b).max() / np.abs(a).max()
de = np.abs(a - e).max() / np.abs(a).max()
print("1 rank vs 2 ranks %.1e, NFFe vs NFE %.1e" % (d12, de))
assert d12 < 1e-10 and de < 1e-8
PY
# The same cantilever (20 x 2 quad8) from an Abaqus file, numbered the other way round (nodes from the
# tip, elements top row first): the tip path equals the generator's to round-off.
/usr/bin/python3 - <<'PY'
L, h, nx, ny = 1.0, 0.05, 20, 2
pts, ids = [], {}
for j in range(2 * ny + 1):
    for i in reversed(range(2 * nx + 1)):
        if i % 2 and j % 2:
            continue
        ids[i, j] = len(pts) + 1
        pts.append((L * i / (2 * nx), h * (j / (2 * ny) - 0.5)))
els = []
for j in reversed(range(ny)):
    for i in range(nx):
        a, b = 2 * i, 2 * j
        els.append([ids[a, b], ids[a + 2, b], ids[a + 2, b + 2], ids[a, b + 2], ids[a + 1, b], ids[a + 2, b + 1],
                    ids[a + 1, b + 2], ids[a, b + 1]])
with open("strip.inp", "w") as f:
    f.write("*NODE\n" + "".join("%d, %.17g, %.17g\n" % (k + 1, x, y) for k, (x, y) in enumerate(pts)))
    f.write("*ELEMENT, TYPE=CPS8, ELSET=STRIP\n" + "".join("%d, %s\n" % (e + 1, ", ".join(map(str, n))) for e, n in enumerate(els)))
    f.write("*NSET, NSET=ROOT\n" + "\n".join(str(ids[0, j]) for j in range(2 * ny + 1)) + "\n")
    f.write("*NSET, NSET=TIPMID\n%d\n" % ids[2 * nx, ny])
PY
gen=(--set "static.mesh.cells=[20, 2]" --set static.steps=4)
mpirun -n 2 "$exe" static "$job" "${gen[@]}" --set output=gen.h5 > gen.log
mpirun -n 2 "$exe" static "$job" --set "static.mesh={file: $work/strip.inp}" --set static.steps=4 \
  --set "static.loads=[{type: force, set: tipmid, value: [0, 208333.333333]}]" --set static.report=tipmid \
  --set output=file.h5 > file.log
grep -q "(tipmid)" file.log
/usr/bin/python3 - <<'PY'
import h5py, numpy as np
def tip(path, name):
    g = h5py.File(path, "r")["static"]
    return g["displacement"][:, int(g["sets/" + name][0]), :]
a, b = tip("gen.h5", "tip_mid"), tip("file.h5", "tipmid")
d = np.abs(a - b).max() / np.abs(a).max()
print("file mesh vs generated mesh: %.1e" % d)
assert d < 1e-10
PY
expect="$src/tests/app/expect_error.sh"
"$expect" --exit-code 2 "static.mesh.generator" "not with static.mesh.file" -- mpirun -n 2 "$exe" static "$job" --set "static.mesh.file=$work/strip.inp"
"$expect" --exit-code 2 "static.formulation 'nff' is not one of" -- mpirun -n 2 "$exe" static "$job" --set static.formulation=nff
"$expect" --exit-code 2 "unknown key 'static.mesh.cell'" -- mpirun -n 2 "$exe" static "$job" --set static.mesh.cell=3
"$expect" --exit-code 2 "static.mesh.cells needs 2 number(s)" -- mpirun -n 2 "$exe" static "$job" --set "static.mesh.cells=[4]"
"$expect" --exit-code 2 "static.loads[0].set: no node set 'tip_top'" -- mpirun -n 2 "$exe" static "$job" --set "static.loads=[{type: force, set: tip_top, value: [0, 1]}]"
"$expect" --exit-code 2 "static.loads[0].value" "needs 2 numbers" -- mpirun -n 2 "$exe" static "$job" --set "static.loads=[{set: tip, value: [0, 1, 2]}]"
"$expect" --exit-code 2 "static.material.nu must lie in (-1, 0.5)" -- mpirun -n 2 "$exe" static "$job" --set static.material.nu=0.5
"$expect" --exit-code 2 "static.steps must be between 1 and 100000" -- mpirun -n 2 "$exe" static "$job" --set static.steps=0
echo "static_cli_test: OK"
