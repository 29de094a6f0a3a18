#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A `flexuq simulate` job: a chain of N rigid rod links (revolutes about z) falling under gravity
from a bent configuration. 7 coordinates and 6 constraint rows per link: the saddle matrix has
13 N rows and is a few per cent full. Used by bench/mbs_linear_algebra.sh.
   make_chain.py N [solver-type] > chain.yaml"""
import math
import sys

n = int(sys.argv[1])
scheme = sys.argv[2] if len(sys.argv) > 2 else "hht"
length = 0.5
print("# written by bench/make_chain.py: a chain of rigid links under gravity")
print("command: simulate")
print("bodies:")
top = (0.0, 0.0)
pins = []
for i in range(n):
    th = 0.3 + 0.05 * i
    d = (math.sin(th), -math.cos(th))
    m = 1.0 + 0.1 * i
    c = (top[0] + 0.5 * length * d[0], top[1] + 0.5 * length * d[1])
    print(f"  link{i}: {{type: rigid, mass: {m}, inertia: [0.01, {m * length**2 / 12}, {m * length**2 / 12}], "
          f"position: [{c[0]!r}, {c[1]!r}, 0], orientation: {{axis: [0, 0, 1], angle: {th - math.pi / 2!r}}}}}")
    pins.append(top)
    top = (top[0] + length * d[0], top[1] + length * d[1])
print("joints:")
for i in range(n):
    a = "ground" if i == 0 else f"link{i - 1}"
    print(f"  - {{name: pin{i}, type: revolute, bodies: [{a}, link{i}], point: [{pins[i][0]!r}, {pins[i][1]!r}, 0], axis: [0, 0, 1]}}")
print("forces:")
print("  - {type: gravity, g: [0, -9.81, 0]}")
print(f"solver: {{type: {scheme}, step: 1.0e-3, end: 0.5, tol: 1.0e-10}}")
print("output: chain.h5")
print("animation: false")
