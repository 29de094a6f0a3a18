#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A two-material hex8 bar deck for the benchmarks (bench/sg_vs_collocation.sh, bench/sg_body_vs_collocation.sh):
# nx × ny × nz C3D8 cells on [0, 1] × [0, 0.1] × [0, 0.05], ELSET LEFT (x < 1/2) and RIGHT, NSET XMIN
# (x = 0) and XMAX (x = 1).
#   /usr/bin/python3 bench/make_two_material_bar.py OUT.inp NX NY NZ
import sys

path, nx, ny, nz = sys.argv[1], *map(int, sys.argv[2:5])
L, W, H = 1.0, 0.1, 0.05
nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
out = ["*NODE"]
out += [f"{nid(i,j,k)}, {L*i/nx:.9g}, {W*j/ny:.9g}, {H*k/nz:.9g}" for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
out.append("*ELEMENT, TYPE=C3D8, ELSET=ALL")
left, right, e = [], [], 1
for k in range(nz):
    for j in range(ny):
        for i in range(nx):
            n = [nid(i,j,k), nid(i+1,j,k), nid(i+1,j+1,k), nid(i,j+1,k), nid(i,j,k+1), nid(i+1,j,k+1), nid(i+1,j+1,k+1), nid(i,j+1,k+1)]
            out.append(f"{e}, " + ", ".join(map(str, n)))
            (left if i < nx // 2 else right).append(e)
            e += 1
chunk = lambda v: [", ".join(map(str, v[a:a + 16])) for a in range(0, len(v), 16)]
out += ["*ELSET, ELSET=LEFT"] + chunk(left) + ["*ELSET, ELSET=RIGHT"] + chunk(right)
out += ["*NSET, NSET=XMIN"] + chunk([nid(0, j, k) for k in range(nz + 1) for j in range(ny + 1)])
out += ["*NSET, NSET=XMAX"] + chunk([nid(nx, j, k) for k in range(nz + 1) for j in range(ny + 1)])
open(path, "w").write("\n".join(out) + "\n")
