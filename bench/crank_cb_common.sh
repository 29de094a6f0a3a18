# SPDX-License-Identifier: MIT
# Sourced by the crank Craig-Bampton benches (scb_vs_reduce.sh, scb_recycle.sh, cb_vs_modes.sh).
# crank_mesh WD MESH: the crank mesh in WD/crank.inp, copied from MESH (a file) or meshed by gmsh
# with the element size MESH (e.g. 0.0043 for ~300 k DOFs).
crank_mesh() {
  local wd=$1 mesh=$2 root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -f "$mesh" ]; then
    cp "$mesh" "$wd/crank.inp"
  else
    cp "$root/configs/crank.geo" "$root/configs/make_crank_mesh.sh" "$root/configs/add_crank_sets.py" "$wd/"
    (cd "$wd" && sed -i 's#cd "$(dirname "$0")"#cd "'"$wd"'"#' make_crank_mesh.sh && bash make_crank_mesh.sh "$mesh")
  fi
}
# crank_cb_job WD: WD/cb.yaml, one deterministic reduction of the crank (CB, both ends RBE2, 20
# modes, no free-free check-out), writing cb.h5.
crank_cb_job() {
  cat > "$1/cb.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
reduce:
  method: craig-bampton
  interfaces: [{set: JOURNAL_END, kind: rbe2}, {set: PIN_END, kind: rbe2}]
  modes: {count: 20}
  checkout: {free_free: 0}
output: cb.h5
YAML
}
