#!/bin/sh
# SPDX-License-Identifier: MIT
# flexuq modes vs CalculiX *FREQUENCY on a crank-like tet10 part (bench/crank.geo).
#   bench/modes_vs_ccx.sh [--sizes 100k,300k] [--ccx-max 300k] [--flexuq build/bin/flexuq]
#                         [--no-mumps-variants] [--out bench/results/modes_vs_ccx.md]
# Needs gmsh, ccx, /usr/bin/time and Debian's /usr/bin/python3 (numpy, h5py). See docs/performance.md.
exec /usr/bin/python3 "$(dirname "$0")/modes_vs_ccx.py" "$@"
