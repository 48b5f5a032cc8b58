#!/usr/bin/env bash
# simulate_setup.sh TESSERA DIR — a small plan for the `tessera simulate` tests, and broken copies:
# a corrupted value, a plan for another model, another sequence length, another chip size, numbers
# no compile writes (bytes past 2^53 and past the op's tensors, more cores than the chip's, a time of
# 1e300 s or 1e-320 s, factors that are not the op's ranks, HBM reads, FLOPs or a dtype that are
# not the model's, weights never loaded), and hand-written programs that execute op 0 before
# preloading it, lose a line, or carry impossible numbers; and the plan of an ONNX model.
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
first_exec() { sed "0,/$1/s//$2/"; }  # the first op's value replaced
first_exec 'shift_bytes: [0-9.e+-]*' 'shift_bytes: 9223372036854775807' <"$plan" >"$dir/huge_shift.yaml"
first_exec 'shift_bytes: [0-9.e+-]*' 'shift_bytes: 1e15' <"$plan" >"$dir/big_shift.yaml"
first_exec 'cores_used: [0-9]*' 'cores_used: 99999' <"$plan" >"$dir/many_cores.yaml"
first_exec 'compute_s: [0-9.e+-]*' 'compute_s: 1e300' <"$plan" >"$dir/huge_time.yaml"
first_exec 'compute_s: [0-9.e+-]*' 'compute_s: 1e-320' <"$plan" >"$dir/denormal_time.yaml"
first_exec 'factors: \[[0-9, ]*\]' 'factors: [1, 3]' <"$plan" >"$dir/bad_factors.yaml"
# Numbers compile copies from the graph, edited: the first op's HBM reads, the first FLOPs that
# are not 0, and the dtype the model is rebuilt in.
first_exec 'hbm_read_bytes: [0-9.e+-]*' 'hbm_read_bytes: 0' <"$plan" >"$dir/no_hbm_reads.yaml"
first_exec '^\( *\)flops: [1-9][0-9.e+]*$' '\1flops: 0' <"$plan" >"$dir/no_flops.yaml"
sed 's/^  dtype: .*$/  dtype: fp32/' "$plan" >"$dir/other_dtype.yaml"
# An op that reads weights, its HBM-to-core traffic zeroed: weights simulated as never loaded.
first_exec 'hbm_to_core_bytes: [1-9][0-9.e+]*' 'hbm_to_core_bytes: 0' <"$plan" >"$dir/no_weight_load.yaml"
"$tessera" simulate "$plan" --program "$dir/program.txt" >/dev/null 2>&1
program=$dir/program.txt
first_exec 'shift_bytes=[0-9.e+-]*' 'shift_bytes=1e15' <"$program" >"$dir/absurd_bytes.txt"
first_exec 'cores=[0-9]*' 'cores=0' <"$program" >"$dir/zero_cores.txt"
first_exec 'cores=[0-9]*' 'cores=99999' <"$program" >"$dir/many_cores.txt"
first_exec 'compute_s=[0-9.e+-]*' 'compute_s=1e300' <"$program" >"$dir/huge_compute.txt"
first_exec 'compute_s=[0-9.e+-]*' 'compute_s=1e-320' <"$program" >"$dir/denormal_compute.txt"
first_exec 'hbm_bytes=[0-9.e+-]*' 'hbm_bytes=1e12' <"$program" >"$dir/hbm_beyond.txt"
sed '0,/^execute 0 /{//d}' "$program" >"$dir/missing_line.txt"  # op 0's execute deleted
first=$(grep -n -m1 '^preload_async 0 ' "$dir/program.txt" | cut -d: -f1)
{ sed "${first}d" "$dir/program.txt"; sed -n "${first}p" "$dir/program.txt"; } >"$dir/late_preload.txt"
# An ONNX model's plan: simulate must bind the same --dim values to reload it.
"$tessera" compile "$(dirname "$0")/../../models/fixtures/gpt_like.onnx" --dim batch=2 --dim seq=16 \
  -t ipu_alltoall --chip ipu-mk2-hbm3e --threads 2 -o "$dir/onnx" >/dev/null
echo "ok: plans in $dir"
