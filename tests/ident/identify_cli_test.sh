#!/bin/bash
# SPDX-License-Identifier: MIT
# `flexuq identify` (issue #34 item 5, digest V17): the cart-pendulum chain of configs/ident on a short run
# (0.4 s, h = 0.02 s), full model and ROM: Table 10's targets (m_C1, m_P1, d_P1) recovered to 1 % from its start values, the
# history's cost decreasing, the fitted signals equal to the measured ones; bad input refused (exit 2)
# naming the key (and the model file for its solver). Usage: identify_cli_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
FLEXUQ=$1; SRC=$3
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
short='s/step: 0.01, end: 1.0/step: 0.02, end: 0.4/'
python3 "$SRC/configs/ident/make_chain.py" | sed "$short" > cart-pendulum-chain.yaml
python3 "$SRC/configs/ident/make_chain.py" --train | sed "$short" > cart-pendulum-train.yaml
cp "$SRC/configs/ident/cart-pendulum-rom.yaml" .
# Three of Table 10's nine parameters (m_C1, m_P1, d_P1; test_ident runs all nine): the CLI's budget.
grep -v -E 'pendulum[234].mass|forces.[123].damping' "$SRC/configs/ident/cart-pendulum-identify.yaml" > cart-pendulum-identify.yaml
"$FLEXUQ" identify cart-pendulum-identify.yaml --set output=full.h5 > full.log 2>&1 || { cat full.log; exit 1; }
"$FLEXUQ" simulate cart-pendulum-train.yaml > train.log 2>&1 || { cat train.log; exit 1; }
"$FLEXUQ" rom cart-pendulum-rom.yaml > rom.log 2>&1 || { cat rom.log; exit 1; }
"$FLEXUQ" identify cart-pendulum-identify.yaml --set rom=cart-pendulum-rom.h5 --set output=red.h5 > red.log 2>&1 || { cat red.log; exit 1; }
cat full.log red.log
/usr/bin/python3 - <<'PY'
import h5py, numpy as np
res = {}
for name in ("full", "red"):
    with h5py.File(name + ".h5", "r") as f:
        g = f["/identify"]
        p, t = g["result"][()], g["target"][()]
        err = np.max(np.abs(p - t) / t)
        cost = g["history/cost"][()]
        meas, fit = g["measured"][()], g["fitted"][()]
        assert meas.shape == (21, 10) and fit.shape == meas.shape, meas.shape
        assert np.all(np.diff(cost) <= 0), "the accepted iterates' cost must decrease"
        assert cost[-1] < 1e-7 * cost[0], (cost[0], cost[-1])
        assert err < 0.01, (name, p, t)
        fit_err = np.max(np.abs(fit - meas)) / np.max(np.abs(meas))
        assert fit_err < 1e-3, fit_err
        assert len(g["history/parameters"][()]) == g.attrs["iterations"] + 1
        res[name] = (err, len(cost) - 1, cost[0], cost[-1], g.attrs["cpu_seconds"], fit_err)
        print(f"{name}: worst parameter error {err:.2e}, {len(cost) - 1} iterations, J {cost[0]:.3e} -> {cost[-1]:.3e}, "
              f"fitted vs measured {fit_err:.1e}, {g.attrs['cpu_seconds']:.2f} s cpu")
    if name == "red":
        with h5py.File("red.h5", "r") as f:
            assert f["/identify"].attrs["reduced"] == 1 and f["/identify"].attrs["r"] - f["/identify"].attrs["l"] == 7
print(f"reduced / full cpu: {res['red'][4] / res['full'][4]:.2f}")
PY
# Bad input: exit 2 and the key named.
expect_fail() { # expect_fail <pattern> <args...>
  local pat=$1; shift
  set +e; "$FLEXUQ" identify "$@" > bad.log 2>&1; local rc=$?; set -e
  [ $rc -eq 2 ] || { echo "expected exit 2, got $rc: $*"; cat bad.log; exit 1; }
  grep -q -- "$pat" bad.log || { echo "expected '$pat' in:"; cat bad.log; exit 1; }
}
sed 's/quantity: angle, axis: \[0, 0, 1\]}/quantity: spin}/' cart-pendulum-identify.yaml > bad1.yaml
expect_fail "signals\[0\].quantity (line 12): unknown value 'spin'" bad1.yaml
sed 's/bodies.cart1.mass: {start: 2.3, target: 2.12}/bodies.cart1.mas: {start: 2.3, target: 2.12}/' cart-pendulum-identify.yaml > bad2.yaml
expect_fail "parameters.bodies.cart1.mas" bad2.yaml
sed 's/bodies.cart1.mass: {start: 2.3, target: 2.12}/bodies.cart1.mass: {start: 2.3}/' cart-pendulum-identify.yaml > bad3.yaml
expect_fail "parameters.bodies.cart1.mass.target (line 8) is missing" bad3.yaml
sed 's/body: pendulum1, quantity: angle/body: pendulum9, quantity: angle/' cart-pendulum-identify.yaml > bad4.yaml
expect_fail "signals\[0\].body" bad4.yaml
sed 's/type: hht, alpha: -0.05, step: 0.02/type: rk45, step: 0.02/' cart-pendulum-chain.yaml > rk.yaml
sed 's/model: cart-pendulum-chain.yaml/model: rk.yaml/' cart-pendulum-identify.yaml > bad5.yaml
expect_fail "rk.yaml: solver.type: the identification's adjoint is that of hht or generalized-alpha" bad5.yaml
sed 's/step: 0.02, end: 0.4/step: 0.03, end: 0.4/' cart-pendulum-chain.yaml > st.yaml
sed 's/model: cart-pendulum-chain.yaml/model: st.yaml/' cart-pendulum-identify.yaml > bad6.yaml
expect_fail "st.yaml: solver.step = 0.03 must divide" bad6.yaml
echo "identify CLI: OK"
