#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The block shift-and-invert eigensolver against Krylov–Schur (issue #38 item 1): `flexuq modes` on the
# crank of bench/crank.geo (tet10, 293 988 DOFs at 300k, clamped at CLAMP; the job of bench/scaling.sh's
# modes.yaml) with modes.solver krylov-schur and block, back to back, best of REPS (wall), on RANKS ranks.
# Prints per solver the wall time, the eigensolve phase (max over ranks), the solves (KSPSolve calls for
# Krylov–Schur; KSPMatSolve calls and their right-hand sides for block, from -log_view and flexuq's log),
# the time inside them, the summed peak memory, the ratio block / Krylov–Schur, and the largest relative
# difference of the frequencies. The 294 k run uses ~3.5 GB: a mesh over 10 MB holds /tmp/flexuq-bigmem.lock.
#
#   bench/block_eigen.sh [MESH.inp[.xz]]     (default .bench-device/crank_300k.inp.xz)
#   env: RANKS (2), REPS (2), NMODES (20), BLOCK_SIZE (modes.block_size, default: the solver's), FLEXUQ
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mesh=${1:-$here/.bench-device/crank_300k.inp.xz}
ranks=${RANKS:-2}; reps=${REPS:-2}; nmodes=${NMODES:-20}; fx=${FLEXUQ:-$here/build/bin/flexuq}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OPENBLAS_NUM_THREADS=1
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
case "$mesh" in *.xz) xz -dc "$mesh" > "$w/crank.inp";; *) cp "$mesh" "$w/crank.inp";; esac
cat > "$w/modes.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
modes: {count: $nmodes, fixed: [CLAMP]}
output: modes.h5
YAML
# The lock once, for all runs (a wait must not count in a run's wall time).
if [ "$(stat -c %s "$w/crank.inp")" -gt 10000000 ]; then exec 9> /tmp/flexuq-bigmem.lock; flock 9; fi
extra=(); [ -n "${BLOCK_SIZE:-}" ] && extra=(--set "modes.block_size=$BLOCK_SIZE")
echo "block_eigen.sh: $(basename "$mesh"), $ranks ranks, $nmodes modes, best of $reps; $(nproc) cores; load: $(uptime | sed 's/.*load average: //')"
declare -A best row
for rep in $(seq "$reps"); do
  for solver in krylov-schur block; do
    log="$w/$solver-$rep.log"; lv="$w/$solver-$rep.logview"
    set_extra=(); [ "$solver" = block ] && set_extra=("${extra[@]}")
    t0=$EPOCHREALTIME
    (cd "$w" && env PETSC_OPTIONS="-log_view :$lv" mpirun -n "$ranks" -x PETSC_OPTIONS \
      "$fx" modes modes.yaml --set modes.solver=$solver --set output=$solver.h5 "${set_extra[@]}") > "$log" 2>&1 \
      || { echo "$solver run $rep failed:"; tail -20 "$log"; exit 1; }
    t1=$EPOCHREALTIME
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
    eig=$(awk '$1 == "eigensolve" && NF >= 3 {print $3; exit}' "$log")
    mem=$(grep -o 'peak memory[^;]*summed over ranks' "$log" | head -1 || true)
    if [ "$solver" = block ]; then
      solves=$(awk '$1 == "KSPMatSolve" {print $2; exit}' "$lv"); tsol=$(awk '$1 == "KSPMatSolve" {print $4; exit}' "$lv")
      rhs=$(grep -o 'block solves, [0-9]* right-hand sides' "$log" | awk '{print $3}' | head -1)
      what="$solves block solves, $rhs right-hand sides"
    else
      solves=$(awk '$1 == "KSPSolve" {print $2; exit}' "$lv"); tsol=$(awk '$1 == "KSPSolve" {print $4; exit}' "$lv")
      what="$solves single solves"
    fi
    echo "  run $rep $solver: wall $wall s, eigensolve $eig s, $what in ${tsol} s${mem:+, $mem}"
    if [ -z "${best[$solver]:-}" ] || awk -v a="$wall" -v b="${best[$solver]}" 'BEGIN {exit !(a < b)}'; then
      best[$solver]=$wall; row[$solver]="wall $wall s | eigensolve $eig s | $what | in solves ${tsol} s"
    fi
  done
done
echo "best of $reps:"
for solver in krylov-schur block; do echo "  $solver: ${row[$solver]}"; done
awk -v a="${best[block]}" -v b="${best[krylov-schur]}" 'BEGIN {printf "  wall ratio block / krylov-schur: %.3f\n", a / b}'
if /usr/bin/python3 -c 'import h5py' 2> /dev/null; then
  /usr/bin/python3 - "$w/krylov-schur.h5" "$w/block.h5" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(f, "r")["modes/frequencies_hz"][()] for f in sys.argv[1:3])
n = min(len(a), len(b))
print(f"  frequencies: {len(a)} / {len(b)}, largest relative difference {np.max(np.abs(a[:n] - b[:n]) / a[:n]):.2e}")
PY
fi
