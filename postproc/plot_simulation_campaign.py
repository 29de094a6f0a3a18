#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""One figure of a simulation campaign (`flexuq campaign` with `model.simulation`): what the
uncertain inputs do to the motion. Reads HDF5 only; recomputes no physics.

    /usr/bin/python3 postproc/plot_simulation_campaign.py CAMPAIGN.h5 --times 0.01:0.35:0.01 \\
        [--simulation SIM.h5] [--series 'x_B:x=slider x [m]' energy:strain] [-o FIGURE.png]

--times    the campaign job's `outputs.times` (the result file does not store them): START:STOP:STEP
           or a comma-separated list; checked against the column counts of --simulation if given
--series   OUTPUT[:COLUMN][=LABEL] per panel, COLUMN a name of the simulate output's columns (x, y, z;
           kinetic, strain, …; needs --simulation to know the names) or an index, LABEL the axis label;
           default: column 0 of every campaign output
--simulation  a `flexuq simulate` result of the same job (e.g. at the parameter means): drawn as a line
              at its full output resolution, and the source of the column names

Per series, one panel against time: every sample (grey), the mean ± 2 std band of the campaign's
statistics (PCE), the simulation; beside it, the total Sobol' index of each parameter against time.
Writes FIGURE.png (default: <campaign stem>.png beside the file) and prints its path.
"""
import argparse
import os
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def strings(values):
    return [v.decode() if isinstance(v, bytes) else str(v) for v in values]


def parse_times(text):
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            sys.exit(f"plot_simulation_campaign: --times {text}: expected START:STOP:STEP")
        start, stop, step = (float(p) for p in parts)
        if step <= 0 or stop < start:
            sys.exit(f"plot_simulation_campaign: --times {text}: need STEP > 0 and STOP >= START")
        n = int(round((stop - start) / step)) + 1
        return start + step * np.arange(n)
    return np.array([float(v) for v in text.split(",") if v.strip()])


def sim_columns(sim, name):
    if sim is None or f"outputs/{name}" not in sim:
        return None
    c = sim[f"outputs/{name}"].attrs.get("columns", "")
    c = c.decode() if isinstance(c, bytes) else str(c)
    return [s for s in c.split(",") if s] or None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("campaign")
    ap.add_argument("--times", required=True)
    ap.add_argument("--simulation", default=None)
    ap.add_argument("--series", nargs="+", default=None)
    ap.add_argument("-o", "--output", default=None)
    a = ap.parse_args()
    times = parse_times(a.times)
    try:
        f = h5py.File(a.campaign, "r")
    except OSError as e:
        sys.exit(f"plot_simulation_campaign: cannot open {a.campaign}: {e}")
    sim = None
    if a.simulation:
        try:
            sim = h5py.File(a.simulation, "r")
        except OSError as e:
            sys.exit(f"plot_simulation_campaign: cannot open {a.simulation}: {e}")
    with f:
        if "statistics" not in f or "outputs" not in f:
            sys.exit(f"plot_simulation_campaign: {a.campaign} is not a sampled campaign result (no /statistics or /outputs)")
        params = strings(f["parameters/names"][()])
        series = a.series or [name for name in f["outputs"]]
        ok = f["samples/status"][()] == 0 if "samples/status" in f else None
        panels = []
        for s in series:
            spec, _, axis_label = s.partition("=")
            name, _, col = spec.partition(":")
            if f"outputs/{name}" not in f or f"statistics/{name}" not in f:
                sys.exit(f"plot_simulation_campaign: no campaign output '{name}' in {a.campaign} "
                         f"(outputs: {', '.join(f['outputs'])})")
            y = f[f"outputs/{name}"][()]
            if y.shape[1] % len(times):
                sys.exit(f"plot_simulation_campaign: output '{name}' has {y.shape[1]} entries, not a multiple of "
                         f"the {len(times)} --times")
            ncols = y.shape[1] // len(times)
            names = sim_columns(sim, name)
            if sim is not None and f"outputs/{name}" in sim and sim[f"outputs/{name}"].shape[1] != ncols:
                sys.exit(f"plot_simulation_campaign: output '{name}' has {y.shape[1]} entries: "
                         f"{len(times)} --times × {ncols} columns, but it has {sim[f'outputs/{name}'].shape[1]} "
                         f"in {a.simulation}; --times must be the campaign job's outputs.times")
            if col == "":
                k = 0
            elif col.lstrip("-").isdigit():
                k = int(col)
            elif names and col in names:
                k = names.index(col)
            else:
                sys.exit(f"plot_simulation_campaign: column '{col}' of '{name}' unknown "
                         f"({'columns: ' + ', '.join(names) if names else 'give --simulation for the names, or an index'})")
            if not 0 <= k < ncols:
                sys.exit(f"plot_simulation_campaign: column {k} of '{name}' out of range (it has {ncols})")
            label = axis_label or (f"{name}: {names[k]}" if names and len(names) > 1 else name)
            idx = np.arange(len(times)) * ncols + k          # time-major: entry t * ncols + column
            g = f[f"statistics/{name}"]
            panel = {"label": label, "samples": y[ok][:, idx] if ok is not None else y[:, idx],
                     "mean": g["mean"][()][idx], "std": g["std"][()][idx],
                     "sobol": g["sobol_total"][()][:, idx] if "sobol_total" in g else None, "sim": None}
            if sim is not None and f"outputs/{name}" in sim:
                panel["sim"] = (sim["time"][()], sim[f"outputs/{name}"][()][:, k])
            panels.append(panel)
        nok = len(panels[0]["samples"])
        method = f["samples"].attrs.get("method", b"")
        method = method.decode() if isinstance(method, bytes) else str(method)

    n = len(panels)
    fig, axes = plt.subplots(n, 2, figsize=(11, 3.1 * n), squeeze=False, gridspec_kw={"width_ratios": [2.2, 1]})
    for row, p in enumerate(panels):
        ax = axes[row, 0]
        for j, ys in enumerate(p["samples"]):
            ax.plot(times, ys, color="0.6", lw=0.7, label=f"samples ({nok})" if j == 0 else None)
        ax.fill_between(times, p["mean"] - 2 * p["std"], p["mean"] + 2 * p["std"], color="C0", alpha=0.25,
                        label="mean ± 2 std")
        ax.plot(times, p["mean"], color="C0", lw=1.5, label="mean")
        if p["sim"] is not None:
            ax.plot(p["sim"][0], p["sim"][1], color="k", lw=0.9, ls="--", label="simulation")
        ax.set_ylabel(p["label"])
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
        ax = axes[row, 1]
        if p["sobol"] is not None:
            for i, name in enumerate(params):
                ax.plot(times, p["sobol"][i], lw=1.4, label=name)
            ax.set_ylim(-0.02, 1.02)
            ax.set_ylabel("total Sobol' index")
            ax.legend(fontsize=7, loc="best")
            ax.grid(alpha=0.3)
        else:
            ax.set_axis_off()
    axes[-1, 0].set_xlabel("t [s]")
    axes[-1, 1].set_xlabel("t [s]")
    fig.suptitle(f"{os.path.basename(a.campaign)}: {nok} simulations ({method}), parameters {', '.join(params)}",
                 fontsize=10)
    fig.tight_layout()
    out = a.output or os.path.splitext(os.path.abspath(a.campaign))[0] + ".png"
    fig.savefig(out, dpi=120)
    if sim is not None:
        sim.close()
    for p in panels:
        print(f"  {p['label']} at t = {times[-1]:g}: {p['mean'][-1]:.6g} ± {p['std'][-1]:.3g}"
              + ("" if p["sobol"] is None else
                 "; total Sobol' " + ", ".join(f"{n} {v:.2f}" for n, v in zip(params, p["sobol"][:, -1]))))
    print("wrote", out)


if __name__ == "__main__":
    main()
