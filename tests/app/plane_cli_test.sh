#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A 2-D component through the CLI (issue #36 item 1): a gmsh 2.2 strip 0.5 x 0.1 m of 20 x 4 8-node
# quadrangles (type 16), read as plane stress by model.plane {state: stress, thickness: 0.01}, edge
# x = 0 (physical line ROOT) clamped.
#  1. `flexuq modes` on 2 ranks: 2 DOFs per node (/modes attribute dofs_per_node, /modes/vectors
#     (n, 2, k)); the free strip has exactly 3 rigid-body modes.
#  2. `flexuq reduce` (Craig–Bampton, all-dofs interface ROOT, stress_modes): the modal diagonal of
#     K̄ equals the clamped eigenvalues of 1. to 1e-7; tx, ty, rz have round-off strain energy, and
#     their combinations of the boundary columns round-off stress (/reduced/stress_modes).
#  3. `flexuq campaign` over E (lognormal) and rho (uniform), 5 Monte-Carlo samples: with ν fixed
#     K ∝ E and M ∝ ρ, so every sample's frequencies equal the nominal ones times √(E ρ₀/(E₀ ρ))
#     (1e-7), the exact scaling law of the affine terms.
# Usage: plane_cli_test.sh FLEXUQ MPIEXEC WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; work=$3
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { local n=$1; shift; "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
PYTHONPATH="$here/../oracle" $py - <<'PY'
from ccx_modes import quad8_lattice
NX, NY, L, H = 20, 4, 0.5, 0.1
lab, used, elems = quad8_lattice(NX, NY, L, H)
lines = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$PhysicalNames", "2", '1 1 "ROOT"', '2 2 "STRIP"',
         "$EndPhysicalNames", "$Nodes", str(len(used))]
lines += [f"{k} {x:.10g} {y:.10g} 0" for k, (x, y) in sorted(used.items())]
lines += ["$EndNodes"]
els = [f"{n + 1} 8 2 1 1 {lab(0, 2 * n)} {lab(0, 2 * n + 2)} {lab(0, 2 * n + 1)}" for n in range(NY)]
els += [f"{NY + n + 1} 16 2 2 2 " + " ".join(str(lab(*p)) for p in e) for n, e in enumerate(elems)]
lines += ["$Elements", str(len(els))] + els + ["$EndElements"]
open("strip.msh", "w").write("\n".join(lines) + "\n")
model = ("model:\n  mesh: strip.msh\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\n"
         "  plane: {state: stress, thickness: 0.01}\n")
open("modes.yaml", "w").write(model + "  fixed: [ROOT]\nmodes:\n  count: 4\noutput: clamped.h5\n")
open("free.yaml", "w").write(model + "modes:\n  count: 2\noutput: free.h5\n")
open("reduce.yaml", "w").write(model + "reduce:\n  method: craig-bampton\n  interfaces: [{set: ROOT, kind: all-dofs}]\n"
                               "  modes: {count: 4}\n  checkout: {free_free: 2}\n  stress_modes: true\noutput: cb.h5\n")
open("campaign.yaml", "w").write(model + "  fixed: [ROOT]\nparameters:\n"
                                 "  E: {dist: lognormal, mean: 2.1e11, std: 1.0e10}\n"
                                 "  rho: {dist: uniform, low: 7700, high: 8000}\n"
                                 "outputs: {frequencies: 3}\nmethod:\n  type: monte-carlo\n  samples: 5\n"
                                 "campaign: {ranks_per_sample: 1, seed: 7}\noutput: uq.h5\n")
PY
run 2 modes modes.yaml > modes.log 2>&1 || { echo "modes failed"; cat modes.log; exit 1; }
run 2 modes free.yaml > free.log 2>&1 || { echo "free modes failed"; cat free.log; exit 1; }
run 2 reduce reduce.yaml > reduce.log 2>&1 || { echo "reduce failed"; cat reduce.log; exit 1; }
run 2 campaign campaign.yaml > campaign.log 2>&1 || { echo "campaign failed"; cat campaign.log; exit 1; }
$py - <<'PY'
import h5py, numpy as np
c = h5py.File("clamped.h5", "r")
lam = c["modes/eigenvalues"][()]
assert c["modes"].attrs["dofs_per_node"] == 2, c["modes"].attrs["dofs_per_node"]
assert c["modes/vectors"].shape[1:] == (2, len(lam)), c["modes/vectors"].shape
f = h5py.File("free.h5", "r")
assert f["modes"].attrs["rigid_body_modes"] == 3, f["modes"].attrs["rigid_body_modes"]
cb = h5py.File("cb.h5", "r")["reduced"]
kinds = [k.decode() for k in cb["column_kinds"][()]]
K = cb["K"][()]
modal = np.array([K[i, i] for i, k in enumerate(kinds) if k == "fixed_interface_mode"])
print("CB fixed-interface eigenvalues", modal[:4], "vs modes", lam[:4])
assert len(modal) == 4 and np.allclose(modal, lam[:4], rtol=1e-7, atol=0), (modal, lam[:4])
se = cb["checkout/rigid_strain_energy"][()]
assert np.max(se) < 1e-12, se
# Stress modes (n, 6, columns): the rigid motions t_x, t_y, r_z are sums of the boundary columns
# (the constraint modes reproduce them), and carry no stress; σ_yz = σ_zx = 0 in 2-D.
S = cb["stress_modes"][()]
assert S.shape[1] == 6 and S.shape[2] == K.shape[0], S.shape
g = h5py.File("cb.h5", "r")["mesh"]
xy = dict(zip(g["node_ids"][()], g["geometry"][()][:, :2]))
labels = [l.decode().split() for l in cb["dof_labels"][()]]
xi = np.zeros((K.shape[0], 3))
for j, l in enumerate(labels):
    if kinds[j] != "boundary_dof":
        continue
    x, y = xy[int(l[2])]
    xi[j] = [1, 0, -y] if l[3] == "ux" else [0, 1, x]
rigid = np.einsum("nsc,cr->nsr", S, xi)
scale = np.abs(S).max()
print("stress modes: max |S xi_rigid| / max |S| = %.2e" % (np.abs(rigid).max() / scale))
assert scale > 0 and np.abs(rigid).max() < 1e-9 * scale
assert np.abs(S[:, 4:6, :]).max() == 0
u = h5py.File("uq.h5", "r")
theta = u["samples/parameters"][()]
freq = u["outputs/frequencies"][()]
f0 = np.sqrt(lam[:3]) / (2 * np.pi)
names = [n.decode() if isinstance(n, bytes) else n for n in u["parameters/names"][()]] if "parameters/names" in u else ["E", "rho"]
iE, ir = names.index("E"), names.index("rho")
pred = f0[None, :] * np.sqrt(theta[:, iE:iE + 1] / 2.1e11 * 7850.0 / theta[:, ir:ir + 1])
err = np.max(np.abs(freq / pred - 1))
print("campaign: %d samples, max |f / (f0 sqrt(E rho0 / (E0 rho))) - 1| = %.2e" % (len(freq), err))
assert len(freq) == 5 and err < 1e-7, (freq, pred)
print("plane CLI: OK")
PY
