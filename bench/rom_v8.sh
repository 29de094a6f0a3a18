#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 003's rigid V8 (digest V12/V18; not a test): the full model against its reduced-order model
# online, same scheme (index-3 HHT, α = −0.05) and step (2e-4 s) over the seed's 4.5 s load history
# (configs/v8-rigid.yaml), plus the offline cost and the ROM's error; then the V8 on mounts
# (configs/v8-mounted.yaml) alike. docs/performance.md records it.
#   bench/rom_v8.sh [--out bench/results] [--flexuq PATH] [--repeat N]
set -euo pipefail
repeat=1
args=()
while [ $# -gt 0 ]; do case "$1" in --repeat) repeat=$2; shift 2;; *) args+=("$1"); shift;; esac; done
set -- "${args[@]+"${args[@]}"}"
source "$(dirname "$0")/mbs_common.sh"
cp "$here/configs/v8-rigid.yaml" v8.yaml
attr() { /usr/bin/python3 -c 'import h5py,sys; print("%.3f" % h5py.File(sys.argv[1],"r")[sys.argv[2]].attrs[sys.argv[3]])' "$@"; }
idx3=(--set solver.formulation=index-3)
"$flexuq" simulate v8.yaml "${idx3[@]}" --set snapshots=true --set output=v8-train.h5 > v8-train.log 2>&1 || { cat v8-train.log; exit 1; }
cat > v8-rom.yaml <<'JOB'
command: rom
model: v8.yaml
training: [v8-train.h5]
output: v8-rom.h5
JOB
"$flexuq" rom v8-rom.yaml > v8-rom.log 2>&1 || { cat v8-rom.log; exit 1; }
grep "^rom:" v8-rom.log
echo "| run | full [s] | ROM [s] | full / ROM | ROM, finite-difference matrix [s] | full / ROM fd | Newton its full / ROM / ROM fd | load (1 min) |"
echo "|---|---|---|---|---|---|---|---|"
for k in $(seq "$repeat"); do
  "$flexuq" simulate v8.yaml "${idx3[@]}" --set snapshots=true --set output=v8-full.h5 > v8-full.log 2>&1 || { cat v8-full.log; exit 1; }
  "$flexuq" simulate v8.yaml --set rom=v8-rom.h5 --set snapshots=true --set output=v8-reduced.h5 > v8-red.log 2>&1 || { cat v8-red.log; exit 1; }
  "$flexuq" simulate v8.yaml --set rom=v8-rom.h5 --set solver.matrix=finite-difference --set output=v8-fd.h5 > v8-fd.log 2>&1 ||
    { cat v8-fd.log; exit 1; }
  f=$(attr v8-full.h5 solver wall_seconds) r=$(attr v8-reduced.h5 solver wall_seconds) d=$(attr v8-fd.h5 solver wall_seconds)
  nf=$(attr v8-full.h5 solver newton_iterations) nr=$(attr v8-reduced.h5 solver newton_iterations) nd=$(attr v8-fd.h5 solver newton_iterations)
  echo "| $k | $f | $r | $(echo "scale=2; $f / $r" | bc) | $d | $(echo "scale=2; $f / $d" | bc) | ${nf%.*} / ${nr%.*} / ${nd%.*} | $(cut -d" " -f1 /proc/loadavg) |"
done
"$flexuq" simulate v8.yaml --set output=v8-stab.h5 > v8-stab.log 2>&1 || { cat v8-stab.log; exit 1; }
echo "full model, stabilized formulation (the default): $(attr v8-stab.h5 solver wall_seconds) s; offline (rom): $(attr v8-rom.h5 rom offline_seconds) s"
/usr/bin/python3 - <<'PY'
import h5py, numpy as np
with h5py.File("v8-full.h5") as f, h5py.File("v8-reduced.h5") as g:
    a, b = f["snapshots/q"][()], g["snapshots/q"][()]
    w = f["outputs/crank_speed"][()][:, 0]
s = np.abs(a).max(axis=0); m = s > 1e-12
print(f"max |dq|/max_t|q| over {a.shape[0]} outputs and {m.sum()} moving coordinates: {(np.abs(a - b)[:, m] / s[m]).max():.2e}; "
      f"crank speed up to {w.max():.1f} rad/s ({w.max() * 30 / np.pi:.0f} rpm)")
PY
# The V8 in its housing on mounts (configs/v8-mounted.yaml, digest V13): 4.5 s, Γ from the first snapshot.
cp "$here/configs/v8-mounted.yaml" v8-mounted.yaml
"$flexuq" simulate v8-mounted.yaml --set output=v8m-train.h5 > v8m-train.log 2>&1 || { cat v8m-train.log; exit 1; }
printf 'command: rom\nmodel: v8-mounted.yaml\ntraining: [v8m-train.h5]\nconstraints: {at: start}\noutput: v8m-rom.h5\n' > v8m-rom.yaml
"$flexuq" rom v8m-rom.yaml > v8m-rom.log 2>&1 || { cat v8m-rom.log; exit 1; }
grep "^rom:" v8m-rom.log
echo "| mounted run | full [s] | ROM [s] | full / ROM | matrices full / ROM | Newton its full / ROM | load (1 min) |"
echo "|---|---|---|---|---|---|---|"
for k in $(seq "$repeat"); do
  "$flexuq" simulate v8-mounted.yaml --set output=v8m-full.h5 > v8m-full.log 2>&1 || { cat v8m-full.log; exit 1; }
  "$flexuq" simulate v8-mounted.yaml --set rom=v8m-rom.h5 --set output=v8m-reduced.h5 > v8m-red.log 2>&1 || { cat v8m-red.log; exit 1; }
  f=$(attr v8m-full.h5 solver wall_seconds) r=$(attr v8m-reduced.h5 solver wall_seconds)
  jf=$(attr v8m-full.h5 solver jacobians) jr=$(attr v8m-reduced.h5 solver jacobians)
  nf=$(attr v8m-full.h5 solver newton_iterations) nr=$(attr v8m-reduced.h5 solver newton_iterations)
  echo "| $k | $f | $r | $(echo "scale=2; $f / $r" | bc) | ${jf%.*} / ${jr%.*} | ${nf%.*} / ${nr%.*} | $(cut -d" " -f1 /proc/loadavg) |"
done
/usr/bin/python3 - <<'PY'
import h5py, numpy as np
with h5py.File("v8m-full.h5") as f, h5py.File("v8m-reduced.h5") as g:
    a, b = f["snapshots/q"][()], g["snapshots/q"][()]
s = np.abs(a).max(axis=0); m = s > 1e-12
print(f"mounted: max |dq|/max_t|q| over {a.shape[0]} outputs and {m.sum()} moving coordinates: {(np.abs(a - b)[:, m] / s[m]).max():.2e}")
PY
