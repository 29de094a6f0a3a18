#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Block solves of the CMS statics (reduce.solve_block, issue #38 item 1): the time of the phase
# "cms: constraint modes" (one K_ii solve per boundary coordinate, plus 6 inertia-relief columns)
# of a Craig–Bampton reduction with b right-hand sides per MatMatSolve, b = 1 (one KSPSolve per
# column) against the block sizes, at each rank count; also the phase's peak RSS (summed over ranks).
# The component: a generated hex20 box with both end faces as all-DOF interfaces (hundreds to
# thousands of boundary coordinates), 6 fixed-interface modes, no free-free check-out.
# Results go to docs/performance.md by hand.
#   bench/solve_block.sh [cells=24x6x6] [ranks="1 2"] [blocks="1 8 32 64 128"] [flexuq=build/bin/flexuq]
#   METHOD=hintz-attachment bench/solve_block.sh ...   times "cms: attachment modes" (K_ff) instead
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cells="${1:-24x6x6}"; ranks="${2:-1 2}"; blocks="${3:-1 8 32 64 128}"; flexuq="${4:-$here/build/bin/flexuq}"
method="${METHOD:-craig-bampton}"
phase="cms: constraint modes"
[ "$method" = hintz-attachment ] && phase="cms: attachment modes"
IFS=x read -r nx ny nz <<< "$cells"
wd=$(mktemp -d /tmp/solve_block.XXXX)
cat > "$wd/cb.yaml" <<YAML
model:
  generator: {type: box, size: [$(/usr/bin/python3 -c "print(0.025*$nx, 0.025*$ny, 0.025*$nz)" | tr ' ' ',')], cells: [$nx, $ny, $nz], order: 2}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
reduce:
  method: $method
  interfaces: [{set: XMIN, kind: all-dofs}, {set: XMAX, kind: all-dofs}]
  modes: {count: 6}
  checkout: {free_free: 0}
output: cb.h5
YAML
cd "$wd"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for np in $ranks; do
  for b in $blocks; do
    mpirun -n "$np" "$flexuq" reduce cb.yaml --set reduce.solve_block="$b" > "np${np}_b${b}.log" 2>&1
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$phase" "$ranks" "$blocks" <<'PY'
import re, sys
phase, ranks, blocks = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def read(log):
    """(DOF line, the phase's max wall time [s], its peak RSS summed over ranks [MB]) of a flexuq log."""
    dofs, t, mb = "", None, None
    for line in open(log):
        if "DOFs:" in line and not dofs:
            dofs = line.strip()
        if line.strip().startswith(phase + " "):
            cols = line.split()
            t, mb = float(cols[-3]), float(cols[-2])
    if t is None:
        sys.exit(f"{log}: no '{phase}' row in the per-phase table (the run failed?)")
    return dofs, t, mb
print(read(f"np{ranks[0]}_b{blocks[0]}.log")[0])
print(f"| ranks | b | {phase} [s] | ratio to b = {blocks[0]} | peak RSS [MB] |")
print("|---|---|---|---|---|")
for np in ranks:
    base = read(f"np{np}_b{blocks[0]}.log")[1]
    for b in blocks:
        _, t, mb = read(f"np{np}_b{b}.log")
        print(f"| {np} | {b} | {t:.3f} | {t / base:.3f} | {mb:.0f} |")
PY
echo "logs in $wd"
