#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A stochastic Galerkin campaign killed with SIGKILL mid-solve (the whole session, as SLURM does)
# and resumed with --resume gives the uninterrupted run's results bit for bit: the inverse-subspace
# sweeps continue from <output>.sg_checkpoint.h5 (docs/sg.md), and the resumed run does not start
# again from the mean modes. The checkpoint is gone once the results are written.
# Usage: galerkin_kill_resume.sh FLEXUQ MPIEXEC SRCDIR WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; src=$3; work=$4
py=/usr/bin/python3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
# A 2.9 k-DOF two-material bar (the benchmark's deck): sweeps long enough to be cut.
$py "$src/bench/make_two_material_bar.py" bar.inp 30 6 4
cat > sg.yaml <<'YAML'
model:
  mesh: bar.inp
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
  materials: {LEFT: {E: 2.1e11, nu: 0.3, rho: 7850}, RIGHT: {E: 2.1e11, nu: 0.3, rho: 7850}}
  fixed: [XMIN]
parameters:
  E_left: {dist: lognormal, mean: 2.1e11, std: 2.1e10, param: E, set: LEFT}
  E_right: {dist: lognormal, mean: 2.1e11, std: 1.05e10, param: E, set: RIGHT}
outputs: {frequencies: 8}
method: {type: galerkin, galerkin: {order: 3, operator_order: 4}}
campaign: {ranks_per_sample: 1, seed: 5, checkpoint_seconds: 0} # a checkpoint after every sweep
YAML
run campaign sg.yaml --set output=ref.h5 > ref.log 2>&1
sweeps=$(sed -n 's/.*stochastic Galerkin done (\([0-9]*\) sweeps.*/\1/p' ref.log)
echo "uninterrupted: $sweeps sweeps"
# Cut: SIGKILL once the first sweep's checkpoint exists.
setsid "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" campaign sg.yaml --set output=cut.h5 > cut1.log 2>&1 &
pid=$!
for _ in $(seq 2000); do [ -f cut.h5.sg_checkpoint.h5 ] && break; sleep 0.01; done
pkill -KILL -s "$pid" 2>/dev/null || kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[ -f cut.h5.sg_checkpoint.h5 ] || { echo "no checkpoint before the kill"; cat cut1.log; exit 1; }
if grep -q "stochastic Galerkin done" cut1.log; then echo "the kill did not land mid-solve"; exit 1; fi
run campaign sg.yaml --set output=cut.h5 --resume > cut2.log 2>&1
after=$(sed -n 's/.*resumed from .* after sweep \([0-9]*\) .*/\1/p' cut2.log)
echo "resumed after sweep ${after:-none}"
[ -n "$after" ] && [ "$after" -ge 1 ] && [ "$after" -lt "$sweeps" ] || { echo "the resumed run did not continue a checkpoint"; cat cut2.log; exit 1; }
[ ! -f cut.h5.sg_checkpoint.h5 ] || { echo "the checkpoint is left after the results were written"; exit 1; }
$py - <<'PY'
import h5py, numpy as np, sys
a, b = h5py.File("ref.h5", "r"), h5py.File("cut.h5", "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) and o.dtype.kind == "f"
             and n.split("/")[0] in ("statistics", "pce") else None)
bad = [n for n in names if n not in b or a[n][()].tobytes() != b[n][()].tobytes()]
if not any(n.startswith("pce/mode_shapes") for n in names):
    sys.exit("no mode-shape coefficients in the result")
if bad:
    sys.exit("not bit-identical after the kill and resume: " + ", ".join(bad))
print(f"{len(names)} datasets under /statistics and /pce bit-identical")
PY
