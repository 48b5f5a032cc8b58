#!/usr/bin/env bash
# simulate_setup.sh TESSERA DIR — a small plan for the `tessera simulate` tests, and broken copies:
# a corrupted value, a plan for another model, another sequence length, another chip size, and a
# hand-written program that executes op 0 before preloading it; and the plan of an ONNX model.
set -euo pipefail
tessera=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$tessera" compile llama2-7b -t ipu_alltoall --chip ipu-mk2-hbm3e --batch 1 --seq 128 \
  --threads 2 -o "$dir" >/dev/null
plan=$dir/plan.yaml
sed '0,/compute_s: [0-9.e+-]*/s//compute_s: fast/' "$plan" >"$dir/bad_value.yaml"
sed 's/^  model: llama2-7b$/  model: llama2-13b/' "$plan" >"$dir/other_model.yaml"
sed 's/^  seq: 128$/  seq: 256/' "$plan" >"$dir/other_seq.yaml"
sed 's/^  cores: 1472$/  cores: 1471/' "$plan" >"$dir/other_cores.yaml"
"$tessera" simulate "$plan" --program "$dir/program.txt" >/dev/null 2>&1
first=$(grep -n -m1 '^preload_async 0 ' "$dir/program.txt" | cut -d: -f1)
{ sed "${first}d" "$dir/program.txt"; sed -n "${first}p" "$dir/program.txt"; } >"$dir/late_preload.txt"
# An ONNX model's plan: simulate must bind the same --dim values to reload it.
"$tessera" compile "$(dirname "$0")/../../models/fixtures/gpt_like.onnx" --dim batch=2 --dim seq=16 \
  -t ipu_alltoall --chip ipu-mk2-hbm3e --threads 2 -o "$dir/onnx" >/dev/null
echo "ok: plans in $dir"
