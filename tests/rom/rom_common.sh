# SPDX-License-Identifier: MIT
# Sourced by the ROM script tests: run a flexuq verb on one rank, and expect a refusal naming something.
run() { timeout 150 "$mpiexec" -n 1 "$flexuq" "$@"; }
expect_fail() { # expect_fail PATTERN args...: the run must exit non-zero and its output contain PATTERN
  local pat="$1"; shift
  if run "$@" > bad.log 2>&1; then echo "FAIL: '$*' succeeded"; exit 1; fi
  grep -q -- "$pat" bad.log || { echo "FAIL: '$*' does not say '$pat'"; cat bad.log; exit 1; }
  echo "refused as expected: $(grep -o -- "$pat.*" bad.log | head -1 | cut -c1-150)"
}
# enter_workdir: a fresh temporary folder as the working directory, removed on exit; py is numpy's python.
enter_workdir() {
  py=/usr/bin/python3
  wd=$(mktemp -d)
  trap 'rm -rf "$wd"' EXIT
  cd "$wd"
}
