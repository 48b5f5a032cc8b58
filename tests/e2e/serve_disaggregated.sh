#!/usr/bin/env bash
# serve_disaggregated.sh TESSERA SOURCE DIR — `tessera serve --disaggregate` (docs/serving.md,
# "Disaggregation"): gpt2-xl prefilled on a Wormhole n300 (two chips, flat), decoded on a Wormhole
# n150, each request's KV cache over PCIe 4.0 x16. The link's lines in the report; in JSON, the
# bytes moved are the prompts' positions times the model's KV bytes per position, and every TTFT is
# at least the request's own transfer. A prefill chip file's approximation said with the figures.
set -euo pipefail
tessera=$1
source_dir=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir"
export TESSERA_CACHE_DIR=$dir/cache
fail() { echo "FAILED: $*"; exit 1; }
run=(serve gpt2-xl --target mesh_tenstorrent --chip wormhole-n150 --max-batch 4 --disaggregate
  --prefill-chip wormhole-n300 --kv-link pcie4-x16 --trace "$source_dir/configs/serve/chat-sample.csv")

"$tessera" "${run[@]}" >"$dir/text.out" 2>&1 || fail "serve: $(cat "$dir/text.out")"
grep -Eq "^prefill on wormhole-n300 \(flat\): [0-9]+ blocks of 16 tokens" "$dir/text.out" ||
  fail "no prefill line: $(cat "$dir/text.out")"
grep -Eq "^link   pcie4-x16 \(.*pcie4-x16\.yaml\): 31\.50 GB/s one way, 1\.00 us latency" "$dir/text.out" ||
  fail "no link line: $(cat "$dir/text.out")"
grep -Eq "^moved  40 KV caches, [0-9.]+ GiB over the link \(busy [0-9.]+ %\); transfer [0-9.]+ ms mean, [0-9.]+ ms P99$" \
  "$dir/text.out" || fail "no moved line: $(cat "$dir/text.out")"
grep -Eq "^replica 1 \(decode\)  40 requests" "$dir/text.out" || fail "no decode replica line"

"$tessera" "${run[@]}" --format json --per-request "$dir/requests.csv" >"$dir/doc.json" 2>"$dir/doc.err" ||
  fail "json: $(cat "$dir/doc.err")"
/usr/bin/python3 - "$dir/doc.json" "$dir/requests.csv" <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
d = doc["disaggregation"]
assert d["prefill"]["chip"] == "wormhole-n300", d["prefill"]
assert d["link"]["name"] == "pcie4-x16" and d["link"]["bytes_per_s"] == 31.5e9, d["link"]
t = d["transfers"]
per_token = doc["kv"]["bytes_per_token"]  # flat: the model's KV bytes per position
prompts = sum(int(r["prompt_tokens"]) for r in rows)
assert t["count"] == 40, t
assert abs(t["bytes"] - prompts * per_token) <= 1e-9 * t["bytes"], (t["bytes"], prompts * per_token)
for r in rows:  # a TTFT holds at least the request's own bytes / rate + latency
    alone = int(r["prompt_tokens"]) * per_token / 31.5e9 + 1e-6
    assert float(r["ttft_s"]) > alone, (r["id"], r["ttft_s"], alone)
assert [x["role"] for x in doc["replicas"]] == ["prefill", "decode"], doc["replicas"]
assert doc["approximation"] is None and doc["prefill_approximation"] is None, doc
PY

# A prefill chip whose file states an approximation: said with the figures, naming that chip, in
# the text and the document; the decode chip states none.
approximate=(serve gpt2-xl --target mesh_tenstorrent --chip wormhole-n150 --max-batch 4 --disaggregate
  --prefill-chip "$source_dir/tests/e2e/data/serve/approximate-prefill.yaml" --kv-link pcie4-x16
  --trace "$source_dir/configs/serve/chat-sample.csv")
"$tessera" "${approximate[@]}" >"$dir/approximate.out" 2>&1 || fail "serve: $(cat "$dir/approximate.out")"
grep -qx "chip model   approximate-prefill: cores in blocks of 4, within 3 % of core by core (a test's statement)" \
  "$dir/approximate.out" || fail "no approximation line: $(cat "$dir/approximate.out")"
if grep -q "^chip model   wormhole-n150" "$dir/approximate.out"; then fail "an approximation for n150"; fi
"$tessera" "${approximate[@]}" --format json >"$dir/approximate.json" 2>"$dir/approximate.err" ||
  fail "json: $(cat "$dir/approximate.err")"
/usr/bin/python3 - "$dir/approximate.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "tessera-serve-5", doc["format"]
assert doc["approximation"] is None, doc["approximation"]
assert doc["prefill_approximation"].startswith("cores in blocks of 4, within 3 %"), doc
PY
echo "serve disaggregated: ok"
