#!/usr/bin/env bash
# serve.sh TESSERA SOURCE DIR — `tessera serve` as a user runs it (docs/serving.md): gpt2-xl on a
# Wormhole n150 from the sample trace, the grid built once then read from the cache, the JSON
# document, per-request rows written atomically and not overwritten without --force, and a load
# beyond the machine reported as a verdict with the rate it sustains.
set -euo pipefail
tessera=$1
source_dir=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir"
export TESSERA_CACHE_DIR=$dir/cache
fail() { echo "FAILED: $*"; exit 1; }
run=(serve gpt2-xl --target mesh_tenstorrent --chip wormhole-n150 --max-batch 8)

"$tessera" "${run[@]}" --trace "$source_dir/configs/serve/chat-sample.csv" \
  --slo-ttft-ms 2000 --slo-tpot-ms 50 --per-request "$dir/requests.csv" >"$dir/first.out" 2>&1 ||
  fail "serve: $(cat "$dir/first.out")"
grep -q "built grid" "$dir/first.out" || fail "no grid built: $(cat "$dir/first.out")"
grep -Eq "^TTFT +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$dir/first.out" || fail "no TTFT row"
grep -Eq "^40 requests in " "$dir/first.out" || fail "not 40 requests: $(cat "$dir/first.out")"
grep -Eq "interpolation error at most [0-9.]+ % over the decode steps this run took" "$dir/first.out" ||
  fail "no interpolation error"
[[ $(wc -l <"$dir/requests.csv") == 41 ]] || fail "requests.csv has not 40 rows"
head -1 "$dir/requests.csv" | grep -q "^id,arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s" ||
  fail "requests.csv header: $(head -1 "$dir/requests.csv")"

# Again: the grid from the cache; the same table. The per-request file is not overwritten.
code=0
"$tessera" "${run[@]}" --trace "$source_dir/configs/serve/chat-sample.csv" \
  --per-request "$dir/requests.csv" >"$dir/second.out" 2>&1 || code=$?
[[ $code == 3 ]] || fail "exit $code writing over requests.csv, expected 3"
grep -q "cached grid" "$dir/second.out" || fail "grid not cached: $(cat "$dir/second.out")"
diff <(grep -E "^(TTFT|TPOT|E2E) " "$dir/first.out") <(grep -E "^(TTFT|TPOT|E2E) " "$dir/second.out") ||
  fail "the cached grid gave other figures"

# JSON: one document; an overload has no latencies, a verdict and the rate sustained. --progress
# draws on standard error (a line per redraw off a terminal), the document alone on standard output.
"$tessera" "${run[@]}" --rate 200 --requests 3000 --prompt fixed:256 --output fixed:64 \
  --format json --progress >"$dir/overload.json" 2>"$dir/overload.err" ||
  fail "overload: $(cat "$dir/overload.err")"
grep -Eqx "serving \[#{30}\] 3000/3000 requests done, [0-9.]+ s simulated" "$dir/overload.err" ||
  fail "no progress: $(cat "$dir/overload.err")"
/usr/bin/python3 - "$dir/overload.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "tessera-serve-5", doc["format"]
assert doc["step_costs"]["extrapolated"]["steps"] == 0, doc["step_costs"]
assert doc["sustainable"] is False, doc
assert "ttft_s" not in doc, "latencies reported for an unsustainable load"
assert 0 < doc["sustained_rps"] < doc["offered_rps"] / 2, doc
PY
"$tessera" "${run[@]}" --rate 200 --requests 3000 --prompt fixed:256 --output fixed:64 \
  >"$dir/overload.out" 2>&1 || fail "overload text"
grep -Eq "^unsustainable: [0-9.]+ req/s offered, [0-9.]+ req/s sustained" "$dir/overload.out" ||
  fail "no verdict: $(cat "$dir/overload.out")"
if grep -q "^TTFT" "$dir/overload.out"; then fail "latencies printed for an overload"; fi
# Preemption by swap: named in the header and the document (its pricing: tests/unit/serve).
"$tessera" "${run[@]}" --rate 200 --requests 300 --prompt fixed:256 --output fixed:64 \
  --preemption swap --format json >"$dir/swap.json" 2>"$dir/swap.err" || fail "swap: $(cat "$dir/swap.err")"
/usr/bin/python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["preemption"] == "swap"' \
  "$dir/swap.json" || fail "no preemption in the document"
# A load sweep: one row per rate, the overload's marked.
"$tessera" "${run[@]}" --rates 0.5,200 --requests 500 --prompt fixed:256 --output fixed:64 \
  >"$dir/sweep.out" 2>&1 || fail "sweep: $(cat "$dir/sweep.out")"
grep -Eq "^0\.[0-9]+ +0\.[0-9]+ +[0-9.]+ " "$dir/sweep.out" || fail "no light row: $(cat "$dir/sweep.out")"
grep -Eq "^[0-9.]+ +[0-9.]+ +- +- +- +- +unsustainable" "$dir/sweep.out" ||
  fail "no unsustainable row: $(cat "$dir/sweep.out")"

# Under tensor parallelism the KV room is one chip's (its half of the weights and of the KV heads),
# so the grid's edge step compiles; a prompt beyond the grid's longest prefill (8192 tokens) is
# priced by extrapolation, and the run says so.
printf 'arrival_s,prompt_tokens,output_tokens\n0,512,16\n1,9000,8\n2,512,16\n' >"$dir/long.csv"
"$tessera" serve llama3.1-8b --target mesh_tenstorrent --chip wormhole-n300 --parallel tp=2 \
  --max-batch 4 --trace "$dir/long.csv" >"$dir/tp2.out" 2>&1 || fail "tp=2: $(cat "$dir/tp2.out")"
grep -Eq "^kv .* after weights on each chip of stage 0 \(layers 0-32\); " "$dir/tp2.out" ||
  fail "no per-chip room: $(cat "$dir/tp2.out")"
grep -qx "extrap 1 prefill step of 1 request went beyond the grid's longest prefill (8192 tokens), up to 9000 tokens: priced by extrapolation from its last two lengths, not simulated" \
  "$dir/tp2.out" || fail "no extrapolation line: $(cat "$dir/tp2.out")"
grep -Eq "^3 requests in " "$dir/tp2.out" || fail "not 3 requests: $(cat "$dir/tp2.out")"
echo "ok: tessera serve on wormhole-n150, cached grid, JSON, overload verdict, load sweep; tp=2 on wormhole-n300 with a prompt beyond the grid"
