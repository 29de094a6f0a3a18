#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 002's G6 with generalised superelement bodies (type: gs, docs/mbs.md): the two-body slider-crank
# (configs/seed002-slider-crank-gs-2.yaml, 6 internal modes per half) over two revolutions with the
# adaptive rk45 (rtol 1e-6, atol 1e-9), Craig–Bampton (6 fixed-interface modes), Herting and
# Rubin–Martinez (0 free-interface modes), each with unscaled and scaled (reduce.scaling: max) modes:
# rk45 steps (rejected), wall time, and d(φ) scaled vs unscaled. Also the floating-frame body held at
# END0 on the Craig–Bampton file for the time ratio (goal: GS within 1.5× the floating frame).
#   bench/gs_slider_crank.sh [FLEXUQ] [SOURCE_DIR]
set -euo pipefail
flexuq="${1:-build/bin/flexuq}"; src="${2:-$(pwd)}"
flexuq=$(readlink -f "$flexuq"); src=$(readlink -f "$src")
wd=$(mktemp -d); trap 'rm -rf "$wd"' EXIT; cd "$wd"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
cp "$src"/configs/seed002-{rod,slider-crank-2,slider-crank-gs-2}.yaml .
half=(--set model.generator.length=0.15 --set model.generator.elements=4 --set 'model.generator.origin=[-0.075, 0, 0]')
rk=(--set solver.type=rk45 --set solver.rtol=1e-6 --set solver.atol=1e-9 --set solver.step=1e-6)
echo "cores: $(nproc)"
for v in craig-bampton:6 herting:0 rubin-martinez:0; do
  m=${v%:*}; c=${v#*:}
  for s in none max; do
    "$flexuq" reduce seed002-rod.yaml "${half[@]}" --set reduce.method=$m --set reduce.modes.count=$c \
        --set reduce.scaling=$s --set output=half-$m-$s.h5 > /dev/null
    "$flexuq" simulate seed002-slider-crank-gs-2.yaml --set bodies.left.body=half-$m-$s.h5 \
        --set bodies.right.body=half-$m-$s.h5 "${rk[@]}" --set output=gs-$m-$s.h5 > /dev/null
  done
done
sed -e 's/{type: flexible, body: seed002-half.h5,/{type: flexible, body: seed002-half.h5, frame: {interface: END0},/' \
    seed002-slider-crank-2.yaml > ff-2.yaml
"$flexuq" simulate ff-2.yaml --set bodies.left.body=half-craig-bampton-none.h5 --set bodies.right.body=half-craig-bampton-none.h5 \
    "${rk[@]}" --set output=ff-craig-bampton-none.h5 > /dev/null
PYTHONPATH="$src/postproc" /usr/bin/python3 - <<'PY'
import h5py, numpy as np
from plot_deflection import deflection
def stats(p):
    with h5py.File(p, "r") as f:
        a = f["/solver"].attrs
        return int(a["steps"]), int(a["rejected"]), float(a["wall_seconds"])
print(f"{'body':5s} {'basis':15s} {'scaling':7s} {'steps':>7s} {'rejected':>8s} {'wall s':>7s}  d scaled vs unscaled (of max |d|)")
for m in ["craig-bampton", "herting", "rubin-martinez"]:
    d0 = deflection(f"gs-{m}-none.h5")[2]
    for s in ["none", "max"]:
        st = stats(f"gs-{m}-{s}.h5")
        r = np.max(np.abs(deflection(f"gs-{m}-{s}.h5")[2] - d0)) / np.max(np.abs(d0))
        print(f"gs    {m:15s} {s:7s} {st[0]:7d} {st[1]:8d} {st[2]:7.2f}  {r:.2g}")
st = stats("ff-craig-bampton-none.h5")
print(f"ff    {'craig-bampton':15s} {'none':7s} {st[0]:7d} {st[1]:8d} {st[2]:7.2f}  (floating frame held at END0)")
PY
