#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A cylindrical shell against the classical closed form through the CLI (issue #37 items 3 and 5; the
# element-level twin is tests/fe/shell_test.cpp ShellCylinder, which restricts K and M in the test
# itself: here the shear diaphragms are the job's model.fixed {set, dofs} entries): steel, R = 0.1 m,
# L = 0.4 m, h = 2 mm (R/h = 50), 96 x 16 S4 around x along, simply supported ends (shear
# diaphragm: u_x = u_y = 0 on both end rings, {set, dofs: [1, 2]}; the axial motion held by u_z = 0
# on the mid-length ring, where every mode with m = 1 has u_z = 0, so those modes are untouched).
# `flexuq modes` at 2 ranks: the first 8 frequencies are the m = 1 pairs n = 3, 4, 2, 5, each
# within 1.5 % of Sanders' shell theory (u = A cos(ax) cos(n t), v = B sin(ax) sin(n t),
# w = C sin(ax) cos(n t), a = m pi/L, the 3 x 3 Rayleigh-Ritz pencil of Sanders' membrane strains
# and curvatures, lowest root), both members of each pair equal, and the Donnell-Mushtari roots (the
# curvatures without u, v) are 3-5 % higher for n = 3, 4, 5 (0.2 % at n = 2), which the FE must
# not be (> 2.5 % away): the test tells the theories apart.
# Usage: shell_cylinder_test.sh FLEXUQ MPIEXEC WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; work=$3
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"; mkdir -p "$work"; cd "$work"
PYTHONPATH="$here/../oracle" $py - <<'PY'
import numpy as np
from ccx_modes import s4_plate_lines
R, L, H, NT, NZ = 0.1, 0.4, 0.002, 96, 16
# NT x NZ S4 around the circle t in [0, 2 pi) and along z in [0, L] (the ring closed).
lines, lab, _ = s4_plate_lines(NT, NZ, 2 * np.pi, L, lambda t, z: (R * np.cos(t), R * np.sin(t), z), closed=True,
                               elset="SHELL", digits=15)
lines += ["*NSET, NSET=ENDS"] + [str(lab(i, j)) for j in (0, NZ) for i in range(NT)]
lines += ["*NSET, NSET=MID"] + [str(lab(i, NZ // 2)) for i in range(NT)]
lines += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "2.1e11, 0.3", "*DENSITY", "7850",
          "*SHELL SECTION, ELSET=SHELL, MATERIAL=STEEL", str(H)]
open("cyl.inp", "w").write("\n".join(lines) + "\n")
open("cyl.yaml", "w").write("model:\n  mesh: cyl.inp\n  fixed: [{set: ENDS, dofs: [1, 2]}, {set: MID, dofs: [3]}]\n"
                            "modes:\n  count: 8\noutput: cyl.h5\n")
PY
timeout 120 "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" modes cyl.yaml > modes.log 2>&1 ||
  { echo "FAIL: modes"; cat modes.log; exit 1; }
$py - <<'PY'
import h5py, numpy as np
E, nu, rho, R, L, h = 2.1e11, 0.3, 7850.0, 0.1, 0.4, 0.002
C, D = E * h / (1 - nu**2), E * h**3 / (12 * (1 - nu**2))
def omega(m, n, sanders):
    """Lowest root of the Rayleigh-Ritz pencil of the simply supported mode (m, n), n >= 1."""
    a = m * np.pi / L
    o = np.outer
    # sin(ax) cos(nt) terms: e_x, e_t, k_x, k_t; cos(ax) sin(nt) terms: gamma, 2 k_xt (coefficients of A, B, C)
    ex, et = np.array([-a, 0, 0]), np.array([0, n / R, 1 / R])
    kx, kt = np.array([0, 0, a**2]), np.array([0, n / R**2 if sanders else 0, n**2 / R**2])
    g = np.array([-n / R, a, 0])
    k2 = np.array([0.5 * n / R**2, 1.5 * a / R, 2 * a * n / R]) if sanders else np.array([0, 0, 2 * a * n / R])
    K = (C * (o(ex, ex) + o(et, et) + nu * (o(ex, et) + o(et, ex))) + D * (o(kx, kx) + o(kt, kt) + nu * (o(kx, kt) + o(kt, kx)))
         + C * (1 - nu) / 2 * o(g, g) + D * (1 - nu) / 2 * o(k2, k2))
    # every trigonometric square integrates to (L/2) pi over the surface: the common factor cancels
    return np.sqrt(np.linalg.eigvals(K / (rho * h)).real.min())
f = h5py.File("cyl.h5", "r")
fe = np.sqrt(f["modes/eigenvalues"][()])
ok = len(fe) == 8 and f["modes"].attrs["rigid_body_modes"] == 0
for k, n in enumerate((3, 4, 2, 5)):
    ws, wd = omega(1, n, True), omega(1, n, False)
    a, b = fe[2 * k], fe[2 * k + 1]
    es, ed, pair = a / ws - 1, a / wd - 1, abs(b / a - 1)
    good = abs(es) < 0.015 and (n == 2 or abs(ed) > 0.025) and pair < 1e-6
    print(f"{'ok  ' if good else 'FAIL'} (m, n) = (1, {n}): FE {a / 2 / np.pi:.2f} Hz, Sanders {ws / 2 / np.pi:.2f} ({es:+.2%}), "
          f"Donnell {wd / 2 / np.pi:.2f} ({ed:+.2%}), pair {pair:.1e}")
    ok = ok and good
print("cylinder:", "OK" if ok else "FAILED")
raise SystemExit(0 if ok else 1)
PY
