#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Supports of single components read from the mesh in `flexuq reduce` (issue #37 item 3): a 0.2 x
# 0.04 x 0.03 m steel box (4 x 2 x 2 C3D8 / CHEXA cells), interface XMIN (all-dofs), symmetry plane
# u_y = 0 on YMIN given by the mesh file:
#  1. Abaqus `*BOUNDARY` `YMIN, YSYMM` (node set BOUNDARY, u_y only on solid nodes) with
#     `model.fixed: [BOUNDARY]`, reduced by craig-bampton and by herting on 2 ranks, equals the same
#     job with `model.fixed: [{set: YMIN, dofs: [2]}]`: every /reduced dataset to 1e-10 of its max,
#     signs included (the modes' canonical signs, docs/cms.md "Canonical signs": mode 3 of this box is
#     antisymmetric about z = 0.015, whose sign round-off used to pick), for craig-bampton and herting;
#     herting's principal-angle sines ≤ 1e-9 and check-out masses ≤ 1e-10 too, and herting on 1 rank =
#     on 2 ranks (every dataset to 2e-10, signs included; measured ≤ 8.2e-11); the check-out's figures
#     that solve with M-bar (rcond 2.2e-9) and the reduced pencil's eigenvalues to 1e-8. The same
#     herting job on the box with its nodes in the reverse order (relabelled) = the original once rows
#     and columns are matched (2e-10, signs included; measured 7.7e-11).
#  2. Nastran `SPC1 1 2 <YMIN grids>` (node set SPC1) with `model.fixed: [SPC1]`, craig-bampton on
#     interface BSET (`BSET1` on the XMIN grids),
#     equals `{set: SPC1, dofs: [2]}` (1e-10, signs included), and the .inp's reduction (numbers to 1e-10: the same
#     model; the labels name grids there).
#  3. The supports act: herting's reduced pencil has exactly the 3 zero eigenvalues a symmetry plane
#     leaves (t_x, t_z, r_y), not 6.
#  4. A whole-node set (`model.fixed: [YMIN]`) is still refused, exit 2 naming the file and the set.
# Usage: mesh_supports_reduce_test.sh FLEXUQ MPIEXEC WORKDIR EXPECT_ERROR
set -euo pipefail
flexuq=$1; mpiexec=$2; work=$3; expect_error=$4
py=/usr/bin/python3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
$py - <<'PY'
nx, ny, nz = 4, 2, 2
L = (0.2, 0.04, 0.03)
lab = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
nodes = [(lab(i, j, k), i * L[0] / nx, j * L[1] / ny, k * L[2] / nz)
         for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
elems = []
for k in range(nz):
    for j in range(ny):
        for i in range(nx):
            b = [lab(i, j, k), lab(i + 1, j, k), lab(i + 1, j + 1, k), lab(i, j + 1, k)]
            elems.append(b + [lab(i, j, k + 1), lab(i + 1, j, k + 1), lab(i + 1, j + 1, k + 1), lab(i, j + 1, k + 1)])
xmin = [lab(0, j, k) for k in range(nz + 1) for j in range(ny + 1)]
ymin = [lab(i, 0, k) for k in range(nz + 1) for i in range(nx + 1)]
with open("box.inp", "w") as f:
    f.write("*NODE\n" + "".join("%d, %.17g, %.17g, %.17g\n" % n for n in nodes))
    f.write("*ELEMENT, TYPE=C3D8, ELSET=ALL\n" + "".join("%d, %s\n" % (e + 1, ", ".join(map(str, c))) for e, c in enumerate(elems)))
    f.write("*NSET, NSET=XMIN\n" + ", ".join(map(str, xmin)) + "\n*NSET, NSET=YMIN\n" + ", ".join(map(str, ymin)) + "\n")
    f.write("*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1e11, 0.3\n*DENSITY\n7850.\n*SOLID SECTION, ELSET=ALL, MATERIAL=STEEL\n")
    f.write("*BOUNDARY\nYMIN, YSYMM\n")
# The same box with its nodes in the reverse order: label 145 - old, listed ascending (internal order).
rev = lambda l: 145 - l
with open("box_rev.inp", "w") as f:
    f.write("*NODE\n" + "".join("%d, %.17g, %.17g, %.17g\n" % ((rev(n[0]),) + n[1:]) for n in reversed(nodes)))
    f.write("*ELEMENT, TYPE=C3D8, ELSET=ALL\n" + "".join("%d, %s\n" % (e + 1, ", ".join(str(rev(x)) for x in c)) for e, c in enumerate(elems)))
    f.write("*NSET, NSET=XMIN\n" + ", ".join(str(rev(x)) for x in sorted(xmin, reverse=True)) + "\n*NSET, NSET=YMIN\n"
            + ", ".join(str(rev(x)) for x in sorted(ymin, reverse=True)) + "\n")
    f.write("*MATERIAL, NAME=STEEL\n*ELASTIC\n2.1e11, 0.3\n*DENSITY\n7850.\n*SOLID SECTION, ELSET=ALL, MATERIAL=STEEL\n")
    f.write("*BOUNDARY\nYMIN, YSYMM\n")
def card(fields):  # small-field card, continuation lines begin with 8 blanks
    out = ""
    for r in range(0, max(len(fields) - 1, 1), 8):
        out += ("%-8s" % (fields[0] if r == 0 else "")) + "".join("%8s" % x for x in fields[1 + r:9 + r]) + "\n"
    return out
with open("box.bdf", "w") as f:
    f.write("SOL 103\nCEND\nBEGIN BULK\n")
    for n in nodes:
        f.write(card(["GRID", n[0], ""] + ["%.6f" % x for x in n[1:]]))
    for e, c in enumerate(elems):
        f.write(card(["CHEXA", e + 1, 1] + c))
    f.write(card(["PSOLID", 1, 1]) + card(["MAT1", 1, "2.1e11", "", "0.3", "7850."]))
    f.write(card(["SPC1", 1, 2] + ymin) + card(["BSET1", 123] + xmin) + card(["PARAM", "COUPMASS", 1]))
    f.write("ENDDATA\n")
PY
job() { # mesh fixed method output [interface set]
  printf 'model:\n  mesh: %s\n  fixed: %s\nreduce:\n  method: %s\n  interfaces: [{set: %s, kind: all-dofs}]\n  modes: {count: 4}\noutput: %s\n' "$1" "$2" "$3" "${5:-XMIN}" "$4"; }
job box.inp "[BOUNDARY]" craig-bampton cb_bnd.h5 > cb_bnd.yaml
job box.inp "[{set: YMIN, dofs: [2]}]" craig-bampton cb_dofs.h5 > cb_dofs.yaml
job box.inp "[BOUNDARY]" herting h_bnd.h5 > h_bnd.yaml
job box.inp "[{set: YMIN, dofs: [2]}]" herting h_dofs.h5 > h_dofs.yaml
job box.bdf "[SPC1]" craig-bampton cb_spc.h5 BSET > cb_spc.yaml
job box.bdf "[{set: SPC1, dofs: [2]}]" craig-bampton cb_spcd.h5 BSET > cb_spcd.yaml
job box.inp "[YMIN]" craig-bampton whole.h5 > whole.yaml
for j in cb_bnd cb_dofs h_bnd h_dofs cb_spc cb_spcd; do
  run reduce $j.yaml > $j.log 2>&1 || { echo "reduce $j failed"; cat $j.log; exit 1; }
done
job box.inp "[BOUNDARY]" herting h_one.h5 > h_one.yaml
job box_rev.inp "[BOUNDARY]" herting h_rev.h5 > h_rev.yaml
run reduce h_rev.yaml > h_rev.log 2>&1 || { echo "reduce h_rev failed"; cat h_rev.log; exit 1; }
"$mpiexec" -n 1 --allow-run-as-root "$flexuq" reduce h_one.yaml > h_one.log 2>&1 || { echo "reduce h_one failed"; cat h_one.log; exit 1; }
"$expect_error" --exit-code 2 "whole.yaml" "model.fixed" "node set YMIN" "interfaces replace supports" -- \
  "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" reduce whole.yaml
$py - <<'PY'
import h5py, numpy as np
def datasets(name):
    out = {}
    h5py.File(name, "r")["reduced"].visititems(lambda k, v: out.__setitem__(k, v[()]) if isinstance(v, h5py.Dataset) else None)
    return out
def same(a, b, tol, labels=True, loose={}):  # labels: compare the text datasets too (not across formats)
    # loose: {dataset: its own tolerance}
    A, B = datasets(a), datasets(b)
    assert sorted(A) == sorted(B), (sorted(A), sorted(B))
    # Signs included: the modes' signs are canonical (a rule of the geometry, docs/cms.md), so no
    # column is aligned here; a flipped column differs by 2 of its max.
    worst = 0.0
    for k in A:
        x, y = A[k], B[k]
        if x.dtype.kind in "fi":
            assert x.shape == y.shape, (k, x.shape, y.shape)
            s = max(np.abs(x).max(), np.abs(y).max(), 1e-300) if x.size else 1.0
            d = np.abs(x - y).max() / s if x.size else 0.0
            if k in loose:
                assert d <= loose[k], (a, b, k, d)
                print("  %s: %.1e" % (k, d))
            else:
                worst = max(worst, d)
        elif labels and not k.startswith("checkout/"):
            assert np.array_equal(x, y), k
    print("%s = %s: %d datasets, max relative difference %.1e (signs included)%s" % (a, b, len(A), worst, " and the others" if loose else ""))
    assert worst <= tol, (a, b, worst)
same("cb_bnd.h5", "cb_dofs.h5", 1e-10)
def same_subspace(a, b, tol):
    # What is independent of the basis inside its span: the basis's column space (principal angles),
    # the reduced pencil's eigenvalues and the check-out's physical figures.
    A, B = datasets(a), datasets(b)
    assert sorted(A) == sorted(B), (sorted(A), sorted(B))
    n = A["basis"].shape[-1]
    qa = np.linalg.qr(A["basis"].reshape(-1, n))[0]
    qb = np.linalg.qr(B["basis"].reshape(-1, n))[0]
    sines = np.linalg.svd(qb - qa @ (qa.T @ qb), compute_uv=False)  # sin of the principal angles, to round-off
    ev = [np.sort(np.linalg.eigvals(np.linalg.solve(X["M"], X["K"])).real) for X in (A, B)]
    dev = np.abs(ev[0] - ev[1]).max() / np.abs(ev[0]).max()
    worst = 0.0
    for k in ("checkout/mass_full_reduced", "checkout/com_reduced",
              "checkout/inertia_com_reduced", "checkout/effective_mass_fraction"):
        x, y = A[k], B[k]
        worst = max(worst, np.abs(x - y).max() / max(np.abs(x).max(), 1e-300))
    print("%s ~ %s: largest principal-angle sine %.1e, pencil eigenvalues %.1e, check-out %.1e"
          % (a, b, sines.max(), dev, worst))
    # The pencil's eigenvalues solve with M-bar (reciprocal condition of the scaled M-bar 2.2e-9 here:
    # the box's 24 boundary coordinates), which amplifies the datasets' 1e-10 to a few 1e-9: 1e-8.
    assert sines.max() <= 1e-9 and dev <= 1e-8 and worst <= tol, (a, b, sines.max(), dev, worst)
# Two 2-rank runs: the datasets to 1e-10 (measured 0 to 6.2e-11 in 20 runs at load 8-15: the
# free-interface modes' round-off); the check-out's figures that solve with M-bar to 1e-8 (as the pencil's above:
# measured up to 5.5e-10 and, rigid_strain_energy, 1.9e-9).
solved = {"checkout/" + k: 1e-8 for k in ("free_free_reduced_hz", "rigid_strain_energy", "rigid_residual")}
same("h_bnd.h5", "h_dofs.h5", 1e-10, loose=solved)
same_subspace("h_bnd.h5", "h_dofs.h5", 1e-10)
# 1 rank = 2 ranks: 6.9e-11 on a quiet machine (the free-interface modes' round-off: K − σM with σ just
# below the 3 zero eigenvalues), 4e-11 to 8.2e-11 in 20 runs at load 8-15: 2e-10.
same("h_one.h5", "h_bnd.h5", 2e-10, loose=solved)
# The nodes in the reverse order (box_rev.inp): the same datasets once the rows are reversed and the
# columns matched by label (node 145 - n there is node n here), signs included: 2e-10 (another MUMPS
# ordering: measured 7.7e-11; the check-out's solved figures left out, as above).
def reordered(a, b, tol):
    A, B = datasets(a), datasets(b)
    la = [x.decode() for x in A["dof_labels"]]
    lb = [x.decode() for x in B["dof_labels"]]
    def old(l):
        w = l.split()
        return " ".join(w[:2] + [str(145 - int(w[2]))] + w[3:]) if len(w) == 4 and w[1] == "node" else l
    perm = [[old(l) for l in lb].index(l) for l in la]
    n, nn = len(la), A["basis"].shape[0]
    worst = 0.0
    for k in A:
        x, y = A[k], B[k]
        if x.dtype.kind != "f" or not x.size or k in solved:
            continue
        for ax, m in enumerate(y.shape):
            if m == n:
                y = np.take(y, perm, axis=ax)
        if k == "basis":
            y = y[::-1]
        assert x.shape == y.shape, (k, x.shape, y.shape)
        worst = max(worst, np.abs(x - y).max() / max(np.abs(x).max(), 1e-300))
    print("%s = %s reordered: max relative difference %.1e (signs included)" % (a, b, worst))
    assert nn == 45 and worst <= tol, (a, b, worst)
reordered("h_bnd.h5", "h_rev.h5", 2e-10)
same("cb_spc.h5", "cb_spcd.h5", 1e-10)
same("cb_spc.h5", "cb_bnd.h5", 1e-10, labels=False)
r = h5py.File("h_bnd.h5", "r")["reduced"]
lam = np.sort(np.linalg.eigvals(np.linalg.solve(r["M"][()], r["K"][()])).real)
nz = int(np.sum(np.abs(lam) < 1e-8 * lam[-1]))
print("herting with *BOUNDARY YSYMM: %d zero eigenvalues, next %.3e" % (nz, lam[3]))
assert nz == 3 and lam[3] > 1e-6 * lam[-1], lam[:5]
print("mesh supports in reduce: OK")
PY
