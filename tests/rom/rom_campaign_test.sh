#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A simulate campaign whose model names a ROM (`rom:` in model.simulation, docs/rom.md "Campaigns"):
# seed 003's mass oscillator (configs/rom/mass-oscillator.yaml: a mass on a guide along x, a spring,
# a harmonic force along (x, y); its ROM is V = e_x, l = 0) trained once, then a collocation campaign
# over the force amplitude, the spring stiffness and the initial velocity (key-path parameters):
#  * every sample ran the ROM: its guide reaction is ≡ 0 (l = 0: the ROM keeps no constraint force,
#    seed §4.5) where the same campaign without `rom:` has the full model's non-zero reaction;
#  * every sample's ROM x equals the full model's sample x (to 1e-10 of max |x|), and both follow the
#    closed form x(t) = v0/ω sin ωt + F/(m(ω² − Ω²)) (sin Ωt − Ω/ω sin ωt) of the sample's k, F, v0
#    (HHT's phase error, < 1e-4 of max |x|);
#  * 1 rank = 2 ranks bit for bit, and a resume from a partial journal = the whole run bit for bit;
#  * seed 003's pendulum (Euler parameters, l = 3 of 6 rows kept) over gravity, a spring's stiffness
#    and the initial angular velocity: every sample's ROM q = the full model's (to 1e-10);
#  * refusals: a parameter that moves the mass off the guide's line (bodies.mass.position.2) takes the
#    start off the ROM's affine space — at the means the campaign exits 2 naming the offset, else the
#    samples off it fail with that reason and the one on it runs; a tilted guide (joints.0.axis.1) keeps
#    q0 on the space, and its tilted samples fail on the full constraints' drift (solver.drift_limit).
#    A free spinning body pushed along x (V_t = e_x) given an initial velocity along y: refused.
#   rom_campaign_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
source "$src/tests/rom/rom_common.sh"
enter_workdir
cp "$src"/configs/rom/mass-oscillator*.yaml .
run simulate mass-oscillator.yaml > train.log 2>&1 || { echo "FAIL: training run"; cat train.log; exit 1; }
run rom mass-oscillator-rom.yaml > rom.log 2>&1 || { echo "FAIL: rom"; cat rom.log; exit 1; }
# The campaign's model: the oscillator over 1 s with an initial velocity key, without and with the ROM.
sed -e 's/position: \[0, 0, 0\]}/position: [0, 0, 0], velocity: [0, 0, 0]}/' -e 's/end: 2.0/end: 1.0/' \
  -e '/^snapshots:/d' -e 's/^output: .*/output: unused.h5/' mass-oscillator.yaml > full.yaml
grep -q "velocity: \[0, 0, 0\]" full.yaml || { echo "FAIL: velocity key not written"; exit 1; }
{ cat full.yaml; echo "rom: mass-oscillator-rom.h5"; } > reduced.yaml
cat > uq-rom.yaml <<'YAML'
model: {simulation: reduced.yaml}
parameters:
  forces.1.harmonic.amplitude: {dist: uniform, low: 5.0, high: 15.0}
  forces.0.stiffness: {dist: uniform, low: 150.0, high: 250.0}
  bodies.mass.velocity.0: {dist: uniform, low: -0.5, high: 0.5}
outputs: {simulation: [x, guide], times: [0.1, 0.25, 0.5, 0.75, 1.0]}
method: {type: pce, pce: {order: 2, fit: projection, grid: tensor, points: 3}}
campaign: {seed: 1}
output: rom1.h5
YAML
sed -e 's/reduced.yaml/full.yaml/' uq-rom.yaml > uq-full.yaml
run campaign uq-rom.yaml > rom1.log 2>&1 || { echo "FAIL: ROM campaign"; cat rom1.log; exit 1; }
run campaign uq-full.yaml --set output=full.h5 > full.log 2>&1 || { echo "FAIL: full campaign"; cat full.log; exit 1; }
timeout 150 "$mpiexec" -n 2 "$flexuq" campaign uq-rom.yaml --set output=rom2.h5 > rom2.log 2>&1 ||
  { echo "FAIL: ROM campaign on 2 ranks"; cat rom2.log; exit 1; }
$py "$src/tests/campaign/compare_h5.py" 0 rom1.h5 rom2.h5 || { echo "FAIL: 1 rank != 2 ranks"; exit 1; }
echo "ok   ROM campaign: 1 rank = 2 ranks bit for bit"
$py "$src/tests/support/keep_records.py" rom1.h5.journal part.h5.journal "k % 3 != 1"
timeout 150 "$mpiexec" -n 2 "$flexuq" campaign uq-rom.yaml --set output=part.h5 --resume > part.log 2>&1 ||
  { echo "FAIL: resume"; cat part.log; exit 1; }
grep -q "evaluated 9 sample" part.log || { echo "FAIL: the resume should evaluate the 9 dropped samples"; cat part.log; exit 1; }
$py "$src/tests/campaign/compare_h5.py" 0 rom1.h5 part.h5 || { echo "FAIL: resumed != whole run"; exit 1; }
echo "ok   ROM campaign: resumed from 18 of 27 records = the whole run bit for bit"
# Refusals: the mass lifted off the guide's line (z) is off the ROM's affine space q = V q_r + R0.
expect_fail "does not hold this sample: its initial configuration" campaign uq-rom.yaml --set output=bad.h5 \
  --set 'parameters={bodies.mass.position.2: {dist: uniform, low: 0.05, high: 0.15}}' --set method.pce.order=1
run campaign uq-rom.yaml --set output=some.h5 --set method.pce.order=1 \
  --set 'parameters={bodies.mass.position.2: {dist: uniform, low: -0.1, high: 0.1}}' > some.log 2>&1 ||
  { echo "FAIL: a campaign with one sample on the ROM's space should run"; cat some.log; exit 1; }
grep -q "2 of 3 sample(s) failed" some.log || { echo "FAIL: 2 of 3 samples should fail"; cat some.log; exit 1; }
# A tilted guide (joints.0.axis.1): q0 stays on the space, but V = e_x leaves the new line at once.
run campaign uq-rom.yaml --set output=tilt.h5 --set method.pce.order=1 \
  --set 'parameters={joints.0.axis.1: {dist: uniform, low: -0.2, high: 0.2}}' > tilt.log 2>&1 ||
  { echo "FAIL: the campaign over the guide's axis should run its straight sample"; cat tilt.log; exit 1; }
grep -q "2 of 3 sample(s) failed" tilt.log || { echo "FAIL: 2 of 3 tilted samples should fail"; cat tilt.log; exit 1; }
# A free spinning body pushed along x (V_t = e_x): an initial velocity along y is off span V.
cp "$src"/configs/rom/spinning-body*.yaml .
run simulate spinning-body.yaml > strain.log 2>&1 && run rom spinning-body-rom.yaml > srom.log 2>&1 ||
  { echo "FAIL: spinning body training"; cat strain.log srom.log; exit 1; }
sed -e 's/position: \[0, 0, 0\],/position: [0, 0, 0], velocity: [0, 0, 0],/' -e 's/end: 3.0/end: 0.1/' -e '/^snapshots:/d' \
  -e 's/^output: .*/output: unused.h5/' spinning-body.yaml > spin.yaml
echo "rom: spinning-body-rom.h5" >> spin.yaml
grep -q "velocity: \[0, 0, 0\]" spin.yaml || { echo "FAIL: spinning job not written"; exit 1; }
expect_fail "its initial velocity lies off the ROM's affine space" campaign uq-rom.yaml --set output=spin.h5 \
  --set model.simulation=spin.yaml --set 'outputs={simulation: [q], times: [0.1]}' --set method.pce.order=1 \
  --set 'parameters={bodies.rotor.velocity.1: {dist: uniform, low: 0.5, high: 1.5}}'
# The pendulum (Euler parameters, constraint reduction l = 3 of 6 rows): trained on its free swing, a
# campaign over gravity, a spring to the ground and the initial angular velocity, ROM and full.
cp "$src"/configs/rom/pendulum*.yaml .
run simulate pendulum.yaml > ptrain.log 2>&1 || { echo "FAIL: pendulum training"; cat ptrain.log; exit 1; }
run rom pendulum-rom.yaml > prom.log 2>&1 || { echo "FAIL: pendulum rom"; cat prom.log; exit 1; }
sed -e 's/position: \[0.8660254037844386, -0.5, 0\]}/&X/' -e 's/}X/, angular_velocity: [0, 0, 0]}/' \
  -e 's/^  - {type: gravity, g: \[0, -9.81, 0\]}/&\n  - {type: spring, bodies: [ground, bob], point: [0, -1.5, 0], point2: [0.8660254037844386, -0.5, 0], stiffness: 20.0, length: 0.5}/' \
  -e 's/end: 2.0/end: 1.0/' -e '/^snapshots:/d' -e 's/^output: .*/output: unused.h5/' pendulum.yaml > pfull.yaml
grep -q "stiffness: 20.0" pfull.yaml && grep -q "angular_velocity" pfull.yaml || { echo "FAIL: pendulum job not written"; exit 1; }
{ cat pfull.yaml; echo "rom: pendulum-rom.h5"; } > preduced.yaml
cat > puq.yaml <<'YAML'
model: {simulation: preduced.yaml}
parameters:
  forces.0.g.1: {dist: uniform, low: -11.0, high: -8.6}
  forces.1.stiffness: {dist: uniform, low: 10.0, high: 30.0}
  bodies.bob.angular_velocity.2: {dist: uniform, low: -2.0, high: 2.0}
outputs: {simulation: [q], times: [0.25, 0.5, 1.0]}
method: {type: pce, pce: {order: 1, fit: projection, grid: tensor, points: 2}}
campaign: {seed: 1}
output: prom.h5
YAML
run campaign puq.yaml > pc1.log 2>&1 || { echo "FAIL: pendulum ROM campaign"; cat pc1.log; exit 1; }
run campaign puq.yaml --set model.simulation=pfull.yaml --set output=pfull.h5 > pc2.log 2>&1 ||
  { echo "FAIL: pendulum full campaign"; cat pc2.log; exit 1; }
PYTHONPATH="$src/tests/rom" $py - <<'PY'
import h5py, numpy as np
from rom_check import check, finish
def load(name):
    with h5py.File(name) as f:
        return {k: f[k][()] for k in ("samples/parameters", "samples/status", "outputs/x", "outputs/guide")}
r, u = load("rom1.h5"), load("full.h5")
check(r["samples/parameters"].shape == (27, 3) and not r["samples/status"].any() and not u["samples/status"].any(),
      "27 samples, none failed, in both campaigns")
check(np.array_equal(r["samples/parameters"], u["samples/parameters"]), "same samples in both campaigns")
times = np.array([0.1, 0.25, 0.5, 0.75, 1.0])
xr, xu = r["outputs/x"].reshape(27, 5, 3)[:, :, 0], u["outputs/x"].reshape(27, 5, 3)[:, :, 0]
scale = np.abs(xu).max()
e = np.abs(xr - xu).max() / scale
check(e <= 1e-10, f"every sample: ROM x = full x ({e:.1e} of max |x| = {scale:.3f} <= 1e-10)")
gr, gu = np.abs(r["outputs/guide"]).max(), np.abs(u["outputs/guide"]).reshape(27, -1).max(axis=1).min()
check(gr == 0.0 and gu > 1.0, f"every sample ran the ROM: its guide reaction is 0 (full model's >= {gu:.2f} N per sample)")
# The closed form of m x'' + k x = F sin(Ωt), x(0) = 0, x'(0) = v0 (F: the force's x part).
m, Om = 2.0, 2 * np.pi * 0.7
A, k, v0 = (r["samples/parameters"][:, i][:, None] for i in range(3))
w = np.sqrt(k / m)
F = A / np.sqrt(2.0)
xe = v0 / w * np.sin(w * times) + F / (m * (w**2 - Om**2)) * (np.sin(Om * times) - Om / w * np.sin(w * times))
ea = np.abs(xr - xe).max() / np.abs(xe).max()
check(ea < 1e-4, f"ROM x = the closed form of each sample's k, F, v0 ({ea:.1e} of max |x|, HHT's phase error)")
with h5py.File("some.h5") as f:
    st, why, z = f["samples/status"][()], f["samples/failure_reason"].asstr()[()], f["samples/parameters"][()][:, 0]
ok = all((s != 0) == (abs(zz) > 1e-12) for s, zz in zip(st, z)) and all("affine space" in y for s, y in zip(st, why) if s)
check(ok, f"z = {np.round(z, 4)}: the samples off the guide's line fail ({int(st.astype(bool).sum())}), naming the ROM's affine space")
with h5py.File("tilt.h5") as f:  # reasons read as bytes: the message has non-ASCII characters
    st, why, a = f["samples/status"][()], f["samples/failure_reason"][()], f["samples/parameters"][()][:, 0]
ok = all((s != 0) == (abs(aa) > 1e-12) for s, aa in zip(st, a)) and all(b"constraints are violated" in y for s, y in zip(st, why) if s)
check(ok, f"guide axis y = {np.round(a, 4)}: the tilted samples fail ({int(st.astype(bool).sum())}) on the full constraints' drift")
with h5py.File("prom.h5") as f, h5py.File("pfull.h5") as g:
    qr, qu, st = f["outputs/q"][()].reshape(8, 3, 7), g["outputs/q"][()].reshape(8, 3, 7), f["samples/status"][()]
s = np.abs(qu).max(axis=(0, 1))
mv = s > 1e-12
e = (np.abs(qr - qu)[:, :, mv] / s[mv]).max()
check(not st.any() and mv.sum() == 4, f"pendulum: 8 samples run, {mv.sum()} moving coordinates (x, y, e0, e3)")
check(e <= 1e-10, f"pendulum: every sample's ROM q = full q ({e:.1e} of each coordinate's max <= 1e-10)")
finish("ROM campaign")
PY
