# SPDX-License-Identifier: MIT
# Shared by the seed 002 / gs script tests (sourced, after they set $flexuq and $mpiexec):
#   run <log> <flexuq args...>   flexuq on one rank (120 s at most), its output in <log>; a failure
#                                prints the command and the log and exits 1
#   refuse <pattern> <yaml>      `flexuq simulate <yaml>` must exit 2 and print <pattern> (grep); else
#                                the log is printed and the test exits 1

run() { # run <log> <flexuq args...>
  local log="$1"; shift
  timeout 120 "$mpiexec" -n 1 "$flexuq" "$@" > "$log" 2>&1 || { echo "FAIL: flexuq $*"; cat "$log"; exit 1; }
}

refuse() { # refuse <pattern> <yaml>
  set +e
  "$mpiexec" -n 1 "$flexuq" simulate "$2" > bad.log 2>&1; local rc=$?
  set -e
  [ $rc = 2 ] && grep -q -- "$1" bad.log || { echo "FAIL: $2 (exit $rc), expected '$1'"; cat bad.log; exit 1; }
  echo "ok   refused: $(grep -o -- "$1" bad.log | head -1)"
}
