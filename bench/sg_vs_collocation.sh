#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stochastic Galerkin vs collocation vs Monte Carlo (issue #7 benchmark, not a test): the first 10
# clamped eigenfrequencies of a two-material cantilever bar (hex8, LEFT/RIGHT halves, log-normal E
# per half, CoV 10 % and 5 %), error of the mean and std against a high-order collocation reference,
# against wall time, all at the same rank count on the same machine.
#   bench/sg_vs_collocation.sh [--cells "40 8 4"] [--ranks 2] [--orders "1 2 3 4"] [--mc "50 200"]
#                              [--ref-points 9] [--out bench/results] [--flexuq PATH]
# The reference is a tensor collocation with --ref-points Gauss points per input and order one less
# (9: order 7; 6 points, order 5, keeps the ~100 k-DOF run affordable: 36 instead of 81 solves).
# Prints a markdown table (and writes sg_vs_collocation.csv for postproc/plot_sg_cost.py);
# docs/performance.md records the numbers.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cells="40 8 4"; ranks=2; orders="1 2 3 4"; mc="50 200"; refp=9; out="$here/bench/results"; flexuq="$here/build/bin/flexuq"
while [ $# -gt 0 ]; do
  case "$1" in
    --cells) cells=$2; shift 2;; --ranks) ranks=$2; shift 2;; --orders) orders=$2; shift 2;;
    --mc) mc=$2; shift 2;; --ref-points) refp=$2; shift 2;; --out) out=$2; shift 2;; --flexuq) flexuq=$2; shift 2;;
    *) echo "unknown option $1"; exit 2;;
  esac
done
[ -x "$flexuq" ] || { echo "build flexuq first (cmake --build build --target flexuq)"; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"; cd "$out"
mesh="sg_bar_${cells// /x}.inp"
/usr/bin/python3 "$here/bench/make_two_material_bar.py" "$mesh" $cells
job() { # $1 = method block
  cat <<YAML
model:
  mesh: $mesh
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
  materials: {LEFT: {E: 2.1e11, nu: 0.3, rho: 7850}, RIGHT: {E: 2.1e11, nu: 0.3, rho: 7850}}
  fixed: [XMIN]
parameters:
  E_left: {dist: lognormal, mean: 2.1e11, std: 2.1e10, param: E, set: LEFT}
  E_right: {dist: lognormal, mean: 2.1e11, std: 1.05e10, param: E, set: RIGHT}
outputs: {frequencies: 10}
campaign: {ranks_per_sample: 1, checkpoint_every: 1000, seed: 42}
$1
YAML
}
t() { local s=$EPOCHREALTIME; "$@" > "$log" 2>&1 || { echo "failed: see $out/$log"; exit 1; }; /usr/bin/python3 -c "print($EPOCHREALTIME - $s)"; }
runs=()
run() { # name, method block
  job "$2" > "$1.yaml"; rm -rf "$1.h5" "$1.h5.journal"; log="$1.log"
  local s; s=$(t mpiexec -n "$ranks" "$flexuq" campaign "$1.yaml" --set output="$1.h5")
  runs+=("$1:$s")
}
run ref "method: {type: collocation, pce: {order: $((refp - 1)), grid: tensor, points: $refp}}"
for p in $orders; do
  run "sg_p$p" "method: {type: galerkin, galerkin: {order: $p, operator_order: $((p + 1))}}"
  run "coll_sparse_p$p" "method: {type: collocation, pce: {order: $p, grid: sparse, level: $((p + 1))}}"
  run "coll_tensor_p$p" "method: {type: collocation, pce: {order: $p, grid: tensor, points: $((p + 1))}}"
done
for n in $mc; do run "mc_$n" "method: {type: monte-carlo, samples: $n}"; done
/usr/bin/python3 - "$mesh" "$refp" "${runs[@]}" <<'PY'
import sys, h5py, numpy as np
ref = h5py.File("ref.h5")
m0, s0 = ref["statistics/frequencies/mean"][()], ref["statistics/frequencies/std"][()]
refp = int(sys.argv[2])
print(f"mesh {sys.argv[1]}; reference: tensor collocation, {refp}x{refp} nodes, order {refp - 1}")
print("| run | evaluations | wall time [s] | max rel. error of mean | max rel. error of std |")
print("|---|---|---|---|---|")
rows = []
for arg in sys.argv[3:]:
    name, sec = arg.rsplit(":", 1)
    if name == "ref":
        continue
    f = h5py.File(name + ".h5")
    m, s = f["statistics/frequencies/mean"][()], f["statistics/frequencies/std"][()]
    em, es = np.max(np.abs(m / m0 - 1)), np.max(np.abs(s / s0 - 1))
    n = f["samples"].attrs["total"]
    evals = "1 Galerkin solve" if n == 0 else f"{n} FE solves"
    print(f"| {name} | {evals} | {float(sec):.1f} | {em:.1e} | {es:.1e} |")
    rows.append(f"{name},{n},{float(sec)},{em},{es}")
open("sg_vs_collocation.csv", "w").write("run,samples,seconds,err_mean,err_std\n" + "\n".join(rows) + "\n")
# Monte Carlo to 1e-6: the std error of the mean is σ/√N, so N = (max CoV / 1e-6)² solves.
mc = [r for r in rows if r.startswith("mc_")]
if mc:
    name, n, sec, *_ = mc[-1].split(",")
    per = float(sec) / int(n)
    N = (np.max(s0 / m0) / 1e-6) ** 2
    print(f"\nMonte Carlo to 1e-6 on the mean: N = (CoV/1e-6)^2 = {N:.1e} solves ≈ {N * per:.1e} s at {per:.3f} s per solve ({name})")
PY
