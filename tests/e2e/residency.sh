#!/usr/bin/env bash
# residency.sh TESSERA DIR — `--residency auto` as a user meets it: compile writes the residency
# block and each resident op's home into plan.yaml and "residency" into its JSON; simulate reads
# them back, prints the residency line and what the simulator did with the resident tensors, and
# its JSON carries the same record; a plan edited so an op's home exceeds the plan's residency is
# refused with the field and what to do.
set -euo pipefail
tessera=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAILED: $*"; exit 1; }
# GPT-2 XL decode on one IPU Mk2: some weights and KV caches pay to stay, others do not fit.
small=(gpt2-xl --batch 1 --seq 264 --target ipu_alltoall --chip ipu-mk2 --design elk-dyn
  --threads 2)

"$tessera" compile "${small[@]}" --residency auto --format json -o "$dir/auto" \
  >"$dir/compile.json" 2>"$dir/err" || fail "compile --residency auto: $(cat "$dir/err")"
plan=$dir/auto/plan.yaml
grep -q '^residency:$' "$plan" || fail "no residency: block in plan.yaml"
grep -q '^  mode: auto$' "$plan" || fail "the residency block does not say mode: auto"
grep -Eq '^  bytes_per_core: [0-9.e+]+$' "$plan" || fail "the residency block has no bytes_per_core"
grep -Eq '^    home: \{bytes_per_core: [0-9.e+]+, distribute_bytes: ' "$plan" ||
  fail "no resident op has a home: in plan.yaml"

"$tessera" simulate "$plan" >"$dir/simulate.txt" 2>&1 || fail "simulate: $(cat "$dir/simulate.txt")"
grep -Eq "^residency  auto: [0-9.]+ KiB of each core's 624.0 KiB of SRAM holds [0-9]+ of [0-9]+ candidates across steps" \
  "$dir/simulate.txt" || fail "no residency line: $(cat "$dir/simulate.txt")"
grep -qF "  (simulated: no preload, off-chip read or write for the resident tensors; their ops move them from their homes as a distribution)" \
  "$dir/simulate.txt" || fail "no note of what was simulated: $(cat "$dir/simulate.txt")"
"$tessera" simulate "$plan" --format json >"$dir/simulate.json"

# The compile and simulate documents carry the record plan.yaml holds.
python3 - "$dir" "$plan" <<'PY'
import json, re, sys
d, plan = sys.argv[1], sys.argv[2]
compiled = json.load(open(f"{d}/compile.json"))
simulated = json.load(open(f"{d}/simulate.json"))
r = compiled["residency"]
assert r["mode"] == "auto", r["mode"]
assert r == simulated["residency"], "compile and simulate disagree on the residency"
text = open(plan).read()
written = float(re.search(r"^  bytes_per_core: (\S+)$", text, re.M).group(1))
assert r["bytes_per_core"] == written > 0, (r["bytes_per_core"], written)
homes = len(re.findall(r"^    home: ", text, re.M))
resident = sum(u["resident"] for u in r["units"])
assert homes > 0 and resident > 0 and resident < len(r["units"]), (homes, resident)
PY

# An op whose home is larger than every resident op's homes together: no compile writes that.
first=$(grep -n -m1 '^    home: ' "$plan" | cut -d: -f1)
op=$(head -n "$first" "$plan" | grep '^  - op: ' | tail -1 | sed 's/^  - op: //')
total=$(grep -m1 '^  bytes_per_core: ' "$plan" | sed 's/^  bytes_per_core: //')
sed "${first}s/home: {bytes_per_core: [^,]*,/home: {bytes_per_core: 900000,/" "$plan" \
  >"$dir/auto/too_large_home.yaml"
code=0
"$tessera" simulate "$dir/auto/too_large_home.yaml" >/dev/null 2>"$dir/err" || code=$?
[[ $code == 3 ]] || fail "exit $code for a home beyond the residency, expected 3: $(cat "$dir/err")"
want="error: $dir/auto/too_large_home.yaml: ops[$op].home.bytes_per_core: 900000, but residency.bytes_per_core is $(printf '%g' "$total") (the homes of every resident op together); no compile writes it — re-run tessera compile"
[[ $(cat "$dir/err") == "$want" ]] || fail "message: $(cat "$dir/err")
expected: $want"
echo "ok: residency round trips"
