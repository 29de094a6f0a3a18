#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Large mechanisms (issue #40 item 2): a chain of 400 rigid links on spherical joints, hanging at rest
# under gravity, is set up and run in seconds — the redundant-row selection is an in-order sparse QR
# and the t = 0 regularity test a sparse LDLᵀ of M + ρCᵀC (the dense Gram–Schmidt and full-pivoting
# LU they replace took a minute at 400 bodies, growing as n³). Checks:
#  1. 400 bodies within the 60 s limit, hanging equilibrium: each joint k carries the weight of the
#     links below it, (N − k)·m·g upwards on its second body, to 1e-8; the chain does not move;
#  2. a link without rotary inertia at the free end: refused at once naming that body (sparse path);
#  3. a mechanism whose iteration matrices cannot fit (FLEXUQ_MAX_MEMORY): exit 2 with the estimate
#     of the path it would take: dense ((n + m)², `linear_algebra: dense`, before any work) or sparse
#     (its non-zeros; `auto` takes that path for the chain, assembled sparse);
#  4. the links placed 1 mm off their joints: assembled at t = 0 and run within the limit.
# Usage: large_mechanism_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq=$1
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
$py - <<'PY'
N, L = 400, 0.1
def chain(path, out, inertia_last=None, jitter=0.0, la="auto"):
    lines = ["command: simulate", "bodies:"]
    for i in range(N):
        inertia = inertia_last if (inertia_last is not None and i == N - 1) else "[0.001, 0.001, 1.0e-4]"
        x = jitter * ((i % 3) - 1)  # off the joints: the assembly Newton must pull the chain together
        lines.append(f"  b{i}: {{type: rigid, mass: 0.5, inertia: {inertia}, position: [{x!r}, 0, {-(i + 0.5) * L!r}]}}")
    lines.append("joints:")
    lines.append("  - {name: j0, type: spherical, bodies: [ground, b0], point: [0, 0, 0]}")
    for i in range(1, N):
        lines.append(f"  - {{name: j{i}, type: spherical, bodies: [b{i - 1}, b{i}], point: [0, 0, {-i * L!r}]}}")
    lines += ["forces:", "  - {type: gravity, g: [0, 0, -9.81]}",
              f"solver: {{type: hht, step: 1.0e-3, end: 3.0e-3, output_step: 1.0e-3, linear_algebra: {la}}}", "outputs:",
              "  - {name: r0, joint: j0, quantity: reaction}", "  - {name: r100, joint: j100, quantity: reaction}",
              "  - {name: tip, body: b399, point: [0, 0, 0], quantity: position}", "  - {name: drift, quantity: drift}",
              f"output: {out}"]
    open(path, "w").write("\n".join(lines) + "\n")
chain("chain.yaml", "chain.h5")
chain("massless.yaml", "massless.h5", inertia_last="[0, 0, 0]")
chain("jitter.yaml", "jitter.h5", jitter=1e-3)
chain("dense.yaml", "dense.h5", la="dense")
PY
timeout 60 "$flexuq" simulate chain.yaml > chain.log 2>&1 || { cat chain.log; fail "the 400-body chain did not run within 60 s"; }
$py - <<'PY'
import h5py, numpy as np
f = h5py.File("chain.h5", "r")
out = f["outputs"]
w = 0.5 * 9.81
for name, below in (("r0", 400), ("r100", 300)):
    r = out[name][()]
    err = np.abs(r[:, :3] - np.array([0, 0, below * w])).max() / (below * w)
    print(name, "force", r[-1, :3], "expected", below * w, "rel. err", err)
    assert err < 1e-8, (name, err)
tip = out["tip"][()]
assert np.abs(tip - tip[0]).max() < 1e-10, tip
assert abs(tip[0, 2] + 39.95) < 1e-9, tip[0]
assert out["drift"][()].max() < 1e-10
print("large mechanism: OK")
PY
# 4. Bodies placed 1 mm off their joints: assembled by Newton at t = 0 (sparse C_q C_qᵀ), then the run.
timeout 60 "$flexuq" simulate jitter.yaml > jitter.log 2>&1 || { cat jitter.log; fail "the jittered chain did not assemble and run within 60 s"; }
$py - <<'PY'
import h5py
d = h5py.File("jitter.h5", "r")["outputs/drift"][()]
assert d.max() < 1e-10, d.max()
print("jittered chain assembled, drift", d.max())
PY
# refused CAP JOB GREP-FLAGS PATTERN WHAT: exit 2 within 30 s (FLEXUQ_MAX_MEMORY=CAP unless empty) and
# the message matches.
refused() {
  local code=0 log="$2.$1.log"
  env ${1:+FLEXUQ_MAX_MEMORY=$1} timeout 30 "$flexuq" simulate "$2" > "$log" 2>&1 || code=$?
  [[ $code -eq 2 ]] || { cat "$log"; fail "$5: exit $code, expected 2"; }
  grep -q"$3" "$4" "$log" || { cat "$log"; fail "$5: no message"; }
}
refused "" massless.yaml F "the mass matrix is singular at t = 0 on body 'b399'" "inertia-free link"
refused 50000000 dense.yaml F "the mechanism (400 bodies, 2800 coordinates, 1600 constraint rows: dense iteration matrices of (n + m)² entries) needs an estimated" "dense memory bound"
# The sparse path of `auto` fits in 50 MB (the chain ran above); 12 MB does not (its estimate: 1 kB per
# non-zero of the saddle matrix, ~20 MB), and says so with its non-zeros; 5 MB does not fit the rank test.
refused 5000000 chain.yaml F "the mechanism (400 bodies, 1600 constraint rows: the rows' rank test, a sparse QR of about 3 (rows)² bytes) needs an estimated 7.7 MB" "rank-test memory bound"
refused 12000000 chain.yaml E "the mechanism \(400 bodies, 2800 coordinates, 1600 constraint rows: sparse iteration matrices of [0-9]+ non-zeros and their LU factors\) needs an estimated" "sparse memory bound"
FLEXUQ_MAX_MEMORY=50000000 timeout 60 "$flexuq" simulate chain.yaml > fits.log 2>&1 || { cat fits.log; fail "the sparse path did not fit in 50 MB"; }
echo "PASS"
