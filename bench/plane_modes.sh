#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Modes of a plane-stress component against a solid one of about the same DOF count (issue #36 goal:
# a 2-D component no slower per DOF than the solids). A steel plate L x H = 4 x 1 m, t = 10 mm, of
# NX x NY quad8 (gmsh 2.2, read as 2-D by model.plane), clamped at x = 0, and a hex20 box
# (model.generator) clamped at XMIN; `flexuq modes` with 10 modes on RANKS ranks. Prints the free
# DOFs, the eigensolve phase (max over ranks) and its microseconds per DOF. Results go to
# docs/performance.md by hand.
#   bench/plane_modes.sh [NX=400] [NY=100] [cells="60 20 18"] [ranks=2] [flexuq=build/bin/flexuq]
#   (NX NY = 400 100: 241 k DOFs; 820 200: 0.99 M; the default hex20 box: 0.27 M)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
nx="${1:-400}"; ny="${2:-100}"; cells="${3:-60 20 18}"; np="${4:-2}"; flexuq="${5:-$here/build/bin/flexuq}"
wd=$(mktemp -d /tmp/plane_modes.XXXX)
cd "$wd"
/usr/bin/python3 - "$nx" "$ny" <<'PY'
import sys
NX, NY, L, H = int(sys.argv[1]), int(sys.argv[2]), 4.0, 1.0
W = 2 * NX + 1
lab = lambda i, j: 1 + i + W * j
with open("plate.msh", "w") as f:
    f.write('$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 "ROOT"\n2 2 "PLATE"\n$EndPhysicalNames\n')
    nodes = [(i, j) for j in range(2 * NY + 1) for i in range(W) if not (i % 2 == 1 and j % 2 == 1)]
    f.write(f"$Nodes\n{len(nodes)}\n")
    f.writelines(f"{lab(i, j)} {L * i / (2 * NX):.10g} {H * j / (2 * NY):.10g} 0\n" for i, j in nodes)
    f.write(f"$EndNodes\n$Elements\n{NY + NX * NY}\n")
    for n in range(NY):
        f.write(f"{n + 1} 8 2 1 1 {lab(0, 2 * n)} {lab(0, 2 * n + 2)} {lab(0, 2 * n + 1)}\n")
    e = NY
    for j in range(NY):
        for i in range(NX):
            I, J = 2 * i, 2 * j
            c = [(I, J), (I + 2, J), (I + 2, J + 2), (I, J + 2), (I + 1, J), (I + 2, J + 1), (I + 1, J + 2), (I, J + 1)]
            e += 1
            f.write(f"{e} 16 2 2 2 " + " ".join(str(lab(*p)) for p in c) + "\n")
    f.write("$EndElements\n")
PY
read -r cx cy cz <<<"$cells"
cat > plane.yaml <<YAML
model: {mesh: plate.msh, material: {E: 2.1e11, nu: 0.3, rho: 7850}, plane: {state: stress, thickness: 0.01}, fixed: [ROOT]}
modes: {count: 10}
output: plane.h5
YAML
cat > solid.yaml <<YAML
model:
  generator: {type: box, size: [4, 1, 0.9], cells: [$cx, $cy, $cz], order: 2}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
  fixed: [XMIN]
modes: {count: 10}
output: solid.h5
YAML
for job in plane solid; do
  mpirun -n "$np" --allow-run-as-root --oversubscribe "$flexuq" modes "$job.yaml" > "$job.log" 2>&1 || { cat "$job.log"; exit 1; }
  dofs=$(sed -n 's/.*DOFs: \([0-9]*\) free.*/\1/p' "$job.log" | head -1)
  eig=$(awk '$1 == "eigensolve" && NF >= 3 {print $3}' "$job.log" | tail -1)
  asm=$(awk '$1 == "partition+assemble" {print $3}' "$job.log" | tail -1)
  /usr/bin/python3 -c "print(f'$job: {int($dofs):>9d} DOFs, assemble {float($asm):6.2f} s, eigensolve {float($eig):7.2f} s = {1e6 * float($eig) / int($dofs):6.2f} us/DOF')"
done
echo "work folder: $wd"
