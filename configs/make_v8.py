#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a `flexuq simulate` job of seed 003's rigid V8 crank drive (digest seed-003.md §3.2, §4.6).

17 rigid bodies (crankshaft, 8 connecting rods, 8 pistons), frames at the centres of mass and
parallel to the global axes at t = 0. Masses and principal inertias from the seed's Table 1 (the
rods' principal axes turned with each rod); the geometry the seed does not give is the digest's
§4.6 reconstruction: crank radius 0.04 m, rod length 0.14 m, rod centre of mass 30 % from the crank
pin, 90° V (banks at ±45° from the global z axis in the y–z plane), flat-plane throws (0, π, π, 0)
at x = 0, 0.12, 0.24, 0.36 m, each throw carrying a left-bank and a right-bank rod 0.02 m either
side of it. Joints in 3-D: crankshaft–ground and the two pins of each rod revolute about x, each
piston prismatic along its bank: every cylinder is a planar loop of 3-D joints, whose redundant
rows the engine drops (3 per cylinder).

  --driven   the crank angle prescribed, θ(t) = 50 t + 30 t² (digest §4.6: the ranks 4 + 6 of the
             translational and Euler-parameter velocity snapshots), rk45 with projection, 2 s,
             every body's q̇ written (quantity coordinate_rates) every 5 ms — tests/mbs/v8_test.sh
  (default)  driven by torques about the crank axis: idle 20 N·m, and 200 N·m more from 1.5 s to
             3 s (seed Table 2), against a rotational damper of 0.5 N·m·s/rad on the crankshaft (the
             seed's "500" read as N·mm·s/rad, digest §3.2: this gives ~4000 rpm), 4.5 s, HHT.

  --mounted  (digest §3.3, V13) the same crank drive in an engine housing that nothing fixes to the
             ground: the main bearing and the bores join the housing, the crank's torques and damper
             react on it, gravity −9.81 z, and the housing (120 kg, inertia 3, 6, 6 kg·m² about its
             centre of mass 0.1 m above the crank axis — assumed: the seed gives no housing data) rests
             on 9 spring–dampers (c = 75 000 N/m, d = 500 N·s/m: the seed's "0.05" has no usable unit)
             along x, y and z at 3 mounts (two engine mounts at the front, a gearbox mount at the rear);
             index-3 HHT, the same torque program, snapshots written (the training run of
             configs/rom/v8-mounted-rom.yaml).

  /usr/bin/python3 configs/make_v8.py [--driven | --mounted] > v8.yaml
"""
import math
import sys

import numpy as np

R, L, COG = 0.04, 0.14, 0.3
THROWS = [0.0, math.pi, math.pi, 0.0]
X_THROW = [0.0, 0.12, 0.24, 0.36]
BANKS = {"L": np.array([0.0, -math.sin(math.pi / 4), math.cos(math.pi / 4)]),
         "R": np.array([0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)])}
SIDE = {"L": -0.02, "R": 0.02}
HOUSING = np.array([0.18, 0.0, 0.1])  # --mounted: the housing's centre of mass
MOUNTS = [np.array([-0.05, -0.2, -0.05]), np.array([-0.05, 0.2, -0.05]), np.array([0.5, 0.0, -0.05])]


def fmt(v):
    return "[" + ", ".join(f"{float(x):.17g}" for x in v) + "]"


def pin(k, theta=0.0):
    """Crank pin of throw k at crank angle theta (rotation about +x), in the y–z plane."""
    a = theta + THROWS[k]
    return np.array([0.0, -R * math.sin(a), R * math.cos(a)])


def piston_offset(p, d):
    """Distance along the bank direction d of the piston pin whose rod reaches the crank pin p."""
    pd = p @ d
    return pd + math.sqrt(L * L - (p @ p - pd * pd))


def main():
    driven = "--driven" in sys.argv[1:]
    mounted = "--mounted" in sys.argv[1:]
    base = "housing" if mounted else "ground"
    out = []
    w = out.append
    w("# Seed 003's rigid V8 crank drive (" + ("18 bodies: the 17 in a housing on mounts" if mounted else "17 bodies")
      + "), written by configs/make_v8.py" + (" --driven" if driven else "") + (" --mounted" if mounted else ""))
    w("# (see its docstring for the geometry and the loads). Regenerate instead of editing by hand.")
    w("command: simulate")
    w("bodies:")
    w(f"  crankshaft: {{type: rigid, mass: 9.5, inertia: [0.015, 0.128, 0.138], position: {fmt([0.18, 0, 0])}}}")
    joints, outputs = [], []
    if mounted:
        w(f"  housing: {{type: rigid, mass: 120.0, inertia: [3.0, 6.0, 6.0], position: {fmt(HOUSING)}}}")
    joints.append(f"  - {{name: main_bearing, type: revolute, bodies: [{base}, crankshaft], point: [0, 0, 0], axis: [1, 0, 0]}}")
    for k in range(4):
        for bank, d in BANKS.items():
            c = f"{k + 1}{bank}"
            x = X_THROW[k] + SIDE[bank]
            p = pin(k) + np.array([x, 0, 0])
            s = piston_offset(pin(k), d)
            q = np.array([x, 0, 0]) + s * d
            u = (q - p) / np.linalg.norm(q - p)          # rod axis: principal x (seed Table 1)
            ez = np.array([1.0, 0, 0])                    # principal z along the crank axis
            ey = np.cross(ez, u)
            Rm = np.column_stack([u, ey, ez])
            J = Rm @ np.diag([0.00031, 0.0031, 0.0033]) @ Rm.T
            inertia = [J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2], J[0, 2]]
            w(f"  rod{c}: {{type: rigid, mass: 0.9, inertia: {fmt(inertia)}, position: {fmt(p + COG * (q - p))}}}")
            w(f"  piston{c}: {{type: rigid, mass: 0.7, inertia: [0.00066, 0.00068, 0.00068], position: {fmt(q)}}}")
            joints.append(f"  - {{name: crankpin{c}, type: revolute, bodies: [crankshaft, rod{c}], point: {fmt(p)}, axis: [1, 0, 0]}}")
            joints.append(f"  - {{name: wristpin{c}, type: revolute, bodies: [rod{c}, piston{c}], point: {fmt(q)}, axis: [1, 0, 0]}}")
            joints.append(f"  - {{name: bore{c}, type: prismatic, bodies: [{base}, piston{c}], point: {fmt(q)}, axis: {fmt(d)}}}")
            if driven:
                outputs += [f"  - {{name: rates_rod{c}, body: rod{c}, quantity: coordinate_rates}}",
                            f"  - {{name: rates_piston{c}, body: piston{c}, quantity: coordinate_rates}}"]
    if driven:
        joints.append("  - {name: crank_drive, type: angle-driver, bodies: [ground, crankshaft], axis: [1, 0, 0], "
                      "polynomial: [0, 50, 30]}")
        outputs.insert(0, "  - {name: rates_crankshaft, body: crankshaft, quantity: coordinate_rates}")
    w("joints:")
    out += joints
    if not driven:
        react = ", body2: housing" if mounted else ""
        w("forces:")
        w("  - {type: torque, body: crankshaft, axis: [1, 0, 0], table: [[0, 20.0], [1.5, 20.0], [1.6, 220.0], "
          f"[3.0, 220.0], [3.1, 20.0]]{react}}}")
        w(f"  - {{type: rotational-damper, body: crankshaft, axis: [1, 0, 0], damping: 0.5{react}}}")
        if mounted:
            w("  - {type: gravity, g: [0, 0, -9.81]}")
            for m, at in enumerate(MOUNTS):
                for k, e in enumerate(np.eye(3)):
                    w(f"  - {{type: spring, bodies: [ground, housing], point: {fmt(at - 0.1 * e)}, point2: {fmt(at)}, "
                      f"stiffness: 75000.0, damping: 500.0}}")
            w("solver: {type: hht, alpha: -0.05, step: 2.0e-4, end: 4.5, output_step: 0.01, formulation: index-3}")
            w("snapshots: true")
        else:
            w("solver: {type: hht, alpha: -0.05, step: 2.0e-4, end: 4.5, output_step: 0.01}")
        outputs = ["  - {name: crank_angle, joint: main_bearing, quantity: angle}",
                   "  - {name: crank_speed, body: crankshaft, quantity: angular_velocity}",
                   "  - {name: piston1L, body: piston1L, quantity: position}",
                   "  - {name: energy, quantity: energy}"]
        if mounted:
            outputs += ["  - {name: housing, body: housing, quantity: coordinates}",
                        "  - {name: housing_rates, body: housing, quantity: coordinate_rates}"]
        w("output: v8-mounted.h5" if mounted else "output: v8.h5")
    else:
        w("solver: {type: rk45, rtol: 1.0e-6, atol: 1.0e-8, end: 2.0, output_step: 0.005}")
        w("output: v8-driven.h5")
    w("animation: false")
    w("outputs:")
    out += outputs
    outputs.append("  - {name: drift, quantity: drift}")
    out.append(outputs[-1])
    print("\n".join(out))


if __name__ == "__main__":
    main()
