# SPDX-License-Identifier: MIT
"""Shared by the ROM script tests (imported with PYTHONPATH=tests/rom): check / finish (one line per
check, the exit status at the end; tests/support/checks.py) and the trajectory error metric of docs/rom.md."""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402,F401  (re-exported: the scripts import them from here)


def max_rel_error(full, reduced):
    """max over outputs and moving coordinates of |q_ROM − q_full| / max_t |q_full| (n_t × n arrays)."""
    s = np.abs(full).max(axis=0)
    m = s > 1e-12
    return (np.abs(full - reduced)[:, m] / s[m]).max() if m.any() else np.abs(full - reduced).max()


def rom_attrs(path):
    """The /rom attributes of a ROM or reduced-run file, strings decoded."""
    with h5py.File(path) as f:
        return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f["rom"].attrs.items()}


def coordinates(path):
    """q at every output time (n_t × n) of a run with `snapshots: true`."""
    with h5py.File(path) as f:
        return f["snapshots/q"][()]
