#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Recovered stresses in `flexuq simulate` (issue #8 deliverable 4): a steel bar (hex8 box, 1 m ×
# 50 mm × 50 mm) reduced by Craig–Bampton with `reduce.stress_modes: true`, clamped at XMIN by a
# fixed joint and pulled at XMAX by a constant axial force F that follows the interface; strong
# modal damping lets it settle. Checks:
#  1. physics: at the end the axial stress at a node half-way along the bar is F/A (the constraint
#     modes hold the static axial state; Saint-Venant: 2 % for the mid node of a 20:1 bar), the
#     other components are small, and the von Mises stress over the whole bar is at least F/A;
#  2. plumbing: every output row equals f·S_node·V·η recomputed from /bodies/bar/elastic, the body
#     file's /reduced/stress_modes and /reduced/floating_frame/V (1e-10), and a body with
#     stiffness_scale s gives s times the stress modes' part of the same η; the animation's nodal
#     von Mises field equals the outputs and the .xdmf lists it;
#  3. bad input: a stress output on a body file without stress modes, a node the mesh lacks, a
#     stress tensor over a set, and stresses of a body a campaign reduces again per sample fail
#     with exit 2 naming the output, before any work;
#  4. reduce.stress_modes on a beam mesh fails before the reduction.
#  5. configs/bar-stress.yaml (the example simulation) runs on that body and writes its outputs.
#   simulate_stress_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cd "$wd"
# The body of configs/bar-stress-cb.yaml (the example job users copy), written to bar.h5.
sed 's/bar-stress-cb.h5/bar.h5/' "$src/configs/bar-stress-cb.yaml" > bar.yaml
timeout 120 "$mpiexec" -n 2 "$flexuq" reduce bar.yaml > reduce.log 2>&1 || { echo "FAIL: reduce"; cat reduce.log; exit 1; }
timeout 120 "$mpiexec" -n 1 "$flexuq" reduce bar.yaml --set reduce.stress_modes=false --set output=plain.h5 > plain.log 2>&1 ||
  { echo "FAIL: reduce without stress modes"; cat plain.log; exit 1; }
# A node half-way along the bar (x = 0, on the axis line y = z = 0 of the 2 × 2 cross-section grid).
mid=$(/usr/bin/python3 -c "
import h5py, numpy as np
f = h5py.File('bar.h5', 'r'); x = f['mesh/geometry'][()]; ids = f['mesh/node_ids'][()]
print(int(ids[np.argmin(np.abs(x).sum(axis=1))]))")
cat > sim.yaml <<YAML
command: simulate
bodies:
  bar: {type: flexible, body: bar.h5, position: [0, 0, 0], damping: {ratio: 0.7}}
joints:
  - {name: clamp, type: fixed, bodies: [ground, bar], point: [-0.5, 0, 0], interface: XMIN}
forces:
  - {type: force, body: bar, interface: XMAX, point: [0.5, 0, 0], axis: [1, 0, 0], value: 1.0e5}
  - {type: gravity, g: [0, 0, 0]}
solver: {type: hht, alpha: -0.1, step: 2.0e-5, end: 0.02, tol: 1.0e-10}
outputs:
  - {name: s_mid, quantity: stress, body: bar, node: $mid}
  - {name: vm_all, quantity: von_mises, body: bar, set: ALL}
  - {name: vm_mid, quantity: von_mises, body: bar, node: $mid}
animation: false
output: sim.h5
YAML
timeout 200 "$mpiexec" -n 1 "$flexuq" simulate sim.yaml > sim.log 2>&1 || { echo "FAIL: simulate"; cat sim.log; exit 1; }
timeout 200 "$mpiexec" -n 1 "$flexuq" simulate sim.yaml --set bodies.bar.stiffness_scale=2.0 --set output=sim2.h5 > sim2.log 2>&1 ||
  { echo "FAIL: simulate with stiffness_scale"; cat sim2.log; exit 1; }
timeout 200 "$mpiexec" -n 1 "$flexuq" simulate sim.yaml --set animation=true --set output=anim.h5 > anim.log 2>&1 ||
  { echo "FAIL: simulate with the animation"; cat anim.log; exit 1; }
/usr/bin/python3 - "$mid" <<'PY'
import sys, h5py, numpy as np
import xml.etree.ElementTree as ET
mid = int(sys.argv[1])
# The animation carries the nodal von Mises stress per frame, equal to the outputs, and the XDMF names it.
a = h5py.File("anim.h5", "r"); ids = h5py.File("bar.h5", "r")["mesh/node_ids"][()]
vmf = a["animation/bar/von_mises"][()]; k = int(np.where(ids == mid)[0][0])
assert vmf.shape == (a["time"].shape[0], ids.size), vmf.shape
d = np.max(np.abs(vmf[:, k] - a["outputs/vm_mid"][()][:, 0])) / np.max(vmf[:, k])
d_all = np.max(np.abs(vmf.max(axis=1) - a["outputs/vm_all"][()][:, 0])) / np.max(vmf)
print(f"animation von_mises vs outputs: mid node {d:.2e}, max over the bar {d_all:.2e}")
assert d < 1e-12 and d_all < 1e-12
names = [at.get("Name") for at in ET.parse("anim.xdmf").getroot().iter("Attribute")]
assert "von_mises" in names and "displacement" in names, names
PY
/usr/bin/python3 - "$mid" <<'PY'
import sys, h5py, numpy as np
mid = int(sys.argv[1])
b = h5py.File("bar.h5", "r")
S = b["reduced/stress_modes"][()]; V = b["reduced/floating_frame/V"][()]; ids = b["mesh/node_ids"][()]
k = int(np.where(ids == mid)[0][0])
F, A = 1.0e5, 0.05 * 0.05
ok = True
for name, f in (("sim.h5", 1.0), ("sim2.h5", 2.0)):
    s = h5py.File(name, "r")
    eta = s["bodies/bar/elastic"][()]; smid = s["outputs/s_mid"][()]; vm = s["outputs/vm_all"][()][:, 0]
    vmm = s["outputs/vm_mid"][()][:, 0]
    rec = f * np.einsum("cn,nk,tk->tc", S[k], V, eta)
    d = np.max(np.abs(rec - smid)) / np.max(np.abs(smid))
    allvm = []
    for t in range(eta.shape[0]):
        sig = f * np.einsum("icn,nk,k->ic", S, V, eta[t])
        a, bb, c = sig[:, 0] - sig[:, 1], sig[:, 1] - sig[:, 2], sig[:, 2] - sig[:, 0]
        allvm.append(np.max(np.sqrt(0.5 * (a * a + bb * bb + c * c) + 3 * (sig[:, 3:] ** 2).sum(axis=1))))
    dv = np.max(np.abs(np.array(allvm) - vm)) / np.max(vm)
    print(f"{name}: stress at node {mid} vs f*S*V*eta: {d:.2e}; von Mises over ALL: {dv:.2e}")
    print(f"  final sxx {smid[-1, 0]:.6e} Pa (F/A = {F / A:.6e}), other components max {np.max(np.abs(smid[-1, 1:])):.3e}, "
          f"vm_all {vm[-1]:.6e}, vm_mid {vmm[-1]:.6e}")
    ok &= d < 1e-10 and dv < 1e-10
    ok &= abs(smid[-1, 0] / (F / A) - 1) < 0.02 and np.max(np.abs(smid[-1, 1:])) < 0.05 * F / A
    ok &= vm[-1] >= 0.99 * F / A and abs(vmm[-1] / abs(smid[-1, 0]) - 1) < 0.05
    ok &= abs(smid[-1, 0] / smid[len(smid) // 2, 0] - 1) < 1e-3  # settled
sys.exit(0 if ok else 1)
PY
# --- 3. bad input ---
bad() { # bad <what> <message part> <args...>
  local what="$1" msg="$2"; shift 2
  set +e; timeout 60 "$mpiexec" -n 1 "$flexuq" simulate sim.yaml "$@" > bad.log 2>&1; local rc=$?; set -e
  [ "$rc" -eq 2 ] && grep -q "$msg" bad.log || { echo "FAIL: $what: exit $rc"; cat bad.log; exit 1; }
}
bad "no stress modes" "has no /reduced/stress_modes" --set bodies.bar.body=plain.h5
sed 's/{name: s_mid, quantity: stress, body: bar, node: [0-9]*}/{name: s_mid, quantity: stress, body: bar, node: 99999999}/' sim.yaml > badnode.yaml
set +e; timeout 60 "$mpiexec" -n 1 "$flexuq" simulate badnode.yaml > bad.log 2>&1; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "node 99999999 is not in the mesh" bad.log || { echo "FAIL: unknown node: exit $rc"; cat bad.log; exit 1; }
sed 's/{name: s_mid, quantity: stress, body: bar, node: [0-9]*}/{name: s_mid, quantity: stress, body: bar, set: ALL}/' sim.yaml > badset.yaml
set +e; timeout 60 "$mpiexec" -n 1 "$flexuq" simulate badset.yaml > bad.log 2>&1; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "a stress tensor is given at one node" bad.log || { echo "FAIL: stress over a set: exit $rc"; cat bad.log; exit 1; }
# A campaign that reduces the bar again per sample cannot recover its stresses: refused before any sample.
cat > rered.yaml <<'YAML'
command: campaign
model:
  simulation: sim.yaml
  reduce: {bar: bar.yaml}
parameters:
  E: {dist: uniform, low: 2.0e11, high: 2.2e11, param: E}
outputs: {simulation: [vm_mid], times: [0.01]}
method: {type: monte-carlo, samples: 4}
campaign: {ranks_per_sample: 1, seed: 7}
output: rered.h5
YAML
set +e; timeout 60 "$mpiexec" -n 1 "$flexuq" campaign rered.yaml > bad.log 2>&1; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "reduced again per sample (model.reduce.bar) are not recovered" bad.log && [ ! -e rered.h5.journal ] ||
  { echo "FAIL: stresses of a re-reduced body: exit $rc"; cat bad.log; exit 1; }
# --- 4. stress modes of a beam mesh: refused before any work ---
cat > beam.yaml <<'YAML'
command: reduce
model:
  generator: {type: beam, length: 0.3, elements: 4, section: {shape: RECT, dims: [0.01, 0.01]}}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
reduce: {method: craig-bampton, interfaces: [{set: END0, kind: rbe2}], modes: {count: 2}, stress_modes: true}
output: beam.h5
YAML
set +e; timeout 60 "$mpiexec" -n 1 "$flexuq" reduce beam.yaml > beam.log 2>&1; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "reduce.stress_modes needs solid elements" beam.log && [ ! -e beam.h5 ] ||
  { echo "FAIL: stress modes of a beam: exit $rc"; cat beam.log; exit 1; }
# --- 5. the example simulation (configs/bar-stress.yaml) on this body, its first 2 ms ---
sed 's/bar-stress-cb.h5/bar.h5/' "$src/configs/bar-stress.yaml" > example.yaml
timeout 120 "$mpiexec" -n 1 "$flexuq" simulate example.yaml --set solver.end=0.002 --set output=example.h5 > example.log 2>&1 ||
  { echo "FAIL: configs/bar-stress.yaml"; cat example.log; exit 1; }
/usr/bin/python3 - <<'PY'
import h5py, numpy as np
f = h5py.File("example.h5", "r")
vm, tip = f["outputs/vm_max"][()], f["outputs/tip_x"][()]
assert vm.shape == (f["time"].shape[0], 1) and tip.shape[1] == 3, (vm.shape, tip.shape)
assert np.all(np.isfinite(vm)) and vm[0, 0] < 1e-6 * vm.max() and vm.max() > 1e6, vm[:, 0]
assert "von_mises" in f["animation/bar"], list(f["animation/bar"])
print(f"configs/bar-stress.yaml: von Mises max over the bar {vm.max() / 1e6:.1f} MPa after 2 ms")
PY
echo "PASS"
