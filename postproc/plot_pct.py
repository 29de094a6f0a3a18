#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Plots of an intrusive-PCT result (`flexuq simulate` with `uncertainty: {method: galerkin}`,
docs/pct.md). Reads HDF5 only; recomputes no physics.

    /usr/bin/python3 postproc/plot_pct.py RESULT.h5 [--outputs crank.angle C.x] [-o FIGURE.png]

Per output, one row of two panels against time: the mean and the mean ± 2 std band; and the part of
the standard deviation due to each parameter alone, √(Σ c_a²) over the chaos terms of that parameter
only (the seed's "sensitivity for free"; their squares over the variance are first-order Sobol'
indices). Writes FIGURE.png (default: <result stem>.png beside the file) and prints its path.
"""
import argparse
import os

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--outputs", nargs="*", help="output names (default: all in /statistics)")
    ap.add_argument("-o", "--output", help="figure path")
    a = ap.parse_args()
    with h5py.File(a.file, "r") as f:
        t = f["time"][()]
        params = [p.decode() if isinstance(p, bytes) else str(p) for p in f["parameters/names"][()]]
        names = a.outputs or list(f["statistics"])
        missing = [n for n in names if n not in f["statistics"]]
        if missing:
            raise SystemExit(f"{a.file}: no output {', '.join(missing)} (outputs: {', '.join(f['statistics'])})")
        rows = []
        for n in names:
            c = f[f"pce/{n}/coefficients"][()]  # (P, n_t)
            mi = f[f"pce/{n}/multi_indices"][()]  # (P, d)
            alone = [np.sqrt(np.sum(c[(mi[:, i] > 0) & (mi.sum(axis=1) == mi[:, i])] ** 2, axis=0))
                     for i in range(len(params))]
            rows.append((n, f[f"statistics/{n}/mean"][()], f[f"statistics/{n}/std"][()], alone))
        order = int(f["galerkin"].attrs["order"])
    fig, axes = plt.subplots(len(rows), 2, figsize=(11, 2.6 * len(rows)), squeeze=False, sharex=True)
    for (n, mean, std, alone), (a0, a1) in zip(rows, axes):
        a0.fill_between(t, mean - 2 * std, mean + 2 * std, color="C0", alpha=0.25, label="mean ± 2 std")
        a0.plot(t, mean, color="C0", lw=1.5, label="mean")
        a0.set_ylabel(n)
        a1.plot(t, std, color="k", lw=1.2, label="std")
        for i, p in enumerate(params):
            a1.plot(t, alone[i], lw=1.2, label=f"{p} alone")
        a0.legend(fontsize=8, loc="best")
        a1.legend(fontsize=8, loc="best")
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    fig.suptitle(f"{os.path.basename(a.file)}: intrusive PCT, order {order}", fontsize=10)
    fig.tight_layout()
    out = a.output or os.path.splitext(a.file)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
