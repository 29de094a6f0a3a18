#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Models for bench/shell_1m.sh (issue #37 Goals): a stiffened steel panel of S4/CQUAD4 shells, written
as an Abaqus .inp and as a Nastran deck of the same mesh, and a C3D8 steel brick of about the same
number of DOFs.

usage: make_shell_panel.py NDOF OUTDIR [small] [free]   -> OUTDIR/panel.inp, panel.bdf, solid.inp, sizes.txt
    small, free: the deck also as panel_small.bdf (small fixed fields: GRID coordinates in 8 columns,
    rounded to at most 7 significant digits, so they differ from the .inp's) and panel_free.bdf (free
    field, the .inp's coordinates: GRID,id,,x,y,z and CQUAD4,eid,pid,g1,g2,g3,g4).

Panel: plate 2 m x 1 m x 3 mm (nx x ny quads, square, ny a multiple of 8) with 7 blade stringers along
x at y = 0.125 ... 0.875 m, webs 40 mm high x 4 mm (mw quads over the height, about square), sharing
the plate's nodes; clamped at x = 0 (plate and web nodes): node set CLAMP in the .inp, SPC1 1 123456
(node set SPC1) in the deck. The deck: GRID* large field (coordinates as in the .inp, %.9e), CQUAD4,
PSHELL (MID2 = MID3 = MID1, 12I/T^3 = 1, TS/T = 5/6 as the .inp's default shear factor), MAT1 in
small fixed fields. Solid: a 1 x 0.5 x 0.25 m brick of 4n x 2n x n C3D8, clamped at x = 0 (CLAMP).
Steel everywhere: E 2.1e11 Pa, nu 0.3, rho 7850 kg/m^3. Sizes are picked so that the free DOF count
(6 per free shell node, 3 per free solid node) is nearest NDOF.
"""
import os
import sys

ndof, out, extra = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
assert set(extra) <= {"small", "free"}, "extra deck forms: small, free"
os.makedirs(out, exist_ok=True)
LX, LY, T_PLATE, T_WEB, HW, NSTR = 2.0, 1.0, 0.003, 0.004, 0.04, 7


def panel_size(ny):
    nx = 2 * ny
    mw = max(1, round(HW / (LY / ny)))
    nodes = (nx + 1) * (ny + 1) + NSTR * (nx + 1) * mw
    clamped = ny + 1 + NSTR * mw
    return nx, mw, 6 * (nodes - clamped)


ny = min(range(8, 4096, 8), key=lambda k: abs(panel_size(k)[2] - ndof))
nx, mw, shell_dofs = panel_size(ny)
n = min(range(1, 400), key=lambda k: abs(3 * 4 * k * (2 * k + 1) * (k + 1) - ndof))
solid_dofs = 3 * 4 * n * (2 * n + 1) * (n + 1)

# ---- the panel ----------------------------------------------------------------------------------
plate = lambda i, j: 1 + i + (nx + 1) * j  # noqa: E731
nplate = (nx + 1) * (ny + 1)
stringer_rows = [ny * (s + 1) // (NSTR + 1) for s in range(NSTR)]
assert all(ny * (s + 1) % (NSTR + 1) == 0 for s in range(NSTR))


def web(s, i, level):  # level 0 is the plate's node
    return plate(i, stringer_rows[s]) if level == 0 else nplate + 1 + i + (nx + 1) * ((level - 1) + mw * s)


coords = [(i * LX / nx, j * LY / ny, 0.0) for j in range(ny + 1) for i in range(nx + 1)]
for s in range(NSTR):
    for level in range(1, mw + 1):
        coords += [(i * LX / nx, stringer_rows[s] * LY / ny, level * HW / mw) for i in range(nx + 1)]
quads = [(1, (plate(i, j), plate(i + 1, j), plate(i + 1, j + 1), plate(i, j + 1))) for j in range(ny) for i in range(nx)]
quads += [(2, (web(s, i, lv), web(s, i + 1, lv), web(s, i + 1, lv + 1), web(s, i, lv + 1)))
          for s in range(NSTR) for lv in range(mw) for i in range(nx)]
clamp = [plate(0, j) for j in range(ny + 1)] + [web(s, 0, lv) for s in range(NSTR) for lv in range(1, mw + 1)]
xyz = [(f"{x:.9e}", f"{y:.9e}", f"{z:.9e}") for x, y, z in coords]

with open(os.path.join(out, "panel.inp"), "w") as f:
    f.write("*NODE\n")
    f.write("".join(f"{k + 1}, {c[0]}, {c[1]}, {c[2]}\n" for k, c in enumerate(xyz)))
    for pid, name in ((1, "PLATE"), (2, "WEB")):
        f.write(f"*ELEMENT, TYPE=S4, ELSET={name}\n")
        f.write("".join(f"{e + 1}, {q[0]}, {q[1]}, {q[2]}, {q[3]}\n" for e, (p, q) in enumerate(quads) if p == pid))
    f.write("*NSET, NSET=CLAMP\n" + "".join(f"{g},\n" for g in clamp))
    f.write("*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1e11, 0.3\n*DENSITY\n7850.\n")
    f.write(f"*SHELL SECTION, ELSET=PLATE, MATERIAL=STEEL\n{T_PLATE}\n*SHELL SECTION, ELSET=WEB, MATERIAL=STEEL\n{T_WEB}\n")


def small(*fields):
    return "".join(str(x).ljust(8) for x in fields).rstrip() + "\n"


def nas8(v):
    """v in at most 8 characters as a Nastran real (the nearest of fixed and implicit-exponent forms)."""
    def value(t):
        return float(t[0] + t[1:].replace("+", "e+").replace("-", "e-"))
    cands = []
    for d in range(7, -1, -1):  # fixed point, "0." dropped to ".": .0039063
        t = f"{v:.{d}f}"
        t = t.replace("0.", ".", 1) if t.startswith(("0.", "-0.")) and abs(v) < 1 else t
        if len(t) <= 8 and "." in t:
            cands.append(t)
            break
    for p in range(7, -1, -1):  # mantissa and implicit exponent: 3.90625-3
        m, _, e = f"{v:.{p}e}".partition("e")
        m = (m.rstrip("0") if "." in m else m + ".")
        t = m if int(e) == 0 else f"{m}{int(e):+d}"
        if len(t) <= 8:
            cands.append(t)
            break
    return min(cands, key=lambda t: (abs(value(t) - v), len(t)))


def write_deck(name, grids, quads_text):
    with open(os.path.join(out, name), "w") as f:
        f.write("SOL 103\nCEND\nBEGIN BULK\n" + grids + quads_text)
        f.write("".join(small("SPC1", 1, 123456, g) for g in clamp))
        f.write(small("PSHELL", 1, 1, T_PLATE, 1, "", 1, ".833333") + small("PSHELL", 2, 1, T_WEB, 1, "", 1, ".833333"))
        f.write(small("MAT1", 1, "2.1+11", "", 0.3, 7850.) + "ENDDATA\n")


fixed_quads = "".join(f"CQUAD4  {e + 1:8d}{p:8d}{q[0]:8d}{q[1]:8d}{q[2]:8d}{q[3]:8d}\n" for e, (p, q) in enumerate(quads))
write_deck("panel.bdf", "".join(f"GRID*   {k + 1:>16}{'':16}{c[0]:>16}{c[1]:>16}\n*       {c[2]:>16}\n"
                                for k, c in enumerate(xyz)), fixed_quads)
if "small" in extra:
    write_deck("panel_small.bdf", "".join(f"GRID    {k + 1:8d}{'':8}{nas8(x):>8}{nas8(y):>8}{nas8(z):>8}\n"
                                          for k, (x, y, z) in enumerate(coords)), fixed_quads)
if "free" in extra:
    write_deck("panel_free.bdf", "".join(f"GRID,{k + 1},,{c[0]},{c[1]},{c[2]}\n" for k, c in enumerate(xyz)),
               "".join(f"CQUAD4,{e + 1},{p},{q[0]},{q[1]},{q[2]},{q[3]}\n" for e, (p, q) in enumerate(quads)))

# ---- the solid brick ----------------------------------------------------------------------------
mx, my, mz = 4 * n, 2 * n, n
h = 0.25 / n
nid = lambda i, j, k: 1 + i + (mx + 1) * (j + (my + 1) * k)  # noqa: E731
with open(os.path.join(out, "solid.inp"), "w") as f:
    f.write("*NODE\n")
    f.write("".join(f"{nid(i, j, k)}, {i * h:.9e}, {j * h:.9e}, {k * h:.9e}\n"
                    for k in range(mz + 1) for j in range(my + 1) for i in range(mx + 1)))
    f.write("*ELEMENT, TYPE=C3D8, ELSET=SOLID\n")
    e = 0
    for k in range(mz):
        for j in range(my):
            for i in range(mx):
                e += 1
                c = (nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                     nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1))
                f.write(f"{e}, " + ", ".join(map(str, c)) + "\n")
    f.write("*NSET, NSET=CLAMP\n" + "".join(f"{nid(0, j, k)},\n" for k in range(mz + 1) for j in range(my + 1)))
    f.write("*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1e11, 0.3\n*DENSITY\n7850.\n*SOLID SECTION, ELSET=SOLID, MATERIAL=STEEL\n")

with open(os.path.join(out, "sizes.txt"), "w") as f:
    f.write(f"panel: {nx} x {ny} plate quads, {NSTR} stringers of {mw} x {nx} quads, {len(coords)} nodes, "
            f"{len(quads)} CQUAD4/S4, {shell_dofs} free DOFs\n")
    f.write(f"solid: {mx} x {my} x {mz} C3D8, {(mx + 1) * (my + 1) * (mz + 1)} nodes, {solid_dofs} free DOFs\n")
print(open(os.path.join(out, "sizes.txt")).read(), end="")
