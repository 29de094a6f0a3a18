#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 001's GCMS body in motion (not a test): the pendulum of configs/pendulum-seed001-gcms.yaml
# (0.5 s, Newmark) in seed 001's formulation (type: gcms, 81 amplitudes, co-rotated K̂) against the
# same file in the floating frame of its 75 free-free modes (type: flexible), the peer in the same
# run, at two steps; and the tip gap between them. docs/performance.md records the table.
#   bench/mbs_gcms.sh [--out bench/results] [--flexuq PATH]
set -euo pipefail
source "$(dirname "$0")/mbs_common.sh"
cp "$here"/configs/{seed001-bar-gcms,pendulum-seed001-gcms}.yaml .
mpiexec -n 2 "$flexuq" reduce seed001-bar-gcms.yaml > gcms-reduce.log 2>&1 || { cat gcms-reduce.log; exit 1; }
wall() { /usr/bin/python3 -c 'import h5py,sys; print("%.3f" % h5py.File(sys.argv[1],"r")["solver"].attrs["wall_seconds"])' "$1"; }
echo "| step [s] | gcms [s] | Newton it. | floating frame [s] | Newton it. | gcms / frame | tip gap [m] |"
echo "|---|---|---|---|---|---|---|"
for h in 1e-3 5e-4 2.5e-4; do
  for t in gcms flexible; do
    "$flexuq" simulate pendulum-seed001-gcms.yaml --set bodies.bar.type=$t --set solver.step=$h --set animation=false \
      --set output=gcms-$t.h5 > gcms-$t.log 2>&1 || { cat gcms-$t.log; exit 1; }
  done
  g=$(wall gcms-gcms.h5) f=$(wall gcms-flexible.h5)
  ig=$(grep -oE "[0-9]+ Newton" gcms-gcms.log | cut -d' ' -f1) if_=$(grep -oE "[0-9]+ Newton" gcms-flexible.log | cut -d' ' -f1)
  gap=$(/usr/bin/python3 -c 'import h5py,sys,numpy as np; a,b=(h5py.File(f,"r")["outputs/tip"][:] for f in sys.argv[1:]); print("%.2e" % np.abs(a-b).max())' gcms-gcms.h5 gcms-flexible.h5)
  echo "| $h | $g | $ig | $f | $if_ | $(echo "scale=2; $g / $f" | bc) | $gap |"
done
