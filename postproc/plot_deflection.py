#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Seed 002's slider-crank output d(φ): the signed distance of a connector's midpoint from the line
through its two ends, divided by the connector's length, against the crank angle — from `flexuq
simulate` result files (reads HDF5 only). The ends, the midpoint and the angle are outputs of the
job (configs/seed002-slider-crank.yaml: end_B, end_C, mid, crank_angle).

    /usr/bin/python3 postproc/plot_deflection.py run1.h5 [run2.h5 ...] [--length 0.3]
        [--ends end_B end_C] [--mid mid] [--angle crank_angle] [--output d.png] [--csv d.csv]

Prints max |d| and the crank angle where it occurs per file, and with two or more files the
largest difference of each from the first, relative to the first's max |d|. Writes one plot with
every file (--output, default deflection.png) and, with --csv, the first file's (angle, d) table.
"""
import argparse
import sys

import h5py
import numpy as np


def deflection(path, ends=("end_B", "end_C"), mid="mid", angle="crank_angle", length=0.3):
    """(time, crank angle [rad], d) of one result file; d > 0 left of the line from ends[0] to ends[1]."""
    with h5py.File(path, "r") as f:
        t = f["time"][()]
        a = f["outputs/" + ends[0]][()]
        b = f["outputs/" + ends[1]][()]
        m = f["outputs/" + mid][()]
        phi = f["outputs/" + angle][()][:, 0]
    e, r = b - a, m - a
    d = (e[:, 0] * r[:, 1] - e[:, 1] * r[:, 0]) / np.linalg.norm(e[:, :2], axis=1) / length
    return t, phi, d


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--length", type=float, default=0.3, help="normalisation length [m] (default 0.3)")
    ap.add_argument("--ends", nargs=2, default=["end_B", "end_C"])
    ap.add_argument("--mid", default="mid")
    ap.add_argument("--angle", default="crank_angle")
    ap.add_argument("--output", default="deflection.png")
    ap.add_argument("--csv")
    args = ap.parse_args(argv)
    runs = [deflection(p, tuple(args.ends), args.mid, args.angle, args.length) for p in args.files]
    ref = runs[0][2]
    for p, (t, phi, d) in zip(args.files, runs):
        k = int(np.argmax(np.abs(d)))
        line = f"{p}: max |d| = {abs(d[k]):.6g} at crank angle {np.degrees(phi[k]):.2f} deg"
        if d.shape == ref.shape and p != args.files[0]:
            line += f"; max |d - d({args.files[0]})| / max |d({args.files[0]})| = {np.max(np.abs(d - ref)) / np.max(np.abs(ref)):.3g}"
        print(line)
    if args.csv:
        np.savetxt(args.csv, np.c_[runs[0][1], runs[0][2]], delimiter=",", header="crank_angle_rad,d", comments="")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4))
    for p, (t, phi, d) in zip(args.files, runs):
        ax.plot(np.degrees(phi), d, label=p, lw=0.8)
    ax.set_xlabel("crank angle [deg]")
    ax.set_ylabel(f"d = midpoint distance / {args.length:g} m")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print("wrote", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
