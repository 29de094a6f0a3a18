#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# reduce.modes.recycle through the CLI (issue #38 item 2) on the shape-changing two-material bar
# (tests/app/scb_bar.yaml: E of one half, rho of the other; 20 regression points):
#  - auto takes the recycled fixed-interface modes at every point (20 log lines, no fallback line);
#  - its points' mode eigenvalues, mode frequencies and reduced free-free frequencies equal the
#    full Krylov-Schur points (off) to 1e-12 relative (measured 4e-14);
#  - off (the default) never tries it.
# Usage: recycle_cli_test.sh FLEXUQ MPIEXEC SRCDIR WORKDIR NP
set -euo pipefail
flexuq=$1; mpiexec=$2; src=$3; work=$4; np=$5
rm -rf "$work"; mkdir -p "$work"; cd "$work"
cp "$src/tests/app/scb_bar.yaml" "$src/tests/app/scb_bar.inp" .
run() { "$mpiexec" -n "$np" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
run reduce scb_bar.yaml --set reduce.modes.recycle=auto --set output=auto.h5 > auto.log 2>&1
run reduce scb_bar.yaml --set output=off.h5 > off.log 2>&1
taken=$(grep -c "reduce.modes: recycled the reference modes" auto.log || true)
[ "$taken" = 20 ] || { echo "FAIL: recycled modes taken at $taken of 20 points"; cat auto.log; exit 1; }
if grep -q "did not pass" auto.log; then echo "FAIL: a point fell back"; exit 1; fi
if grep -q "recycled the reference modes" off.log; then echo "FAIL: off recycled"; exit 1; fi
/usr/bin/python3 - <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File("auto.h5", "r"), h5py.File("off.h5", "r")
for k in ("mode_eigenvalues", "mode_frequencies", "free_free_frequencies"):
    x, y = a["outputs/" + k][()], b["outputs/" + k][()]
    d = np.max(np.abs(x - y) / np.abs(y))
    print(f"{k}: auto vs off {d:.2e}")
    if not d <= 1e-12:
        sys.exit(f"FAIL: {k} differ by {d:.2e}")
PY
echo "recycle_cli_test: OK"
