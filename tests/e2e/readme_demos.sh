#!/usr/bin/env bash
# readme_demos.sh TESSERA README DIR — runs the README's two Tenstorrent demos (llama2-7b with bfp8
# weights on wormhole-n150, llama2-70b on wormhole-t3000) as a user copies them, with a trace, and
# its two strategies for Llama 3.1 70B on the T3000 (tp=8, pp=8), its serving demo (TTFT, TPOT
# and end-to-end means),
# and checks the ms/token the README states next to each command against what tessera prints
# (within 0.5 %): the README's figures are the tool's.
set -euo pipefail
tessera=$1
readme=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAILED: $*"; exit 1; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.005 * b) }'; }

demo() {
  local model=$1 chip=$2 out="$dir/$2"
  # The README's figures: "# elk-full X ms/token" after compile, "# Y ms/token" after simulate.
  local planned simulated
  planned=$(grep -A1 -- "--chip $chip -o" "$readme" | grep -oE "elk-full [0-9.]+ ms/token" |
    grep -oE "[0-9.]+" | head -1)
  simulated=$(grep -- "simulate ${chip#wormhole-}/plan.yaml" "$readme" |
    grep -oE "# [0-9.]+ ms/token" | grep -oE "[0-9.]+" | head -1)
  [[ -n $planned && -n $simulated ]] || fail "README has no figures for $model on $chip"
  "$tessera" compile "$model" --batch 1 --seq 2048 --weight-dtype bfp8 --target mesh_tenstorrent \
    --chip "$chip" -o "$out" >"$out.compile" 2>&1 || fail "compile: $(cat "$out.compile")"
  local got
  got=$(awk '$1 == "elk-full" { print $2 }' "$out.compile")
  near "$got" "$planned" || fail "$chip: compile prints elk-full $got ms/token, README $planned"
  "$tessera" simulate "$out/plan.yaml" --trace "$out/trace.json" >"$out.simulate" 2>&1 ||
    fail "simulate: $(cat "$out.simulate")"
  got=$(awk '$1 == "latency" { print $2 }' "$out.simulate")
  near "$got" "$simulated" || fail "$chip: simulate prints $got ms/token, README $simulated"
  [[ -s "$out/trace.json" ]] || fail "$chip: no trace"
}

# The strategies side by side: "--parallel S --simulate  # elk-full X ms/step".
strategy() {
  local s=$1 want got
  want=$(grep -- "--parallel $s --simulate" "$readme" | grep -oE "elk-full [0-9.]+ ms/step" |
    grep -oE "[0-9.]+" | head -1)
  [[ -n $want ]] || fail "README has no figure for --parallel $s"
  got=$("$tessera" compile llama3.1-70b --batch 1 --seq 1024 --weight-dtype bfp8 \
    --target mesh_tenstorrent --chip wormhole-t3000 --parallel "$s" --simulate |
    awk '$1 == "elk-full" { print $2; exit }')
  near "$got" "$want" || fail "--parallel $s: compile prints elk-full $got ms/step, README $want"
}

# The serving demo: the README's latency table, row by row (its grid built into the test's cache).
serve_demo() {
  local cmd out="$dir/serve.out"
  cmd=$(grep -A1 -- "tessera serve llama3.1-70b" "$readme" | tr -d '\\\n' |
    sed -E 's/^build\/default\/bin\/tessera //')
  [[ -n $cmd ]] || fail "README has no serve command"
  # shellcheck disable=SC2086 # the README's words, as a user pastes them
  TESSERA_CACHE_DIR="$dir/cache" "$tessera" $cmd >"$out" 2>&1 || fail "serve: $(cat "$out")"
  for row in TTFT TPOT E2E; do
    local want got
    want=$(grep -E "^$row +[0-9.]+ " "$readme" | awk '{ print $2 }' | head -1)
    got=$(awk -v r="$row" '$1 == r { print $2 }' "$out")
    [[ -n $want ]] || fail "README has no $row row"
    near "$got" "$want" || fail "serve: $row mean $got ms, README $want"
  done
}

demo llama2-7b wormhole-n150
demo llama2-70b wormhole-t3000
strategy tp=8
strategy pp=8
serve_demo
echo "ok: the README's Tenstorrent demos print the README's figures"
