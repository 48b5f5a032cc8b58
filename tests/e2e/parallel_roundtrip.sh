#!/usr/bin/env bash
# parallel_roundtrip.sh TESSERA DIR — a strategy's compile written, re-read, simulated and traced:
# compile --parallel -o writes parallel.yaml and each stage's plan; simulate parallel.yaml composes
# the step within 5 % of compile's planned figure; --trace writes one process per chip; a stage
# plan simulates on its own, on one chip; writing again without --force is refused; a collective
# recorded otherwise than the strategy prices it is refused.
set -euo pipefail
tessera=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAILED: $*"; exit 1; }
args=(llama3.1-8b --batch 1 --seq 256 --weight-dtype bfp8 --target mesh_tenstorrent
  --chip wormhole-t3000 --parallel pp=2,tp=4 --threads 2)

"$tessera" compile "${args[@]}" -o "$dir/out" >"$dir/compile.out" 2>&1 ||
  fail "compile: $(cat "$dir/compile.out")"
for f in parallel.yaml stage-0.yaml stage-1.yaml; do
  [[ -f "$dir/out/$f" ]] || fail "no $f: $(ls "$dir/out")"
done
grep -q '^  one_chip_of: 8$' "$dir/out/stage-0.yaml" || fail "stage-0.yaml records no one_chip_of"
grep -q '^  shard: {tp: 4, ep: 1, first_layer: 16, last_layer: 32, embedding: 0, head: 1}$' "$dir/out/stage-1.yaml" ||
  fail "stage-1.yaml's shard: $(grep shard "$dir/out/stage-1.yaml")"

"$tessera" simulate "$dir/out/parallel.yaml" --trace "$dir/trace.json" >"$dir/sim.out" 2>&1 ||
  fail "simulate parallel.yaml: $(cat "$dir/sim.out")"
planned=$(awk '$1 == "elk-full" {print $2; exit}' "$dir/compile.out")
again=$(awk '$1 == "elk-full" {print $2; exit}' "$dir/sim.out")
simulated=$(awk '$1 == "elk-full" {print $6; exit}' "$dir/sim.out")
[[ -n $planned && -n $simulated && $simulated != "-" ]] ||
  fail "no figures: compile '$planned', simulate '$simulated': $(cat "$dir/sim.out")"
[[ $planned == "$again" ]] || fail "planned step $again ms re-read, compile planned $planned ms"
awk -v a="$planned" -v b="$simulated" 'BEGIN { d = (b - a) / a; exit !(d < 0.05 && d > -0.05) }' ||
  fail "simulated $simulated ms is not within 5 % of the planned $planned ms"

python3 - "$dir/trace.json" <<'PY' || fail "trace.json"
import json, sys
trace = json.load(open(sys.argv[1]))
names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
assert names == {f"chip {c}" for c in range(8)}, names
slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
assert any(e["cat"] == "stage" for e in slices) and any(e["cat"] == "collective" for e in slices)
PY

# A stage's plan is an ordinary plan: it simulates alone, on one chip of the machine. Its
# collectives are ops of its program: listed under the op they follow, waited in its execute
# (program.txt's collective_s), shown on the execute track of its trace.
"$tessera" simulate "$dir/out/stage-1.yaml" --program "$dir/stage.txt" \
  --trace "$dir/stage.json" >"$dir/stage.out" 2>&1 ||
  fail "simulate stage-1.yaml: $(cat "$dir/stage.out")"
grep -q '^latency ' "$dir/stage.out" || fail "no latency: $(cat "$dir/stage.out")"
grep -q -- '- {after: layers.16.o_proj, where: after attention, kind: all_reduce' \
  "$dir/out/stage-1.yaml" || fail "stage-1.yaml lists no all-reduce after layers.16.o_proj"
grep -q '^execute [0-9]* "layers.16.o_proj" .* collective_s=' "$dir/stage.txt" ||
  fail "program.txt: no collective_s on layers.16.o_proj's execute"
python3 - "$dir/stage.json" <<'PY' || fail "stage.json"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
execute = [e["tid"] for e in events if e["name"] == "thread_name" and e["args"]["name"] == "execute"]
spans = [e for e in events if e["ph"] == "X" and e.get("cat") == "collective"]
# The 16 layers' two all-reduces and the LM head's all-gather, on the execute track.
assert len(spans) == 33 and {e["tid"] for e in spans} == set(execute), (len(spans), execute)
PY

# Nothing a user has is overwritten without --force: the plans, the trace.
code=0
"$tessera" compile "${args[@]}" -o "$dir/out" >/dev/null 2>"$dir/err" || code=$?
[[ $code != 0 ]] || fail "compile -o over an existing parallel compile succeeded"
grep -q "already exists" "$dir/err" || fail "message: $(cat "$dir/err")"
code=0
"$tessera" simulate "$dir/out/parallel.yaml" --trace "$dir/trace.json" >/dev/null 2>"$dir/err" ||
  code=$?
[[ $code != 0 ]] || fail "simulate --trace over an existing trace succeeded"
"$tessera" simulate "$dir/out/parallel.yaml" --trace "$dir/trace.json" --force >/dev/null 2>&1 ||
  fail "simulate --trace --force"

# A collective recorded otherwise than the strategy prices it now is refused, the field and the
# stage named: in a stage plan (the first all-reduce after layer 16's attention, its planned
# seconds), in parallel.yaml (stage 0's after-attention record, its algorithm).
refused() {  # refused WHAT FILE MESSAGE: simulate exits 3 with exactly MESSAGE
  local code=0
  "$tessera" simulate "$2" >/dev/null 2>"$dir/err" || code=$?
  [[ $code == 3 ]] || fail "$1: exit $code, expected 3"
  [[ $(cat "$dir/err") == "$3" ]] || fail "$1: message: $(cat "$dir/err")"
}
rm -rf "$dir/tampered" && cp -r "$dir/out" "$dir/tampered"
seconds=$(grep -o -m1 'where: after attention, .* planned_s: [^,]*' "$dir/out/stage-1.yaml" |
  sed 's/.*planned_s: //')
sed -i "0,/planned_s: $seconds/s//planned_s: 7e-06/" "$dir/tampered/stage-1.yaml"
refused "a stage plan's planned_s" "$dir/tampered/parallel.yaml" \
  "error: $dir/tampered/stage-1.yaml: ops[11].collectives[0].planned_s: 7e-06, but stage 1's 'after attention' is priced at $seconds now — re-run tessera compile --parallel"
cp "$dir/out/stage-1.yaml" "$dir/tampered/stage-1.yaml"
sed -i '0,/where: after attention, kind: all_reduce, algorithm: direct/s//where: after attention, kind: all_reduce, algorithm: ring/' \
  "$dir/tampered/parallel.yaml"
refused "parallel.yaml's algorithm" "$dir/tampered/parallel.yaml" \
  "error: $dir/tampered/parallel.yaml: collectives[1].algorithm: ring, but stage 0's 'after attention' runs direct now — re-run tessera compile --parallel"

# A stage plan that is gone is named by the field of parallel.yaml that names it.
rm "$dir/out/stage-1.yaml"
code=0
"$tessera" simulate "$dir/out/parallel.yaml" >/dev/null 2>"$dir/err" || code=$?
[[ $code == 3 ]] || fail "exit $code for a missing stage plan, expected 3"
grep -q "^error: $dir/out/parallel.yaml: stages\[1\].plan: " "$dir/err" ||
  fail "message: $(cat "$dir/err")"
echo "ok: parallel compiles round trip"
