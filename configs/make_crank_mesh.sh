#!/usr/bin/env bash
# Regenerate configs/crank.inp (tet10) from configs/crank.geo with gmsh (a data-preparation tool,
# not a runtime dependency). Surface elements that gmsh writes for the physical surfaces are dropped;
# their node sets (*NSET JOURNAL_END, PIN_END) are kept.   Usage: configs/make_crank_mesh.sh [h]
set -euo pipefail
cd "$(dirname "$0")"
h="${1:-0.012}"
tmp=$(mktemp -d)
gmsh -3 -order 2 -setnumber h "$h" -format inp -o "$tmp/raw.inp" crank.geo -string "Mesh.SaveGroupsOfNodes=1;" >/dev/null
awk '
  /^\*/ { skip = 0 }
  /^\*ELEMENT, *type=CPS/ { skip = 1 }
  /^\*ELSET,ELSET=(JOURNAL_END|PIN_END)/ { skip = 1 }
  !skip { print }
' "$tmp/raw.inp" > crank.inp
rm -rf "$tmp"
/usr/bin/python3 add_crank_sets.py crank.inp   # element sets WEB and BOSS (issue #7 example)
echo "wrote configs/crank.inp (h = $h)"
