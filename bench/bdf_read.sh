#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reading a large tet10 Nastran deck (large field, grids and elements in INCLUDE files) against the
# same model as Abaqus .inp: wall time and peak memory of each reader (docs/performance.md).
#   bench/bdf_read.sh [N=30] [BUILD=build]     N cells per side: 3 (2N+1)^3 DOF
set -eu
n="${1:-30}"
build="${2:-build}"
here="$(cd "$(dirname "$0")" && pwd)"
work="${TMPDIR:-/tmp}/flexuq_bdf_read_$n"
[[ -f "$work/block.bdf" ]] || /usr/bin/python3 "$here/make_tet_deck.py" "$n" "$work"
du -sh "$work/block.inp" "$work/inc"
for rep in 1 2 3; do
  "$build/bench/bench_read_mesh" "$work/block.inp"
  "$build/bench/bench_read_mesh" "$work/block.bdf"
done
