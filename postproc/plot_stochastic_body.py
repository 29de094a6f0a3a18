#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Plots of a stochastic reduced body (`flexuq reduce` with reduce.stochastic; reads HDF5 only).

    /usr/bin/python3 postproc/plot_stochastic_body.py crank-scb.h5 [--output-dir DIR] [--show]

Writes
  <stem>_scb_frequencies.png  PDFs (KDE of the PCE surrogate) of the fixed-interface mode frequencies and
                              of the reduced free-free frequencies, with mean ± std
  <stem>_scb_sobol.png        first-order and total Sobol' indices of those frequencies per parameter
  <stem>_scb_loo.png          normalised leave-one-out errors of every expanded quantity (K̄, M̄, mode
                              eigenvalues, free-free frequencies, invariants, basis): per entry, sorted
and prints the expansion (fit, order, terms, points used).
"""
import argparse
import os
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def strings(ds):
    return [s.decode() if isinstance(s, bytes) else str(s) for s in ds[()]]


def attr(obj, name):
    v = obj.attrs[name]
    return v.decode() if isinstance(v, bytes) else v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--output-dir", default=None)
    ap.add_argument("--max-components", type=int, default=6)
    ap.add_argument("--show", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(a.file):
        sys.exit(f"plot_stochastic_body: no such file: {a.file}")
    outdir = a.output_dir or os.path.dirname(os.path.abspath(a.file))
    os.makedirs(outdir, exist_ok=True)  # --output-dir may name a folder that does not exist yet
    stem = os.path.join(outdir, os.path.splitext(os.path.basename(a.file))[0])
    with h5py.File(a.file, "r") as f:
        if "stochastic_body" not in f:
            sys.exit(f"plot_stochastic_body: {a.file} has no /stochastic_body (run flexuq reduce with reduce.stochastic)")
        sb = f["stochastic_body"]
        names = strings(sb["germ/names"])
        mi = sb["multi_indices"][()]
        print(f"{a.file}: {attr(sb, 'fit')} PCE, total degree {attr(sb, 'order')}, {mi.shape[0]} terms in "
              f"{len(names)} parameters ({', '.join(strings(sb['germ/distributions']))}); "
              f"{attr(sb, 'points_used')}/{attr(sb, 'points_total')} points")
        quantities = [q for q in ("mode_frequencies", "free_free_frequencies") if q in f["statistics"]]
        # PDFs of the frequencies
        rows = len(quantities)
        fig, axes = plt.subplots(rows, a.max_components, figsize=(2.8 * a.max_components, 2.6 * rows), squeeze=False)
        for r, q in enumerate(quantities):
            g = f["statistics"][q]
            mean, std = g["mean"][()], g["std"][()]
            for k in range(a.max_components):
                ax = axes[r, k]
                if k >= len(mean):
                    ax.axis("off")
                    continue
                ax.plot(g["pdf_grid"][:, k], g["pdf"][:, k], color="C0" if r == 0 else "C1")
                ax.axvline(mean[k], color="k", lw=0.8)
                ax.axvspan(mean[k] - std[k], mean[k] + std[k], color="0.85")
                ax.set_title(f"{'fixed-interface' if q == 'mode_frequencies' else 'free-free'} {k + 1}", fontsize=8)
                ax.set_xlabel("Hz", fontsize=8)
                ax.tick_params(labelsize=7)
        fig.tight_layout()
        fig.savefig(stem + "_scb_frequencies.png", dpi=110)
        # Sobol' indices
        fig, axes = plt.subplots(1, rows, figsize=(5 * rows, 3), squeeze=False)
        for r, q in enumerate(quantities):
            g = f["statistics"][q]
            ax = axes[0, r]
            if "sobol_first" not in g:
                ax.set_title(f"{q}: no PCE")
                continue
            s1, st = g["sobol_first"][()], g["sobol_total"][()]
            n = min(s1.shape[1], a.max_components)
            x = np.arange(n)
            w = 0.8 / (2 * len(names))
            for i, p in enumerate(names):
                ax.bar(x + (2 * i) * w, s1[i, :n], w, label=f"S {p}")
                ax.bar(x + (2 * i + 1) * w, st[i, :n], w, label=f"ST {p}", alpha=0.6)
            ax.set_xticks(x + 0.4 - w / 2)
            ax.set_xticklabels([str(k + 1) for k in range(n)])
            ax.set_ylim(0, 1.05)
            ax.set_title(q, fontsize=9)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(stem + "_scb_sobol.png", dpi=110)
        # LOO errors per expanded quantity
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for q in sb["pce"]:
            if "loo" not in sb["pce"][q]:
                continue
            loo = np.sort(sb["pce"][q]["loo"][()].ravel())[::-1]
            loo = loo[loo > 0]
            if loo.size:
                ax.semilogy(np.arange(1, loo.size + 1), loo, label=q)
                print(f"  {q}: largest normalised LOO error {loo[0]:.3e} over {loo.size} varying entries")
        ax.set_xlabel("entry (sorted)")
        ax.set_ylabel("normalised LOO error")
        ax.set_xscale("log")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(stem + "_scb_loo.png", dpi=110)
    for k in ("frequencies", "sobol", "loo"):
        print(f"  wrote {stem}_scb_{k}.png")
    if a.show:
        plt.show()


if __name__ == "__main__":
    main()
