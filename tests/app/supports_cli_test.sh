#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Supports of single components through the CLI (issue #37 item 3): a 0.2 x 0.04 x 0.03 m steel box
# (generator, 10 x 2 x 2 hex8) clamped at XMIN with u_x = 0 on XMAX (`model.fixed: [XMIN, {set: XMAX,
# dofs: [1]}]`, the symmetry plane of a 0.4 m clamped-clamped bar).
#  1. `flexuq modes` on 2 ranks: /modes/vectors is 0 at the fixed components (u_x on XMAX, all of
#     XMIN) and not elsewhere on XMAX (u_y, u_z move); /modes attribute fixed_sets names XMAX[1].
#  2. The 0.4 m clamped-clamped bar (whole-node form) has every frequency of 1. among its own (1e-8):
#     the half with its symmetry plane gives the full bar's symmetric modes.
#  3. `flexuq campaign` over E (3 Monte-Carlo samples) keeps the supports: f = f0 √(E/E0) (1e-7).
#  4. dofs: [1, 7] is refused with exit 2 naming the file, the entry and its line.
#  5. `flexuq reduce` (Craig–Bampton, all-dofs interface XMIN) beside the symmetry plane u_y = 0 on
#     YMIN, whose edge with XMIN is partly fixed, partly boundary: the modal diagonal of K̄ equals the
#     modes of the box with XMIN and YMIN[2] fixed (1e-7); 24 boundary columns (3 x 9 less 3). The
#     check-out's reduced free-free frequencies skip the 3 rigid motions the plane leaves, not 6.
#     The same with the free-interface methods herting and craig-chang: the reduced pencil has exactly
#     3 zero eigenvalues (t_x, t_z, r_y), 3 inertia-relief / rigid-body columns named after them, and
#     its lowest 3 elastic frequencies are among the free-free frequencies of the box mirrored about
#     y = 0 (0.2 x 0.08 x 0.03 m, 8 x 4 x 2 cells, `flexuq modes`), whose symmetric modes are the
#     supported box's (1e-7: the free-interface modes kept are those); gcms with {set, dofs}
#     supports exits 2 naming the key and the method.
#  6. The same reduction with reduce.stochastic (collocation over a lognormal E): the stochastic
#     body's mode eigenvalues expand λ(E) = λ₀ E/E₀, so their mean is λ₀ (1e-6).
# Usage: supports_cli_test.sh FLEXUQ MPIEXEC WORKDIR EXPECT_ERROR
set -euo pipefail
flexuq=$1; mpiexec=$2; work=$3; expect_error=$4
py=/usr/bin/python3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
run() { local n=$1; shift; "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
box() { echo "model:
  generator: {type: box, size: [$1, 0.04, 0.03], cells: [$2, 2, 2], order: 1}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
  fixed: $3"; }
{ box 0.2 10 "[XMIN, {set: XMAX, dofs: [1]}]"; printf 'modes:\n  count: 6\noutput: half.h5\n'; } > half.yaml
{ box 0.4 20 "[XMIN, XMAX]"; printf 'modes:\n  count: 16\noutput: full.h5\n'; } > full.yaml
{ box 0.2 10 "[XMIN, {set: XMAX, dofs: [1]}]"; printf 'parameters:\n  E: {dist: lognormal, mean: 2.1e11, std: 1.0e10}\n'
  printf 'outputs: {frequencies: 3}\nmethod:\n  type: monte-carlo\n  samples: 3\ncampaign: {ranks_per_sample: 1, seed: 3}\noutput: uq.h5\n'; } > campaign.yaml
{ box 0.2 4 "[XMIN, {set: XMAX, dofs: [1, 7]}]"; printf 'modes:\n  count: 2\noutput: bad.h5\n'; } > bad.yaml
{ box 0.2 8 "[XMIN, {set: YMIN, dofs: [2]}]"; printf 'modes:\n  count: 4\noutput: held.h5\n'; } > held.yaml
printf 'model:\n  generator: {type: box, origin: [0, -0.04, 0], size: [0.2, 0.08, 0.03], cells: [8, 4, 2], order: 1}\n  material: {E: 2.1e11, nu: 0.3, rho: 7850}\nmodes:\n  count: 12\noutput: mirror.h5\n' > mirror.yaml
{ box 0.2 8 "[{set: YMIN, dofs: [2]}]"; printf 'reduce:\n  method: craig-bampton\n  interfaces: [{set: XMIN, kind: all-dofs}]\n'
  printf '  modes: {count: 4}\noutput: cb.h5\n'; } > reduce.yaml
sed 's/craig-bampton/herting/; s/cb.h5/herting.h5/' reduce.yaml > herting.yaml
sed 's/craig-bampton/craig-chang/; s/cb.h5/chang.h5/' reduce.yaml > chang.yaml
sed 's/craig-bampton/gcms/; s/cb.h5/gcms.h5/' reduce.yaml > gcms.yaml
{ box 0.2 8 "[{set: YMIN, dofs: [2]}]"; printf 'parameters:\n  E: {dist: lognormal, mean: 2.1e11, std: 1.0e10}\n'
  printf 'reduce:\n  method: craig-bampton\n  interfaces: [{set: XMIN, kind: all-dofs}]\n  modes: {count: 4}\n'
  printf '  stochastic: {method: collocation, pce: {order: auto, max_order: 3}}\ncampaign: {ranks_per_sample: 1, seed: 7}\noutput: scb.h5\n'; } > scb.yaml
run 2 modes half.yaml > half.log 2>&1 || { echo "modes (half) failed"; cat half.log; exit 1; }
run 2 modes full.yaml > full.log 2>&1 || { echo "modes (full) failed"; cat full.log; exit 1; }
run 2 modes held.yaml > held.log 2>&1 || { echo "modes (held) failed"; cat held.log; exit 1; }
run 2 reduce reduce.yaml > reduce.log 2>&1 || { echo "reduce failed"; cat reduce.log; exit 1; }
run 2 reduce scb.yaml > scb.log 2>&1 || { echo "stochastic reduce failed"; cat scb.log; exit 1; }
run 2 modes mirror.yaml > mirror.log 2>&1 || { echo "modes (mirror) failed"; cat mirror.log; exit 1; }
run 2 reduce herting.yaml > herting.log 2>&1 || { echo "reduce (herting) failed"; cat herting.log; exit 1; }
run 2 reduce chang.yaml > chang.log 2>&1 || { echo "reduce (craig-chang) failed"; cat chang.log; exit 1; }
"$expect_error" --exit-code 2 "gcms.yaml" "model.fixed" "reduce.method gcms" -- "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" reduce gcms.yaml
run 2 campaign campaign.yaml > campaign.log 2>&1 || { echo "campaign failed"; cat campaign.log; exit 1; }
"$expect_error" --exit-code 2 "bad.yaml" "model.fixed[1].dofs" "line 4" "component 7" -- "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" modes bad.yaml
$py - <<'PY'
import h5py, numpy as np
h = h5py.File("half.h5", "r")
x = h["mesh/geometry"][()]
V = h["modes/vectors"][()]                       # (nodes, 3, modes)
assert V.shape[1:] == (3, 6), V.shape
xmin, xmax = np.abs(x[:, 0]) < 1e-12, np.abs(x[:, 0] - 0.2) < 1e-12
assert xmin.sum() == 9 and xmax.sum() == 9
assert np.all(V[xmin] == 0), "XMIN is clamped"
assert np.all(V[xmax, 0, :] == 0), "u_x = 0 on the symmetry plane"
assert np.abs(V[xmax, 1:, :]).max() > 1e-3 * np.abs(V).max(), "u_y, u_z move on the symmetry plane"
fixed = h["modes"].attrs["fixed_sets"]
fixed = fixed.decode() if isinstance(fixed, bytes) else str(fixed)
assert "XMAX[1]" in fixed and "XMIN" in fixed, fixed
fh = h["modes/frequencies_hz"][()]
ff = h5py.File("full.h5", "r")["modes/frequencies_hz"][()]
err = max(np.min(np.abs(ff / f - 1)) for f in fh)
print("half-bar frequencies among the full bar's: max relative distance %.2e" % err)
assert err < 1e-8, (fh, ff)
u = h5py.File("uq.h5", "r")
theta = u["samples/parameters"][()][:, 0]
freq = u["outputs/frequencies"][()]
pred = fh[None, :3] * np.sqrt(theta[:, None] / 2.1e11)
e = np.max(np.abs(freq / pred - 1))
print("campaign with a symmetry plane: max |f / (f0 sqrt(E/E0)) - 1| = %.2e" % e)
assert len(freq) == 3 and e < 1e-7, (freq, pred)
lam = h5py.File("held.h5", "r")["modes/eigenvalues"][()]
cb = h5py.File("cb.h5", "r")["reduced"]
kinds = [k.decode() for k in cb["column_kinds"][()]]
K = cb["K"][()]
modal = np.array([K[i, i] for i, k in enumerate(kinds) if k == "fixed_interface_mode"])
nb = sum(k == "boundary_dof" for k in kinds)
print("CB beside YSYMM: %d boundary columns, fixed-interface eigenvalues" % nb, modal, "vs modes", lam[:4])
assert nb == 24, kinds
assert len(modal) == 4 and np.allclose(modal, lam[:4], rtol=1e-7, atol=0), (modal, lam[:4])
ev = np.sort(np.linalg.eigvals(np.linalg.solve(cb["M"][()], K)).real)
assert np.all(np.abs(ev[:3]) < 1e-9 * ev[3]) and ev[3] > 0, ev[:5]
ffr = cb["checkout/free_free_reduced_hz"][()]
print("check-out reduced free-free", ffr[:3], "vs the pencil's 4th.. ", np.sqrt(ev[3:6]) / (2 * np.pi))
assert np.allclose(ffr[:3], np.sqrt(ev[3:6]) / (2 * np.pi), rtol=1e-6), (ffr[:3], ev[:6])
fm = h5py.File("mirror.h5", "r")["modes/frequencies_hz"][()]
for name, kind in (("herting.h5", "inertia_relief"), ("chang.h5", "rigid_body")):
    r = h5py.File(name, "r")["reduced"]
    ks = [k.decode() for k in r["column_kinds"][()]]
    labels = [l.decode() for l in r["dof_labels"][()]]
    rig = sorted(l.split()[-1] for l, k in zip(labels, ks) if k == kind)
    lam = np.sort(np.linalg.eigvals(np.linalg.solve(r["M"][()], r["K"][()])).real)
    nz = int(np.sum(np.abs(lam) < 1e-8 * lam[-1]))
    f = np.sqrt(lam[3:6]) / (2 * np.pi)
    d = max(np.min(np.abs(fm / x - 1)) for x in f)
    print("%s beside YSYMM: %d zero eigenvalues, rigid columns %s, f1-3 %s among the mirrored box's (%.1e)" % (name, nz, rig, f, d))
    assert nz == 3 and lam[3] > 1e-3 * modal[0], lam[:5]
    assert rig == ["ry", "tx", "tz"], rig
    assert d < 1e-7, (f, fm)
s = h5py.File("scb.h5", "r")
names = []
s.visit(names.append)
assert any(n.startswith("stochastic_body/pce/") for n in names), names
mean = s["statistics/mode_eigenvalues/mean"][()][:4]
print("stochastic CB beside YSYMM: mean mode eigenvalues", mean, "relative to the nominal", mean / modal - 1)
assert np.allclose(mean, modal, rtol=1e-6, atol=0), (mean, modal)
print("supports CLI: OK")
PY
