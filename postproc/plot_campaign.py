#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Plots of a `flexuq campaign` result file (reads HDF5 only; recomputes no physics).

    /usr/bin/python3 postproc/plot_campaign.py crank-uq.h5 [--output-dir DIR] [--show]

Writes, per output (e.g. frequencies):
  <stem>_<output>_pdf.png          PDF (KDE) of each tracked component, with mean ± std
  <stem>_<output>_convergence.png  running mean ± std of the samples, and the PCE LOO error by order
  <stem>_<output>_sobol.png        first-order and total Sobol' indices per parameter (bars)
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--output-dir", default=None)
    ap.add_argument("--max-components", type=int, default=6, help="components per output to draw")
    ap.add_argument("--show", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(a.file):
        sys.exit(f"plot_campaign: no such file: {a.file}")
    outdir = a.output_dir or os.path.dirname(os.path.abspath(a.file))
    os.makedirs(outdir, exist_ok=True)  # --output-dir may name a folder that does not exist yet
    stem = os.path.join(outdir, os.path.splitext(os.path.basename(a.file))[0])
    written = []
    with h5py.File(a.file, "r") as f:
        if "statistics" not in f:
            sys.exit(f"plot_campaign: {a.file} has no /statistics (not a campaign result?)")
        params = strings(f["parameters/names"])
        if "samples/status" in f:
            status = f["samples/status"][()]
            print(f"{a.file}: {len(status)} samples, {int((status == 0).sum())} ok, {int((status == 1).sum())} "
                  f"failed, {int((status == 2).sum())} not run; parameters {', '.join(params)}")
        else:  # an intrusive method (stochastic Galerkin): expansions, no samples
            print(f"{a.file}: method {f['samples'].attrs.get('method', '?')}, no samples; parameters {', '.join(params)}")
        for name in f["statistics"]:
            g = f["statistics"][name]
            if "mean" not in g or "pdf_grid" not in g or name == "tracking_min_mac":
                continue
            mean, std = g["mean"][()], g["std"][()]
            ncomp = min(len(mean), a.max_components)
            label = (lambda k: f"mode {k + 1}") if name == "frequencies" else (lambda k: f"{name}[{k}]")
            unit = " [Hz]" if name == "frequencies" else ""
            # PDFs
            fig, axes = plt.subplots(1, ncomp, figsize=(3.2 * ncomp, 2.8), squeeze=False)
            for k in range(ncomp):
                ax = axes[0, k]
                ax.plot(g["pdf_grid"][:, k], g["pdf"][:, k], color="C0")
                ax.axvline(mean[k], color="k", lw=0.8)
                ax.axvspan(mean[k] - std[k], mean[k] + std[k], color="C0", alpha=0.15)
                ax.set_title(label(k), fontsize=9)
                ax.set_xlabel(name + unit, fontsize=8)
                ax.tick_params(labelsize=7)
            axes[0, 0].set_ylabel("density")
            fig.suptitle(f"{name}: PDF ({g.attrs.get('moments_from', '')})", fontsize=9)
            fig.tight_layout()
            fig.savefig(stem + f"_{name}_pdf.png", dpi=120)
            written.append(stem + f"_{name}_pdf.png")
            plt.close(fig)
            # Convergence: running mean of the samples (sample order) and PCE LOO by order (sampled methods)
            if f"outputs/{name}" in f:
                y = f["outputs"][name][()]
                ok = ~np.isnan(y).any(axis=1)
                fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
                for k in range(ncomp):
                    yk = y[ok, k]
                    n = np.arange(1, len(yk) + 1)
                    run = np.cumsum(yk) / n
                    axes[0].plot(n, (run - run[-1]) / (abs(run[-1]) + 1e-300), label=label(k), lw=0.9)
                axes[0].set_xlabel("samples")
                axes[0].set_ylabel("running mean / final − 1")
                axes[0].legend(fontsize=7)
                if "pce_loo" in g:
                    axes[1].semilogy(g["pce_loo_orders"][()], g["pce_loo"][()], "o-")
                    axes[1].set_xlabel("PCE total degree")
                    axes[1].set_ylabel("normalised LOO error")
                else:
                    axes[1].text(0.5, 0.5, g.attrs.get("pce", "no regression PCE"), ha="center", va="center", fontsize=8,
                                 wrap=True)
                    axes[1].set_axis_off()
                fig.tight_layout()
                fig.savefig(stem + f"_{name}_convergence.png", dpi=120)
                written.append(stem + f"_{name}_convergence.png")
                plt.close(fig)
            # Sobol' bars
            if "sobol_first" in g:
                s1, st = g["sobol_first"][()], g["sobol_total"][()]
                fig, axes = plt.subplots(1, ncomp, figsize=(2.6 * ncomp + 1, 2.8), squeeze=False, sharey=True)
                x = np.arange(len(params))
                for k in range(ncomp):
                    ax = axes[0, k]
                    ax.bar(x - 0.2, s1[:, k], 0.4, label="first order")
                    ax.bar(x + 0.2, st[:, k], 0.4, label="total")
                    ax.set_xticks(x)
                    ax.set_xticklabels(params, fontsize=8)
                    ax.set_ylim(0, 1.05)
                    ax.set_title(label(k), fontsize=9)
                axes[0, 0].set_ylabel("Sobol' index")
                axes[0, 0].legend(fontsize=7)
                fig.tight_layout()
                fig.savefig(stem + f"_{name}_sobol.png", dpi=120)
                written.append(stem + f"_{name}_sobol.png")
                plt.close(fig)
            print(f"  {name}: " + ", ".join(f"{mean[k]:.6g} ± {std[k]:.3g}" for k in range(ncomp)))
    for w in written:
        print("wrote", w)
    if a.show:
        os.system(" ".join(["xdg-open"] + written[:1]))


if __name__ == "__main__":
    main()
