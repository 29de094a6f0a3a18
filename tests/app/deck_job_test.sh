#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Nastran decks run as jobs (issue #9 item 2):
#   deck_job_test.sh FLEXUQ MPIEXEC NP SOURCE_DIR
# 1. `flexuq modes formats.bdf --set modes.count=4` (SPC from the case control, EIGRL band replaced
#    by the --set count) gives the frequencies of the same model as .inp run from a YAML job
#    (relative difference < 1e-10).
# 2. `flexuq reduce cb_cantilever.dat --set reduce.op4=body.op4` takes the b-set, the q-set size
#    and EIGRL from the deck: 6 boundary + 6 modal coordinates; the OP4 file's KAA equals
#    /reduced/K of the HDF5 result bit for bit (one interface grid: Nastran order = flexuq order).
set -u
flexuq="$1"; mpiexec="$2"; np="$3"; src="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
data="$src/tests/data/io/bdf"
cp "$data/formats.bdf" "$data/formats.inp" "$data/cb_cantilever.dat" .
mkdir inc && cp "$data/inc/grids_large.bdf" inc/
run() {
  timeout 120 "$mpiexec" -n "$np" "$flexuq" "$@" > run.log 2>&1
  local code=$?
  [[ $code -eq 0 ]] || { cat run.log; echo "FAIL: flexuq $* exited $code"; exit 1; }
}
run modes formats.bdf --set modes.count=4
printf 'model: {mesh: formats.inp, fixed: [SPC1]}\nmodes: {count: 4}\noutput: inp.h5\n' > inp.yaml
run modes inp.yaml
run reduce cb_cantilever.dat --set reduce.op4=body.op4
grep -q "body.op4 (OP4: KAA, MAA, BDOF)" run.log || { cat run.log; echo "FAIL: no OP4 in the summary"; exit 1; }
/usr/bin/python3 - <<'PY'
import struct, sys
import h5py, numpy as np
a = h5py.File("formats.h5", "r")["/modes/frequencies_hz"][:]
b = h5py.File("inp.h5", "r")["/modes/frequencies_hz"][:]
if len(a) != 4 or np.max(np.abs(a / b - 1)) > 1e-10:
    sys.exit(f"FAIL: deck {a} vs inp {b}")
K = h5py.File("cb_cantilever.h5", "r")["/reduced/K"][:]
if K.shape != (12, 12):
    sys.exit(f"FAIL: reduced K is {K.shape}, the deck asks for 6 b-set + 6 q-set coordinates")
# Read KAA from the binary OP4 (little-endian, 32-bit keys, dense columns).
raw = open("body.op4", "rb").read()
pos = 0
def record():
    global pos
    (n,) = struct.unpack_from("<i", raw, pos)
    body = raw[pos + 4: pos + 4 + n]
    pos += n + 8
    return body
ncol, nrow, form, typ = struct.unpack_from("<4i", record())
if (ncol, nrow, form, typ) != (12, 12, 6, 2):
    sys.exit(f"FAIL: KAA header {(ncol, nrow, form, typ)}")
kaa = np.zeros((12, 12))
while True:
    body = record()
    c, r, nw = struct.unpack_from("<3i", body)
    if c == ncol + 1:
        break
    kaa[r - 1: r - 1 + nw // 2, c - 1] = struct.unpack_from(f"<{nw // 2}d", body, 12)
if not np.array_equal(kaa, K):
    sys.exit(f"FAIL: KAA differs from /reduced/K by {np.max(np.abs(kaa - K))}")
print("deck jobs OK:", a)
PY
