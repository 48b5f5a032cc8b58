#!/usr/bin/env bash
# violations_test.sh TESSERA DIR — a hand-written program with one line deleted breaks the rules
# many times over; the user reads the first 10 violations, one `error:` line each, then the count.
set -euo pipefail
tessera=$1
dir=$2
code=0
"$tessera" simulate "$dir/plan.yaml" --run-program "$dir/missing_line.txt" >/dev/null 2>"$dir/err" ||
  code=$?
fail() { echo "FAILED: $*"; echo "----- stderr -----"; cat "$dir/err"; exit 1; }
[[ $code == 3 ]] || fail "exit $code, expected 3"
[[ $(grep -c '^error: ' "$dir/err") == 11 && $(wc -l <"$dir/err") == 11 ]] || fail "expected 11 error lines"
grep -Eq "^error: $dir/missing_line\.txt: [0-9]+ more violations \([0-9]+ in all\); fix the ones above first$" \
  <(tail -n1 "$dir/err") || fail "no count on the last line"
echo "ok: 10 violations and a count"
