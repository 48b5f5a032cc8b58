#!/usr/bin/env bash
# precision.sh TESSERA SOURCE DIR — Llama 3.1 8B at tt-metal's performance precision on one
# Wormhole n150: ff1/ff3 in bfp4 and the other projections, head and KV cache in bfp8 shrink the
# weights to the hand count (32 x (2 x 4096 x 14336 x 0.5625 + (4096 x 14336 + 4096^2 x 2 +
# 2 x 4096 x 1024) x 1.0625) + 128256 x 4096 x (1.0625 + 2) + 65 x 4096 x 2 bytes = 6.7 GiB);
# plan.yaml keeps the settings so simulate rebuilds the same model without the file; a chip that
# stores no bfp4 and a bad file are refused with their messages.
set -euo pipefail
tessera=$1
src=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAILED: $*"; exit 1; }
perf=$src/configs/precision/tt-perf.yaml
run=(llama3.1-8b --batch 1 --seq 1024 --target mesh_tenstorrent --chip wormhole-n150)

"$tessera" inspect llama3.1-8b --batch 1 --seq 1024 --precision "$perf" >"$dir/inspect.out" 2>&1 ||
  fail "inspect: $(cat "$dir/inspect.out")"
grep -q "^weights      6.7 GiB in HBM$" "$dir/inspect.out" || fail "weights: $(grep weights "$dir/inspect.out")"
grep -q "^KV cache     68.0 MiB in HBM$" "$dir/inspect.out" || fail "kv: $(grep KV "$dir/inspect.out")"

"$tessera" compile "${run[@]}" --precision "$perf" --design elk-full --threads 2 -o "$dir/plans" \
  >"$dir/compile.out" 2>&1 || fail "compile: $(cat "$dir/compile.out")"
grep -q "^  precision: |" "$dir/plans/plan.yaml" || fail "plan.yaml records no precision"
grep -q "^      mlp.ff1: bfp4$" "$dir/plans/plan.yaml" || fail "plan.yaml lost mlp.ff1"
"$tessera" simulate "$dir/plans/plan.yaml" >"$dir/simulate.out" 2>&1 ||
  fail "simulate: $(cat "$dir/simulate.out")"

# The IPU stores no block types: the group, the chip and what it stores are named.
if "$tessera" compile llama3.1-8b --batch 1 --seq 128 --target ipu_alltoall --precision "$perf" \
  >"$dir/ipu.out" 2>&1; then fail "the IPU took bfp4"; fi
grep -q "does not store precision group attention.wo as bfp8; it stores: fp32, fp16" "$dir/ipu.out" ||
  fail "ipu message: $(cat "$dir/ipu.out")"
printf 'format: tessera-precision-1\nfidelity:\n  li_ff1_3: hifi9\n' >"$dir/bad.yaml"
if "$tessera" inspect llama3.1-8b --precision "$dir/bad.yaml" >"$dir/bad.out" 2>&1; then
  fail "took hifi9"
fi
grep -q "bad.yaml:3: 'fidelity.li_ff1_3': expected one of lofi, hifi2, hifi3, hifi4, got 'hifi9'" \
  "$dir/bad.out" || fail "bad file message: $(cat "$dir/bad.out")"
echo "ok: llama3.1-8b at tt-perf precision: 6.7 GiB of weights, plan re-read, bad inputs refused"
