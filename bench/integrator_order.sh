#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Integrator verification table (issue #32, not a test): the error at t = 1 s of hht (α = −0.05),
# generalized-α (ρ∞ = 0.8) and newmark on four mechanisms against references derived in
# tests/mbs/integrator_order_test.cpp (fast slider-crank and its 1-DOF Lagrangian, a torque-free
# tumbling body in closed form, a double pendulum, a slider-crank with a flexible point-mass rod),
# h = 1e-3 … 2.5e-5, with the factor the error falls by per halving of h, for the stabilised
# formulation (default), index-3 and index-3 with projected velocities; the same scheme on the
# minimal-coordinate equations at h = 1e-4; then adaptive steps at rtol 1e-3 and 1e-4.
#   bench/integrator_order.sh [--out bench/results]    (needs the test build: build/tests/test_mbs_order)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$here/bench/results"
[ "${1:-}" = --out ] && out=$2
bin="$here/build/tests/test_mbs_order"
[ -x "$bin" ] || { echo "build the tests first: cmake --build build --target test_mbs_order"; exit 2; }
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 FLEXUQ_ORDER_VERBOSE=1
{
  echo "| problem | scheme | formulation | 1e-3 | 5e-4 | 2.5e-4 | 1e-4 | 5e-5 | 2.5e-5 | minimal coordinates, 1e-4 |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  "$bin" --gtest_filter='*Table*' --gtest_also_run_disabled_tests | grep '^|'
  echo
  "$bin" --gtest_filter='*Adaptive*' | grep 'adaptive rtol'
} | tee "$out/integrator_order.md"
