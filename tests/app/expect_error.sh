#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run a command that must fail cleanly on bad input:
#   expect_error.sh [--exit-zero | --exit-code N] [--absent TEXT]... TEXT... -- COMMAND [ARG]...
# Passes when the command
#   - ends within 60 s (exit 124 from `timeout` = a hang = failure),
#   - exits non-zero (or exactly N with --exit-code, or 0 with --exit-zero for a positive test),
#   - was not killed by a signal (exit >= 128, "Segmentation fault", a rank that "exited on signal"),
#   - has no sanitizer report (asan preset: "ERROR: AddressSanitizer", UBSan's "runtime error:"),
#   - prints every TEXT (stdout and stderr together; plain substrings, not patterns),
#   - prints none of the --absent texts.
set -u

usage() {
  echo "usage: $0 [--exit-zero | --exit-code N] [--absent TEXT]... TEXT... -- COMMAND [ARG]..." >&2
  exit 2
}

want_code=""
absent=()
expected=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  case "$1" in
    --exit-zero) want_code=0; shift ;;
    --exit-code) [[ $# -ge 2 ]] || usage; want_code="$2"; shift 2 ;;
    --absent) [[ $# -ge 2 ]] || usage; absent+=("$2"); shift 2 ;;
    *) expected+=("$1"); shift ;;
  esac
done
[[ $# -ge 2 && ${#expected[@]} -ge 1 ]] || usage
shift # the "--"

out="$(timeout 60 "$@" 2>&1)"
code=$?
printf '%s\n' "$out"
echo "---- exit code $code"

fail() {
  echo "FAIL: $*"
  exit 1
}

[[ $code -ne 124 ]] || fail "the command hung (killed by timeout after 60 s)"
if [[ $code -ge 128 ]] || grep -qE 'Segmentation fault|exited on signal|Aborted \(core dumped\)' <<<"$out"; then
  fail "the command crashed (exit $code) instead of reporting the error"
fi
# Under the asan preset: a memory error or undefined behaviour fails even a run that printed the message.
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error: ' <<<"$out"; then
  fail "a sanitizer reported an error"
fi
if [[ -z "$want_code" ]]; then
  [[ $code -ne 0 ]] || fail "the command exited 0 on bad input"
else
  [[ $code -eq $want_code ]] || fail "expected exit code $want_code, got $code"
fi
for t in "${expected[@]}"; do
  grep -qF -- "$t" <<<"$out" || fail "the output does not contain '$t'"
done
for t in "${absent[@]+"${absent[@]}"}"; do
  if grep -qF -- "$t" <<<"$out"; then fail "the output contains '$t'"; fi
done
echo "PASS"
