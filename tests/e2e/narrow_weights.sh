#!/usr/bin/env bash
# narrow_weights.sh TESSERA DIR SEQ — the README's demo: llama2-7b with block-fp8 weights on one
# Wormhole n150 (its fp16 weights do not fit the 12 GB of GDDR6), compiled and then simulated from
# the plan, which records the weight dtype so simulate rebuilds the same model.
set -euo pipefail
tessera=$1
dir=$2
seq=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAILED: $*"; exit 1; }
run=(llama2-7b --batch 1 --seq "$seq" --target mesh_tenstorrent --chip wormhole-n150)

"$tessera" compile "${run[@]}" --weight-dtype bfp8 --threads 2 -o "$dir/plans" >"$dir/compile.out" 2>&1 ||
  fail "compile: $(cat "$dir/compile.out")"
grep -q "^  weight_dtype: bfp8$" "$dir/plans/plan.yaml" || fail "plan.yaml records no weight_dtype"
grep -q "^  dtype: \"\"$" "$dir/plans/plan.yaml" || fail "the activations' dtype changed"
grep -Eq "^elk-full +[0-9.]+ " "$dir/compile.out" || fail "no elk-full row: $(cat "$dir/compile.out")"
"$tessera" simulate "$dir/plans/plan.yaml" >"$dir/simulate.out" 2>&1 ||
  fail "simulate: $(cat "$dir/simulate.out")"
grep -q '^latency ' "$dir/simulate.out" || fail "no latency: $(cat "$dir/simulate.out")"
# The split lm_head is reported as one op with its 4 slices summed.
grep -Eq '^lm_head +4 ' "$dir/simulate.out" || fail "no split-op row: $(cat "$dir/simulate.out")"

# fp16 weights do not fit; the capacity hint names the narrow weights the target stores.
code=0
"$tessera" compile "${run[@]}" --threads 2 >"$dir/wide.out" 2>&1 || code=$?
[[ $code == 3 ]] || fail "exit $code for fp16 weights, expected 3"
grep -q -- "--weight-dtype bfp8 (" "$dir/wide.out" || fail "no bfp8 hint: $(cat "$dir/wide.out")"
echo "ok: llama2-7b with bfp8 weights compiles and simulates on wormhole-n150"
