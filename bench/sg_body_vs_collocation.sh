#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stochastic Craig-Bampton bodies: reduce.stochastic.method galerkin (fixed-interface and constraint
# modes by stochastic Galerkin, the body projected at Gauss nodes) against collocation (a full
# Craig-Bampton reduction per node) on the same nodes, for a two-material hex8 bar held by two RBE2
# interfaces (E of one half log-normal CoV 10 %, rho of the other uniform +-2.5 %). Errors of the
# mean and std of the reduced free-free frequencies against a high-order collocation body; wall times
# of whole `mpiexec -n RANKS flexuq reduce` runs at the same rank count on the same machine, with
# their CPU time (user + sys of the mpiexec: on a loaded machine the wall times scatter, and the SG
# run's group synchronisations suffer more than the collocation's independent points) and the load
# (`uptime`) before and after; `--repeat N` runs every SG / collocation pair N times back to back.
# A benchmark, not a test: docs/performance.md records the numbers.
#   bench/sg_body_vs_collocation.sh [--cells "40 8 4"] [--ranks 2] [--orders "1 2 3"] [--modes 6]
#                                   [--out bench/results] [--flexuq PATH] [--repeat 1]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cells="40 8 4"; ranks=2; orders="1 2 3"; modes=6; out="$here/bench/results"; flexuq="$here/build/bin/flexuq"; repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
    --cells) cells=$2; shift 2;; --ranks) ranks=$2; shift 2;; --orders) orders=$2; shift 2;;
    --modes) modes=$2; shift 2;; --out) out=$2; shift 2;; --flexuq) flexuq=$2; shift 2;;
    --repeat) repeat=$2; shift 2;;
    *) echo "unknown option $1"; exit 2;;
  esac
done
[ -x "$flexuq" ] || { echo "build flexuq first (cmake --build build --target flexuq)"; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"; cd "$out"
mesh="scb_bar_${cells// /x}.inp"
/usr/bin/python3 "$here/bench/make_two_material_bar.py" "$mesh" $cells
job() { # $1 = reduce.stochastic block (indented 4)
  cat <<YAML
model:
  mesh: $mesh
  materials: {LEFT: {E: 2.1e11, nu: 0.3, rho: 7850}, RIGHT: {E: 2.1e11, nu: 0.3, rho: 7850}}
parameters:
  E_left: {dist: lognormal, mean: 2.1e11, std: 2.1e10, param: E, set: LEFT}
  rho_right: {dist: uniform, low: 7650, high: 8050, param: rho, set: RIGHT}
reduce:
  method: craig-bampton
  interfaces: [{set: XMIN, kind: rbe2}, {set: XMAX, kind: rbe2}]
  modes: {count: $modes}
  checkout: {free_free: $modes}
  stochastic:
$1
    basis: false
campaign: {ranks_per_sample: 1, checkpoint_every: 1000, seed: 42}
YAML
}
runs=()
echo "load before: $(uptime)"
run() { # name, stochastic block
  job "$2" > "$1.yaml"; rm -rf "$1.h5" "$1.h5.journal"
  local s=$EPOCHREALTIME
  /usr/bin/time -f "%U %S" -o "$1.cpu" mpiexec -n "$ranks" "$flexuq" reduce "$1.yaml" --set output="$1.h5" > "$1.log" 2>&1 ||
    { echo "failed: see $out/$1.log"; exit 1; }
  runs+=("$1:$(/usr/bin/python3 -c "print($EPOCHREALTIME - $s)"):$(awk '{print $1 + $2}' "$1.cpu")")
}
run ref "    method: collocation
    grid: tensor
    points: 8
    pce: {order: 6}"
for p in $orders; do for _ in $(seq "$repeat"); do
  run "galerkin_p$p" "    method: galerkin
    galerkin: {order: $p, operator_order: $((p + 1))}"
  run "collocation_p$p" "    method: collocation
    grid: tensor
    points: $((p + 2))
    pce: {order: $p}"
done; done
echo "load after: $(uptime)"
/usr/bin/python3 - "$mesh" "${runs[@]}" <<'PY'
import sys, h5py, numpy as np
ref = h5py.File("ref.h5")
q = "statistics/free_free_frequencies"
m0, s0 = ref[q + "/mean"][()], ref[q + "/std"][()]
print(f"mesh {sys.argv[1]}; reference: tensor collocation, 8x8 nodes, order 6")
print("| run | nodes | wall time [s] | CPU [s] | max rel. error of mean | max rel. error of std |")
print("|---|---|---|---|---|---|")
t, c = {}, {} # best (smallest) wall and CPU of each run's repeats
for arg in sys.argv[2:]:
    name, sec, cpu = arg.split(":")
    t[name] = min(t.get(name, 1e300), float(sec))
    c[name] = min(c.get(name, 1e300), float(cpu))
    if name == "ref":
        continue
    f = h5py.File(name + ".h5")
    m, s = f[q + "/mean"][()], f[q + "/std"][()]
    n = f["stochastic_body"].attrs["points_total"]
    print(f"| {name} | {n} | {float(sec):.1f} | {float(cpu):.1f} | {np.max(np.abs(m / m0 - 1)):.1e} | {np.max(np.abs(s / s0 - 1)):.1e} |")
for name in t:
    if name.startswith("galerkin_p"):
        o = "collocation_p" + name[len("galerkin_p"):]
        print(f"best-of ratio {name} / {o}: wall {t[name] / t[o]:.2f}, CPU {c[name] / c[o]:.2f}")
PY
