#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Reference integration of seed 004's slider-crank with SciPy, for bench/mbs_slider_crank.sh.

The same DAE as `flexuq simulate configs/slider-crank-seed004.yaml`, in seed 004's own planar
form (Ryan 2018 Sec. 3.7: q = [x1, y1, e0_1, e3_1, x2, y2, e0_2, e3_2], constraints 3.51–3.54 with the
unit-norm rows, Φ_q of Eq. 3.57, γ of the [R] Eq. 3.58, M = diag(m, m, 4J[[e3², −e0e3],
[−e0e3, e0²]]), C_e0 = −8Jwė3, C_e3 = 8Jwė0), reduced to index 1 by the saddle solve
[M −Φ_qᵀ; Φ_q 0][q̈; λ] = [Q − C; γ] and integrated by solve_ivp (RK45, rtol 1e-10, atol 1e-12),
no projection. Prints θ1 at t = 0.5 … 3, the constraint drift and the wall time.
"""
import math
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

l1, l2, m1, m2 = 1.0, 1.5, 2.0, 3.0
J1, J2 = m1 * l1**2 / 3, m2 * l2**2 / 3


def step(t, t1, x1, t2, x2):
    if t <= t1:
        return x1
    if t >= t2:
        return x2
    d = (t - t1) / (t2 - t1)
    return x1 + (x2 - x1) * (3 - 2 * d) * d * d


def torque(t):
    if t < 1.5:
        return step(t, 0.99, 1.0, 1.01, -1.0)
    return step(t, 1.99, -1.0, 2.01, 0.0)


def phi(q):
    x1, y1, a1, b1, x2, y2, a2, b2 = q
    return np.array([x1 - (2 * a1 * a1 - 1) * l1, y1 - 2 * a1 * b1 * l1,
                     x2 - (2 * a2 * a2 - 1) * l2 - x1 - (2 * a1 * a1 - 1) * l1,
                     y2 - 2 * a2 * b2 * l2 - y1 - 2 * a1 * b1 * l1, -2 * a2 * b2 * l2 - y2,
                     a1 * a1 + b1 * b1 - 1, a2 * a2 + b2 * b2 - 1])


def rhs(t, y):
    q, v = y[:8], y[8:]
    x1, y1, a1, b1, x2, y2, a2, b2 = q
    da1, db1, da2, db2 = v[2], v[3], v[6], v[7]
    M = np.zeros((8, 8))
    M[0, 0] = M[1, 1] = m1
    M[4, 4] = M[5, 5] = m2
    M[2:4, 2:4] = 4 * J1 * np.array([[b1 * b1, -a1 * b1], [-a1 * b1, a1 * a1]])
    M[6:8, 6:8] = 4 * J2 * np.array([[b2 * b2, -a2 * b2], [-a2 * b2, a2 * a2]])
    w1, w2 = a1 * db1 - b1 * da1, a2 * db2 - b2 * da2
    C = np.array([0, 0, -8 * J1 * w1 * db1, 8 * J1 * w1 * da1, 0, 0, -8 * J2 * w2 * db2, 8 * J2 * w2 * da2])
    T = torque(t)
    Q = np.array([0, 0, -2 * T * b1, 2 * T * a1, 0, 0, 0, 0])
    Pq = np.array([[1, 0, -4 * a1 * l1, 0, 0, 0, 0, 0],
                   [0, 1, -2 * b1 * l1, -2 * a1 * l1, 0, 0, 0, 0],
                   [-1, 0, -4 * a1 * l1, 0, 1, 0, -4 * a2 * l2, 0],
                   [0, -1, -2 * b1 * l1, -2 * a1 * l1, 0, 1, -2 * b2 * l2, -2 * a2 * l2],
                   [0, 0, 0, 0, 0, -1, -2 * b2 * l2, -2 * a2 * l2],
                   [0, 0, 2 * a1, 2 * b1, 0, 0, 0, 0],
                   [0, 0, 0, 0, 0, 0, 2 * a2, 2 * b2]])
    g = np.array([4 * l1 * da1 * da1, 4 * l1 * da1 * db1, 4 * l1 * da1 * da1 + 4 * l2 * da2 * da2,
                  4 * l1 * da1 * db1 + 4 * l2 * da2 * db2, 4 * l2 * da2 * db2,
                  -2 * (da1 * da1 + db1 * db1), -2 * (da2 * da2 + db2 * db2)])
    K = np.zeros((15, 15))
    K[:8, :8] = M
    K[:8, 8:] = -Pq.T
    K[8:, :8] = Pq
    sol = np.linalg.solve(K, np.concatenate([Q - C, g]))
    return np.concatenate([v, sol[:8]])


def main():
    th1 = math.pi / 4
    th2 = -math.asin(l1 / l2 * math.sin(th1))
    q0 = np.array([l1 * math.cos(th1), l1 * math.sin(th1), math.cos(th1 / 2), math.sin(th1 / 2),
                   2 * l1 * math.cos(th1) + l2 * math.cos(th2), 2 * l1 * math.sin(th1) + l2 * math.sin(th2),
                   math.cos(th2 / 2), math.sin(th2 / 2)])
    ts = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    t0 = time.perf_counter()
    r = solve_ivp(rhs, (0, 3), np.concatenate([q0, np.zeros(8)]), method="RK45", rtol=1e-10, atol=1e-12,
                  t_eval=ts, max_step=0.01)
    wall = time.perf_counter() - t0
    if not r.success:
        sys.exit("scipy: " + r.message)
    th = [2 * math.atan2(r.y[3, k], r.y[2, k]) for k in range(len(ts))]
    drift = max(np.max(np.abs(phi(r.y[:8, k]))) for k in range(len(ts)))
    print("scipy_theta1 " + " ".join(f"{x:.7f}" for x in th))
    print(f"scipy_drift {drift:.3e}")
    print(f"scipy_rhs_evaluations {r.nfev}")
    print(f"scipy_wall_seconds {wall:.4f}")


if __name__ == "__main__":
    main()
