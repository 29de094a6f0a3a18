#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The 1 M-DOF shell model of issue #37 (Goals): `flexuq modes` (20 modes, clamped edge) of a stiffened
# panel of S4 shells read as Abaqus .inp and as a Nastran deck (CQUAD4/PSHELL, same mesh), and of a
# C3D8 steel brick of about the same number of DOFs, on RANKS ranks (bench/make_shell_panel.py writes
# the models; same modes keys for all three). Per run: DOFs, wall time of the command, flexuq's own
# phases (max over ranks: read mesh, partition+assemble, eigensolve), peak memory summed over ranks
# (flexuq's "peak memory" line), the first frequency. Then the goals' ratios: shell / solid modes time
# (goal <= 2) and deck / .inp read time (goal <= 1.2; flexuq's "read mesh" phase, and where
# build/bench/bench_read_mesh exists the reader alone in one process, CPU time, best of REPEAT),
# and the largest relative difference of the deck's and the .inp's frequencies (same mesh: ~1e-6).
#   bench/shell_1m.sh [N_DOF=1e6] [RANKS=2] [FLEXUQ=build/bin/flexuq]
#   MODES=20 REPEAT=2 WORK=/tmp/flexuq_shell_<N> bench/shell_1m.sh 3e4     # a quick check
# Models are kept in WORK and reused; the table goes to WORK/shell_1m.md and stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ndof="${1:-1e6}"; np="${2:-2}"; flexuq="${3:-$here/build/bin/flexuq}"
nmodes="${MODES:-20}"; repeat="${REPEAT:-2}"
work="${WORK:-${TMPDIR:-/tmp}/flexuq_shell_$ndof}"
reader="$here/build/bench/bench_read_mesh"
py=/usr/bin/python3
[ -x "$flexuq" ] || { echo "no flexuq at $flexuq (build it, or give its path)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$work"; cd "$work"
if [ ! -s solid.inp ] || [ "$(cat ndof.txt 2> /dev/null)" != "$ndof" ]; then
  t0=$EPOCHREALTIME
  $py "$here/bench/make_shell_panel.py" "$ndof" . > /dev/null
  echo "$ndof" > ndof.txt
  echo "models written in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s"
fi
cat sizes.txt; du -h panel.inp panel.bdf solid.inp | tr '\n' ' '; echo
for m in shell-inp:panel.inp:CLAMP shell-bdf:panel.bdf:SPC1 solid:solid.inp:CLAMP; do
  IFS=: read -r name mesh set <<< "$m"
  printf 'model:\n  mesh: %s\n  fixed: [%s]\nmodes:\n  count: %s\noutput: %s.h5\n' "$mesh" "$set" "$nmodes" "$name" > "$name.yaml"
done
echo "cores: $(OMP_NUM_THREADS='' nproc), load: $(cut -d' ' -f1-3 /proc/loadavg), $np rank(s), $nmodes modes"
for name in shell-inp shell-bdf solid; do
  t0=$EPOCHREALTIME
  mpirun -n "$np" "$flexuq" modes "$name.yaml" > "$name.log" 2>&1 || { tail -20 "$name.log"; echo "$name: flexuq failed" >&2; exit 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f\n", b - a}' > "$name.wall"
done
: > read.txt
if [ -x "$reader" ]; then
  for _ in $(seq "$repeat"); do
    for f in panel.inp panel.bdf; do "$reader" "$f" >> read.txt; done
  done
fi
$py - "$np" "$nmodes" <<'PY' | tee shell_1m.md
import re, sys
import h5py
import numpy as np
np_, nmodes = sys.argv[1], sys.argv[2]

def parse(name):
    log = open(f"{name}.log").read()
    phase = {m[1].strip(): float(m[3]) for m in re.finditer(r"^\s*(read mesh|partition\+assemble|eigensolve|write results)"
                                                             r"\s+([0-9.]+)\s+([0-9.]+)\s+[0-9.]+\s+[0-9.]+\s*$", log, re.M)}
    mem = re.search(r"peak memory: [0-9.]+ [kMGT]?B per rank \(max\), ([0-9.]+) ([kMGT]?B) summed", log)
    dofs = re.search(r"DOFs: ([0-9]+) free", log)
    f = h5py.File(f"{name}.h5", "r")["modes/frequencies_hz"][()]
    return dict(wall=float(open(f"{name}.wall").read()), phase=phase, mem=float(mem[1]) * {"B": 2**-20, "kB": 2**-10, "MB": 1, "GB": 2**10, "TB": 2**20}[mem[2]] if mem else float("nan"),
                dofs=int(dofs[1]), freq=np.asarray(f))

runs = {n: parse(n) for n in ("shell-inp", "shell-bdf", "solid")}
print(f"| model | DOFs | command [s] | read mesh [s] | partition+assemble [s] | eigensolve [s] | peak memory, sum of {np_} ranks [MB] | f1 [Hz] |")
print("|---|---|---|---|---|---|---|---|")
for n, r in runs.items():
    p = r["phase"]
    print(f"| {n} | {r['dofs']} | {r['wall']:.1f} | {p.get('read mesh', float('nan')):.3f} | {p.get('partition+assemble', float('nan')):.3f} | "
          f"{p.get('eigensolve', float('nan')):.1f} | {r['mem']:.0f} | {r['freq'][0]:.4f} |")
si, sb, so = runs["shell-inp"], runs["shell-bdf"], runs["solid"]
print(f"\nshell / solid: DOFs {si['dofs'] / so['dofs']:.3f}, modes command {si['wall'] / so['wall']:.2f}x "
      f"(eigensolve {si['phase']['eigensolve'] / so['phase']['eigensolve']:.2f}x; goal <= 2), "
      f"memory {si['mem'] / so['mem']:.2f}x")
ri, rb = si["phase"]["read mesh"], sb["phase"]["read mesh"]
print(f"deck / .inp: read mesh phase {rb:.3f} / {ri:.3f} s = {rb / max(ri, 1e-9):.2f}x (goal <= 1.2"
      f"{'' if ri >= 0.05 else '; under 0.05 s: noise'}), modes command {sb['wall'] / si['wall']:.2f}x")
k = min(len(si["freq"]), len(sb["freq"]))
print(f"deck vs .inp frequencies ({k} modes): max relative difference {np.max(np.abs(sb['freq'][:k] / si['freq'][:k] - 1)):.1e}")
best = {}
for line in open("read.txt"):
    m = re.match(r"(\S+): .* ([0-9.]+) s wall, ([0-9.]+) s CPU, peak RSS ([0-9.]+) MB", line)
    if m:
        w, c, rss = float(m[2]), float(m[3]), float(m[4])
        b = best.setdefault(m[1], [w, c, rss])
        best[m[1]] = [min(b[0], w), min(b[1], c), max(b[2], rss)]
if "panel.inp" in best and "panel.bdf" in best:
    i, b = best["panel.inp"], best["panel.bdf"]
    ratio = f"deck / .inp {b[1] / i[1]:.2f}x CPU (goal <= 1.2)" if i[1] >= 0.02 else "too short to compare (< 0.02 s CPU)"
    print(f"reader alone (bench_read_mesh, 1 process, best of runs): .inp {i[0]:.3f} s wall / {i[1]:.3f} s CPU / {i[2]:.0f} MB, "
          f"deck {b[0]:.3f} s wall / {b[1]:.3f} s CPU / {b[2]:.0f} MB: {ratio}")
PY
echo "logs and models in $work"
