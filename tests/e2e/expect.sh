#!/usr/bin/env bash
# expect.sh EXIT_CODE PATTERN [--absent PATTERN] -- COMMAND...
# Runs COMMAND as a user would and checks its exit code and that its combined output matches the
# extended regex PATTERN (and does not match --absent). Prints the output when a check fails.
set -u
want_code=$1
pattern=$2
shift 2
absent=""
if [[ ${1:-} == --absent ]]; then absent=$2; shift 2; fi
[[ ${1:-} == -- ]] && shift
output=$("$@" 2>&1)
code=$?
fail() { echo "FAILED: $1"; echo "command: $*"; echo "----- output -----"; echo "$output"; exit 1; }
[[ $code == "$want_code" ]] || fail "exit code $code, expected $want_code"
grep -Eq -- "$pattern" <<<"$output" || fail "output does not match: $pattern"
if [[ -n $absent ]] && grep -Eq -- "$absent" <<<"$output"; then fail "output matches: $absent"; fi
echo "ok (exit $code)"
