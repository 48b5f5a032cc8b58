#!/usr/bin/env bash
# plan_roundtrip.sh TESSERA FIXTURES DIR — what compile writes, simulate takes, from any directory:
# two identical compiles write identical bytes; a DiT planned without --mode simulates (on one
# Wormhole and on the two-chip n300), and so does a tree chip's plan; a plan of a model given by a
# relative path simulates from elsewhere (and one whose model is gone names source.model); a plan
# whose tiles the mapper timed (--core-cost tcm) records each op's core mapping and simulates.
set -euo pipefail
tessera=$1
fixtures=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir/project/models" "$dir/elsewhere"
fail() { echo "FAILED: $*"; exit 1; }
small=(llama2-7b --batch 1 --seq 16 -t ipu_alltoall --chip ipu-mk2-hbm3e --threads 2 --design all)

# Reproducible: every plan file of two identical runs is byte for byte the same.
"$tessera" compile "${small[@]}" -o "$dir/a" >/dev/null 2>&1
"$tessera" compile "${small[@]}" -o "$dir/b" >/dev/null 2>&1
for f in "$dir"/a/*.yaml; do cmp "$f" "$dir/b/$(basename "$f")" || fail "$(basename "$f") differs"; done
[[ $(ls "$dir/a" | wc -l) == 6 ]] || fail "expected 6 plan files: $(ls "$dir/a")"

# The round trip of a diffusion transformer: it has no decode mode, and none is recorded.
"$tessera" compile dit-xl --target mesh_tenstorrent --chip wormhole-n150 --threads 2 \
  -o "$dir/dit" >/dev/null 2>&1
"$tessera" simulate "$dir/dit/plan.yaml" >"$dir/dit.out" 2>&1 || fail "simulate dit: $(cat "$dir/dit.out")"
grep -q '^latency ' "$dir/dit.out" || fail "no latency: $(cat "$dir/dit.out")"

# The same on two chips joined by Ethernet (wormhole-n300): planned, then simulated.
"$tessera" compile dit-xl --target mesh_tenstorrent --chip wormhole-n300 --threads 2 \
  -o "$dir/n300" >/dev/null 2>&1 || fail "compile dit on wormhole-n300"
"$tessera" simulate "$dir/n300/plan.yaml" >"$dir/n300.out" 2>&1 ||
  fail "simulate dit on wormhole-n300: $(cat "$dir/n300.out")"
grep -q '^latency ' "$dir/n300.out" || fail "no latency on wormhole-n300: $(cat "$dir/n300.out")"

# A tree chip's plan (its plugin's own Partitioner) passes the same checks on reading.
"$tessera" compile "$fixtures/gpt_like.onnx" --dim batch=2 --dim seq=16 -t tree_simd --threads 2 \
  -o "$dir/tree" >/dev/null 2>&1
"$tessera" simulate "$dir/tree/plan.yaml" >/dev/null 2>"$dir/err" || fail "simulate tree: $(cat "$dir/err")"

# A model given relative to the working directory is recorded so any directory finds it.
cp "$fixtures/gpt_like.onnx" "$dir/project/models/"
(cd "$dir/project" && "$tessera" compile models/gpt_like.onnx --dim batch=2 --dim seq=16 \
  -t ipu_alltoall --chip ipu-mk2-hbm3e --threads 2 -o plans >/dev/null 2>&1)
(cd "$dir/elsewhere" && "$tessera" simulate ../project/plans/plan.yaml >/dev/null 2>"$dir/err") ||
  fail "simulate from another directory: $(cat "$dir/err")"
# A relative path in a plan is relative to the plan's directory.
sed "s|^  model: .*|  model: ../models/gpt_like.onnx|" "$dir/project/plans/plan.yaml" \
  >"$dir/project/plans/relative.yaml"
(cd "$dir/elsewhere" && "$tessera" simulate ../project/plans/relative.yaml >/dev/null 2>"$dir/err") ||
  fail "a plan-relative model path: $(cat "$dir/err")"
sed "s|^  model: .*|  model: gone/gpt_like.onnx|" "$dir/project/plans/plan.yaml" \
  >"$dir/project/plans/gone.yaml"
code=0
"$tessera" simulate "$dir/project/plans/gone.yaml" >/dev/null 2>"$dir/err" || code=$?
[[ $code == 3 ]] || fail "exit $code for a missing model, expected 3"
want="error: $dir/project/plans/gone.yaml: source.model: $dir/project/plans/gone/gpt_like.onnx: cannot open the file (does it exist and is it readable?)"
[[ $(cat "$dir/err") == "$want" ]] || fail "message: $(cat "$dir/err")"
# --core-cost tcm: plan.yaml records how one core runs each matmul's tile, and reads back.
"$tessera" compile "${small[@]}" --core-cost tcm -o "$dir/tcm" >"$dir/tcm.out" 2>&1 ||
  fail "compile --core-cost tcm: $(cat "$dir/tcm.out")"
grep -q '^core mappings of elk-full (tcm on ipu_tile' "$dir/tcm.out" ||
  fail "no core mappings printed: $(cat "$dir/tcm.out")"
[[ $(grep -c '^    core_mapping:' "$dir/tcm/plan.yaml") == 289 ]] ||
  fail "expected a core_mapping for each of the 289 matmuls in plan.yaml"
grep -q '^      looptree: |' "$dir/tcm/plan.yaml" || fail "the LoopTree is not a literal block"
"$tessera" simulate "$dir/tcm/plan.yaml" >/dev/null 2>"$dir/err" ||
  fail "simulate a tcm plan: $(cat "$dir/err")"
echo "ok: plans round trip"
