#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A small reduced body (RBE2 + RBE3 interfaces, CB, free-free check-out) through the CLI, then
# postproc/plot_reduced.py: both plots exist and the printed check-out has the mass to round-off.
#   plot_reduced_test.sh FLEXUQ MPIEXEC SOURCE_DIR
set -euo pipefail
flexuq="$1"; mpiexec="$2"; src="$3"
wd=$(mktemp -d)
trap 'rm -rf "$wd"' EXIT
cat > "$wd/body.yaml" <<YAML
command: reduce
model:
  generator: {type: box, size: [0.3, 0.06, 0.04], cells: [8, 2, 2], order: 2}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
reduce:
  method: craig-bampton
  interfaces:
    - {set: XMIN, kind: rbe2}
    - {set: XMAX, kind: rbe3}
  modes: {count: 6}
  checkout: {free_free: 4}
output: body.h5
YAML
(cd "$wd" && timeout 120 "$mpiexec" -n 2 --allow-run-as-root "$flexuq" reduce body.yaml > run.log 2>&1) ||
  { echo "FAIL: flexuq reduce"; cat "$wd/run.log"; exit 1; }
/usr/bin/python3 "$src/postproc/plot_reduced.py" "$wd/body.h5" > "$wd/plot.log" 2>&1 ||
  { echo "FAIL: plot_reduced.py"; cat "$wd/plot.log"; exit 1; }
for p in body_frequencies.png body_effective_mass.png; do
  [ -s "$wd/$p" ] || { echo "FAIL: $p not written"; cat "$wd/plot.log"; exit 1; }
done
/usr/bin/python3 - "$wd/plot.log" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
m = re.search(r"mass\s+full (\S+)\s+reduced (\S+)\s+rel\. diff (\S+)", log)
assert m, "no mass line in:\n" + log
assert float(m.group(3)) < 1e-12, log
modes = re.findall(r"mode\s+\d+\s+reduced (\S+) Hz\s+full (\S+) Hz", log)
assert len(modes) == 4, log
for red, full in modes:  # Rayleigh-Ritz: the reduced model bounds the full one from above
    assert float(red) >= float(full) * (1 - 1e-10), (red, full)
print("plot_reduced: ok")
PY
! /usr/bin/python3 "$src/postproc/plot_reduced.py" "$wd/nope.h5" 2>/dev/null || { echo "FAIL: a missing file must fail"; exit 1; }
