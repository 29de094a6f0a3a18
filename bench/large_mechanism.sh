#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Large mechanisms (issue #40 item 2; not a test): chains of N rigid links on spherical joints,
# started bent 0.3 rad off the vertical and swinging under gravity, run by hht for STEPS steps of
# 1 ms. `auto` takes the sparse path (sparse assembly of the iteration and saddle matrices, sparse
# LU); the dense path (`solver.linear_algebra: dense`) is run where DENSE lists N. Prints per N:
# the wall time of the whole command, of the time loop (/solver wall_seconds), the peak RSS, the
# saddle matrix's non-zeros and the memory estimate of the path taken (read back from a refusal at
# FLEXUQ_MAX_MEMORY of 4 × the job file's size), and the constraint drift. docs/performance.md "Large mechanisms" records them.
#   bench/large_mechanism.sh [--out bench/results] [--flexuq PATH]
#   SIZES="400 800 1600 3000 5000" DENSE="400" STEPS=10 bench/large_mechanism.sh
set -euo pipefail
source "$(dirname "$0")/mbs_common.sh"
sizes="${SIZES:-400 800 1600 3000 5000}"
dense="${DENSE:-400}"
steps="${STEPS:-10}"
chain() { # N linear_algebra -> chain.yaml
  /usr/bin/python3 - "$1" "$2" "$steps" > chain.yaml <<'PY'
import math, sys
n, la, steps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
L, th = 0.1, 0.3
d = (math.sin(th), 0.0, -math.cos(th))
print("command: simulate\nbodies:")
for i in range(n):
    c = [(i + 0.5) * L * x for x in d]
    print(f"  b{i}: {{type: rigid, mass: 0.5, inertia: [0.001, 0.001, 1.0e-4], position: [{c[0]!r}, 0, {c[2]!r}], "
          f"orientation: {{axis: [0, 1, 0], angle: {-th!r}}}}}")
print("joints:")
print("  - {name: j0, type: spherical, bodies: [ground, b0], point: [0, 0, 0]}")
for i in range(1, n):
    p = [i * L * x for x in d]
    print(f"  - {{name: j{i}, type: spherical, bodies: [b{i - 1}, b{i}], point: [{p[0]!r}, 0, {p[2]!r}]}}")
print("forces:\n  - {type: gravity, g: [0, 0, -9.81]}")
print(f"solver: {{type: hht, step: 1.0e-3, end: {steps * 1e-3!r}, output_step: {steps * 1e-3 / 2!r}, linear_algebra: {la}}}")
print("outputs:\n  - {name: tip, body: b%d, point: [0, 0, 0], quantity: position}\n  - {name: drift, quantity: drift}" % (n - 1))
print("output: chain.h5\nanimation: false")
PY
}
run() { # N la
  chain "$1" "$2"
  local estimate
  estimate=$(FLEXUQ_MAX_MEMORY=$((4 * $(stat -c %s chain.yaml))) "$flexuq" simulate chain.yaml 2>&1 | grep -oE "(of [0-9]+ non-zeros|dense iteration).*needs an estimated [0-9.]+ [GM]?B" |
             sed -E 's/of ([0-9]+) non-zeros.*needs an estimated (.*)/\1 non-zeros, \2/; s/dense.*needs an estimated (.*)/dense, \1/') || true
  local start=$SECONDS
  /usr/bin/time -f "%M" -o rss.txt "$flexuq" simulate chain.yaml > chain.log 2>&1 || { tail -5 chain.log; echo "| $1 | $2 | failed |"; return; }
  local total=$((SECONDS - start))
  /usr/bin/python3 - "$1" "$2" "$total" "$(cat rss.txt)" "$estimate" <<'PY'
import h5py, sys
n, la, total, rss_kb, est = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
f = h5py.File("chain.h5", "r")
s = f["solver"].attrs
drift = f["outputs/drift"][()].max()
tip = f["outputs/tip"][()]
path = s["linear_algebra"]
path = path.decode() if isinstance(path, bytes) else path
print(f"| {n} | {path} | {total} | {s['wall_seconds']:.2f} | {rss_kb / 1024:.0f} | {est} | "
      f"{drift:.1e} | {abs(tip[-1] - tip[0]).max():.2e} |")
PY
}
nproc_line="cores: $(OMP_NUM_THREADS= nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$nproc_line; $steps steps of hht (h = 1 ms)"
echo "| bodies | path | command [s] | time loop [s] | peak RSS [MB] | estimate (saddle non-zeros, bytes) | drift | tip moved [m] |"
echo "|---|---|---|---|---|---|---|---|"
for n in $sizes; do
  for d in $dense; do [ "$d" = "$n" ] && run "$n" dense; done
  run "$n" auto
done
