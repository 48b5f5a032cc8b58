#!/usr/bin/env bash
# simulate_trace.sh TESSERA DIR — `tessera simulate --trace` writes valid Chrome-trace JSON with the
# execute, preload_async and execute-stage tracks, a counter per link class and one of power; it
# never overwrites an existing file without --force. DIR holds simulate_setup.sh's plan.
set -euo pipefail
tessera=$1
dir=$2
trace=$dir/trace.json
rm -f "$trace"
"$tessera" simulate "$dir/plan.yaml" --trace "$trace" >/dev/null
"$tessera" simulate "$dir/plan.yaml" --format json >"$dir/trace_energy.json"
python3 - "$trace" "$dir/trace_energy.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
# The power counter (docs/energy.md): its buckets' energies sum to the step's energy.
energy = json.load(open(sys.argv[2]))["energy"]["energy_j"]
power = sorted((e["ts"], e["args"]["watts"]) for e in events if e["name"] == "power (W)")
assert len(power) > 2 and all(w > 0 for _, w in power), power[:3]
bucket_s = (power[1][0] - power[0][0]) / 1e6
assert abs(sum(w for _, w in power) * bucket_s - energy) <= 1e-6 * energy, (sum(w for _, w in power) * bucket_s, energy)
threads = [e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
want = ["execute", "preload_async", "execute stages"]
missing = [t for t in want if t not in threads]
assert not missing, f"missing tracks {missing} in {threads}"
counters = {e["name"] for e in events if e["ph"] == "C"}
assert {"hbm utilisation", "sram-port utilisation", "on-chip utilisation"} <= counters, counters
spans = [e for e in events if e["ph"] == "X"]
assert len(spans) > 611 and all(e["dur"] >= 0 for e in spans), len(spans)
stages = {e["cat"] for e in spans if e["tid"] == threads.index("execute stages")}
assert "compute" in stages and stages & {"shift", "reduce"}, stages
PY
if "$tessera" simulate "$dir/plan.yaml" --trace "$trace" >/dev/null 2>"$dir/err"; then
  echo "FAILED: overwrote an existing trace without --force"; exit 1
fi
grep -q "already exists; pass --force" "$dir/err"
"$tessera" simulate "$dir/plan.yaml" --trace "$trace" --force >/dev/null
echo "ok: trace"
