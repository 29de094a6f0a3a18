#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Multibody linear algebra (not a test): `solver.linear_algebra` dense against sparse on chains of
# rigid links (bench/make_chain.py; N = 13 × links saddle rows) for hht (modified Newton keeps its LU)
# and rk45 (one LU per stage), and on seed 003's V8 driven by rk45 (configs/make_v8.py --driven).
# The crossovers set auto's thresholds (mbs/SaddleSolver.hpp); docs/performance.md records them.
#   bench/mbs_linear_algebra.sh [--out bench/results] [--flexuq PATH]
set -euo pipefail
source "$(dirname "$0")/mbs_common.sh"
wall() { # job la [extra...] -> wall seconds of the simulation (the /solver attribute)
  local job=$1 la=$2
  shift 2
  "$flexuq" simulate "$job" --set solver.linear_algebra="$la" --set output=la-bench.h5 "$@" > la-bench.log 2>&1 ||
    { cat la-bench.log; exit 1; }
  /usr/bin/python3 -c 'import h5py,sys; print("%.3f" % h5py.File(sys.argv[1],"r")["solver"].attrs["wall_seconds"])' la-bench.h5
}
echo "| mechanism | N | scheme | dense [s] | sparse [s] | dense / sparse | auto |"
echo "|---|---|---|---|---|---|---|"
for scheme in rk45 hht; do
  for links in 4 8 12 16 24; do
    /usr/bin/python3 "$here/bench/make_chain.py" "$links" "$scheme" > chain.yaml
    d=$(wall chain.yaml dense) s=$(wall chain.yaml sparse)
    "$flexuq" simulate chain.yaml --set output=la-bench.h5 > la-auto.log 2>&1
    a=$(grep -oE "(sparse|dense) linear algebra" la-auto.log | cut -d' ' -f1)
    echo "| chain of $links | $((13 * links)) | $scheme | $d | $s | $(echo "scale=2; $d / $s" | bc) | $a |"
  done
done
/usr/bin/python3 "$here/configs/make_v8.py" --driven > v8-driven.yaml
d=$(wall v8-driven.yaml dense) s=$(wall v8-driven.yaml sparse)
echo "| V8 driven (2 s) | 238 | rk45 | $d | $s | $(echo "scale=2; $d / $s" | bc) | sparse |"
