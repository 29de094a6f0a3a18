#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Add the element sets WEB (the four crank webs) and BOSS (journals and pins) to configs/crank.inp,
so that the issue-#7 example (E_web, E_boss with `set: WEB` / `set: BOSS`) runs on the shipped mesh.
An element belongs to WEB when its centroid's z lies in one of the web slabs of configs/crank.geo
(journal 0.040, web 0.018, pin 0.036: slabs start at z = 0.040, 0.094, 0.152, 0.206), else to BOSS.
Each set gets a section of its own steel (E 2.1e11 Pa, nu 0.3, rho 7850 kg/m3), so a parameter may act on either.
The mesh is then self-contained, as the issue's `model: {mesh: crank.inp, fixed: [JOURNAL_END]}`
expects (a job's model.material still applies where it is given).
Idempotent: existing WEB/BOSS sets, materials and sections are replaced.   Usage: configs/add_crank_sets.py [crank.inp]"""
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "crank.inp"
lj, tw, lp = 0.040, 0.018, 0.036
webs = [lj, lj + tw + lp, 2 * lj + 2 * tw + lp, 2 * lj + 3 * tw + 2 * lp]

lines = open(path).read().splitlines()
out, skip = [], False
for ln in lines:  # drop earlier WEB/BOSS sets
    if ln.startswith("*"):
        u = ln.replace(" ", "").upper()
        skip = u in ("*ELSET,ELSET=WEB", "*ELSET,ELSET=BOSS") or u.startswith(("*MATERIAL,NAME=STEEL_", "*ELASTIC",
                                                                              "*DENSITY", "*SOLIDSECTION,ELSET=WEB",
                                                                              "*SOLIDSECTION,ELSET=BOSS"))
    if not skip:
        out.append(ln)

nodes, elems, block = {}, [], None
for ln in out:
    if ln.startswith("*"):
        u = ln.replace(" ", "").upper()
        block = "node" if u.startswith("*NODE") else ("elem" if u.startswith("*ELEMENT") else None)
        continue
    f = [x for x in ln.replace(",", " ").split()]
    if block == "node" and len(f) >= 4:
        nodes[int(f[0])] = float(f[3])
    elif block == "elem" and len(f) >= 5:
        elems.append((int(f[0]), [int(x) for x in f[1:5]]))  # corner nodes

web, boss = [], []
for eid, corners in elems:
    z = sum(nodes[n] for n in corners) / 4.0
    (web if any(z0 < z < z0 + tw for z0 in webs) else boss).append(eid)


def elset(name, ids):
    res = ["*ELSET,ELSET=" + name]
    for i in range(0, len(ids), 10):
        res.append(", ".join(str(x) for x in ids[i:i + 10]) + ",")
    return res


out += elset("WEB", web) + elset("BOSS", boss)
for name in ("WEB", "BOSS"):  # one material each: a parameter acts on a set whose elements own their material
    out += ["*MATERIAL,NAME=STEEL_" + name, "*ELASTIC", "2.1e11, 0.3", "*DENSITY", "7850.",
            "*SOLID SECTION,ELSET=" + name + ",MATERIAL=STEEL_" + name]
open(path, "w").write("\n".join(out) + "\n")
print(f"{path}: WEB {len(web)} elements, BOSS {len(boss)} elements")
