#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output files never destroy inputs or older results (issue #40 items 1, 6, 7):
#   output_files_test.sh FLEXUQ MPIEXEC NP SOURCE_DIR
# 1. `body-at scb.h5 -o X` with X the input itself (the same path, ./, an absolute path, a symbolic
#    link, a hard link) exits 2 naming both, before anything is written: the body's bytes are unchanged;
# 2. an output that is a directory, in a folder that does not exist, or the job's own mesh file is
#    refused before any computation (no eigensolve in the log), the mesh unchanged;
# 3. a run that fails late (a reduce whose OP4 export names an unknown set, found after the
#    eigensolves) leaves the older result (.h5 and .xdmf) intact and no temporary folder behind; the
#    same job that succeeds replaces both, and the .xdmf names the final .h5;
# 4. body-at refuses germ values that are not finite or outside the germ's support, naming the
#    parameter; a truncated or non-HDF5 body file is reported as such (not as an unwritable folder);
# 5. a campaign whose every sample fails exits non-zero; one with some failures ends with their count;
# 6. a temporary folder left by a killed run (its owner marker names this host and a dead process) is
#    removed by the next run writing the same output; one of a live process or another host is kept.
set -u
flexuq="$1"; mpiexec="$2"; np="$3"; src="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cp "$src/tests/app/scb_bar.yaml" "$src/tests/app/scb_bar.inp" .

fail() { echo "FAIL: $*"; exit 1; }
# run WANT_CODE LOG ARGS...: run flexuq on NP ranks, fail unless it exits WANT_CODE.
run() {
  local want=$1 log=$2; shift 2
  timeout 120 "$mpiexec" -n "$np" "$flexuq" "$@" > "$log" 2>&1
  local code=$?
  [[ $code -eq $want ]] || { cat "$log"; fail "flexuq $* exited $code, expected $want"; }
}
expect() { grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 does not contain '$2'"; }; }
no_temp() { if compgen -G "*.tmp.*" > /dev/null; then ls -la; fail "a temporary output folder was left behind $1"; fi; }

# --- 1. body-at onto its own input ---
run 0 scb.log reduce scb_bar.yaml --set output=scb.h5
sum_scb=$(md5sum < scb.h5)
ln -s scb.h5 link.h5
ln scb.h5 hard.h5
for out in scb.h5 ./scb.h5 "$work/scb.h5" link.h5 hard.h5; do
  run 2 at.log body-at scb.h5 --set E_left=2.1e11 -o "$out"
  expect at.log "body-at -o '$out' is the input file 'scb.h5'"
  [[ "$(md5sum < scb.h5)" == "$sum_scb" ]] || fail "body-at -o $out changed the input scb.h5"
done
[[ -L link.h5 ]] || fail "the symbolic link link.h5 was replaced"
no_temp "by a refused body-at"

# --- 2. outputs refused before any computation ---
mkdir adir
run 2 dir.log body-at scb.h5 -o adir
expect dir.log "body-at -o 'adir' is a directory"
cat > cb.yaml <<'EOF'
command: reduce
model:
  mesh: scb_bar.inp
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
reduce:
  method: craig-bampton
  interfaces: [{set: XMIN, kind: rbe2}, {set: XMAX, kind: rbe2}]
  modes: {count: 4}
output: cb.h5
EOF
sum_inp=$(md5sum < scb_bar.inp)
run 2 dir.log reduce cb.yaml --set output=adir
expect dir.log "cb.yaml: output 'adir' is a directory"
if grep -q "eigensolve\|interfaces" dir.log; then cat dir.log; fail "the computation ran before the directory output was refused"; fi
run 2 dir.log reduce cb.yaml --set reduce.op4=adir
expect dir.log "reduce.op4 'adir' is a directory"
if grep -q "eigensolve" dir.log; then cat dir.log; fail "the computation ran before the directory OP4 output was refused"; fi
run 2 dir.log reduce cb.yaml --set output=nofolder/cb.h5
expect dir.log "the folder 'nofolder' does not exist"
run 2 mesh.log reduce cb.yaml --set output=scb_bar.inp
expect mesh.log "output 'scb_bar.inp' is the input file"
[[ "$(md5sum < scb_bar.inp)" == "$sum_inp" ]] || fail "reduce with output = its mesh changed the mesh"
cp "$src/tests/app/tiny_box.yaml" .
sum_job=$(md5sum < tiny_box.yaml)
run 2 mesh.log modes tiny_box.yaml --set output=tiny_box.yaml
expect mesh.log "tiny_box.yaml: output 'tiny_box.yaml' is the input file 'tiny_box.yaml'"
[[ "$(md5sum < tiny_box.yaml)" == "$sum_job" ]] || fail "modes with output = its job file changed the job file"
no_temp "by a refused output"

# --- 3. a late failure keeps the older result ---
run 0 cb.log reduce cb.yaml
sum_h5=$(md5sum < cb.h5); sum_xdmf=$(md5sum < cb.xdmf)
run 2 late.log reduce cb.yaml --set reduce.modes.count=6 --set reduce.op4.file=cb.op4 --set "reduce.op4.phi_sets=[NOSUCH]"
expect late.log "node set 'NOSUCH' is not defined"
expect late.log "[eigensolve]"
[[ "$(md5sum < cb.h5)" == "$sum_h5" ]] || fail "a reduce that failed after its eigensolve replaced cb.h5"
[[ "$(md5sum < cb.xdmf)" == "$sum_xdmf" ]] || fail "a reduce that failed after its eigensolve replaced cb.xdmf"
[[ ! -e cb.op4 ]] || fail "a failed reduce left cb.op4"
no_temp "by a failed reduce"
run 0 cb6.log reduce cb.yaml --set reduce.modes.count=6 --set reduce.op4=cb.op4
[[ "$(md5sum < cb.h5)" != "$sum_h5" && -s cb.op4 ]] || fail "a successful reduce did not replace cb.h5 or write cb.op4"
grep -q 'cb\.h5:' cb.xdmf || { cat cb.xdmf; fail "cb.xdmf does not name cb.h5"; }
if grep -q 'tmp' cb.xdmf; then fail "cb.xdmf names the temporary file"; fi
no_temp "by a successful reduce"

# --- 4. body-at: parameter values and broken body files ---
run 2 xi.log body-at scb.h5 --set xi.E_left=inf -o at.h5
expect xi.log "xi.E_left=inf: the value of parameter 'E_left' is not finite"
run 2 xi.log body-at scb.h5 --set xi.rho_right=3 -o at.h5
expect xi.log "xi.rho_right = 3 gives parameter rho_right = 8400, outside the support of uniform(7600, 8000)"
[[ ! -e at.h5 ]] || fail "a refused body-at wrote at.h5"
head -c 40000 scb.h5 > truncated.h5
run 2 trunc.log body-at truncated.h5 -o at.h5
expect trunc.log "cannot read 'truncated.h5': not an HDF5 file or truncated"
if grep -q "writable" trunc.log; then cat trunc.log; fail "a truncated input is reported as an unwritable folder"; fi
run 2 trunc.log body-at cb.yaml -o at.h5
expect trunc.log "cannot read 'cb.yaml': not an HDF5 file or truncated"
run 0 at.log body-at scb.h5 --set rho_right=7700 -o at.h5
[[ -s at.h5 ]] || fail "body-at wrote no at.h5"

# --- 5. campaigns with failed samples ---
cat > failing.yaml <<'EOF'
model: {function: failing, threshold: 1.0}
parameters:
  x0: {dist: uniform, low: -2, high: 2}
method: {type: monte-carlo, samples: 20}
campaign: {seed: 3}
output: some.h5
EOF
run 0 some.log campaign failing.yaml
last=$(grep -v '^\s*$' some.log | grep -v "sample .* failed:" | tail -n 1)
[[ "$last" == *"of 20 sample(s) failed (reasons in some.h5: /samples/failure_reason)"* ]] ||
  { cat some.log; fail "the last line of a campaign with failures does not count them: '$last'"; }
run 2 all.log campaign failing.yaml --set output=all.h5 --set parameters.x0.low=2 --set parameters.x0.high=3
expect all.log "every one of the 20 sample(s) evaluated failed"
expect all.log "exceeds 1"
no_temp "by a campaign"

# --- 6. folders of killed runs ---
host=$(hostname)
sleep 0 & dead=$!; wait "$dead" # a process id that no longer exists
mkdir some.h5.tmp.$dead some.h5.tmp.$$ some.h5.tmp.7
echo "$host $dead" > some.h5.tmp.$dead/.flexuq-owner; echo partial > some.h5.tmp.$dead/some.h5
echo "$host $$" > some.h5.tmp.$$/.flexuq-owner
echo "another-host-$host 1" > some.h5.tmp.7/.flexuq-owner
rm -rf some.h5.journal
run 0 some.log campaign failing.yaml
[[ -e some.h5.tmp.$dead ]] && { ls -la; fail "the folder of a killed run (pid $dead) was not removed"; }
[[ -d some.h5.tmp.$$ && -d some.h5.tmp.7 ]] || { ls -la; fail "a folder of a live process or another host was removed"; }
[[ -e some.h5.tmp.$$/some.h5 || -e some.h5.tmp.7/some.h5 ]] && fail "the run wrote into a folder it does not own"
rm -rf some.h5.tmp.$$ some.h5.tmp.7
no_temp "by a campaign after a sweep"
echo "PASS"
