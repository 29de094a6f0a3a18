#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check a flexuq modes file: check_modes_h5.py <file.h5> --count N --rigid R [--max-residual TOL] [--frequencies F1,F2,…]

- /modes/eigenvalues: N values (or more, when a multiplet is completed), ascending and positive;
- /modes/vectors: shape (nodes, 3, count) with nodes = the rows of /mesh/geometry;
- /modes attribute rigid_body_modes == R, and /modes/rigid_body_vectors of shape (nodes, 3, R);
- /modes/residuals below the tolerance (default 1e-8);
- the .xdmf beside the .h5 exists and references the .h5 by its file name.
Prints every failed check and exits 1 if any failed.
"""
import argparse
import os
import sys

import h5py
import numpy as np


def check_xdmf_structure(xdmf, h5path, check):
    """Resolve every HDF DataItem of the XDMF against the HDF5 file, as a reader (ParaView) would:
    the dataset exists with the declared dimensions, hyperslabs lie inside their source, the Mixed
    topology stream has NumberOfElements cells, and each grid's attribute is the matching mode."""
    import xml.etree.ElementTree as ET
    root = ET.parse(xdmf).getroot()
    with h5py.File(h5path, "r") as f:
        grids = [g for g in root.iter("Grid") if g.get("GridType") == "Uniform"]
        check(len(grids) == f["modes/vectors"].shape[2], f"one XDMF grid per mode ({len(grids)})")
        for item in root.iter("DataItem"):
            if item.get("Format") != "HDF":
                continue
            path = item.text.strip().split(":", 1)[1]
            dims = tuple(int(x) for x in item.get("Dimensions").split())
            check(path in f and f[path].shape == dims, f"XDMF item {path} {dims} matches the file {f[path].shape if path in f else None}")
        for slab in root.iter("DataItem"):
            if slab.get("ItemType") != "HyperSlab":
                continue
            sel, src = list(slab)
            start, stride, count = np.array(sel.text.split(), dtype=int).reshape(3, -1)
            shape = np.array(src.get("Dimensions").split(), dtype=int)
            check(bool(np.all(start + stride * (count - 1) < shape)), f"hyperslab {start}/{count} inside {shape}")
        topo = next(root.iter("Topology"))
        stream = f["mesh/topology_mixed"][()]
        ncells, i = 0, 0
        while i < len(stream):
            t = int(stream[i]); i += 1
            n = {6: 4, 38: 10, 9: 8, 48: 20}.get(t)
            if t in (1, 2):  # polyvertex (a mesh without elements: model.matrices), polyline
                n = int(stream[i]); i += 1
            check(n is not None, f"known XDMF cell type {t}")
            if n is None:
                break
            check(bool(np.all(stream[i:i + n] < f["mesh/geometry"].shape[0])), "cell nodes exist")
            i += n; ncells += 1
        check(ncells == int(topo.get("NumberOfElements")), f"Mixed stream has {ncells} cells")
        times = [float(g.find("Time").get("Value")) for g in grids]
        check(np.allclose(times, f["modes/frequencies_hz"][()]), "grid times are the mode frequencies")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("h5")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--rigid", type=int, required=True)
    ap.add_argument("--max-residual", type=float, default=1e-8)
    ap.add_argument("--frequencies", help="comma-separated expected Hz of the first modes (rel. tol. 1e-8)")
    a = ap.parse_args()

    failures = []

    def check(cond, what):
        print(("ok    " if cond else "FAIL  ") + what)
        if not cond:
            failures.append(what)

    check(os.path.isfile(a.h5), f"{a.h5} exists")
    if failures:
        return 1
    with h5py.File(a.h5, "r") as f:
        for name in ("modes/eigenvalues", "modes/vectors", "modes/residuals", "modes/rigid_body_vectors"):
            check(name in f, f"/{name} present")
        if failures:
            return 1
        lam = f["modes/eigenvalues"][()]
        vec = f["modes/vectors"]
        res = f["modes/residuals"][()]
        count = lam.shape[0]
        check(count >= a.count, f"{count} eigenvalues, at least the {a.count} requested")
        check(bool(np.all(lam > 0)), f"eigenvalues positive: {lam}")
        check(bool(np.all(np.diff(lam) >= 0)), "eigenvalues ascending")
        nodes = f["mesh/geometry"].shape[0] if "mesh/geometry" in f else None
        check(nodes is not None, "/mesh/geometry present (gives the node count)")
        if nodes is not None:
            check(vec.shape == (nodes, 3, count), f"/modes/vectors shape {vec.shape} == ({nodes}, 3, {count})")
        v = vec[()]
        check(bool(np.all(np.isfinite(v))) and float(np.abs(v).max()) > 0, "mode vectors finite and non-zero")
        check(res.shape == (count,), f"one residual per mode: {res.shape}")
        if a.frequencies:
            want = np.array([float(x) for x in a.frequencies.split(",")])
            got = f["modes/frequencies_hz"][()][:len(want)]
            check(got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-8, atol=0)),
                  f"frequencies {got} == {want}")
        check(bool(np.all(res < a.max_residual)), f"residuals {res} < {a.max_residual}")
        attrs = f["modes"].attrs
        check("rigid_body_modes" in attrs, "attribute /modes rigid_body_modes present")
        if "rigid_body_modes" in attrs:
            nr = int(attrs["rigid_body_modes"])
            check(nr == a.rigid, f"rigid_body_modes = {nr}, expected {a.rigid}")
            rv = f["modes/rigid_body_vectors"].shape
            check(rv[1:] == (3, nr), f"/modes/rigid_body_vectors shape {rv} ends in (3, {nr})")

    xdmf = os.path.splitext(a.h5)[0] + ".xdmf"
    check(os.path.isfile(xdmf), f"{xdmf} exists")
    if os.path.isfile(xdmf):
        with open(xdmf, encoding="utf-8") as x:
            text = x.read()
        h5name = os.path.basename(a.h5)
        check(h5name + ":/" in text or h5name + ":" in text, f"{xdmf} references {h5name}")
        check("/modes/vectors" in text, f"{xdmf} references /modes/vectors")
        check_xdmf_structure(xdmf, a.h5, check)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
