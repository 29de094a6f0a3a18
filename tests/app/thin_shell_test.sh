#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Thin shells with the default solver keys (issue #37): a steel square plate of a/h = 1000 (30 × 30
# S4), edge x = 0 clamped.
#  1. `flexuq modes` with no modes.shift/rigid_tol: the cantilever's first frequencies against Leissa
#     (CFFF square plate, ν = 0.3: λ = ωa²√(ρh/D) = 3.492, 8.525, 21.43) within 2 %; before the
#     translational scale these modes were refused as a mechanism (λ₁ ≈ 2.7e-10·max K_ii/M_ii).
#  2. `flexuq reduce` (Craig–Bampton, interface = the clamped edge; reduce has no solver keys): its
#     fixed-interface modes are the cantilever's, so the modal diagonal of the reduced K equals the
#     eigenvalues of 1. to 1e-7, and the six rigid motions have round-off strain energy.
#  3. The free plate: six rigid modes, first elastic the twist mode, λ = 13.47 (Leissa, FFFF), 2 %.
# Usage: thin_shell_test.sh FLEXUQ MPIEXEC WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; work=$3
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { local n=$1; shift; "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
$py "$here/shell_plate.py" 30 1.0 1e-3 LEFT plate.inp
$py - <<'PY'
open("modes.yaml", "w").write("model:\n  mesh: plate.inp\n  fixed: [LEFT]\nmodes:\n  count: 3\noutput: cant.h5\n")
open("free.yaml", "w").write("model:\n  mesh: plate.inp\nmodes:\n  count: 1\noutput: free.h5\n")
open("reduce.yaml", "w").write("model:\n  mesh: plate.inp\nreduce:\n  method: craig-bampton\n"
                               "  interfaces: [{set: LEFT, kind: all-dofs}]\n  modes: {count: 4}\n"
                               "  checkout: {free_free: 0}\noutput: cb.h5\n")
PY
run 2 modes modes.yaml > modes.log 2>&1 || { echo "modes failed"; cat modes.log; exit 1; }
run 2 modes free.yaml > free.log 2>&1 || { echo "free modes failed"; cat free.log; exit 1; }
run 2 reduce reduce.yaml > reduce.log 2>&1 || { echo "reduce failed"; cat reduce.log; exit 1; }
$py - <<'PY'
import h5py, numpy as np
E, nu, rho, h, a = 2.1e11, 0.3, 7850.0, 1e-3, 1.0
D = E * h**3 / (12 * (1 - nu**2))
scale = np.sqrt(D / (rho * h)) / a**2
lam = h5py.File("cant.h5", "r")["modes/eigenvalues"][()]
ref = np.array([3.492, 8.525, 21.43]) * scale
err = np.abs(np.sqrt(lam[:3]) / ref - 1)
print("cantilever: omega", np.sqrt(lam[:3]), "Leissa", ref, "rel. err", err)
assert err.max() < 0.02, err
f = h5py.File("free.h5", "r")
assert f["modes"].attrs["rigid_body_modes"] == 6, f["modes"].attrs["rigid_body_modes"]
w1 = np.sqrt(f["modes/eigenvalues"][0])
print("free: omega_1", w1, "Leissa", 13.47 * scale)
assert abs(w1 / (13.47 * scale) - 1) < 0.02
cb = h5py.File("cb.h5", "r")["reduced"]
kinds = [k.decode() for k in cb["column_kinds"][()]]
K = cb["K"][()]
modal = np.array([K[i, i] for i, k in enumerate(kinds) if k == "fixed_interface_mode"])
print("CB fixed-interface eigenvalues", modal[:3], "vs modes", lam[:3])
assert len(modal) >= 3 and np.allclose(modal[:3], lam[:3], rtol=1e-7, atol=0), (modal[:3], lam[:3])
assert np.max(cb["checkout/rigid_strain_energy"][()]) < 1e-12
print("thin shell: OK")
PY
