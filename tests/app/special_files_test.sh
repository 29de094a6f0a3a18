#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Inputs that are not regular files (issue #40 item 3): every input is opened through one checked
# path (io/InputFile.hpp), so a FIFO or /dev/zero given as a job, mesh, matrix, label, OP4, body or
# journal file exits 2 within seconds naming the file and what it is — never a hang (a FIFO blocks an
# open until a writer comes) nor gigabytes of memory (/dev/zero never ends).
#   special_files_test.sh FLEXUQ MPIEXEC NP SOURCE_DIR
set -u
flexuq="$1"; mpiexec="$2"; np="$3"; src="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkfifo pipe pipe.inp pipe.bdf pipe.op4 pipe.h5 || exit 1
data="$src/tests/data/matrices"
cat > springs.yaml <<YAML
model:
  matrices:
    labels: $data/dofs.txt
    stiffness: {K: $data/k.mtx}
    mass: {M: $data/m.mtx}
modes: {count: 6}
output: springs.h5
YAML
cat > campaign.yaml <<'YAML'
command: campaign
parameters:
  a: {dist: uniform, low: 0, high: 1}
model: {function: polynomial}
method: {type: lhs, samples: 6}
output: c.h5
YAML

fail() { echo "FAIL: $*"; exit 1; }
n=0
# case WANT_TEXT ARGS...: flexuq on NP ranks under a 20 s limit (no input here takes 1 s) must exit 2
# and print WANT_TEXT; at most 1 GB of address space per rank (/dev/zero read whole would exceed it).
case_() {
  local want=$1; shift
  n=$((n + 1))
  local log="case$n.log"
  (ulimit -v 4000000; timeout 20 "$mpiexec" -n "$np" "$flexuq" "$@" > "$log" 2>&1)
  local code=$?
  [[ $code -ne 124 ]] || { cat "$log"; fail "flexuq $* hung"; }
  [[ $code -eq 2 ]] || { cat "$log"; fail "flexuq $* exited $code, expected 2"; }
  grep -qF -- "$want" "$log" || { cat "$log"; fail "flexuq $*: the output does not contain '$want'"; }
  echo "ok: flexuq $*: $want"
}
fifo="is not a regular file (a FIFO / named pipe)"
zero="is not a regular file (a character device such as /dev/zero)"
case_ "job file '$work/pipe' $fifo" modes "$work/pipe"
case_ "job file '/dev/zero' $zero" modes /dev/zero
case_ "mesh file '$work/pipe.inp' $fifo" modes "$src/tests/app/tiny_box.yaml" --set model.generator=null --set model.mesh="$work/pipe.inp"
case_ "mesh file 'pipe.bdf' $fifo" modes "$src/tests/app/tiny_box.yaml" --set model.generator=null --set model.mesh=pipe.bdf
case_ "DOF label file 'pipe' $fifo" modes springs.yaml --set model.matrices.labels=pipe
case_ "DOF label file '/dev/zero' $zero" modes springs.yaml --set model.matrices.labels=/dev/zero
case_ "matrix file 'pipe' $fifo" modes springs.yaml --set model.matrices.stiffness.K=pipe
case_ "matrix file '/dev/zero' $zero" modes springs.yaml --set model.matrices.stiffness.K=/dev/zero
case_ "matrix file 'pipe' $fifo" modes springs.yaml --set 'model.matrices.stiffness.K={file: pipe, format: petsc}'
case_ "OP4 file 'pipe.op4' $fifo" modes springs.yaml --set model.matrices.stiffness.K=pipe.op4
case_ "OP4 file '/dev/zero' $zero" modes springs.yaml --set 'model.matrices.stiffness.K={file: /dev/zero, format: op4}'
case_ "cannot read 'pipe.h5': it $fifo" body-at pipe.h5 -o at.h5
case_ "cannot read '/dev/zero': it $zero" body-at /dev/zero -o at.h5
# A simulate job whose flexible body file is a FIFO or a device: named as such, not "does not exist".
cat > sim.yaml <<'YAML'
command: simulate
bodies:
  bar: {type: flexible, body: pipe.h5, position: [0, 0, 0]}
solver: {type: hht, step: 1.0e-3, end: 1.0e-2}
output: sim.h5
YAML
case_ "flexible body file 'pipe.h5' $fifo" simulate sim.yaml
case_ "flexible body file '/dev/zero' $zero" simulate sim.yaml --set bodies.bar.body=/dev/zero
# A damaged body file (a NaN written into its model data) is named with the dataset and the entry,
# not found later as "the mass matrix is singular at t = 0".
cat > body.yaml <<'YAML'
command: reduce
model:
  generator: {type: box, size: [0.2, 0.05, 0.05], cells: [4, 2, 2]}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
reduce:
  method: craig-bampton
  interfaces: [{set: XMIN, kind: rbe2}, {set: XMAX, kind: rbe2}]
  modes: {count: 2}
  checkout: {free_free: 0}
output: body.h5
YAML
timeout 60 "$mpiexec" -n "$np" "$flexuq" reduce body.yaml > body.log 2>&1 || { cat body.log; fail "the reduction failed"; }
/usr/bin/python3 - <<'PY'
import h5py, shutil
for name, d, idx in (("nan-k", "reduced/K", (0, 0)), ("inf-sr", "reduced/invariants/Sr", (2, 3))):
    shutil.copy("body.h5", name + ".h5")
    with h5py.File(name + ".h5", "a") as f:
        f[d][idx] = float("nan") if name.startswith("nan") else float("inf")
PY
bad="not a valid flexuq body file"
case_ "nan-k.h5: /reduced/K has the non-finite entry nan at (0, 0): $bad" simulate sim.yaml --set bodies.bar.body=nan-k.h5
case_ "inf-sr.h5: /reduced/invariants/Sr has the non-finite entry inf at (2, 3): $bad" simulate sim.yaml --set bodies.bar.body=inf-sr.h5
# A campaign's journal: its state file or a record file replaced by a FIFO, the state file damaged.
timeout 60 "$mpiexec" -n "$np" "$flexuq" campaign campaign.yaml > first.log 2>&1 || { cat first.log; fail "the campaign failed"; }
mv c.h5.journal/state.txt state.txt
mkfifo c.h5.journal/state.txt
case_ "the journal state 'c.h5.journal/state.txt' $fifo: remove the folder c.h5.journal" campaign campaign.yaml --resume
rm c.h5.journal/state.txt
echo "22 serialization::archive garbage" > c.h5.journal/state.txt
case_ "the journal state 'c.h5.journal/state.txt' is damaged (" campaign campaign.yaml --resume
cp state.txt c.h5.journal/state.txt
mkfifo c.h5.journal/zz-extra.rec
case_ "campaign journal file 'c.h5.journal/zz-extra.rec' $fifo" campaign campaign.yaml --resume
echo "PASS ($n cases)"
