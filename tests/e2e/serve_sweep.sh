#!/usr/bin/env bash
# serve_sweep.sh TESSERA MPIEXEC|"" SOURCE DIR — a serve sweep with a goal as a user runs it
# (docs/serving.md, "Searching for the cheapest configuration"): the shipped example run locally,
# its chosen point checked against the cheapest meeting point computed here from results.csv, the
# finished run resumed as a no-op, `tessera plot` refusing it, and the same bytes from `mpirun -np
# 2` (when MPI is built).
set -euo pipefail
tessera=$1 mpiexec=$2 source_dir=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
export TESSERA_CACHE_DIR=$dir/cache
fail() { echo "FAILED: $*"; exit 1; }
sweep=$source_dir/configs/sweeps/serve-cheapest-gpt2xl.yaml
name=serve-cheapest-gpt2xl

"$tessera" sweep "$sweep" -o "$dir/local" --threads 2 >"$dir/local.out" 2>&1 ||
  fail "local run: $(cat "$dir/local.out")"
grep -q "^sweep $name: 6 points — 6 run now in .*, 0 from an earlier run; 0 failed$" "$dir/local.out" ||
  fail "summary: $(cat "$dir/local.out")"
grep -q "^goal: TTFT P90 <= 500 ms, TPOT P90 <= 15 ms, the load sustained; minimise chips$" \
  "$dir/local.out" || fail "goal line: $(cat "$dir/local.out")"
grep -Eq "^ +0  chip=wormhole-n150 parallel=flat max_batch=4  misses  1 chip  unsustainable: " \
  "$dir/local.out" || fail "an unsustained point is not a miss saying so: $(cat "$dir/local.out")"
chosen=$(sed -n 's/^cheapest meeting point: \([0-9]*\) .*/\1/p' "$dir/local.out")
[[ -n $chosen ]] || fail "no cheapest point named: $(cat "$dir/local.out")"

# The cheapest meeting point by hand: sustained, TTFT P90 <= 500 ms and TPOT P90 <= 15 ms; the
# fewest chips, then the least energy per token, then the earliest point.
by_hand=$(/usr/bin/python3 - "$dir/local/results.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
meets = [r for r in rows if r["sustainable"] == "yes" and float(r["ttft_p90_ms"]) <= 500
         and float(r["tpot_p90_ms"]) <= 15]
best = min(meets, key=lambda r: (int(r["chips"]), float(r["mj_per_token"]), int(r["point"])))
print(best["point"])
PY
)
[[ $chosen == "$by_hand" ]] || fail "sweep chose point $chosen, by hand $by_hand"
grep -q "^$chosen,.*,cheapest$" "$dir/local/results.csv" || fail "results.csv does not mark $chosen"

"$tessera" sweep "$sweep" -o "$dir/local" >"$dir/again.out" 2>&1 || fail "rerun: $(cat "$dir/again.out")"
grep -q "^sweep $name: 6 points, 0 to run, 6 already in $dir/local$" "$dir/again.out" ||
  fail "a finished run is not skipped: $(cat "$dir/again.out")"
grep -q "^cheapest meeting point: $chosen " "$dir/again.out" || fail "resumed run chose otherwise"

if python3 -c "import matplotlib" 2>/dev/null; then
  code=0
  "$tessera" plot "$dir/local" >"$dir/plot.out" 2>&1 || code=$?
  [[ $code == 3 ]] || fail "tessera plot of a serve sweep exits $code"
  grep -qF "results.json: a serve sweep's points are served loads, which these plots do not draw" \
    "$dir/plot.out" || fail "plot message: $(cat "$dir/plot.out")"
fi

if [[ -n $mpiexec ]]; then
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    "$mpiexec" --oversubscribe -np 2 "$tessera" sweep "$sweep" -o "$dir/mpi" >"$dir/mpi.out" 2>&1 ||
    fail "mpirun: $(cat "$dir/mpi.out")"
  grep -q "^cheapest meeting point: $chosen " "$dir/mpi.out" || fail "mpi: $(cat "$dir/mpi.out")"
  cmp -s "$dir/local/results.csv" "$dir/mpi/results.csv" || fail "MPI CSV differs from the local run"
  cmp -s "$dir/local/results.json" "$dir/mpi/results.json" || fail "MPI JSON differs"
fi
echo "serve sweep: point $chosen chosen, as by hand"
