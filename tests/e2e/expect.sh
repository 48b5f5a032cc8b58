#!/usr/bin/env bash
# expect.sh EXIT_CODE PATTERN [--absent PATTERN] [--also PATTERN]... -- COMMAND...
# Runs COMMAND as a user would and checks its exit code and that its combined output matches the
# regex PATTERN and every --also (and does not match --absent). Prints the output when a check
# fails. A pattern is matched against the whole output at once (Perl, multi-line: ^ and $ at each
# line's ends, . never a newline), so a newline in it must meet consecutive lines; grep would take
# each of its lines as a pattern of its own and pass when any one matched.
set -u
want_code=$1
pattern=$2
shift 2
absent=""
also=()
while [[ ${1:-} == --absent || ${1:-} == --also ]]; do
  if [[ $1 == --absent ]]; then absent=$2; else also+=("$2"); fi
  shift 2
done
[[ ${1:-} == -- ]] && shift
output=$("$@" 2>&1)
code=$?
fail() { echo "FAILED: $1"; echo "command: $*"; echo "----- output -----"; echo "$output"; exit 1; }
matches() { PATTERN=$1 perl -0777 -e '$_ = <STDIN> // ""; exit(/$ENV{PATTERN}/m ? 0 : 1)' <<<"$output"; }
[[ $code == "$want_code" ]] || fail "exit code $code, expected $want_code"
for p in "$pattern" "${also[@]}"; do
  matches "$p" || fail "output does not match: $p"
done
if [[ -n $absent ]] && matches "$absent"; then fail "output matches: $absent"; fi
echo "ok (exit $code)"
