#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ROM of a mechanism with flexible bodies: seed 000's flexible slider-crank (configs/
# slider-crank-flexible.yaml: the crank and rod CB bars, 34 coordinates of which 20 elastic), trained
# over 0.1 s by index-3 HHT. The type-sensitive POD has a third block, the elastic coordinates; each
# block's rank equals numpy's numerical rank (σ/σ₁ > 1e-8) of the same velocity rows, and its σ̂ equal
# numpy's (1e-10); the reduced run (per-body VᵀM(η)V of the floating-frame bodies, K̄ and D̄ projected
# into the iteration matrix) reproduces the full run: max |Δq|/max_t|q| ≤ 1e-8 (measured 3.4e-9). Both runs
# at solver.tol 1e-12: at the default 1e-10 Newton's termination alone moved the difference between 3e-9
# and 1.2e-8 as the ROM's operators changed in round-off.
#   rom_flexible_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
py=/usr/bin/python3
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
source "$src/tests/rom/rom_common.sh"
cp "$src"/configs/{slider-crank-bar1-cb,rod-cb,slider-crank-flexible}.yaml .
run reduce slider-crank-bar1-cb.yaml > r1.log 2>&1 || { echo "FAIL: reduce crank"; cat r1.log; exit 1; }
run reduce rod-cb.yaml > r2.log 2>&1 || { echo "FAIL: reduce rod"; cat r2.log; exit 1; }
common=(--set solver.end=0.1 --set solver.formulation=index-3 --set solver.tol=1e-12 --set snapshots=true --set animation=false)
run simulate slider-crank-flexible.yaml "${common[@]}" --set output=train.h5 > train.log 2>&1 || { echo "FAIL: training"; cat train.log; exit 1; }
printf 'command: rom\nmodel: slider-crank-flexible.yaml\ntraining: [train.h5]\noutput: flex-rom.h5\n' > flex-rom.yaml
run rom flex-rom.yaml > rom.log 2>&1 || { echo "FAIL: rom"; cat rom.log; exit 1; }
cat rom.log
run simulate slider-crank-flexible.yaml "${common[@]}" --set rom=flex-rom.h5 --set output=reduced.h5 > red.log 2>&1 ||
  { echo "FAIL: reduced run"; cat red.log; exit 1; }
PYTHONPATH="$src/tests/rom" $py - <<'PY'
import h5py, numpy as np
from rom_check import check, finish, max_rel_error, rom_attrs, coordinates
with h5py.File("train.h5") as f:
    v = f["snapshots/v"][()].T; q = f["snapshots/q"][()]; types = f["snapshots/coordinate_type"][()]
with h5py.File("flex-rom.h5") as f:
    names = list(f["rom/block_names"].asstr()[()])
    blocks = {n: (f[f"rom/blocks/{i}/rows"][()], f[f"rom/blocks/{i}/sigma_normalised"][()], f[f"rom/blocks/{i}"].attrs["rank"]) for i, n in enumerate(names)}
check(names == ["translational", "rotational", "flexible"] and int((types == 2).sum()) == 20, f"blocks {names}, {int((types == 2).sum())} elastic coordinates")
for name, (rows, s, rank) in blocks.items():
    check(list(rows) == list(np.flatnonzero(types == names.index(name))), f"{name}: the rows of its type")
    ref = np.linalg.svd(v[rows], compute_uv=False); ref /= np.linalg.norm(ref)
    k = min(len(ref), 12)
    nr = int((ref > 1e-8 * ref[0]).sum())
    check(np.abs(ref[:k] - s[:k]).max() < 1e-10 and nr == rank, f"{name}: rank {rank} = numpy's {nr}, σ̂ as numpy's ({np.abs(ref[:k] - s[:k]).max():.1e})")
e = max_rel_error(q, coordinates("reduced.h5"))
check(e <= 1e-8, f"ROM q = full q at {q.shape[0]} outputs: max |Δq|/max|q| = {e:.2e} (<= 1e-8)")
finish("ROM flexible")
PY
