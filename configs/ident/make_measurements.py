#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Measured data for `flexuq identify` from a file (docs/config.md "identify", key `measurements`),
made by a separate `flexuq simulate` run of the cart-pendulum chain (make_chain.py) at Table 10's targets.

python3 make_measurements.py > cart-pendulum-measure.yaml      # the chain at the targets, bodies' q and ω
flexuq simulate cart-pendulum-measure.yaml                     # -> cart-pendulum-measured-run.h5
python3 make_measurements.py --csv cart-pendulum-measured-run.h5 > cart-pendulum-measured.csv
flexuq identify cart-pendulum-identify-measured.yaml           # the nine parameters from the CSV

--only m_C1,m_P1,d_P1 sets only those parameters at their targets (the others stay at the start values).
The CSV has a comment line, then `time` and the signals of cart-pendulum-identify.yaml (x, vx of cart 1;
2 atan2(e3, e0) and ω_z of pendula 1-4), in an order of its own: the job finds them by name."""
import os
import subprocess
import sys

TARGETS = {"m_C1": ("  cart1: {type: rigid, mass: 2.3,", "2.12"),
           "m_P1": ("  pendulum1: {type: rigid, mass: 0.12,", "0.15"),
           "m_P2": ("  pendulum2: {type: rigid, mass: 0.12,", "0.2"),
           "m_P3": ("  pendulum3: {type: rigid, mass: 0.12,", "0.19"),
           "m_P4": ("  pendulum4: {type: rigid, mass: 0.12,", "0.17"),
           "d_P1": ("  - {type: rotational-damper, body: pendulum1, body2: cart1, axis: [0, 0, 1], damping: 0.2}", "0.25"),
           "d_P2": ("  - {type: rotational-damper, body: pendulum2, body2: cart1, axis: [0, 0, 1], damping: 0.2}", "0.17"),
           "d_P3": ("  - {type: rotational-damper, body: pendulum3, body2: cart1, axis: [0, 0, 1], damping: 0.2}", "0.24"),
           "d_P4": ("  - {type: rotational-damper, body: pendulum4, body2: cart1, axis: [0, 0, 1], damping: 0.2}", "0.16")}
BODIES = ["cart1", "pendulum1", "pendulum2", "pendulum3", "pendulum4"]


def job(only):
    text = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_chain.py")],
                          check=True, capture_output=True, text=True).stdout
    lines = text.splitlines()
    for name in only:
        prefix, value = TARGETS[name]
        hits = [i for i, l in enumerate(lines) if l.startswith(prefix)]
        if len(hits) != 1:
            raise SystemExit(f"make_chain.py's output has {len(hits)} lines starting '{prefix}'")
        l = lines[hits[0]]
        lines[hits[0]] = (l.replace("mass: 0.12,", f"mass: {value},").replace("mass: 2.3,", f"mass: {value},")
                          if name.startswith("m_") else l.replace("damping: 0.2}", f"damping: {value}}}"))
    lines = lines[:lines.index("outputs:")]
    lines[0] = "# The cart-pendulum chain at Table 10's targets (%s), written by configs/ident/make_measurements.py" % ", ".join(only)
    lines.append("outputs:")
    lines.append("  - {name: cart1_v, body: cart1, quantity: coordinate_rates}")
    for b in BODIES:
        lines.append(f"  - {{name: {b}_q, body: {b}, quantity: coordinates}}")
        lines.append(f"  - {{name: {b}_w, body: {b}, quantity: angular_velocity}}")
    lines.append("output: cart-pendulum-measured-run.h5")
    return "\n".join(lines)


def csv(path):
    import h5py
    import numpy as np
    with h5py.File(path, "r") as f:
        t = f["time"][()]
        o = {k: f["outputs"][k][()] for k in f["outputs"]}
    cols = {"x_C1": o["cart1_q"][:, 0], "v_C1": o["cart1_v"][:, 0]}
    for k in range(1, 5):
        q = o[f"pendulum{k}_q"]
        cols[f"phi_P{k}"] = 2 * np.arctan2(q[:, 6], q[:, 3])
        cols[f"omega_P{k}"] = o[f"pendulum{k}_w"][:, 2]
    names = ["x_C1", "v_C1", "omega_P1", "omega_P2", "omega_P3", "omega_P4", "phi_P1", "phi_P2", "phi_P3", "phi_P4"]
    out = [f"# {path}: the cart-pendulum chain's signals (make_measurements.py --csv)", ",".join(["time"] + names)]
    for i in range(len(t)):
        out.append(",".join(repr(float(x)) for x in [t[i]] + [cols[n][i] for n in names]))
    return "\n".join(out)


if __name__ == "__main__":
    if "--csv" in sys.argv:
        print(csv(sys.argv[sys.argv.index("--csv") + 1]))
    else:
        only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else list(TARGETS)
        unknown = [n for n in only if n not in TARGETS]
        if unknown:
            raise SystemExit(f"--only: unknown {unknown} (known: {', '.join(TARGETS)})")
        print(job(only))
