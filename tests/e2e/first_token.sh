#!/usr/bin/env bash
# first_token.sh TESSERA DIR — a prefill's time to first token as a user sees it: compile's TTFT
# column is the step and the host's read of the logits (Llama 3.1 8B on wormhole-n150: the 32-row
# tile of 128,256 bf16 logits, 8,208,384 B at the chip file's 1.93 GB/s, 4.253 ms); its JSON, the
# reopened plan's `tessera simulate` (text and JSON) and a tensor-parallel prefill say the same.
set -euo pipefail
tessera=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
run=(llama3.1-8b --batch 1 --seq 128 --mode prefill --target mesh_tenstorrent --chip wormhole-n150
  --weight-dtype bfp8 --design vendor --threads 2)
"$tessera" compile "${run[@]}" --simulate -o "$dir/plan" >"$dir/compile.txt"
"$tessera" compile "${run[@]}" --simulate --format json >"$dir/compile.json"
"$tessera" simulate "$dir/plan/plan.yaml" >"$dir/simulate.txt"
"$tessera" simulate "$dir/plan/plan.yaml" --format json >"$dir/simulate.json"
"$tessera" compile llama3.1-8b --batch 1 --seq 128 --mode prefill --target mesh_tenstorrent \
  --chip wormhole-n300 --parallel tp=2 --weight-dtype bfp8 --design vendor --threads 2 --simulate \
  --format json >"$dir/parallel.json"
python3 - "$dir" <<'PY'
import json, re, sys
d = sys.argv[1]
BYTES = 32 * 128256 * 2
HOST_S = BYTES / 1.93e9

def near(a, b, what, tol=1e-9):
    assert abs(a - b) <= tol, f"{what}: {a} against {b}"

c = json.load(open(f"{d}/compile.json"))
assert c["format"] == "tessera-compile-7", c["format"]
ft = c["first_token"]
assert ft["bytes"] == BYTES and ft["rows"] == 32 and ft["bytes_per_s"] == 1.93e9, ft
near(ft["host_s"], HOST_S, "host_s")
vendor = next(x for x in c["designs"] if x["design"] == "vendor")
near(vendor["ttft_s"], vendor["planned"]["latency_s"] + HOST_S, "ttft_s")
near(vendor["simulated_ttft_s"], vendor["simulated_metrics"]["latency_s"] + HOST_S, "simulated_ttft_s")

text = open(f"{d}/compile.txt").read()
row = re.search(r"^vendor +([\d.]+) +([\d.]+) +[\d.]+x ", text, re.M)
assert row, text
near(float(row[2]) - float(row[1]), HOST_S * 1e3, "the TTFT column", 0.0015)
assert ("- TTFT = the step + 4.253 ms on the host: the logits read back (32 rows per user, "
        "7.8 MiB) at 1.93 GB/s (the chip file's host section)\n") in text, text

s = json.load(open(f"{d}/simulate.json"))
assert s["first_token"] == ft, s["first_token"]
near(s["ttft_s"], s["latency_s"] + HOST_S, "simulate's ttft_s")
sim = open(f"{d}/simulate.txt").read()
ttft = re.search(r"^ttft +([\d.]+) ms$", sim, re.M)
assert ttft, sim
near(float(ttft[1]), (s["latency_s"] + HOST_S) * 1e3, "simulate's ttft line", 0.006)

p = json.load(open(f"{d}/parallel.json"))
assert p["format"] == "tessera-parallel-4" and p["first_token"] == ft, p["first_token"]
step = p["designs"][0]
near(step["simulated_ttft_s"], step["simulated_step_s"] + HOST_S, "parallel simulated_ttft_s")
PY
