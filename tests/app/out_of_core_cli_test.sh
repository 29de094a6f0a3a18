#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# linear_solver.out_of_core through the CLI (issue #38 item 3) on a 20 × 5 × 5 hex8 box clamped at
# x = 0 (1 890 free DOFs, 8 modes): out-of-core factors with Krylov–Schur and with the block solver
# (modes.solver: block) give the in-core Krylov–Schur frequencies (the default) to 1e-10 relative, and
# MUMPS reports ICNTL(22) = 1 for them and 0 for the default.
# Usage: out_of_core_cli_test.sh FLEXUQ MPIEXEC SRCDIR WORKDIR NP
set -euo pipefail
flexuq=$1; mpiexec=$2; src=$3; work=$4; np=$5
rm -rf "$work"; mkdir -p "$work/ooc"; cd "$work"
export MUMPS_OOC_TMPDIR=$work/ooc
run() {
  "$mpiexec" -n "$np" --allow-run-as-root --oversubscribe -x MUMPS_OOC_TMPDIR "$flexuq" modes \
    "$src/tests/app/tiny_box.yaml" --set "model.generator.cells=[20, 5, 5]" --set modes.count=8 \
    -modes_st_mat_mumps_icntl_4 2 "$@"
}
run --set output=incore.h5 > incore.log 2>&1
run --set output=ooc.h5 --set linear_solver.out_of_core=true > ooc.log 2>&1
run --set output=oocblock.h5 --set linear_solver.out_of_core=true --set modes.solver=block > oocblock.log 2>&1
flag() { grep -m1 'ICNTL(22) Out-of-core option' "$1" | awk '{print $NF}'; }
[ "$(flag incore.log)" = 0 ] || { echo "FAIL: the default is not in core"; exit 1; }
for f in ooc oocblock; do [ "$(flag $f.log)" = 1 ] || { echo "FAIL: $f did not go out of core"; exit 1; }; done
/usr/bin/python3 - <<'PY'
import sys, h5py, numpy as np
ref = h5py.File("incore.h5", "r")["modes/frequencies_hz"][()]
if len(ref) < 8:
    sys.exit(f"FAIL: {len(ref)} in-core frequencies, fewer than 8")
for name in ("ooc", "oocblock"):
    f = h5py.File(name + ".h5", "r")["modes/frequencies_hz"][()]
    if len(f) < 8:
        sys.exit(f"FAIL: {name}: {len(f)} frequencies, fewer than 8")
    d = np.max(np.abs(f[:8] - ref[:8]) / ref[:8])
    print(f"{name}: largest relative difference from in core {d:.2e}")
    if not d <= 1e-10:
        sys.exit(f"FAIL: {name} differs by {d:.2e}")
PY
echo "out_of_core_cli_test: OK"
