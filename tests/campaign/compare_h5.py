#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compare the outputs and statistics of campaign result files: compare_h5.py RTOL a.h5 b.h5 ...
Exits 1 with a table of the worst differences when any dataset differs by more than RTOL
(relative to the largest magnitude of that dataset); NaN must match NaN. With RTOL 0 every
floating-point dataset except the timings must be bit-identical (KDE grids and diagnostics too)."""
import sys
import h5py
import numpy as np

rtol = float(sys.argv[1])
files = sys.argv[2:]
ref = h5py.File(files[0], "r")
names = []
ref.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) and o.dtype.kind == "f"
               and (n.startswith("outputs/") or n.startswith("statistics/") or n.startswith("samples/")) else None)
bad = 0
for other in files[1:]:
    g = h5py.File(other, "r")
    for n in names:
        if n == "samples/seconds":
            continue  # timings differ
        if rtol > 0 and (n.endswith("pdf") or n.endswith("pdf_grid")):
            continue  # KDE grids follow min/max, compared through the moments
        if rtol > 0 and n.startswith("statistics/tracking_min_mac/") and not n.endswith("/mean"):
            continue  # a diagnostic equal to 1 up to round-off: its higher moments are round-off noise
        tol = rtol
        if n.endswith(("skewness", "kurtosis", "pce_loo")):
            tol = rtol ** 0.5 if rtol > 0 else 0.0  # ratios of central moments amplify round-off
        a, b = ref[n][()], g[n][()]
        if rtol == 0:
            if a.shape != b.shape or a.tobytes() != b.tobytes():
                print(f"{other}: {n}: not bit-identical"); bad += 1
            continue
        if a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
            print(f"{other}: {n}: shape or NaN pattern differs"); bad += 1; continue
        m = np.nanmax(np.abs(a)) if a.size else 0.0
        d = np.nanmax(np.abs(a - b)) if a.size else 0.0
        if d > tol * max(m, 1e-300):
            print(f"{other}: {n}: max |diff| {d:.3e} > {tol:g} x {m:.3e}"); bad += 1
    st_a, st_b = ref["samples/status"][()], g["samples/status"][()]
    if not np.array_equal(st_a, st_b):
        print(f"{other}: samples/status differs"); bad += 1
print(f"compared {len(names)} datasets over {len(files)} files: {'OK' if not bad else str(bad) + ' differences'}")
sys.exit(1 if bad else 0)
