#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""PCE evaluation at 10^6 points: flexuq (bench_pce_eval) against OpenTURNS in the same run.
    /usr/bin/python3 bench/pce_eval_vs_openturns.py [build/bench/bench_pce_eval] [points]
Same inputs (Hermite/Legendre germs alternating), total-degree bases, random coefficients."""
import subprocess
import sys
import time

import numpy as np
import openturns as ot

exe = sys.argv[1] if len(sys.argv) > 1 else "build/bench/bench_pce_eval"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
out = subprocess.run([exe, str(n)], check=True, capture_output=True, text=True).stdout
flexuq = {}
for line in out.splitlines():
    cells = [c.strip() for c in line.split("|")[1:-1]]
    if len(cells) == 7 and cells[0].isdigit():
        flexuq[(int(cells[0]), int(cells[1]), int(cells[3]))] = float(cells[5])
print(f"| inputs | order | outputs | points | flexuq [s] | OpenTURNS {ot.__version__} [s] | ratio |")
print("|---|---|---|---|---|---|---|")
rng = np.random.default_rng(1)
for (d, p, outs), t_fx in flexuq.items():
    polys = [ot.HermiteFactory() if i % 2 == 0 else ot.LegendreFactory() for i in range(d)]
    enum = ot.LinearEnumerateFunction(d)
    P = enum.getStrataCumulatedCardinal(p)
    basis = ot.OrthogonalProductPolynomialFactory(polys, enum)
    funcs = [basis.build(k) for k in range(P)]
    x = ot.Sample(rng.uniform(-1, 1, size=(n, d)))
    t0 = time.perf_counter()
    for _ in range(outs):  # one LinearCombinationFunction per output
        f = ot.LinearCombinationFunction(funcs, list(rng.standard_normal(P)))
        f(x)
    t_ot = time.perf_counter() - t0
    print(f"| {d} | {p} | {outs} | {n} | {t_fx:.3f} | {t_ot:.3f} | {t_ot / t_fx:.1f}× |")
