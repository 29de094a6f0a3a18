#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Plots of a `flexuq simulate` result file (reads HDF5 only; recomputes no physics).

    /usr/bin/python3 postproc/plot_simulation.py slider-crank.h5 [--output-dir DIR] [--show]

Writes:
  <stem>_outputs.png  every /outputs/<name> against /time, one panel per output (all columns)
  <stem>_energy.png   kinetic, potential, strain, work of the applied forces, and the balance
                      T + V + U − W minus its initial value (should stay near zero without damping)
  <stem>_drift.png    max |C(q)| and max |C_q q̇ + C_t| over all constraint rows (log scale)
and prints a one-line summary per output (final value) and the solver statistics.
"""
import argparse
import os
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def columns(ds):
    c = ds.attrs.get("columns", "")
    if isinstance(c, bytes):
        c = c.decode()
    return [s for s in str(c).split(",") if s] or [str(i) for i in range(ds.shape[1])]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--output-dir", default=None, help="folder for the PNGs (default: beside the file)")
    ap.add_argument("--show", action="store_true", help="also open the figures")
    a = ap.parse_args()
    try:
        f = h5py.File(a.file, "r")
    except OSError as e:
        sys.exit(f"plot_simulation: cannot open {a.file}: {e}")
    with f:
        if "time" not in f or "energy" not in f:
            sys.exit(f"plot_simulation: {a.file} is not a flexuq simulate result (no /time or /energy)")
        t = f["time"][()]
        stem = os.path.splitext(os.path.basename(a.file))[0]
        out = a.output_dir or os.path.dirname(os.path.abspath(a.file))
        os.makedirs(out, exist_ok=True)

        names = list(f["outputs"].keys()) if "outputs" in f else []
        if names:
            fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.4 * len(names)), sharex=True, squeeze=False)
            for ax, name in zip(axes[:, 0], names):
                ds = f["outputs"][name]
                y = ds[()]
                for k, c in enumerate(columns(ds)):
                    ax.plot(t, y[:, k], label=c)
                ax.set_ylabel(name)
                ax.legend(fontsize=7, loc="best")
                ax.grid(alpha=0.3)
                print(f"{name}: final " + ", ".join(f"{c} = {y[-1, k]:.6g}" for k, c in enumerate(columns(ds))))
            axes[-1, 0].set_xlabel("t [s]")
            fig.tight_layout()
            fig.savefig(os.path.join(out, f"{stem}_outputs.png"), dpi=120)

        e = f["energy"][()]
        cols = columns(f["energy"])
        fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        for k, c in enumerate(cols[:4]):
            ax1.plot(t, e[:, k], label=c)
        ax1.set_ylabel("energy [J]")
        ax1.legend(fontsize=8)
        ax1.grid(alpha=0.3)
        bal = e[:, 4] - e[0, 4]
        ax2.plot(t, bal)
        ax2.set_ylabel("balance − balance(0) [J]")
        ax2.set_xlabel("t [s]")
        ax2.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{stem}_energy.png"), dpi=120)
        print(f"energy balance: max |T + V + U - W - (initial)| = {np.max(np.abs(bal)):.3e} J "
              f"(max kinetic {np.max(e[:, 0]):.6g} J)")

        d = f["drift"][()]
        fig, ax = plt.subplots(figsize=(8, 3.5))
        for k, c in enumerate(columns(f["drift"])):
            ax.semilogy(t, np.maximum(d[:, k], 1e-18), label=c)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("constraint residual")
        ax.legend()
        ax.grid(alpha=0.3, which="both")
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{stem}_drift.png"), dpi=120)
        print(f"drift: max |C| = {np.max(d[:, 0]):.3e}, max |C_q v + C_t| = {np.max(d[:, 1]):.3e}")
        if "solver" in f:
            s = f["solver"].attrs
            print("solver: " + ", ".join(f"{k} = {s[k].decode() if isinstance(s[k], bytes) else s[k]}" for k in s))
    if a.show:
        plt.show()


if __name__ == "__main__":
    main()
