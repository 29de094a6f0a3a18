#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Seed 000 T18's error measures (thesis (7.4)–(7.7), digest §3): the 15 trajectory coordinates X
(frame origins of crank and rod, the end nodes O, A of the crank and B of the rod) of a run of
configs/rom/slider-crank-t18.yaml against a reference run, E(t) = Σ(X_ref − X)² / Σ X_ref², averaged
over the output times. The "flexible" variant (the thesis does not say how it removes the rigid
motion; digest [UNSURE]) uses X minus its rigid part: frame origin + R(p) s, s the node's undeformed
offset from the frame (±L/2 along x, the frame holding the CoM node), i.e. the nodes' elastic
displacements R u(η) in global axes (zero for the frame origins); t = 0 (no deformation) is skipped.
  t18_errors.py REFERENCE.h5 RUN.h5 [RUN.h5 ...]  ->  one line per run: path, mean E complete, mean E flexible
"""
import sys

import h5py
import numpy as np

HALF = {"O": (-0.075, "crank"), "A": (0.075, "crank"), "B": (0.15, "rod")}  # node: offset along x, body


def rotation(p):
    """R(p) of unit Euler parameters p = (e0, e1, e2, e3), one 3 × 3 per row."""
    e0, e1, e2, e3 = p.T
    return np.stack([
        np.stack([1 - 2 * (e2**2 + e3**2), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)], -1),
        np.stack([2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1**2 + e3**2), 2 * (e2 * e3 - e0 * e1)], -1),
        np.stack([2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1**2 + e2**2)], -1)], 1)


def trajectories(path):
    """X (n_t × 15) and its flexible part."""
    with h5py.File(path, "r") as f:
        out = {k: f["outputs"][k][()] for k in ("crank_q", "rod_q", "O", "A", "B")}
    frame = {b: (out[b + "_q"][:, :3], rotation(out[b + "_q"][:, 3:])) for b in ("crank", "rod")}
    x = np.hstack([frame["crank"][0], frame["rod"][0]] + [out[k] for k in "OAB"])
    rigid = [frame["crank"][0], frame["rod"][0]]
    for k in "OAB":
        off, body = HALF[k]
        r, rot = frame[body]
        rigid.append(r + rot[:, :, 0] * off)
    return x, x - np.hstack(rigid)


def mean_errors(ref_path, path):
    """(mean E complete, mean E flexible) of run @p path against @p ref_path."""
    (xr, fr), (x, fx) = trajectories(ref_path), trajectories(path)
    if x.shape != xr.shape:
        raise SystemExit(f"{path}: {x.shape[0]} output times, the reference {xr.shape[0]}")
    e = np.sum((xr - x)**2, 1) / np.sum(xr**2, 1)
    ef = np.sum((fr[1:] - fx[1:])**2, 1) / np.sum(fr[1:]**2, 1)
    return float(e.mean()), float(ef.mean())


if __name__ == "__main__":
    for p in sys.argv[2:]:
        c, fl = mean_errors(sys.argv[1], p)
        print(f"{p} {c:.4e} {fl:.4e}")
