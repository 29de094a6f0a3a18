#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Cross-check `flexuq modes` on 2-D elements against CalculiX (ccx) *FREQUENCY on the same mesh.

A steel plate 0.4 m x 0.2 m, 10 mm thick, in plane stress (CPS8) or plane strain (CPE8), 16 x 8
eight-node quadrilaterals with *SOLID SECTION and its thickness, written here; the edge x = 0
clamped (flexuq: model.fixed, ccx: *BOUNDARY 1-2).
  1. ccx solves the first six in-plane modes (it expands each CPS8/CPE8 into a 20-node brick
     through the thickness with the plane-stress or plane-strain condition, so its discrete problem
     is close to but not flexuq's quad8: the two agree to discretisation error);
  2. flexuq solves the same .inp at each requested rank count.
Measured (ccx 2.20): CPE8 equal to 1.5e-7 in all six modes (ccx's expansion is exact in plane
strain: the same discrete problem), CPS8 within 6.6e-5 (ccx enforces plane stress through its
expanded brick); flexuq 1 vs 2 ranks equal in the 9 digits it prints. Tolerances FREQ_RTOL_CCX =
1e-6 (CPE8) and 5e-4 (CPS8), RANKS_RTOL = 1e-8.
A wrong thickness (mass and stiffness both scale with it: frequencies unchanged, but a wrong
plane-stress/strain constitutive law moves them by ~5 % for nu = 0.3), a lost mass term or a
distorted shape function moves the frequencies by far more than the tolerance.
Exit 77 (ctest SKIP_RETURN_CODE) when ccx is not available.
"""
import os
import shutil
import sys

from ccx_modes import (ccx_frequencies, compare_with_ccx, flexuq_modes, oracle_parser, printed_frequencies,
                       quad8_lattice, write_case)

SKIP = 77
E, NU, RHO, T, LX, LY, NX, NY = 2.1e11, 0.3, 7850.0, 0.01, 0.4, 0.2, 16, 8
FREQ_RTOL_CCX = {"CPE8": 1e-6, "CPS8": 5e-4}
RANKS_RTOL = 1e-8
COUNT = 6


def write_model(work, element):
    lab, used, elems = quad8_lattice(NX, NY, LX, LY)  # fine lattice (2NX+1) x (2NY+1); quad8 skips the centres
    lines = ["*NODE"] + [f"{k}, {x:.10g}, {y:.10g}, 0" for k, (x, y) in sorted(used.items())]
    lines.append(f"*ELEMENT, TYPE={element}, ELSET=PLATE")
    for n, e in enumerate(elems, 1):
        lines.append(", ".join(str(v) for v in [n] + [lab(*p) for p in e]))
    lines.append("*NSET, NSET=ROOT")
    lines += [str(lab(0, j)) for j in range(2 * NY + 1)]
    lines += ["*MATERIAL, NAME=STEEL", "*ELASTIC", f"{E:.6g}, {NU}", "*DENSITY", f"{RHO}",
              "*SOLID SECTION, ELSET=PLATE, MATERIAL=STEEL", f"{T}"]
    write_case(work, lines, "ROOT, 1, 2", "[ROOT]", COUNT)


def flexuq_frequencies(work, args, np):
    out = flexuq_modes(work, args, np)
    if "(2 per node)" not in out:
        sys.exit("flexuq did not read the mesh as 2-D (2 DOFs per node)")
    return printed_frequencies(out, COUNT)


def main():
    p = oracle_parser()
    p.add_argument("--element", default="CPS8", choices=["CPS8", "CPE8"])
    args = p.parse_args()
    if shutil.which("ccx") is None:
        print("SKIP: ccx not installed")
        sys.exit(SKIP)
    os.makedirs(args.workdir, exist_ok=True)
    write_model(args.workdir, args.element)
    fc = ccx_frequencies(args.workdir, COUNT)
    runs = {int(n): flexuq_frequencies(args.workdir, args, int(n)) for n in args.np.split(",")}
    ok = compare_with_ccx(fc, runs, COUNT, FREQ_RTOL_CCX[args.element], RANKS_RTOL, f"ccx {args.element}")
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
