#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `flexuq reduce` with reduce.stochastic.method: pod, end to end (issue #6, POD bodies) on the
# two-material bar of tests/app/scb_bar.yaml (E of one half, rho of the other):
#  1. 1 rank = 2 ranks (groups of 1, so the point bases are the same): V spans the same subspace —
#     principal angles below 1e-10 where the truncation gap is wide (sigma_ratio 1e-3), and within
#     1000x the round-off bound eps*sigma_1/(sigma_r - sigma_r+1) for energy 1e-10 —; the POD
#     spectra normalised (sum sigma^2 = 1) and the kept ranks what the truncation rules say;
#  2. the body at θ: the affine sum of the reduced terms equals VᵀK(θ)V, VᵀM(θ)V assembled at a point to
#     round-off (affine_check < 1e-12, invariants included); body-at at the means gives M̄ = I (V M-orthonormal); body-at at a
#     θ that is no point against a direct `flexuq reduce` at θ: full-model free-free frequencies ≤ POD
#     body ≤ Craig–Bampton body (Rayleigh–Ritz: span V holds the point bases up to the truncation,
#     whose effect the file reports as max_free_free_above_cb), and 1 rank = 2 ranks to round-off; the
#     body-at file has every /reduced dataset of the direct body; its basis-independent invariants
#     (mass, centre of mass, I7, J_O, J_C) equal the direct body's at θ; its check-out's reduced mass
#     properties equal the full ones (span V holds the rigid motions);
#  3. SIGKILL during the points + --resume: a bit-identical file;
#  4. bad pod keys: exit code 2, a message naming the key, no journal started;
#  5. the POD body at θ in `flexuq simulate`: joints attach at the mesh's node sets through the
#     basis rows (section 5 below).
# Usage: pod_reduce_test.sh FLEXUQ MPIEXEC SRCDIR WORKDIR
set -euo pipefail
flexuq=$1; mpiexec=$2; src=$3; work=$4
py=/usr/bin/python3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
cp "$src/tests/app/scb_bar.inp" .
sed -e 's/method: regression/method: pod\n    pod: {energy: 1.0e-10}/' -e '/pce:/d' "$src/tests/app/scb_bar.yaml" > pod.yaml
sed -e 's/pod: {energy: 1.0e-10}/pod: {sigma_ratio: 1.0e-3}/' pod.yaml > ratio.yaml
run() { local n=$1; shift; "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"; }
. "$src/tests/app/scb_common.sh" # reduce_direct E RHO, kill_and_resume JOB

# --- 1. rank counts, truncation rules ---
run 1 reduce pod.yaml --set output=p1.h5 > p1.log
grep -q "POD basis (energy 1e-10)" p1.log || { echo "no POD basis in p1.log"; cat p1.log; exit 1; }
run 2 reduce pod.yaml --set output=p2.h5 > p2.log
run 1 reduce ratio.yaml --set output=r1.h5 > r1.log
run 2 reduce ratio.yaml --set output=r2.h5 > r2.log
$py - <<'PY'
import h5py, numpy as np
def basis(path):
    f = h5py.File(path, "r"); V = f["stochastic_body/pod/basis"][()]
    return f, np.linalg.qr(V.reshape(-1, V.shape[2]))[0]  # V is M-orthonormal: compare subspaces
def sin_max(A, B):  # sine of the largest principal angle between orthonormal A and B
    return np.linalg.norm(B - A @ (A.T @ B), 2) if A.shape == B.shape else np.inf
for rule, a, b, check in (("energy", "p1.h5", "p2.h5", lambda s, r: (s[r:] ** 2).sum() <= 1e-10 < (s[r - 1:] ** 2).sum()),
                          ("sigma_ratio", "r1.h5", "r2.h5", lambda s, r: s[r - 1] > 1e-3 * s[0] >= s[r])):
    fa, A = basis(a); fb, B = basis(b)
    worst = 0.0
    rank = 0
    for fam in ("boundary", "internal"):
        s = fa[f"stochastic_body/pod/{fam}/sigma"][()]
        snaps, r = fa[f"stochastic_body/pod/{fam}/snapshots_rank"][()]
        assert abs((s ** 2).sum() - 1) < 1e-12, f"{fam}: sum sigma^2 = {(s ** 2).sum()}"
        assert check(s, r), f"{rule}: {fam} rank {r} does not follow the rule, sigma {s[:r + 1]}"
        assert np.allclose(s, fb[f"stochastic_body/pod/{fam}/sigma"][()], rtol=0, atol=1e-13)
        gap = s[r - 1] - (s[r] if r < len(s) else 0.0)
        worst = max(worst, 2.2e-16 * s[0] / gap)
        rank += r
    assert A.shape[1] == rank, f"V has {A.shape[1]} columns, the families {rank}"
    d = sin_max(A, B)
    bound = 1e-10 if rule == "sigma_ratio" else max(1e-10, 1000 * worst)
    print(f"{rule}: V {A.shape}, 1 vs 2 ranks: sin of the largest principal angle {d:.2e} (bound {bound:.1e})")
    assert d < bound
PY

# --- 1b. global E and rho: exact scaling journals each point's basis as column scales; the POD
# rebuilds the bases from the reference and must find the subspace, spectra and body of full
# reductions per point (reduce.stochastic.exact_scaling: false).
sed -e 's/^  E_left: .*/  E_all: {dist: lognormal, mean: 2.0e11, std: 1.0e10, param: E}/' \
    -e 's/^  rho_right: .*/  rho_all: {dist: uniform, low: 7600, high: 8000, param: rho}/' pod.yaml > gpod.yaml
run 1 reduce gpod.yaml --set output=gx.h5 > gx.log
run 1 reduce gpod.yaml --set output=gf.h5 --set reduce.stochastic.exact_scaling=false > gf.log
grep -q "scaled exactly" gx.log || { echo "exact scaling not taken"; cat gx.log; exit 1; }
$py - <<'PY'
import h5py, numpy as np
a, b = h5py.File("gx.h5", "r"), h5py.File("gf.h5", "r")
def onb(f):
    V = f["stochastic_body/pod/basis"][()]
    return np.linalg.qr(V.reshape(-1, V.shape[2]))[0]
A, B = onb(a), onb(b)
assert A.shape == B.shape, f"exact scaling V {A.shape}, full reductions {B.shape}"
d = np.linalg.norm(B - A @ (A.T @ B), 2)
print(f"global E, rho: V {A.shape}, exact scaling vs full reductions: sin of the largest principal angle {d:.2e}")
assert d < 1e-7
for fam in ("boundary", "internal"):
    sa, sb = a[f"stochastic_body/pod/{fam}/sigma"][()], b[f"stochastic_body/pod/{fam}/sigma"][()]
    r = int(a[f"stochastic_body/pod/{fam}/snapshots_rank"][()][1])
    assert r == int(b[f"stochastic_body/pod/{fam}/snapshots_rank"][()][1]), fam
    assert np.allclose(sa[:r], sb[:r], rtol=1e-9, atol=0), f"{fam}: sigma {sa[:r]} vs {sb[:r]}"
PY

# --- 2. the body at θ ---
E=2.073e11; RHO=7712.5
run 2 body-at p1.h5 --set E_left=$E --set rho_right=$RHO -o at.h5 > at.log
run 1 body-at p2.h5 --set E_left=$E --set rho_right=$RHO -o at2.h5 > at2.log
run 1 body-at p1.h5 -o mean.h5 > mean.log
reduce_direct $E $RHO
$py - <<'PY'
import h5py, numpy as np
p = h5py.File("p1.h5", "r")["stochastic_body/pod"]
at, at2, mean, d = (h5py.File(x, "r") for x in ("at.h5", "at2.h5", "mean.h5", "direct.h5"))
chk = p.attrs["affine_check"]; above = p.attrs["max_free_free_above_cb"]
print(f"affine check {chk:.2e}, POD body above the points' CB bodies by at most {above:.2e}")
assert chk < 1e-12
Mm = mean["reduced/M"][()]
assert np.abs(Mm - np.eye(len(Mm))).max() < 1e-12, "V is not M-orthonormal at the means"
fp = at["reduced/checkout/free_free_reduced_hz"][()]; n = 4
fc = d["reduced/checkout/free_free_reduced_hz"][()][:n]; ff = d["reduced/checkout/free_free_full_hz"][()][:n]
print("full:", ff); print("POD: ", fp[:n]); print("CB:  ", fc)
assert np.all(ff <= fp[:n] * (1 + 1e-9)), "the POD body is stiffer than the full model"
assert np.all(fp[:n] <= fc * (1 + max(above, 0) + 1e-8)), "the POD body is stiffer than the CB body"
assert np.all(fp[:n] - ff < 0.02 * ff)
assert np.allclose(fp, at2["reduced/checkout/free_free_reduced_hz"][()], rtol=1e-9), "1 rank != 2 ranks"
Ka = at["reduced/K"][()]; assert np.allclose(Ka, Ka.T, rtol=0, atol=1e-12 * np.abs(Ka).max())
# The whole /reduced layout of `flexuq reduce` (every reader of a reduced body works on it).
def datasets(f):
    out = set()
    f["reduced"].visititems(lambda n, o: out.add(n) if isinstance(o, h5py.Dataset) else None)
    return out
optional = {"interface_point_sets", "interface_points"}  # RBE reference points: the POD columns have none
# /reduced/gs (the Ψ/Υ split for gs bodies) is written by `flexuq reduce` only; a gs body refuses a file
# without it and without reference points, naming the file (docs/mbs.md).
missing = sorted(n for n in datasets(d) - datasets(at) - optional if not n.startswith("gs/"))
assert not missing, f"body-at of a POD body lacks {missing}"
# The invariants that do not depend on the basis (I1, I2, I7, J_O) equal the direct body's at θ: they
# are linear in M(θ), which moved with rho_right; Mff is M̄(θ).
I, J = at["reduced/invariants"], d["reduced/invariants"]
for k in ("mass", "center_of_mass", "inertia_origin", "Ikl", "inertia_com"):
    a, b = I[k][()], J[k][()]
    err = np.abs(a - b).max() / np.abs(b).max()
    print(f"invariant {k}: POD body-at vs direct reduce at theta, rel. difference {err:.1e}")
    assert err < 1e-10, k
assert np.abs(I["Mff"][()] - at["reduced/M"][()]).max() < 1e-12 * np.abs(at["reduced/M"][()]).max()
# The POD span holds the rigid motions (the points' constraint modes do): reduced mass properties
# equal the full ones and the floating-frame coordinates exist, their eigenvalues the frequencies².
c = at["reduced/checkout"]
m = c["mass_full_reduced"][()]
print("check-out: masses", m, "rigid residuals", c["rigid_residual"][()], "rigid strain energy", c["rigid_strain_energy"][()])
assert abs(m[1] - m[0]) < 1e-8 * m[0] and abs(m[0] - J["mass"][()][0]) < 1e-10 * m[0]
assert np.abs(c["com_full"][()] - d["reduced/checkout/com_full"][()]).max() < 1e-10
assert np.abs(c["inertia_com_full"][()] - d["reduced/checkout/inertia_com_full"][()]).max() < 1e-10 * np.abs(d["reduced/checkout/inertia_com_full"][()]).max()
assert c["rigid_residual"][()].max() < 1e-4 and c["rigid_strain_energy"][()].max() < 1e-10
lam = at["reduced/floating_frame/eigenvalues"][()]
assert np.allclose(np.sqrt(lam) / (2 * np.pi), fp, rtol=1e-12)
assert at["reduced"].attrs["method"] in (b"pod", "pod")
print("body-at checks passed")
PY

# --- 3. SIGKILL during the points, then --resume ---
sed 's/^  mesh: scb_bar.inp/  mesh: scb_bar.inp\n  delay_seconds: 0.3/' pod.yaml > slow.yaml
kill_and_resume slow.yaml
$py - <<'PY'
import h5py, numpy as np
a = h5py.File("ref.h5", "r"); b = h5py.File("cut.h5", "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) and o.dtype.kind == "f" and
             n.split("/")[0] in ("statistics", "stochastic_body", "reduced") else None)
assert any(n.startswith("stochastic_body/pod/") for n in names)
bad = [n for n in names if not np.array_equal(a[n][()], b[n][()], equal_nan=True)]
print(f"resume: {len(names)} datasets compared, {len(bad)} differ {bad}")
assert not bad
PY

# --- 5. the POD body in a multibody simulation ---
# The POD columns are no physical interface DOFs; a joint attaches at a node set of the body file's
# mesh through the basis rows of its nodes (exact for an RBE2 set, which every column moves
# rigidly). A soft bar (stiffness_scale 1e-4) swings from a revolute joint at XMIN under gravity,
# released from rest; the tip follows the XMAX interface.
#  a. the direct CB body with its columns relabelled `pod_vector` (so the joint takes the basis-row
#     path) moves as the CB body itself (labelled interface columns): the same attachment, 1e-9 m;
#  b. the POD body at θ (32 columns) moves like the CB body reduced at θ (16 columns): the tip's
#     elastic motion (against a 10⁴ times stiffer run, ~0.7 mm) agrees within 15 % — the two
#     bases are different Ritz spaces, so this is a plausibility check; (a) is the exact one.
cat > swing.yaml <<'YAML'
command: simulate
bodies:
  bar: {type: flexible, body: BODY, stiffness_scale: SCALE}
joints:
  - {name: O, type: revolute, bodies: [ground, bar], point: [0, 0.05, 0.025], axis: [0, 0, 1], interface: XMIN}
forces:
  - {type: gravity, g: [0, -9.81, 0]}
solver: {type: hht, alpha: -0.05, step: 1.0e-3, end: 0.1, tol: 1.0e-10, output_step: 5.0e-3}
outputs:
  - {name: tip, body: bar, point: [0.4, 0.05, 0.025], interface: XMAX, quantity: position}
output: OUT
YAML
cp direct.h5 relabelled.h5
$py - <<'PY'
import h5py, numpy as np
f = h5py.File("relabelled.h5", "r+")
k = f["reduced/column_kinds"]
k[...] = np.array([b"pod_vector"] * k.shape[0], dtype=k.dtype)
del f["reduced/checkout/effective_mass"]  # one row per mode column: none are left
f.create_dataset("reduced/checkout/effective_mass", shape=(0, 6), dtype="f8")
PY
swing() { sed -e "s/BODY/$1/" -e "s/SCALE/$2/" -e "s/OUT/$3/" swing.yaml > "${3%.h5}.yaml"; run 1 simulate "${3%.h5}.yaml" > "${3%.h5}.log" 2>&1 ||
  { echo "simulate $1 failed"; cat "${3%.h5}.log"; exit 1; }; }
swing direct.h5 1e-4 s_cb.h5
swing relabelled.h5 1e-4 s_rel.h5
swing at.h5 1e-4 s_pod.h5
swing direct.h5 1 s_stiff.h5
$py - <<'PY'
import h5py, numpy as np
tip = {k: h5py.File(f"s_{k}.h5", "r")["outputs/tip"][()] for k in ("cb", "rel", "pod", "stiff")}
elastic = tip["cb"] - tip["stiff"]
e = np.abs(elastic).max()
d_rel = np.abs(tip["rel"] - tip["cb"]).max()
d_pod = np.abs((tip["pod"] - tip["stiff"]) - elastic).max()
print(f"tip: elastic motion {e:.3e} m; relabelled CB vs CB {d_rel:.1e} m; POD vs CB elastic motion {d_pod:.2e} m "
      f"({d_pod / e:.1%})")
assert e > 2e-4, "the soft bar should deform visibly"
assert d_rel < 1e-9 * max(1.0, np.abs(tip["cb"]).max()), "the basis-row attachment differs from the labelled one"
assert d_pod < 0.15 * e, "the POD body moves unlike the CB body at the same parameters"
PY

# --- 4. bad pod keys: exit code 2, the key named, no work done ---
bad() {
  local expect=$1; shift
  sed "s/pod: {energy: 1.0e-10}/$1/" pod.yaml > bad.yaml
  set +e
  run 2 reduce bad.yaml --set output=bad.h5 > bad.log 2>&1
  local rc=$?
  set -e
  [ $rc -eq 2 ] || { echo "exit code $rc (expected 2) for $1"; cat bad.log; exit 1; }
  grep -qF -- "$expect" bad.log || { echo "message without '$expect' for $1"; cat bad.log; exit 1; }
  [ ! -e bad.h5.journal ] || { echo "a journal was started for bad input $1"; exit 1; }
}
bad "reduce.stochastic.pod.energy: energy (lost energy fraction) must be in [0, 1)" "pod: {energy: 2}"
bad "reduce.stochastic.pod takes exactly one of energy, sigma_ratio, rank" "pod: {energy: 1e-8, rank: 3}"
bad "reduce.stochastic.pod.tolerance is not a truncation" "pod: {tolerance: 1e-8}"
bad "reduce.stochastic.pod.rank: rank must be a positive integer" "pod: {rank: 2.5}"
bad "reduce.stochastic.pod.sigma_ratio must be a number" "pod: {sigma_ratio: big}"
bad "basis: false cannot be used with method pod" "pod: {rank: 3}\n    basis: false"
# a parameter that does not scale the operators linearly (nu): refused before any work
sed -e 's/param: rho, set: RIGHT/param: nu, set: RIGHT/' -e 's/low: 7600, high: 8000/low: 0.25, high: 0.35/' pod.yaml > nu.yaml
set +e; run 1 reduce nu.yaml --set output=bad.h5 > bad.log 2>&1; rc=$?; set -e
[ $rc -eq 2 ] && grep -qF "reduce.stochastic.method: pod needs K(θ), M(θ) proportional to the parameters" bad.log &&
  [ ! -e bad.h5.journal ] || { echo "nu parameter with pod: exit $rc"; cat bad.log; exit 1; }
# body-at of a POD body: germ values and unknown parameters refused (exit 2, named)
for args in "xi.E_left=0.5|is a POD body (exact at every θ, no germ)" "E=2e11|has no parameter 'E' (parameters: E_left, rho_right)" \
            "rho_right=-1|must be positive"; do
  set +e; run 1 body-at p1.h5 --set "${args%%|*}" -o badat.h5 > badat.log 2>&1; rc=$?; set -e
  [ $rc -eq 2 ] && grep -qF -- "${args#*|}" badat.log || { echo "body-at ${args%%|*}: exit $rc"; cat badat.log; exit 1; }
done
echo "pod reduce checks passed"
