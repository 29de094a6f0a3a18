#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Error against wall time of stochastic Galerkin, collocation and Monte Carlo runs of one job
(the csv of bench/sg_vs_collocation.sh): one panel for the mean, one for the std.

    /usr/bin/python3 postproc/plot_sg_cost.py bench/results/sg_vs_collocation.csv [-o sg_cost.png]
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default=None)
    a = ap.parse_args()
    if not os.path.exists(a.csv):
        sys.exit(f"plot_sg_cost: no such file: {a.csv}")
    with open(a.csv) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_sg_cost: {a.csv} has no rows")
    families = {"sg_": ("stochastic Galerkin", "o-"), "coll_sparse_": ("sparse-grid collocation", "s-"),
                "coll_tensor_": ("tensor collocation", "^-"), "mc_": ("Monte Carlo", "x--")}
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    for prefix, (label, style) in families.items():
        sel = sorted((r for r in rows if r["run"].startswith(prefix)), key=lambda r: float(r["seconds"]))
        if not sel:
            continue
        t = [float(r["seconds"]) for r in sel]
        for ax, key in zip(axes, ("err_mean", "err_std")):
            ax.loglog(t, [max(float(r[key]), 1e-16) for r in sel], style, label=label)
    for ax, title in zip(axes, ("mean", "std")):
        ax.axhline(1e-6, color="k", lw=0.6, ls=":")
        ax.set_xlabel("wall time [s]")
        ax.set_ylabel(f"max relative error of the {title}")
        ax.grid(True, which="both", lw=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    out = a.output or os.path.splitext(a.csv)[0] + ".png"
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
