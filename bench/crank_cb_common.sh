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
# crank_scb_shape_job FILE POINTS RANKS: a stochastic CB job of the crank with two shape-changing
# parameters (E of the WEB section, nu of the whole crank), CB with both ends RBE2 and 20 modes, a
# free-free check-out of 10 modes, regression of order 1 on POINTS points, basis: false, one group of
# RANKS ranks, writing scb.h5 (bench/scb_recycle.sh, bench/scb_point_cpu.sh).
crank_scb_shape_job() {
  cat > "$1" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
parameters:
  E_web: {dist: uniform, low: 1.9e11, high: 2.3e11, param: E, set: WEB}
  nu:    {dist: uniform, low: 0.28, high: 0.32, param: nu}
reduce:
  method: craig-bampton
  interfaces: [{set: JOURNAL_END, kind: rbe2}, {set: PIN_END, kind: rbe2}]
  modes: {count: 20}
  checkout: {free_free: 10}
  stochastic: {method: regression, pce: {order: 1}, samples: $2, basis: false}
campaign: {ranks_per_sample: $3, seed: 42}
output: scb.h5
YAML
}
