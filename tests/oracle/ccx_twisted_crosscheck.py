#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Cross-check `flexuq modes` on warped S4 quads (issue #37 item 1) against CalculiX (ccx) *FREQUENCY.

MacNeal & Harder's twisted cantilever strip: L = 12, w = 1.1, t = 0.32, the width turning by 90 deg
from y at the root (x = 0, clamped: flexuq model.fixed, ccx *BOUNDARY 1-6) to z at the tip, E = 29e6,
nu = 0.22, rho = 1; NL x NW S4 quads, every one warped (the strip turns 90/NL deg per element). ccx
expands each S4 into a solid through the thickness, so its discrete problem is not flexuq's MITC4:
the two agree to discretisation error only. Measured (ccx 2.20, 48 x 8): flexuq 1.98368, 5.11824, 16.0687,
25.2582 Hz against ccx 1.98387, 5.09178, 15.9829, 25.1936 Hz (-0.01, +0.52, +0.54, +0.26 %), 1 rank = 2 ranks;
flexuq's Richardson limits from 12 x 2, 24 x 4, 48 x 8 (tests/fe/shell_warped_test.cpp) are 1.98286, 5.07984,
15.9705 Hz, within 0.25 % of ccx. FREQ_RTOL_CCX = 1.5 %.
Exit 77 (ctest SKIP_RETURN_CODE) when ccx is not available.
"""
import math
import os
import shutil
import sys

from ccx_modes import oracle_parser, run_and_compare, s4_plate_lines

SKIP = 77
L, W, T, E, NU, RHO = 12.0, 1.1, 0.32, 29e6, 0.22, 1.0
NL, NW, COUNT = 48, 8, 4
FREQ_RTOL_CCX = 1.5e-2
RANKS_RTOL = 1e-8


def mesh_lines():
    def helicoid(x, y):  # the flat strip [0, L] x [0, W], its width turned by 90 deg x / L about the axis
        th, eta = 0.5 * math.pi * x / L, y - 0.5 * W
        return x, eta * math.cos(th), eta * math.sin(th)

    lines, lab, _ = s4_plate_lines(NL, NW, L, W, helicoid)
    lines.append("*NSET, NSET=ROOT")
    lines += [str(lab(0, j)) for j in range(NW + 1)]
    lines += ["*MATERIAL, NAME=M", "*ELASTIC", f"{E:.6g}, {NU}", "*DENSITY", f"{RHO}",
              "*SHELL SECTION, ELSET=PLATE, MATERIAL=M", f"{T}"]
    return lines


def main():
    args = oracle_parser().parse_args()
    if shutil.which("ccx") is None:
        print("SKIP: ccx not installed")
        sys.exit(SKIP)
    os.makedirs(args.workdir, exist_ok=True)
    run_and_compare(args, mesh_lines(), "ROOT, 1, 6", "[ROOT]", COUNT, FREQ_RTOL_CCX, RANKS_RTOL)


if __name__ == "__main__":
    main()
