#!/usr/bin/env bash
# conformance_peak.sh TESSERA PLUGIN_DIR DIR — the conformance kit holds every chip file a plugin ships to
# one peak: a copy of ipu_alltoall whose presets include an ipu-mk2 with its topology's fp16 table
# doubled (the cost model untouched) fails PeakContract, naming the file and both rates.
set -euo pipefail
tessera=$1
plugins=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir"
cp "$plugins/ipu_alltoall.plugin.yaml" "$plugins/ipu_alltoall.so" "$dir/"
cp -r "$plugins/ipu_alltoall.chips" "$dir/"
sed -e 's/^name: ipu-mk2$/name: ipu-mk2-doubled/' -e 's/^    fp16: 128 /    fp16: 256 /' \
  "$plugins/ipu_alltoall.chips/ipu-mk2.yaml" >"$dir/ipu_alltoall.chips/ipu-mk2-doubled.yaml"
grep -q '^    fp16: 256 ' "$dir/ipu_alltoall.chips/ipu-mk2-doubled.yaml"
status=0
"$tessera" conformance --plugin "$dir/ipu_alltoall.plugin.yaml" \
  --gtest=--gtest_filter='*PeakContract*' >"$dir/out.txt" 2>&1 || status=$?
cat "$dir/out.txt"
[[ $status == 1 ]] || { echo "exit $status, expected 1"; exit 1; }
grep -q "ipu-mk2-doubled: the topology's fp16 peak, 0.3392 TFLOP/s per core .*, and the rate its cost model times a large fp16 matmul at, 0.16[0-9]* TFLOP/s per core" "$dir/out.txt"
grep -q '^conformance: ipu_alltoall 1\.0\.0 — 0 passed, 1 failed, 0 skipped$' "$dir/out.txt"
echo "ok: the doubled table is refused by PeakContract"
