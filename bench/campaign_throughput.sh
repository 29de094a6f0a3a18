#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Campaign throughput (issue #4 benchmark, not a test): a campaign of the crank's first 10 clamped
# frequencies at 1 rank (1 group) and 2 ranks (2 groups of 1), and the cost of one sample against a
# fresh `flexuq modes` run of the same problem, all in the same run on the same machine.
#   bench/campaign_throughput.sh [--size 100k] [--samples 200] [--out bench/results] [--flexuq PATH]
# Prints a markdown table; docs/performance.md records the numbers.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
size=100k; samples=200; out="$here/bench/results"; flexuq="$here/build/bin/flexuq"
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2;; --samples) samples=$2; shift 2;; --out) out=$2; shift 2;;
    --flexuq) flexuq=$2; shift 2;;
    *) echo "unknown option $1"; exit 2;;
  esac
done
declare -A H=([30k]=0.0105 [100k]=0.0066 [300k]=0.0043)
h=${H[$size]:?unknown size $size (30k, 100k, 300k)}
[ -x "$flexuq" ] || { echo "build flexuq first (jobs/local/setup.sh)"; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"; cd "$out"
mesh="crank_$size.msh"
if [ ! -s "$mesh" ]; then
  gmsh -3 -order 2 -setnumber h "$h" -format msh41 -o "$mesh.tmp" "$here/bench/crank.geo" > gmsh.log 2>&1 && mv "$mesh.tmp" "$mesh" || { echo "gmsh failed: see $out/gmsh.log"; exit 1; }
fi
cat > "campaign_$size.yaml" <<YAML
model:
  mesh: $mesh
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
  fixed: [CLAMP]
parameters:
  E:   {dist: lognormal, mean: 2.1e11, std: 1.0e10}
  rho: {dist: uniform, low: 7700, high: 8000}
outputs: {frequencies: 10}
method: {type: lhs, samples: $samples}
campaign: {ranks_per_sample: 1, checkpoint_every: 50, seed: 42}
YAML
cat > "modes_$size.yaml" <<YAML
model: {mesh: $mesh, material: {E: 2.1e11, nu: 0.3, rho: 7850}, fixed: [CLAMP]}
modes: {count: 10}
output: modes_$size.h5
YAML
t() { local s=$EPOCHREALTIME; "$@" > /dev/null; /usr/bin/python3 -c "print($EPOCHREALTIME - $s)"; }
fresh=$(t mpiexec -n 1 "$flexuq" modes "modes_$size.yaml")
rm -rf c1.h5* c2.h5*
t1=$(t mpiexec -n 1 "$flexuq" campaign "campaign_$size.yaml" --set output=c1.h5)
t2=$(t mpiexec -n 2 "$flexuq" campaign "campaign_$size.yaml" --set output=c2.h5)
/usr/bin/python3 - "$size" "$samples" "$fresh" "$t1" "$t2" <<'PY'
import sys, h5py, numpy as np
size, n, fresh, t1, t2 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
s1 = h5py.File("c1.h5")["samples/seconds"][()]
dofs = h5py.File(f"modes_{size}.h5")["/modes"].attrs["dofs"]
print(f"| size | DOFs | samples | fresh `modes` (1 rank) | campaign 1 group | campaign 2 groups | speed-up 1→2 groups | mean sample time | sample / fresh |")
print(f"|---|---|---|---|---|---|---|---|---|")
print(f"| {size} | {dofs} | {n} | {fresh:.2f} s | {t1:.1f} s | {t2:.1f} s | {t1 / t2:.2f}× | {np.mean(s1):.2f} s | {np.mean(s1) / fresh:.2f} |")
a, b = h5py.File("c1.h5")["outputs/frequencies"][()], h5py.File("c2.h5")["outputs/frequencies"][()]
print(f"\nmax relative difference of the frequencies, 1 vs 2 groups: {np.nanmax(np.abs(a - b) / np.abs(a)):.2e}")
PY
