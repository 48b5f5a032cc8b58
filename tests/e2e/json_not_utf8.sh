#!/usr/bin/env bash
# json_not_utf8.sh TESSERA DIR — names whose bytes are not UTF-8 (a chip's `name:`, a model file's
# name) reach `--format json` and a Perfetto trace as valid JSON, each bad byte written as \xNN.
set -euo pipefail
tessera=$1
dir=$2
here=$(dirname "$0")
rm -rf "$dir" && mkdir -p "$dir"
chip=$dir/chip.yaml
sed 's/^name: ipu-mk2$/name: ipu-\xff\xfe/' "$here/../../plugins/ipu_alltoall/chips/ipu-mk2.yaml" >"$chip"
"$tessera" topology --target ipu_alltoall --chip "$chip" --format json >"$dir/topology.json"
model=$dir/gpt-$'\xff'.onnx
cp "$here/../../models/fixtures/gpt_like.onnx" "$model"
"$tessera" inspect "$model" --dim batch=2 --dim seq=16 --format json >"$dir/inspect.json"
"$tessera" compile llama2-7b --batch 1 --seq 16 -t ipu_alltoall --chip "$chip" --threads 2 \
  -o "$dir/plan" >/dev/null
"$tessera" simulate "$dir/plan/plan.yaml" --trace "$dir/trace.json" >/dev/null
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
topology = json.load(open(f"{d}/topology.json"))
assert topology["chip"] == "ipu-\\xFF\\xFE", topology["chip"]
text = open(f"{d}/inspect.json", encoding="utf-8").read()
json.loads(text)
assert "gpt-\\\\xFF" in text, "the model file's name is not in inspect's JSON with its byte escaped"
trace = open(f"{d}/trace.json", encoding="utf-8").read()
json.loads(trace)
assert "ipu-\\\\xFF\\\\xFE" in trace, "the chip's name is not in the trace with its bytes escaped"
PY
echo "ok: valid JSON with bad bytes as \\xNN"
