#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the same structured tet10 block as an Abaqus .inp and as a large-field Nastran deck whose
grids and elements sit in two INCLUDE files (bench/bdf_read.sh).

usage: make_tet_deck.py N OUTDIR   (N cells per side: (2N+1)^3 nodes, 6 N^3 tet10, 3 (2N+1)^3 DOF)
"""
import os
import sys

n = int(sys.argv[1])
out = sys.argv[2]
os.makedirs(os.path.join(out, "inc"), exist_ok=True)
m = 2 * n + 1  # lattice points per side (corners and mid-edge points)
h = 1.0 / (2 * n)


def nid(i, j, k):
    return 1 + i + m * (j + m * k)


# Each cube → 6 tets around the main diagonal (Kuhn split, conforming); mid-edge nodes are the
# half-step lattice points between the corners.
cube = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
tets = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]
edges = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]


def elements():
    eid = 0
    for k in range(n):
        for j in range(n):
            for i in range(n):
                for t in tets:
                    c = [(2 * i + 2 * cube[v][0], 2 * j + 2 * cube[v][1], 2 * k + 2 * cube[v][2]) for v in t]
                    # positive orientation: (c1-c0)x(c2-c0).(c3-c0) > 0, else swap 1 and 2
                    a = [c[1][d] - c[0][d] for d in range(3)]
                    b = [c[2][d] - c[0][d] for d in range(3)]
                    e = [c[3][d] - c[0][d] for d in range(3)]
                    vol = (a[1] * b[2] - a[2] * b[1]) * e[0] + (a[2] * b[0] - a[0] * b[2]) * e[1] + (a[0] * b[1] - a[1] * b[0]) * e[2]
                    if vol < 0:
                        c[1], c[2] = c[2], c[1]
                    mids = [tuple((c[p][d] + c[q][d]) // 2 for d in range(3)) for p, q in edges]
                    eid += 1
                    yield eid, [nid(*p) for p in c + mids]


with open(os.path.join(out, "block.inp"), "w") as f:
    f.write("*NODE\n")
    for k in range(m):
        for j in range(m):
            for i in range(m):
                f.write(f"{nid(i, j, k)}, {i * h:.9e}, {j * h:.9e}, {k * h:.9e}\n")
    f.write("*ELEMENT, TYPE=C3D10, ELSET=SOLID\n")
    for eid, g in elements():
        f.write(f"{eid}, " + ", ".join(map(str, g[:9])) + ",\n" + str(g[9]) + "\n")
    f.write("*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1e11, 0.3\n*DENSITY\n7850.\n*SOLID SECTION, ELSET=SOLID, MATERIAL=STEEL\n")


def large(name, fields):
    return name.ljust(8) + "".join(str(x).rjust(16) for x in fields) + "\n"


with open(os.path.join(out, "inc", "grids.bdf"), "w") as f:
    for k in range(m):
        for j in range(m):
            for i in range(m):
                f.write(large("GRID*", [nid(i, j, k), "", f"{i * h:.9e}", f"{j * h:.9e}"]))
                f.write(large("*", [f"{k * h:.9e}"]))
with open(os.path.join(out, "inc", "elements.bdf"), "w") as f:
    for eid, g in elements():
        f.write(large("CTETRA*", [eid, 1, g[0], g[1]]))
        f.write(large("*", g[2:6]))
        f.write(large("*", g[6:10]))
with open(os.path.join(out, "block.bdf"), "w") as f:
    f.write("SOL 103\nCEND\nBEGIN BULK\nINCLUDE 'inc/grids.bdf'\nINCLUDE 'inc/elements.bdf'\n")
    f.write("PSOLID,1,1\nMAT1,1,2.1E11,,0.3,7850.\nENDDATA\n")
