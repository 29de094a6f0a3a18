#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Campaign results do not depend on the rank count or on interruptions:
#  1. the same FE campaign on 1 and 3 ranks with one rank per sample gives bit-identical outputs
#     and statistics (only the scheduling differs); on 2 ranks as one group of 2 (the matrices are
#     partitioned differently) the same to round-off (1e-9);
#  2. FE campaigns resumed from partial journals (every other sample of each group dropped; one
#     sample dropped, so the resumed run evaluates it alone) are bit-identical to the full run:
#     a sample's result does not depend on what its group solved before (issue #10);
#  3. a campaign killed with SIGKILL mid-run and resumed on another rank count gives results
#     identical (bit for bit) to an uninterrupted run, and redoes no finished sample (an analytic
#     and an FE campaign, the latter with aligned mode shapes).
# Usage: cross_ranks_and_resume.sh FLEXUQ MPIEXEC SRCDIR WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; src=$3; work=$4
py=/usr/bin/python3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { local n=$1; shift; "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }

cat > fe.yaml <<'YAML'
model:
  generator: {type: beam, length: 1.0, elements: 30, section: {shape: RECT, dims: [0.02, 0.012]}}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
  fixed: [END0]
parameters:
  E:   {dist: lognormal, mean: 2.0e11, std: 2.0e10}
  rho: {dist: uniform, low: 7600, high: 8000}
outputs: {frequencies: 6}
method: {type: pce, samples: 24, pce: {max_order: 2, fit: regression}}
campaign: {ranks_per_sample: 1, seed: 11}
YAML
run 1 campaign fe.yaml --set output=fe1.h5 > fe1.log
run 2 campaign fe.yaml --set output=fe2.h5 --set campaign.ranks_per_sample=2 > fe2.log
run 3 campaign fe.yaml --set output=fe3.h5 > fe3.log
$py "$src/tests/campaign/compare_h5.py" 0 fe1.h5 fe3.h5
$py "$src/tests/campaign/compare_h5.py" 1e-9 fe1.h5 fe2.h5

# keep_records SRC DST PYEXPR: copy journal folder SRC to DST keeping, in each group's journal, the
# records whose position k (0-based) satisfies PYEXPR; the dropped samples are then "not run".
keep_records() { $py "$src/tests/support/keep_records.py" "$@"; }
keep_records fe3.h5.journal half.h5.journal "k % 2 == 0"
run 2 campaign fe.yaml --set output=half.h5 --resume > half.log
keep_records fe1.h5.journal alone.h5.journal "k != 13"
run 1 campaign fe.yaml --set output=alone.h5 --resume > alone.log
grep -q "evaluated 1 sample" alone.log || { echo "the resumed run should have evaluated exactly 1 sample"; cat alone.log; exit 1; }
$py "$src/tests/campaign/compare_h5.py" 0 fe1.h5 half.h5 alone.h5

cat > slow.yaml <<'YAML'
model: {function: polynomial, delay_seconds: 0.05}
parameters:
  a: {dist: normal, mean: 1, std: 0.5}
  b: {dist: uniform, low: -1, high: 2}
method: {type: sobol, samples: 64}
campaign: {ranks_per_sample: 1, seed: 5, checkpoint_every: 4}
YAML
# Complete records in the journal folder $1 (a torn last record is not counted).
journaled() { $py "$src/tests/support/journaled.py" "$1"; }
# kill_and_resume JOB OUT TOTAL: start JOB on 2 ranks, SIGKILL the whole job once a few samples are
# journaled, resume on 3 ranks; no sample may be redone or lost.
kill_and_resume() {
  local job=$1 out=$2 total=$3
  setsid "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" campaign "$job" --set output="$out" > "$out.cut1.log" 2>&1 &
  local pid=$!
  for _ in $(seq 400); do
    [ "$(journaled "$out.journal")" -ge 3 ] && break
    sleep 0.05
  done
  pkill -KILL -s "$pid" 2>/dev/null || kill -KILL "$pid"   # the whole session, as SLURM does: mpiexec and every rank
  wait "$pid" 2>/dev/null || true
  local before; before=$(journaled "$out.journal")
  echo "$job: journaled before the kill: $before of $total"
  if [ "$before" -ge "$total" ] || [ "$before" -lt 1 ]; then echo "the kill did not land mid-run (journaled $before)"; exit 1; fi
  run 3 campaign "$job" --set output="$out" --resume > "$out.cut2.log"
  local evaluated; evaluated=$(sed -n 's/.*evaluated \([0-9]*\) sample.*/\1/p' "$out.cut2.log")
  echo "$job: evaluated after resume: $evaluated"
  if [ $((before + evaluated)) -ne "$total" ]; then echo "resume redid or lost samples: $before + $evaluated != $total"; exit 1; fi
}
run 2 campaign slow.yaml --set output=ref.h5 > ref.log
kill_and_resume slow.yaml cut.h5 64
$py "$src/tests/campaign/compare_h5.py" 0 ref.h5 cut.h5
# The same with the FE model: frequencies and mode shapes bit-identical after a kill and a resume.
sed -e 's/^outputs: .*/outputs: {frequencies: 6, mode_shapes: true}/' \
    -e 's/^  fixed: \[END0\]/  fixed: [END0]\n  delay_seconds: 0.1/' \
    -e 's/^method: .*/method: {type: lhs, samples: 20}/' fe.yaml > feslow.yaml
run 2 campaign feslow.yaml --set output=feref.h5 > feref.log
kill_and_resume feslow.yaml fecut.h5 20
$py "$src/tests/campaign/compare_h5.py" 0 feref.h5 fecut.h5
# The post-processing script draws the three figures from a result file.
$py "$src/postproc/plot_campaign.py" fe1.h5 --output-dir . > plot.log
for k in pdf convergence sobol; do
  [ -s "fe1_frequencies_$k.png" ] || { echo "plot_campaign.py did not write fe1_frequencies_$k.png"; cat plot.log; exit 1; }
done
echo "cross-rank and kill/resume checks passed"
