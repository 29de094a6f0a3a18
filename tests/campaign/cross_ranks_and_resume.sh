#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Campaign results do not depend on the rank count or on interruptions:
#  1. the same FE campaign on 1, 2 (1 group of 2) and 3 ranks gives the same outputs (1e-9);
#  2. a campaign killed with SIGKILL mid-run and resumed on another rank count gives results
#     identical (bit for bit) to an uninterrupted run, and redoes no finished sample.
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
$py "$src/tests/campaign/compare_h5.py" 1e-9 fe1.h5 fe2.h5 fe3.h5

cat > slow.yaml <<'YAML'
model: {function: polynomial, delay_seconds: 0.05}
parameters:
  a: {dist: normal, mean: 1, std: 0.5}
  b: {dist: uniform, low: -1, high: 2}
method: {type: sobol, samples: 64}
campaign: {ranks_per_sample: 1, seed: 5, checkpoint_every: 4}
YAML
run 2 campaign slow.yaml --set output=ref.h5 > ref.log
# Start, wait until some samples are journaled, then SIGKILL the whole job.
setsid "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" campaign slow.yaml --set output=cut.h5 > cut1.log 2>&1 &
pid=$!
for _ in $(seq 200); do
  n=$( (cat cut.h5.journal/*.rec 2>/dev/null || true) | wc -c)
  [ "$n" -gt 600 ] && break
  sleep 0.05
done
pkill -KILL -s "$pid" 2>/dev/null || kill -KILL "$pid"   # the whole session, as SLURM does: mpiexec and every rank
wait "$pid" 2>/dev/null || true
before=$($py - <<'PY'
import glob, struct
n = 0
for f in glob.glob("cut.h5.journal/*.rec"):
    b = open(f, "rb").read(); i = 0
    while i + 12 <= len(b):
        size = struct.unpack_from("<Q", b, i + 4)[0]
        if i + 12 + size + 8 > len(b): break
        n += 1; i += 12 + size + 8
print(n)
PY
)
echo "journaled before the kill: $before of 64"
if [ "$before" -ge 64 ] || [ "$before" -lt 1 ]; then echo "the kill did not land mid-run (journaled $before)"; exit 1; fi
# Resume on a different rank count.
run 3 campaign slow.yaml --set output=cut.h5 --resume > cut2.log
evaluated=$(sed -n 's/.*evaluated \([0-9]*\) sample.*/\1/p' cut2.log)
echo "evaluated after resume: $evaluated"
if [ $((before + evaluated)) -ne 64 ]; then echo "resume redid or lost samples: $before + $evaluated != 64"; exit 1; fi
$py "$src/tests/campaign/compare_h5.py" 0 ref.h5 cut.h5
# The post-processing script draws the three figures from a result file.
$py "$src/postproc/plot_campaign.py" fe1.h5 --output-dir . > plot.log
for k in pdf convergence sobol; do
  [ -s "fe1_frequencies_$k.png" ] || { echo "plot_campaign.py did not write fe1_frequencies_$k.png"; cat plot.log; exit 1; }
done
echo "cross-rank and kill/resume checks passed"
