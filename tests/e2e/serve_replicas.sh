#!/usr/bin/env bash
# serve_replicas.sh TESSERA DIR — `--parallel dp=2` as two independent servers (docs/serving.md,
# "Replicas"): gpt2-xl on a Wormhole n300, one replica a chip. Requests every 0.25 s routed in
# turn give each replica the same stream, a period apart: requests 2k and 2k+1 see the same TTFT
# and TPOT (to 1e-9), and the report has a line per replica.
set -euo pipefail
tessera=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
export TESSERA_CACHE_DIR=$dir/cache
fail() { echo "FAILED: $*"; exit 1; }
{
  echo "arrival_s,prompt_tokens,output_tokens"
  for i in $(seq 0 39); do echo "$(awk "BEGIN{print $i * 0.25}"),256,32"; done
} >"$dir/every.csv"
run=(serve gpt2-xl --target mesh_tenstorrent --chip wormhole-n300 --parallel dp=2 --max-batch 4
  --trace "$dir/every.csv" --router round-robin)

"$tessera" "${run[@]}" --per-request "$dir/requests.csv" >"$dir/text.out" 2>&1 ||
  fail "serve: $(cat "$dir/text.out")"
grep -q "on each of 2 replicas, routed round-robin" "$dir/text.out" || fail "no router: $(cat "$dir/text.out")"
grep -Eq "^replica 0  20 requests, busy [0-9.]+ %" "$dir/text.out" || fail "no replica 0 line"
grep -Eq "^replica 1  20 requests, busy [0-9.]+ %" "$dir/text.out" || fail "no replica 1 line"
/usr/bin/python3 - "$dir/requests.csv" <<'PY'
import csv, sys
rows = {int(r["id"]): r for r in csv.DictReader(open(sys.argv[1]))}
assert len(rows) == 40, len(rows)
for k in range(20):
    a, b = rows[2 * k], rows[2 * k + 1]
    for key in ("ttft_s", "tpot_s"):
        x, y = float(a[key]), float(b[key])
        assert abs(x - y) <= 1e-9 * x, (k, key, x, y)
PY
"$tessera" "${run[@]}" --format json >"$dir/doc.json" 2>"$dir/doc.err" || fail "json: $(cat "$dir/doc.err")"
/usr/bin/python3 - "$dir/doc.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "tessera-serve-5", doc["format"]
assert doc["router"] == "round-robin", doc["router"]
assert doc["kv"]["replicas"] == 2, doc["kv"]
assert [r["requests"] for r in doc["replicas"]] == [20, 20], doc["replicas"]
assert all(0 < r["busy"] <= 1 for r in doc["replicas"]), doc["replicas"]
PY
echo "serve replicas: ok"
