#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check-out plots and summary of a `flexuq reduce` result file (reads HDF5 only; recomputes no physics).

    /usr/bin/python3 postproc/plot_reduced.py crank-cb.h5 [--output-dir DIR] [--show]

Prints the check-out (mass properties full vs reduced, rigid-body residuals, free-free frequencies)
and writes:
  <stem>_frequencies.png     free-free elastic frequencies of the reduced model against the full
                             model (when the check-out computed them) and their relative difference
  <stem>_effective_mass.png  cumulative modal effective mass fraction per direction (tx ... rz)
Exits non-zero with a message when the file is not a reduced body.
"""
import argparse
import os
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DIRS = ["tx", "ty", "tz", "rx", "ry", "rz"]


def attr(g, name, default=""):
    v = g.attrs.get(name, default)
    return v.decode() if isinstance(v, bytes) else v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--output-dir", default=None)
    ap.add_argument("--show", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(a.file):
        sys.exit(f"plot_reduced: no such file: {a.file}")
    outdir = a.output_dir or os.path.dirname(os.path.abspath(a.file))
    os.makedirs(outdir, exist_ok=True)  # --output-dir may name a folder that does not exist yet
    stem = os.path.join(outdir, os.path.splitext(os.path.basename(a.file))[0])
    written = []
    with h5py.File(a.file, "r") as f:
        if "reduced" not in f or "checkout" not in f["reduced"]:
            sys.exit(f"plot_reduced: {a.file} has no /reduced/checkout (not a `flexuq reduce` result)")
        r, c = f["reduced"], f["reduced/checkout"]
        n = r["K"].shape[0]
        print(f"{a.file}: {attr(r, 'method')} body, {n} columns, {attr(r, 'n_boundary')} boundary coordinates, "
              f"mode interface {attr(r, 'mode_interface')}")
        m = c["mass_full_reduced"][()]
        print(f"  mass      full {m[0]:.6e}  reduced {m[1]:.6e}  rel. diff {abs(m[1] - m[0]) / m[0]:.2e}")
        cf, cr = c["com_full"][()], c["com_reduced"][()]
        print(f"  CoM       full {np.array2string(cf, precision=6)}  reduced {np.array2string(cr, precision=6)}")
        jf, jr = c["inertia_com_full"][()], c["inertia_com_reduced"][()]
        print(f"  inertia   rel. diff {np.linalg.norm(jr - jf) / np.linalg.norm(jf):.2e} (about the CoM)")
        res = c["rigid_residual"][()]
        print("  rigid-body residuals " + " ".join(f"{d} {v:.1e}" for d, v in zip(DIRS, res)))

        red = c["free_free_reduced_hz"][()] if "free_free_reduced_hz" in c else np.zeros(0)
        full = c["free_free_full_hz"][()] if "free_free_full_hz" in c else np.zeros(0)
        if red.size:
            k = np.arange(1, red.size + 1)
            fig, axes = plt.subplots(2 if full.size else 1, 1, figsize=(7, 6 if full.size else 3.5), squeeze=False)
            ax = axes[0, 0]
            ax.plot(k, red, "o", label="reduced model")
            if full.size:
                ax.plot(np.arange(1, full.size + 1), full, "x", ms=9, label="full model")
            ax.set_ylabel("free-free frequency [Hz]")
            ax.set_title(f"{os.path.basename(a.file)}: {attr(r, 'method')}, {n} columns")
            ax.legend()
            if full.size:
                m_ = min(full.size, red.size)
                rel = (red[:m_] - full[:m_]) / full[:m_]
                axes[1, 0].semilogy(np.arange(1, m_ + 1), np.maximum(np.abs(rel), 1e-16), "s-")
                axes[1, 0].set_ylabel("|f_red − f_full| / f_full")
                axes[1, 0].set_xlabel("elastic mode")
                for i in range(m_):
                    print(f"  mode {i + 1:3d}  reduced {red[i]:.6e} Hz  full {full[i]:.6e} Hz  rel. diff {rel[i]:+.2e}")
            else:
                ax.set_xlabel("elastic mode")
            fig.tight_layout()
            out = f"{stem}_frequencies.png"
            fig.savefig(out, dpi=120)
            written.append(out)

        if "effective_mass" in c and c["effective_mass"].shape[0] > 0:
            em = c["effective_mass"][()]
            frac_total = c["effective_mass_fraction"][()]
            total = em.sum(axis=0) / np.where(frac_total > 0, frac_total, 1)
            cum = np.cumsum(em, axis=0) / np.where(total > 0, total, 1)
            fig, ax = plt.subplots(figsize=(7, 3.5))
            for j, d in enumerate(DIRS):
                ax.plot(np.arange(1, em.shape[0] + 1), cum[:, j], marker=".", label=d)
            ax.axhline(0.9, color="grey", lw=0.8, ls="--")
            ax.set_ylim(0, 1.05)
            ax.set_xlabel("normal-mode column")
            ax.set_ylabel("cumulative effective mass fraction")
            ax.legend(ncol=6, fontsize=8)
            fig.tight_layout()
            out = f"{stem}_effective_mass.png"
            fig.savefig(out, dpi=120)
            written.append(out)
            print("  effective mass captured " + " ".join(f"{d} {v:.3f}" for d, v in zip(DIRS, frac_total)))
    for w in written:
        print(f"wrote {w}")
    if a.show:
        plt.show()


if __name__ == "__main__":
    main()
