#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Craig–Bampton reduction (flexuq reduce) vs the plain clamped eigensolve (flexuq modes) of the same
# crank component (configs/crank.geo, tet10), both interfaces clamped, 20 modes. Goal (issue #3):
# whole reduction <= 1.5x the eigensolve. Results go to docs/performance.md by hand.
#   bench/cb_vs_modes.sh [h=0.0055 (~160 k DOF; 0.0043 gives ~300 k)] [ranks=2] [flexuq=build/bin/flexuq]
#   ALLDOF=1 bench/cb_vs_modes.sh ...   also runs the issue's example interfaces (JOURNAL_END all-dofs,
#                                       PIN_END rbe2: ~1100 boundary coordinates at 160 k DOF)
# JOURNAL_END and PIN_END are both RBE2 interfaces here (12 boundary coordinates): with all-DOF
# interfaces the cost is dominated by O(N n_b^2) reduced-matrix products, not by the solves.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
h="${1:-0.0055}"; np="${2:-2}"; flexuq="${3:-$here/build/bin/flexuq}"
wd=$(mktemp -d /tmp/cb_vs_modes.XXXX)
cp "$here/configs/crank.geo" "$here/configs/make_crank_mesh.sh" "$here/configs/add_crank_sets.py" "$wd/"
(cd "$wd" && sed -i 's#cd "$(dirname "$0")"#cd "'"$wd"'"#' make_crank_mesh.sh && bash make_crank_mesh.sh "$h")
cat > "$wd/modes.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
modes: {count: 20, fixed: [JOURNAL_END, PIN_END]}
output: modes.h5
YAML
. "$here/bench/crank_cb_common.sh"
crank_cb_job "$wd"
cd "$wd"
t0=$(date +%s.%N); mpirun -n "$np" "$flexuq" modes modes.yaml > modes.log 2>&1; t1=$(date +%s.%N)
mpirun -n "$np" "$flexuq" reduce cb.yaml > cb.log 2>&1; t2=$(date +%s.%N)
# With the full free-free comparison of the check-out (one more factorization of the free component):
mpirun -n "$np" "$flexuq" reduce cb.yaml --set reduce.checkout.free_free=10 > cb_ff.log 2>&1; t3=$(date +%s.%N)
if [ "${ALLDOF:-0}" = 1 ]; then
  t4=$(date +%s.%N)
  mpirun -n "$np" "$flexuq" reduce cb.yaml --set 'reduce.interfaces=[{set: JOURNAL_END, kind: all-dofs}, {set: PIN_END, kind: rbe2}]' \
    > cb_alldof.log 2>&1
  t5=$(date +%s.%N)
  /usr/bin/python3 -c "import sys; print(f'all-DOF JOURNAL_END: reduce {float(sys.argv[2]) - float(sys.argv[1]):.1f} s (phases in cb_alldof.log)')" "$t4" "$t5"
  grep -E "boundary coordinates" cb_alldof.log | head -1
fi
dofs=$(grep -o 'DOFs: [0-9]*' cb.log | head -1)
/usr/bin/python3 - "$t0" "$t1" "$t2" "$t3" "$dofs" <<'PY'
import re, sys
t0, t1, t2, t3 = map(float, sys.argv[1:5])
m, c, f = t1 - t0, t2 - t1, t3 - t2
def peak_mb(log):
    """Largest 'peak RSS [MB]' (summed over ranks) in the per-phase table of a flexuq log."""
    best = 0.0
    for line in open(log):
        cols = line.split()
        if len(cols) >= 5 and re.fullmatch(r"[0-9.]+", cols[-1]) and re.fullmatch(r"[0-9.]+", cols[-2]) \
                and re.fullmatch(r"[0-9.]+", cols[-3]) and re.fullmatch(r"[0-9.]+", cols[-4]):
            best = max(best, float(cols[-2]))
    return best
pm, pc, pf = peak_mb("modes.log"), peak_mb("cb.log"), peak_mb("cb_ff.log")
print(f"{sys.argv[5]}: modes {m:.1f} s, reduce (CB) {c:.1f} s = {c/m:.2f}x, reduce + free-free check-out {f:.1f} s = {f/m:.2f}x")
print(f"peak RSS summed over ranks: modes {pm:.0f} MB, reduce {pc:.0f} MB = {pc/max(pm,1):.2f}x, "
      f"reduce + check-out {pf:.0f} MB = {pf/max(pm,1):.2f}x")
PY
echo "logs in $wd (cb.log has the per-phase breakdown)"
