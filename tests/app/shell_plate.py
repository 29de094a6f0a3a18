#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes a square steel plate of N x N S4 shells as an Abaqus .inp (for the shell CLI tests):
#   shell_plate.py N SIDE THICKNESS EDGE_SET OUT.inp
# Nodes j (N + 1) + i + 1 at (SIDE i/N, SIDE j/N, 0), elements PLATE, node set EDGE_SET = the edge
# x = 0, steel (E 2.1e11, nu 0.3, rho 7850), *SHELL SECTION of the given thickness. The mesh is the
# CalculiX cross-checks' plate (tests/oracle/ccx_modes.py s4_plate_lines).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from ccx_modes import s4_plate_lines  # noqa: E402

n, side, h, edge, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
lines, lab, _ = s4_plate_lines(n, n, side, side)
lines += [f"*NSET, NSET={edge}"] + [str(lab(0, j)) for j in range(n + 1)]
lines += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "2.1e11, 0.3", "*DENSITY", "7850",
          "*SHELL SECTION, ELSET=PLATE, MATERIAL=STEEL", h]
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
