#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 003 V10 (§3.4.5, digest §2.11): POD versus SOD on the cart–pendulum (configs/rom/cart-pendulum-
# sod.yaml: n = 14, F = sin(4πt) N, k = 1 N/mm, t ∈ [0, 10] s, Δt = 0.01 s, 1001 snapshots).
# Asserted:
# 1. `pod.method: sod` is refused (exit 2) with a message naming the singular Σ_Ẋ and the numerical ranks
#    5 of 14 for both Σ_Ẋ and Σ_X (the seed's 5 and 5), and counting the λ = α/β: at least the 9
#    directions both matrices lack are indeterminate, α ≈ β ≈ 0 (the seed: 1 ∞, 7 negative, 2 NaN, 4
#    small positive: LAPACK's ratios of round-off; qualitative, as the digest says). numpy's ranks
#    (σ/σ₁ > 1e-8 of the centred snapshots) are the oracle for the 5 and 5.
# 2. The POD the seed keeps: all coordinates' uncentred positions, σ₆/σ₇ ≥ 1e8 (seed ≈ 1e10; measured
#    1.5e13) with σ₆/σ₁ > 1e-8: r = 6 (numpy's σ as the oracle), and its ROM runs, q = the full q to
#    1e-10 (measured 4.6e-13).
#   rom_sod_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
source "$src/tests/rom/rom_common.sh"
enter_workdir
cp "$src"/configs/rom/cart-pendulum-{sod,sod-rom,pod-rom}.yaml .
run simulate cart-pendulum-sod.yaml > train.log 2>&1 || { echo "FAIL: training run"; cat train.log; exit 1; }
expect_fail "Σ_Ẋ = ẊẊᵀ/h of the centred velocity snapshots is singular" rom cart-pendulum-sod-rom.yaml
cp bad.log sod.log
run rom cart-pendulum-pod-rom.yaml > pod.log 2>&1 || { echo "FAIL: POD rom"; cat pod.log; exit 1; }
cat pod.log
run simulate cart-pendulum-sod.yaml --set rom=cart-pendulum-pod-rom.h5 --set output=reduced.h5 > red.log 2>&1 ||
  { echo "FAIL: reduced run"; cat red.log; exit 1; }
PYTHONPATH="$src/tests/rom" $py - <<'PY'
import re
import h5py, numpy as np
from rom_check import check, finish, max_rel_error, coordinates
with h5py.File("cart-pendulum-train.h5") as f:
    q, v = f["snapshots/q"][()], f["snapshots/v"][()]
check(q.shape == (1001, 14), f"{q.shape[0]} snapshots of {q.shape[1]} coordinates")
def rank(a):
    s = np.linalg.svd(a - a.mean(0), compute_uv=False)
    return int((s > 1e-8 * s[0]).sum())
rx, rv = rank(q), rank(v)
check((rx, rv) == (5, 5), f"numpy: rank Σ_X = {rx}, rank Σ_Ẋ = {rv} (seed 5, 5)")
msg = open("sod.log").read()
m = re.search(r"rank of Σ_Ẋ (\d+) of (\d+), of Σ_X (\d+) of (\d+)", msg)
check(m is not None and tuple(map(int, m.groups())) == (rv, 14, rx, 14), "SOD's message: " + (m.group(0) if m else "no ranks"))
m = re.search(r"(\d+) indeterminate .*?, (\d+) infinite .*?, (\d+) negative, (\d+) zero, (\d+) positive", msg)
counts = tuple(map(int, m.groups())) if m else (0,) * 5
# 14 - 5 = 9 directions where both Σ_X and Σ_Ẋ vanish: α ≈ β ≈ 0 (the seed's NaN and round-off values).
check(m is not None and sum(counts) == 14 and counts[0] >= 14 - max(rx, rv),
      f"SOD's λ: {counts[0]} indeterminate, {counts[1]} infinite, {counts[2]} negative, {counts[3]} zero, "
      f"{counts[4]} positive (>= {14 - max(rx, rv)} indeterminate)")
s = np.linalg.svd(q.T, compute_uv=False)
check(s[5] / s[0] > 1e-8 and s[5] / s[6] >= 1e8, f"uncentred position POD: σ6/σ1 = {s[5] / s[0]:.2e}, σ6/σ7 = {s[5] / s[6]:.1e} (seed ≈ 1e10)")
with h5py.File("cart-pendulum-pod-rom.h5") as f:
    r = f["rom/V"].shape[1]
check(r == 6, f"POD r = {r} (seed 6)")
e = max_rel_error(q, coordinates("reduced.h5"))
check(e <= 1e-10, f"POD ROM q = full q: {e:.1e} (<= 1e-10)")
finish("seed 003 V10 (SOD)")
PY
