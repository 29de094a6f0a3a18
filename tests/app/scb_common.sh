# SPDX-License-Identifier: MIT
# Shared by pod_reduce_test.sh and stochastic_reduce_test.sh on the two-material bar tests/app/scb_bar.*
# (sourced after they set $py, $src, $mpiexec, $flexuq and define run <ranks> <flexuq args...>):
#   reduce_direct E RHO   direct.yaml, the bar reduced directly with E of its left half and rho of its
#                         right half (Craig–Bampton, rbe2 XMIN and XMAX, 4 modes, 4 free-free check-out
#                         modes; output direct.h5), run on 1 rank (direct.log)
#   kill_and_resume JOB   JOB (20 points) on 2 ranks to ref.h5 (ref.log); again to cut.h5, killed
#                         (SIGKILL to its session) once 3 points are journaled, then resumed (cut2.log);
#                         sets $before, the points journaled at the kill: exit 1 unless 1 to 19

reduce_direct() { # reduce_direct E RHO
  cat > direct.yaml <<YAML
command: reduce
model:
  mesh: scb_bar.inp
  materials:
    LEFT: {E: $1, nu: 0.3, rho: 7800}
    RIGHT: {E: 2.0e11, nu: 0.3, rho: $2}
reduce:
  method: craig-bampton
  interfaces: [{set: XMIN, kind: rbe2}, {set: XMAX, kind: rbe2}]
  modes: {count: 4}
  checkout: {free_free: 4}
output: direct.h5
YAML
  run 1 reduce direct.yaml > direct.log
}

journaled() { $py "$src/tests/support/journaled.py" "$1"; }

kill_and_resume() { # kill_and_resume JOB
  run 2 reduce "$1" --set output=ref.h5 > ref.log
  setsid "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$flexuq" reduce "$1" --set output=cut.h5 > cut1.log 2>&1 &
  local pid=$!
  for _ in $(seq 600); do
    [ "$(journaled cut.h5.journal)" -ge 3 ] && break
    sleep 0.05
  done
  pkill -KILL -s "$pid" 2>/dev/null || kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  before=$(journaled cut.h5.journal)
  echo "journaled before the kill: $before of 20"
  if [ "$before" -ge 20 ] || [ "$before" -lt 1 ]; then echo "the kill did not land during the points"; exit 1; fi
  run 2 reduce "$1" --set output=cut.h5 --resume > cut2.log
}
